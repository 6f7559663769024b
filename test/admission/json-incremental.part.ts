// The incremental parser against JSON.parse: the same value (key order, duplicate keys, -0,
// escapes, surrogates) for every valid text, a refusal for every invalid one, and the nesting
// limit counted as nestsDeeperThan counts. Small batches make every text take the hand-written
// paths (big containers opened, members cut at commas, merged) many times over.
import { gzipSync } from 'node:zlib';
import t from '../helpers/parts.js';
import {
  decodeBody,
  decodeBodyIncrementally,
  decodeEncodedBody,
  INCREMENTAL_BODY_BYTES,
  nestsDeeperThan,
} from '../../src/admission/body.js';
import { parseIncrementally, type IncrementalResult } from '../../src/admission/json-incremental.js';
import { MAX_NESTING_DEPTH } from '../../src/admission/limits.js';
import { cloudProfile } from '../helpers/objects.js';
import { review } from '../helpers/server.js';

/** A small, seeded PRNG (mulberry32): the same inputs on every run. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const NUMBERS = [
  '0',
  '-0',
  '1',
  '-1',
  '0.5',
  '-0.0',
  '1e400',
  '-1e400',
  '1E+2',
  '1e-400',
  '123456789012345678901234567890',
  '9007199254740993',
  '0.1',
  '2.5e-3',
  '1.7976931348623157e308',
  '5e-324',
  '-123.456e+78',
];
const STRINGS = [
  '',
  'a',
  'key',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  '0',
  '1',
  '10',
  '-1',
  '4294967295',
  'ü',
  '世界',
  '😀',
  '\\"',
  '\\\\',
  '\\/',
  '\\b\\f\\n\\r\\t',
  '\\u0000',
  '\\u00e9',
  '\\uD83D\\uDE00',
  '\\uD800',
  '\\uDFFF',
  '\\u005f_proto__',
  'a,b',
  'x]}{[',
  ' : , ',
];
const SPACES = ['', ' ', '\n', '\t', '\r\n  '];

/** A random JSON text (strings are written as their JSON source: escapes stay escapes). */
function generate(rand: () => number, depth: number, maxDepth: number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const ws = () => (rand() < 0.3 ? pick(SPACES) : '');
  const str = () => `"${pick(STRINGS)}${rand() < 0.3 ? pick(STRINGS) : ''}"`;
  const r = rand();
  if (depth >= maxDepth || r < 0.35) {
    const leaf = rand();
    if (leaf < 0.35) return str();
    if (leaf < 0.7) return pick(NUMBERS);
    return pick(['true', 'false', 'null']);
  }
  const n = Math.floor(rand() * (rand() < 0.1 ? 40 : 6));
  const items = Array.from({ length: n }, () => generate(rand, depth + 1, maxDepth));
  if (r < 0.65) {
    // Keys repeat often, to test that the last value wins in the first place.
    const keys = items.map(() => (rand() < 0.3 ? `"k${Math.floor(rand() * 3)}"` : str()));
    return `{${ws()}${items.map((v, i) => `${keys[i]}${ws()}:${ws()}${v}`).join(`${ws()},${ws()}`)}${ws()}}`;
  }
  return `[${ws()}${items.join(`${ws()},${ws()}`)}${ws()}]`;
}

/** A generated text of at most 16 KiB: a longer one takes the same paths, only more often (the big text below takes them at scale). */
function generateSmall(rand: () => number, maxDepth: number): string {
  for (;;) {
    const text = generate(rand, 0, maxDepth);
    if (text.length <= 16_384) return text;
  }
}

