// The fuzz campaign: malformed and hostile AdmissionReviews made by mutating real ones (the public
// policy cases and the object builders), sent over real HTTPS on a keep-alive agent to a server
// with a realistic static state, each answer checked by an oracle that shares none of the server's
// decoding code:
//
// - no 5xx, unless evaluate() itself throws on the same request (it should not);
// - a plain (non-review) answer only as a 4xx;
// - a body that is not a clean review (media type, coding, bytes, JSON, nesting, prototype keys,
//   envelope, request fields) is never allowed;
// - a clean review of a policed kind gets exactly what evaluate(), called directly on the same
//   request with the same state, config and clock, decides; an unpoliced one is allowed;
// - the uid of a clean review is echoed.
//
// Deterministic from its seed: case i is made from rng(seed, i) alone, so a failure names the seed
// and the case, and `FUZZ_SEED=<seed>` replays the run. Used by test/server/fuzz.test.ts (10,000
// reviews) and bench/fuzz.js (long campaigns).
import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import https from 'node:https';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { loadStaticState } from '../../src/cluster/static-state.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { isPolicedKind, parsePolicedObject } from '../../src/api/parse.js';
import type { PolicyRequest } from '../../src/policy/rule.js';
import type { Operation, PolicedObject } from '../../src/api/types.js';
import { caseState, loadCases } from './cases.js';
import { cloudProfile, config as testConfig, image, namespacedProfile, NOW, shoot } from './objects.js';
import { review, startServer, type TestServer } from './server.js';

export interface FuzzOptions {
  count: number;
  seed: number;
  /** Requests in flight at once. */
  concurrency?: number;
  /** Failures kept in full (all are counted). */
  keep?: number;
  onProgress?: (done: number) => void;
}

export interface FuzzResult {
  seed: number;
  sent: number;
  failures: string[];
  failureCount: number;
  /** How the answers fell: allowed, denied 403, refused 400/415 in a review, plain 4xx, ... */
  outcomes: Record<string, number>;
  /** Cases where evaluate() itself threw (then a 500 is the right answer). */
  ruleThrows: number;
  /** Heap after a full GC: after warm-up, and at the end. */
  heapStartBytes: number;
  heapEndBytes: number;
  elapsedMs: number;
}

/** mulberry32 on a seed mixed with the case index. */
export function rng(seed: number, index = 0): () => number {
  let a = (seed ^ Math.imul(index + 1, 0x9e3779b9)) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;
const pick = <T>(r: Random, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const chance = (r: Random, p: number) => r() < p;

/** A full GC, for heap figures (V8's flag set at run time, then gc() from a fresh context). */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

// ---------------------------------------------------------------------------------------------
// Seeds: real requests and a realistic state.

interface Seed {
  operation: Operation;
  object?: PolicedObject;
  oldObject?: PolicedObject;
}

/** A seed as review text (uid and dryRun filled in per case): JSON.parse gives each case a fresh tree, faster than a clone. */
interface SeedText {
  text: string;
}

function seeds(): Seed[] {
  const out: Seed[] = [];
  for (const c of loadCases()) {
    out.push({
      operation: c.operation,
      ...(c.object ? { object: c.object } : {}),
      ...(c.oldObject ? { oldObject: c.oldObject } : {}),
    });
  }
  const aws = cloudProfile({
    name: 'aws',
    kubernetes: ['1.30.14', '1.31.7', '1.32.5'],
    images: [image('gardenlinux', ['1592.4.0', '1877.2.0'])],
  });
  out.push({ operation: 'CREATE', object: aws });
  out.push({ operation: 'UPDATE', object: cloudProfile({ name: 'aws', kubernetes: ['1.32.5'] }), oldObject: aws });
  out.push({ operation: 'DELETE', oldObject: aws });
  out.push({ operation: 'CREATE', object: namespacedProfile({ name: 'ncp', parent: 'aws', kubernetes: ['1.31.7'] }) });
  out.push({
    operation: 'UPDATE',
    object: shoot({ name: 'dev-cluster', namespace: 'garden-dev', profile: 'aws', version: '1.30.14' }),
    oldObject: shoot({ name: 'dev-cluster', namespace: 'garden-dev', profile: 'aws', version: '1.31.7' }),
  });
  return out;
}

/** The demo state plus every object the public cases assume, last one winning per key. */
async function fuzzState() {
  const demo = new URL('../fixtures/demo-state.yaml', import.meta.url).pathname;
  const state = await loadStaticState([demo]);
  for (const c of loadCases()) for (const o of caseState(c)) state.upsert(structuredClone(o));
  return state;
}

// ---------------------------------------------------------------------------------------------
// Mutations.

interface Case {
  path: '/validate' | '/mutate';
  body: Buffer;
  headers: Record<string, string>;
  mutations: string[];
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/**
 * A [container, key] of a JSON tree (the root excluded), each equally likely: one walk with
 * reservoir sampling, without recursion (trees nest 3,000 deep) and without listing every slot.
 */
function randomSlot(r: Random, root: Json): [Record<string, Json> | Json[], string | number] {
  let chosen: [Record<string, Json> | Json[], string | number] = [{ root }, 'root'];
  let seen = 0;
  const offer = (container: Record<string, Json> | Json[], key: string | number) => {
    if (r() * ++seen < 1) chosen = [container, key];
  };
  const pending: Json[] = [root];
  const seenNodes = new Set<Json>();
  while (pending.length > 0) {
    const node = pending.pop()!;
    // Copies share their value: walk each node once.
    if (node !== null && typeof node === 'object') {
      if (seenNodes.has(node)) continue;
      seenNodes.add(node);
    }
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        offer(node, i);
        pending.push(node[i]!);
      }
    } else if (node !== null && typeof node === 'object') {
      for (const k in node) {
        offer(node, k);
        pending.push(node[k]!);
      }
    }
  }
  return chosen;
}

const get = (c: Record<string, Json> | Json[], k: string | number): Json => (c as Record<string | number, Json>)[k]!;
const set = (c: Record<string, Json> | Json[], k: string | number, v: Json) =>
  void ((c as Record<string | number, Json>)[k] = v);

const STRANGE_STRINGS = [
  '',
  ' ',
  '1.31',
  'v1.31.0',
  '1.31.0-rc.1',
  '01.31.0',
  '1.31.0+build',
  '99999999999999999999.0.0',
  '-1.0.0',
  'ⅰ.ⅱ.ⅲ',
  'null',
  'true',
  '{}',
  'Ünïcödé 世界 😀',
  '\u202egnp.exe',
  '\u0000',
  '\ud800',
  'a'.repeat(300),
  '__proto__',
  'constructor',
  '2026-13-45T99:99:99Z',
  'CREATE',
  'Shoot',
];

function nested(depth: number): Json {
  let v: Json = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

/** One structural mutation of the review object. Returns its name. */
function mutateValue(r: Random, root: { [k: string]: Json }): string {
  const [container, key] = randomSlot(r, root);
  const value = get(container, key);
  switch (Math.floor(r() * 9)) {
    case 0:
      if (Array.isArray(container)) container.splice(key as number, 1);
      else delete container[key as string];
      return `remove ${String(key)}`;
    case 1: {
      const swapped: Json[] = [null, true, 0, -1.5, 1e308, '', '7', [], {}, [value], { value }];
      set(container, key, pick(r, swapped));
      return `swap type of ${String(key)}`;
    }
    case 2:
      set(container, key, pick(r, STRANGE_STRINGS));
      return `strange string at ${String(key)}`;
    case 3:
      set(container, key, 'x'.repeat(pick(r, [1024, 16 * 1024, 64 * 1024])));
      return `long string at ${String(key)}`;
    case 4: {
      const depth = pick(r, [20, 300, 995, 1001, 3000]);
      set(container, key, nested(depth));
      return `nest ${depth} at ${String(key)}`;
    }
    case 5:
      if (typeof value === 'number') set(container, key, String(value));
      else if (typeof value === 'string' && value !== '' && !Number.isNaN(Number(value)))
        set(container, key, Number(value));
      else if (typeof value === 'boolean') set(container, key, String(value));
      else set(container, key, 42);
      return `number/string flip at ${String(key)}`;
    case 6:
      if (Array.isArray(value) && value.length > 0) {
        value.push(pick(r, value)); // shared, not cloned: the tree is only serialised
        return `duplicate an element of ${String(key)}`;
      }
      set(container, key, [value, value]);
      return `doubled ${String(key)}`;
    case 7: {
      // Many copies, but never a body past a few MiB: big values get few copies.
      const size = JSON.stringify(value)?.length ?? 4;
      const copies = Math.max(
        2,
        Math.min(pick(r, [100, 2000]), Math.floor((size < 2048 ? 2_000_000 : 100_000) / size)),
      );
      const many = Array.from({ length: copies }, (_, i) =>
        typeof value === 'object' && value !== null ? value : `${String(value)}-${i}`,
      );
      set(container, key, many);
      return `many copies at ${String(key)}`;
    }
    default:
      set(container, key, typeof value === 'string' ? `${value}${pick(r, STRANGE_STRINGS)}` : pick(r, STRANGE_STRINGS));
      return `unicode at ${String(key)}`;
  }
}

/** A mutation of the envelope or request fields that decide how a review is read. */
function mutateEnvelope(r: Random, review: { [k: string]: Json }): string {
  if (!isRecord(review.request)) {
    review.apiVersion = 'admission.k8s.io/v1beta1';
    return 'apiVersion';
  }
  const request = review.request;
  switch (Math.floor(r() * 10)) {
    case 0:
      review.apiVersion = pick(r, ['admission.k8s.io/v1beta1', 'admission.k8s.io/v2', '', 1]);
      return 'apiVersion';
    case 1:
      review.kind = pick(r, ['ConversionReview', 'admissionreview', null]);
      return 'kind';
    case 2:
      request.uid = pick(r, ['', 7, null, 'u'.repeat(257), 'u'.repeat(256), `${randomUUID()}\u0000`, ['x']]);
      return 'uid';
    case 3:
      delete request.uid;
      return 'no uid';
    case 4:
      request.operation = pick(r, ['CONNECT', 'create', '', 'PATCH', 3]);
      return 'operation';
    case 5:
      request.kind = {
        group: pick(r, ['core.gardener.cloud', 'apps', '']),
        version: pick(r, ['v1beta1', 'v1']),
        kind: pick(r, ['Shoot', 'CloudProfile', 'NamespacedCloudProfile', 'Deployment', 'shoot']),
      };
      return 'request kind';
    case 6:
      request.dryRun = pick(r, [true, 'true', 1, null]);
      return 'dryRun';
    case 7:
      request.userInfo = pick<Json>(r, ['alice', { username: 7 }, { username: 'x'.repeat(5000) }, null]);
      return 'userInfo';
    case 8:
      [request.object, request.oldObject] = [request.oldObject ?? null, request.object ?? null];
      return 'objects swapped';
    default:
      review.request = pick<Json>(r, [null, [], 'request', { uid: request.uid ?? 'u' }]);
      return 'request replaced';
  }
}

/** A text-level mutation: what no JSON value can express. */
function mutateText(r: Random, text: string): [string, string] {
  const at = Math.floor(r() * text.length);
  const found = text.lastIndexOf('{', at);
  const brace = found >= 0 ? found : Math.max(0, text.indexOf('{'));
  switch (Math.floor(r() * 7)) {
    case 0:
      return [text.slice(0, at), 'truncated'];
    case 1:
      return [`${text.slice(0, brace + 1)}"__proto__":{"allowed":true},${text.slice(brace + 1)}`, '__proto__ key'];
    case 2:
      return [
        `${text.slice(0, brace + 1)}"constructor":{"prototype":{"allowed":true}},${text.slice(brace + 1)}`,
        'constructor.prototype key',
      ];
    case 3:
      return [`${text.slice(0, brace + 1)}"\\u005f_proto__":1,${text.slice(brace + 1)}`, 'escaped __proto__ key'];
    case 4: {
      // A key repeated: JSON.parse keeps the last one.
      const keyAt = text.indexOf('"operation"');
      return keyAt < 0
        ? [text, 'no change']
        : [`${text.slice(0, keyAt)}"operation":"DELETE",${text.slice(keyAt)}`, 'duplicate key'];
    }
    case 5:
      return [
        `${text.slice(0, at)}${pick(r, [',', ']', '}', '"', '\\', 'NaN', '\n', '/*x*/'])}${text.slice(at)}`,
        'garbage character',
      ];
    default:
      return [text.replace('"uid":', '"uid" :  '), 'whitespace'];
  }
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
  'text/plain',
  'application/yaml',
  'application/json; charset=latin1',
  'multipart/form-data; boundary=x',
  '',
];
const ENCODINGS = ['gzip', 'deflate', 'br', 'compress', 'identity'];

function seedTexts(list: readonly Seed[]): SeedText[] {
  return list.map((s) => ({
    text: JSON.stringify(
      review({
        operation: s.operation,
        ...(s.object ? { object: s.object } : {}),
        ...(s.oldObject ? { oldObject: s.oldObject } : {}),
        uid: 'uid',
      }),
    ),
  }));
}

function makeCase(seedList: readonly SeedText[], seed: number, index: number): Case {
  const r = rng(seed, index);
  const base = JSON.parse(pick(r, seedList).text) as { [k: string]: Json };
  const request = base.request as { [k: string]: Json };
  request.uid = `fuzz-${index}`;
  request.dryRun = chance(r, 0.2);
  const mutations: string[] = [];
  // One review in ten goes unmutated: the differential oracle must see plenty of clean ones.
  if (!chance(r, 0.1)) {
    const n = 1 + Math.floor(r() * 3);
    for (let i = 0; i < n; i++) {
      const kind = r();
      mutations.push(kind < 0.6 ? mutateValue(r, base) : kind < 0.85 ? mutateEnvelope(r, base) : 'text');
    }
  }
  let text: string;
  try {
    text = JSON.stringify(base);
  } catch {
    // Nesting stacked on nesting can exceed JSON.stringify's own stack: write it as text instead.
    const plain = JSON.parse(pick(r, seedList).text) as { request: { uid: string } };
    plain.request.uid = `fuzz-${index}`;
    text = JSON.stringify(plain).replace('"request":{', `"request":{"deep":${'['.repeat(6000)}${']'.repeat(6000)},`);
    mutations.splice(0, mutations.length, 'nest 6000 (as text)');
  }
  // Doubling a doubled value can still grow a body: keep each within the body limit's reach.
  if (text.length > 8_000_000) {
    text = text.slice(0, 8_000_000);
    mutations.push('cut at 8 MB');
  }
  for (let i = 0; i < mutations.length; i++) {
    if (mutations[i] !== 'text') continue;
    const [next, name] = mutateText(r, text);
    text = next;
    mutations[i] = name;
  }
  let body = Buffer.from(text);
  if (chance(r, 0.04)) {
    body = Buffer.concat([
      body.subarray(0, Math.floor(r() * body.length)),
      Buffer.from([pick(r, [0xff, 0xc3, 0xe2, 0x80])]),
      body.subarray(Math.floor(r() * body.length)),
    ]);
    mutations.push('invalid UTF-8 byte');
  }
  const headers: Record<string, string> = {
    'content-type': chance(r, 0.9) ? 'application/json' : pick(r, CONTENT_TYPES),
  };
  if (headers['content-type'] === '') delete headers['content-type'];
  if (headers['content-type'] !== 'application/json')
    mutations.push(`content type ${headers['content-type'] ?? 'none'}`);
  if (chance(r, 0.04)) {
    const encoding = pick(r, ENCODINGS);
    headers['content-encoding'] = encoding;
    if (encoding === 'gzip') body = gzipSync(body);
    mutations.push(`encoding ${encoding}`);
  }
  return { path: chance(r, 0.5) ? '/validate' : '/mutate', body, headers, mutations };
}

// ---------------------------------------------------------------------------------------------
// The oracle: what the answer must be, from the bytes and headers alone.

type Expectation =
  /** Not a clean review: never allowed; a plain answer only as a 4xx. */
  | { clean: false }
  /** A clean review: uid echoed, and `allowed` exactly this (or a 500 when evaluate throws). */
  | { clean: true; uid: string; allowed: boolean; throws: boolean };

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function jsonMediaType(type: string | undefined): boolean {
  if (type === undefined) return false;
  const [media, ...params] = type.split(';').map((p) => p.trim().toLowerCase());
  return (
    media === 'application/json' &&
    params.every((p) => !p.startsWith('charset=') || p === 'charset=utf-8' || p === 'charset=utf8')
  );
}

/** Depth of the deepest container (the root is 1), and whether a prototype key appears. */
function shape(root: unknown): { depth: number; prototypeKey: boolean } {
  let depth = 0;
  const pending: Array<[unknown, number]> = [[root, 1]];
  while (pending.length > 0) {
    const [node, d] = pending.pop()!;
    if (node === null || typeof node !== 'object') continue;
    depth = Math.max(depth, d);
    if (!Array.isArray(node)) {
      if (Object.prototype.hasOwnProperty.call(node, '__proto__')) return { depth, prototypeKey: true };
      const ctor = Object.prototype.hasOwnProperty.call(node, 'constructor')
        ? (node as { constructor: unknown }).constructor
        : undefined;
      if (isRecord(ctor) && Object.prototype.hasOwnProperty.call(ctor, 'prototype'))
        return { depth, prototypeKey: true };
    }
    for (const child of Object.values(node)) pending.push([child, d + 1]);
  }
  return { depth, prototypeKey: false };
}

const optionalString = (v: unknown) => v === undefined || typeof v === 'string';

function requestWellFormed(req: Record<string, unknown>): boolean {
  const kind = req.kind;
  return (
    isRecord(kind) &&
    typeof kind.group === 'string' &&
    typeof kind.version === 'string' &&
    typeof kind.kind === 'string' &&
    kind.kind !== '' &&
    typeof req.operation === 'string' &&
    req.operation !== '' &&
    optionalString(req.name) &&
    optionalString(req.namespace) &&
    optionalString(req.subResource) &&
    (req.dryRun === undefined || typeof req.dryRun === 'boolean') &&
    (req.userInfo === undefined || (isRecord(req.userInfo) && optionalString(req.userInfo.username)))
  );
}

interface OracleContext {
  config: ReturnType<typeof testConfig>;
  state: Awaited<ReturnType<typeof fuzzState>>;
}

function expectation(c: Case, ctx: OracleContext): Expectation {
  if (
    !jsonMediaType(c.headers['content-type']) ||
    (c.headers['content-encoding'] ?? 'identity') !== 'identity' ||
    c.body.length === 0 ||
    !isUtf8(c.body)
  )
    return { clean: false };
  let body: unknown;
  try {
    body = JSON.parse(c.body.toString('utf8'));
  } catch {
    return { clean: false };
  }
  const { depth, prototypeKey } = shape(body);
  if (depth > 1000 || prototypeKey) return { clean: false };
  if (
    !isRecord(body) ||
    body.apiVersion !== 'admission.k8s.io/v1' ||
    body.kind !== 'AdmissionReview' ||
    !isRecord(body.request)
  )
    return { clean: false };
  const req = body.request;
  if (typeof req.uid !== 'string' || req.uid.length === 0 || req.uid.length > 256) return { clean: false };
  const uid = req.uid;
  if (!requestWellFormed(req)) return { clean: true, uid, allowed: false, throws: false };
  const kind = (req.kind as Record<string, string>).kind;
  const operation = req.operation as string;
  if (
    (req.kind as Record<string, string>).group !== 'core.gardener.cloud' ||
    !isPolicedKind(kind) ||
    !['CREATE', 'UPDATE', 'DELETE'].includes(operation)
  )
    return { clean: true, uid, allowed: true, throws: false };
  // The same request the adapter should build, built here from the policy core's own parser.
  const parsed = (raw: unknown, required: boolean): PolicedObject | undefined | false => {
    if (raw === undefined || raw === null) return required ? false : undefined;
    const p = parsePolicedObject(kind, raw);
    return p.ok ? p.object : false;
  };
  const object = parsed(req.object, operation !== 'DELETE');
  const oldObject = parsed(req.oldObject, operation === 'UPDATE');
  if (object === false || oldObject === false) return { clean: true, uid, allowed: false, throws: false };
  if (c.path === '/mutate' && operation === 'DELETE') return { clean: true, uid, allowed: true, throws: false };
  const meta = (object ?? oldObject)?.metadata;
  const namespace = (req.namespace as string | undefined) || meta?.namespace;
  const username = isRecord(req.userInfo) ? req.userInfo.username : undefined;
  const request: PolicyRequest = {
    operation: operation as Operation,
    kind,
    name: meta?.name ?? (req.name as string | undefined) ?? '',
    ...(namespace ? { namespace } : {}),
    ...(object && operation !== 'DELETE' ? { object } : {}),
    ...(oldObject ? { oldObject } : {}),
    dryRun: req.dryRun === true,
    ...(typeof username === 'string' && username ? { user: username } : {}),
  };
  try {
    return {
      clean: true,
      uid,
      allowed: evaluate(request, { now: NOW, config: ctx.config, state: ctx.state }).allowed,
      throws: false,
    };
  } catch {
    return { clean: true, uid, allowed: false, throws: true };
  }
}

// ---------------------------------------------------------------------------------------------
// Sending and judging.

interface Answer {
  status: number;
  text: string;
}

function send(s: TestServer, agent: https.Agent, c: Case): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port: s.port,
        method: 'POST',
        path: c.path,
        ca: s.authority.ca.certPem,
        agent,
        headers: { ...c.headers, 'content-length': String(c.body.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(c.body);
  });
}

/** Why the answer is wrong (empty when right), and its outcome class. */
function judge(answer: Answer, expected: Expectation): { problems: string[]; outcome: string } {
  const problems: string[] = [];
  let reply: { response?: { uid?: unknown; allowed?: unknown; status?: { code?: number } } } | undefined;
  try {
    reply = JSON.parse(answer.text) as typeof reply;
  } catch {
    problems.push(`answer is not JSON: ${answer.text.slice(0, 100)}`);
  }
  const response = reply?.response;
  const isReview = answer.status === 200 && isRecord(response);
  const code = isReview ? (response.status?.code ?? 200) : answer.status;
  const outcome = !isReview ? `plain ${answer.status}` : response.allowed === true ? 'allowed' : `refused ${code}`;
  if (answer.status >= 500 || code >= 500) {
    if (!(expected.clean && expected.throws)) problems.push(`a ${code} answer`);
  }
  if (!isReview && (answer.status < 400 || answer.status >= 500))
    problems.push(`a plain answer with HTTP ${answer.status}`);
  if (!expected.clean) {
    if (isReview && response.allowed !== false) problems.push('allowed, but the body is not a clean review');
    return { problems, outcome };
  }
  if (!isReview) {
    problems.push(`a clean review got a plain ${answer.status}: ${answer.text.slice(0, 200)}`);
    return { problems, outcome };
  }
  if (response.uid !== expected.uid)
    problems.push(`uid ${JSON.stringify(response.uid)}, sent ${JSON.stringify(expected.uid)}`);
  if (response.allowed !== expected.allowed)
    problems.push(
      `allowed ${String(response.allowed)}, but evaluate() says ${String(expected.allowed)} (code ${code})`,
    );
  return { problems, outcome };
}

export async function runFuzz(opts: FuzzOptions): Promise<FuzzResult> {
  const { count, seed } = opts;
  const concurrency = opts.concurrency ?? 8;
  const keep = opts.keep ?? 20;
  const state = await fuzzState();
  const cfg = { defaulting: { lifecycle: { enabled: true } } };
  const ctx: OracleContext = { config: testConfig(cfg), state };
  const s = await startServer({ state, config: cfg, now: NOW });
  const agent = new https.Agent({ keepAlive: true, maxSockets: concurrency });
  const seedList = seedTexts(seeds());
  const failures: string[] = [];
  let failureCount = 0;
  let ruleThrows = 0;
  const outcomes: Record<string, number> = {};
  const started = Date.now();
  let next = 0;
  let done = 0;
  let heapStartBytes = 0;
  const warmUp = Math.min(500, Math.floor(count / 10));

  const one = async (index: number) => {
    const c = makeCase(seedList, seed, index);
    const expected = expectation(c, ctx);
    if (expected.clean && expected.throws) ruleThrows++;
    let answer: Answer;
    try {
      answer = await send(s, agent, c);
    } catch (err) {
      answer = { status: 0, text: `transport error: ${(err as Error).message}` };
    }
    const { problems, outcome } = judge(answer, expected);
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    if (problems.length > 0) {
      failureCount++;
      if (failures.length < keep)
        failures.push(
          `case ${index} (seed ${seed}; ${c.path}; ${c.mutations.join(', ') || 'unmutated'}): ${problems.join('; ')}`,
        );
    }
  };
  const worker = async () => {
    while (next < count) {
      const index = next++;
      try {
        await one(index);
      } catch (err) {
        next = count; // a broken harness stops the run rather than flood it
        throw new Error(`case ${index} (seed ${seed}): ${(err as Error).stack ?? String(err)}`);
      }
      done++;
      if (done === warmUp) {
        collectGarbage();
        heapStartBytes = process.memoryUsage().heapUsed;
      }
      if (opts.onProgress && done % 10_000 === 0) opts.onProgress(done);
    }
  };
  let heapEndBytes = 0;
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
    // Measured with the server still up, as at the start.
    collectGarbage();
    heapEndBytes = process.memoryUsage().heapUsed;
  } finally {
    agent.destroy();
    await s.close();
  }
  return {
    seed,
    sent: count,
    failures,
    failureCount,
    outcomes,
    ruleThrows,
    heapStartBytes,
    heapEndBytes,
    elapsedMs: Date.now() - started,
  };
}