/** Deep equality that also checks key order, prototypes and -0. */
function same(a: unknown, b: unknown, path = '$'): string | undefined {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object')
    return Object.is(a, b) ? undefined : `${path}: ${String(a)} vs ${String(b)}`;
  if (Array.isArray(a) !== Array.isArray(b)) return `${path}: array vs object`;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${path}: prototype`;
  const ka = Reflect.ownKeys(a);
  const kb = Reflect.ownKeys(b);
  if (ka.join('\u0000') !== kb.join('\u0000')) return `${path}: keys ${ka.join(',')} vs ${kb.join(',')}`;
  for (const k of ka) {
    const d = same(
      (a as Record<string | symbol, unknown>)[k],
      (b as Record<string | symbol, unknown>)[k],
      `${path}.${String(k)}`,
    );
    if (d) return d;
  }
  return undefined;
}

function hasPrototypeKey(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.some(hasPrototypeKey);
  if (Object.hasOwn(v, '__proto__')) return true;
  const ctor = Object.hasOwn(v, 'constructor') ? (v as { constructor: unknown }).constructor : undefined;
  if (ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')) return true;
  return Object.values(v).some(hasPrototypeKey);
}

const MAX_DEPTH = 12;

/** Compares with JSON.parse; returns what differs, if anything. `yields`: a turn of the loop between pieces. */
async function check(text: string, batchChars: number, yields = true): Promise<string | undefined> {
  let expected: { ok: true; value: unknown } | { ok: false } = { ok: false };
  try {
    expected = { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    // invalid
  }
  const tooDeep = nestsDeeperThan(text, MAX_DEPTH);
  let got: IncrementalResult;
  try {
    got = await parseIncrementally(text, { maxDepth: MAX_DEPTH, batchChars, budgetMs: yields ? 0 : Infinity });
  } catch (e) {
    return `threw ${String(e)}`;
  }
  if (tooDeep) return got.ok || !got.tooDeep ? 'not refused as too deep' : undefined;
  if (!expected.ok) return got.ok ? 'accepted invalid JSON' : got.tooDeep ? 'refused as too deep' : undefined;
  if (!got.ok) return 'refused valid JSON';
  if (hasPrototypeKey(expected.value) && !got.prototypeSuspect) return 'missed a prototype key';
  return same(got.value, expected.value);
}

function mutate(rand: () => number, text: string): string {
  const at = Math.floor(rand() * (text.length + 1));
  const junk = ['', ',', ']', '}', '[', '{', ':', '"', '\\', 'x', '\u0001', ' ', '1', '-', '.', 'e', 'tru', ',]', ',}'][
    Math.floor(rand() * 19)
  ]!;
  switch (Math.floor(rand() * 4)) {
    case 0:
      return text.slice(0, at); // truncated
    case 1:
      return text.slice(0, at) + junk + text.slice(at); // inserted
    case 2:
      return text.slice(0, at) + text.slice(at + 1); // one character gone
    default:
      return text.slice(0, at) + junk + text.slice(at + 1); // one character replaced
  }
}

// 500 valid and 800 mutated texts reach every branch of json-incremental.ts that 1,500 and 2,000
// reached (c8); a quarter of them yield between pieces, the rest run without turning the loop.
const VALID = 500;
const MUTATED = 800;
const YIELDING = 4;
t.test('the same value as JSON.parse, on generated texts and small batches', async (t) => {
  const rand = prng(13);
  let failures = 0;
  for (let i = 0; i < VALID && failures < 5; i++) {
    const text = generateSmall(rand, 1 + Math.floor(rand() * 5));
    const batch = [1, 8, 64, 100_000][i % 4]!;
    const diff = await check(text, batch, i % YIELDING === 0);
    if (diff) {
      failures++;
      t.fail(`${diff} (batch ${batch}): ${text.slice(0, 300)}`);
    }
  }
  t.equal(failures, 0, `${VALID} valid texts`);
});

t.test('invalid texts are refused, as JSON.parse refuses them', async (t) => {
  const rand = prng(7);
  let failures = 0;
  let invalid = 0;
  for (let i = 0; i < MUTATED && failures < 5; i++) {
    const text = mutate(rand, generateSmall(rand, 1 + Math.floor(rand() * 6)));
    try {
      JSON.parse(text);
    } catch {
      invalid++;
    }
    const batch = [1, 8, 64][i % 3]!;
    const diff = await check(text, batch, i % YIELDING === 0);
    if (diff) {
      failures++;
      t.fail(`${diff} (batch ${batch}): ${JSON.stringify(text.slice(0, 300))}`);
    }
  }
  t.equal(failures, 0, `${MUTATED} mutated texts (${invalid} invalid)`);
});

t.test('edge cases', async (t) => {
  const cases = [
    '[]',
    '{}',
    '[ ]',
    '{ }',
    '[1,]',
    '{"a":1,}',
    '[,1]',
    '{,"a":1}',
    '[1 2]',
    '{"a" 1}',
    '{"a":1 "b":2}',
    '{1:2}',
    '[1]]',
    '[[1]',
    '[1}',
    '{"a":1]',
    '  [1, 2]  ',
    '[1] x',
    '[1][2]',
    '"x"',
    ' 1 ',
    '',
    ' ',
    'nul',
    '[01]',
    '[1.]',
    '[.5]',
    '[-]',
    '[1e]',
    '["\u0001"]',
    '["\\x"]',
    '["\\u12"]',
    '["a]',
    '{"__proto__":{"a":1}}',
    '{"a":{"__proto__":[]},"b":[{"constructor":{"prototype":1}}]}',
    '{"\\u005f_proto__":1}',
    '{"constructor":{"prototype":1},"constructor":2}',
    '{"a":1,"b":2,"a":3}',
    '{"1":1,"0":0,"b":1,"a":2}',
    `${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}`,
    `${'['.repeat(MAX_DEPTH + 1)}${']'.repeat(MAX_DEPTH + 1)}`,
    `${'['.repeat(MAX_DEPTH + 1)}x`,
    `["${'['.repeat(50)}"]`,
    `[1, ${' '.repeat(100)}]`,
    `[${' '.repeat(100)}]`,
    `{${' '.repeat(100)}}`,
    `[${' '.repeat(100)},]`,
  ];
  for (const text of cases)
    for (const batch of [1, 4, 1000])
      t.equal(await check(text, batch), undefined, `${JSON.stringify(text.slice(0, 40))} (batch ${batch})`);
});

t.test("a big text yields between pieces and gives JSON.parse's value", async (t) => {
  const rand = prng(99);
  const items = Array.from({ length: 2000 }, () => generate(rand, 0, 3));
  const text = `{"items":[${items.join(',')}],"map":{${items.map((v, i) => `"k${i % 1500}":${v}`).join(',')}}}`;
  let turns = 0;
  const tick = setInterval(() => turns++, 0);
  const got = await parseIncrementally(text, { maxDepth: 1000, batchChars: 4096, budgetMs: 0 });
  clearInterval(tick);
  t.ok(got.ok);
  if (got.ok) t.equal(same(got.value, JSON.parse(text)), undefined, `${(text.length / 1024).toFixed(0)} KiB`);
  t.ok(turns > 10, `the loop turned ${turns} times meanwhile`);
});

t.test('a big body is answered as decodeBody answers it', async (t) => {
  // 20,000 annotations: about 570 KB, past INCREMENTAL_BODY_BYTES; built once, the uid put in per row.
  const annotations = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`example.com/k${i}`, `v${i}`]));
  const template = JSON.stringify(review({ operation: 'CREATE', object: cloudProfile({ annotations }), uid: '<uid>' }));
  const big = (uid: string) => template.replace('"uid":"<uid>"', JSON.stringify({ uid }).slice(1, -1));
  const deep = `"x":${'['.repeat(MAX_NESTING_DEPTH)}${']'.repeat(MAX_NESTING_DEPTH)},"metadata":{`;
  const rows: Array<[string, string | Buffer, string?]> = [
    ['a valid review', big('a')],
    ['truncated after the uid', big('b').slice(0, -5)],
    ['truncated before the uid', big('c').slice(0, 40) + ' '.repeat(INCREMENTAL_BODY_BYTES)],
    ['a trailing comma deep inside', big('d').replace('"v19999"}', '"v19999",}')],
    ['text after the review', `${big('e')} {}`],
    ['too deep', big('g').replace('"metadata":{', deep)],
    ['too deep and truncated', big('g').replace('"metadata":{', deep).slice(0, -9)],
    ['a prototype key', big('h').replace('"metadata":{', '"metadata":{"__proto__":{},')],
    ['a prototype key among the annotations', big('h').replace('"v7"', '"v7","__proto__":"x"')],
    ['an escaped prototype key', big('h').replace('"v7"', '"v7","\\u005f_proto__":{}')],
    ['constructor.prototype', big('h').replace('"v7"', '"v7","constructor":{"prototype":{}}')],
    [
      'constructor.prototype, overwritten',
      big('h').replace('"v7"', '"v7","constructor":{"prototype":{}},"constructor":1'),
    ],
    ['a prototype key, then truncated', big('h').replace('"metadata":{', '"metadata":{"__proto__":{},').slice(0, -3)],
    ['v1beta1', big('i').replace('admission.k8s.io/v1', 'admission.k8s.io/v1beta1')],
    ['v1beta1, truncated', big('i').replace('admission.k8s.io/v1', 'admission.k8s.io/v1beta1').slice(0, -3)],
    ['no uid', big('x').replace('"uid":"x",', '')],
    [
      'not UTF-8',
      Buffer.concat([Buffer.from(big('j').slice(0, 300)), Buffer.from([0xff]), Buffer.from(big('j').slice(300))]),
    ],
    [
      'not UTF-8 in the uid',
      Buffer.from(big('k\uFFFD')).fill(0xff, big('').indexOf('"uid":"') + 8, big('').indexOf('"uid":"') + 9),
    ],
    [
      'not UTF-8, truncated',
      Buffer.concat([Buffer.from(big('l').slice(0, 300)), Buffer.from([0xff]), Buffer.from(big('l').slice(300, -3))]),
    ],
    ['the wrong media type', big('m'), 'text/plain'],
  ];
  for (const [what, body, contentType = 'application/json'] of rows) {
    const bytes = Buffer.from(body);
    t.ok(bytes.length > INCREMENTAL_BODY_BYTES, `${what}: big enough`);
    const headers = { contentType, contentEncoding: undefined };
    const expected = decodeBody(bytes, headers);
    const got = await decodeBodyIncrementally(bytes, headers);
    t.same(
      got.ok ? { ok: true, problems: got.problems, uid: got.review.request.uid } : got,
      expected.ok ? { ok: true, problems: expected.problems, uid: expected.review.request.uid } : expected,
      `${what}: ${expected.ok ? 'ok' : `${expected.error.code}, uid ${expected.identity?.uid}`}`,
    );
    if (got.ok && expected.ok) t.equal(same(got.review, expected.review), undefined, `${what}: the same review`);
  }
  // An encoded body is refused, but its uid is read: past the threshold, incrementally too.
  const encoded = await decodeEncodedBody(
    gzipSync(big('z').slice(0, -3)),
    { contentType: 'application/json', contentEncoding: 'gzip' },
    8 << 20,
  );
  t.match(
    encoded,
    { ok: false, error: { statusCode: 415 }, identity: { uid: 'z' } },
    'a big gzip body: refused with its uid',
  );
});
