// Property, from a fixed seed: what the webhook reads of a stored object (src/admission/stored.ts)
// and the whole object agree on every field the rules and the defaulting read, and the decisions
// made on each are the same (issue 34). Generated UPDATEs and DELETEs of CloudProfiles,
// NamespacedCloudProfiles and Shoots, with repeated versions, images and pools, fields no rule
// reads, and removals past what is read whole. Where such a removal is read by name only, the
// forecast of it is not made: the warnings may then differ, never the verdict (with forecast.deny
// set the read one is denied rather than guessed allowed), and a version removed twice is named once.
import t from '../helpers/parts.js';
import { STORED_READ } from '../../src/admission/stored.js';
import { toPolicyRequest } from '../../src/admission/request.js';
import { parsePolicedObject } from '../../src/api/parse.js';
import type { AdmissionRequest } from '../../src/admission/review.js';
import type {
  CloudProfile,
  ExpirableVersion,
  NamespacedCloudProfile,
  PolicedObject,
  Shoot,
} from '../../src/api/types.js';
import { staticState } from '../../src/cluster/static-state.js';
import { evaluate } from '../../src/policy/evaluate.js';
import type { PolicyRequest } from '../../src/policy/rule.js';
import { rng } from '../helpers/fuzz.js';
import { cloudProfile, config, image, namespacedProfile, NOW, request, shoot } from '../helpers/objects.js';
import { review } from '../helpers/server.js';

const SEED = 20_261_128;
const CASES = 240;

type Random = () => number;
const pick = <T>(r: Random, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const chance = (r: Random, p: number) => r() < p;
const some = <T>(r: Random, xs: readonly T[], p: number) => xs.filter(() => chance(r, p));

const K8S = Array.from({ length: 24 }, (_, i) => `1.${28 + Math.floor(i / 4)}.${i % 4}`);
const IMAGES: Record<string, string[]> = {
  gardenlinux: Array.from({ length: 8 }, (_, i) => `1592.${i}.0`),
  ubuntu: Array.from({ length: 6 }, (_, i) => `22.${i}.0`),
};
const CLASSES = ['preview', 'supported', 'deprecated', 'expired'];
const DATES = ['2026-03-01T00:00:00Z', '2026-09-15T00:00:00Z', '2027-06-01T00:00:00Z'];

function entry(r: Random, version: string): ExpirableVersion {
  const e: ExpirableVersion = { version };
  if (chance(r, 0.3)) e.classification = pick(r, CLASSES);
  if (chance(r, 0.25)) e.expirationDate = pick(r, DATES);
  if (chance(r, 0.15))
    e.lifecycle = CLASSES.slice(Math.floor(r() * 3)).map((classification, i) => ({
      classification,
      startTime: `${2025 + i}-0${1 + Math.floor(r() * 9)}-01T00:00:00Z`,
    }));
  return e;
}

/** A version list with some entries repeated, differently or not. */
function versions(r: Random, pool: readonly string[]): ExpirableVersion[] {
  const list = some(r, pool, 0.5).map((v) => entry(r, v));
  if (list.length > 0 && chance(r, 0.2)) list.splice(Math.floor(r() * list.length), 0, entry(r, pick(r, list).version));
  return list;
}

function profileOf(r: Random, bigRemoval: boolean): CloudProfile {
  const images = Object.entries(IMAGES)
    .filter(() => chance(r, 0.8))
    .map(([name, vs]) => image(name, versions(r, vs)));
  if (images.length > 0 && chance(r, 0.1)) images.push(structuredClone(pick(r, images)));
  const p = cloudProfile({ name: 'aws', kubernetes: versions(r, K8S), images });
  if (chance(r, 0.3)) p.metadata.annotations = { note: 'a field no rule reads' };
  if (chance(r, 0.2)) (p.metadata as Record<string, unknown>).labels = { team: pick(r, ['a', 'b']) };
  if (chance(r, 0.3)) (p.spec as Record<string, unknown>).regions = [{ name: pick(r, ['eu-1', 'us-1']) }];
  if (bigRemoval)
    for (let i = 0; i <= STORED_READ.removedWhole; i++)
      p.spec.kubernetes.versions.push({ version: `1.${100 + Math.floor(i / 100)}.${i % 100}` });
  return p;
}

/** The next object: some entries dropped, some changed, some added; unread fields changed too. */
function edited<T extends CloudProfile | NamespacedCloudProfile>(r: Random, old: T, bigRemoval: boolean): T {
  const next = structuredClone(old);
  const edit = (list: ExpirableVersion[] | undefined, pool: readonly string[]) => {
    if (!list) return list;
    const kept = list.filter((e) => !(bigRemoval && e.version.startsWith('1.1')) && !chance(r, 0.15));
    for (let i = 0; i < kept.length; i++) if (chance(r, 0.15)) kept[i] = { ...kept[i]!, ...entry(r, kept[i]!.version) };
    for (const v of some(r, pool, 0.08)) kept.push(entry(r, v));
    return kept;
  };
  const spec = next.spec as {
    kubernetes?: { versions: ExpirableVersion[] };
    machineImages?: Array<{ name: string; versions?: ExpirableVersion[] }>;
  };
  if (spec.kubernetes) spec.kubernetes.versions = edit(spec.kubernetes.versions, K8S)!;
  if (spec.machineImages) {
    spec.machineImages = spec.machineImages.filter(() => !chance(r, 0.1));
    for (const i of spec.machineImages) if (i.versions) i.versions = edit(i.versions, IMAGES[i.name] ?? []);
  }
  if (chance(r, 0.2)) (next.spec as Record<string, unknown>).regions = [{ name: 'ap-1' }];
  return next;
}

function ncpOf(r: Random): NamespacedCloudProfile {
  const n = namespacedProfile({
    name: 'team',
    namespace: 'garden-dev',
    parent: 'aws',
    kubernetes: some(r, K8S, 0.2).map((version) => ({ version, expirationDate: pick(r, DATES) })),
  });
  if (chance(r, 0.5))
    n.spec.machineImages = [
      { name: 'gardenlinux', versions: some(r, IMAGES.gardenlinux!, 0.3).map((v) => entry(r, v)) },
    ];
  return n;
}

function shootOf(r: Random, name: string): Shoot {
  const pools = Array.from({ length: 1 + Math.floor(r() * 4) }, () => ({
    name: pick(r, ['a', 'b', 'c', 'd']),
    image: [pick(r, ['gardenlinux', 'ubuntu']), pick(r, IMAGES.gardenlinux!)] as [string, string],
    ...(chance(r, 0.3) ? { kubernetes: pick(r, K8S) } : {}),
  }));
  const s = shoot({ name, namespace: 'garden-dev', profile: 'aws', version: pick(r, K8S), workers: pools });
  if (chance(r, 0.3)) (s.spec as Record<string, unknown>).purpose = 'evaluation';
  return s;
}

function editedShoot(r: Random, old: Shoot): Shoot {
  const next = structuredClone(old);
  if (chance(r, 0.5)) next.spec.kubernetes.version = pick(r, K8S);
  const workers = next.spec.provider!.workers!.filter(() => !chance(r, 0.2));
  for (const w of workers)
    if (chance(r, 0.3) && w.machine?.image) w.machine.image.version = pick(r, IMAGES.gardenlinux!);
  if (chance(r, 0.3)) workers.push(structuredClone(shootOf(r, 'x').spec.provider!.workers![0]!));
  next.spec.provider!.workers = workers.length > 0 ? workers : old.spec.provider!.workers!;
  return next;
}

interface Case {
  operation: 'UPDATE' | 'DELETE';
  object?: PolicedObject;
  oldObject: PolicedObject;
  state: PolicedObject[];
  bigRemoval: boolean;
}

function makeCase(index: number): Case {
  const r = rng(SEED, index);
  const bigRemoval = index % 40 === 7;
  const profile = profileOf(r, bigRemoval);
  const users = Array.from({ length: 3 }, (_, i) => shootOf(r, `user-${i}`));
  const ncp = ncpOf(r);
  const state: PolicedObject[] = [profile, ...users, ...(chance(r, 0.5) ? [ncp] : [])];
  const operation = chance(r, 0.15) ? 'DELETE' : 'UPDATE';
  const kind = bigRemoval
    ? 'CloudProfile'
    : pick(r, ['CloudProfile', 'CloudProfile', 'NamespacedCloudProfile', 'Shoot']);
  const old: PolicedObject = kind === 'CloudProfile' ? profile : kind === 'NamespacedCloudProfile' ? ncp : users[0]!;
  if (operation === 'DELETE') return { operation, oldObject: old, state, bigRemoval };
  const object = old.kind === 'Shoot' ? editedShoot(r, old) : edited(r, old, bigRemoval);
  return { operation, object, oldObject: old, state, bigRemoval };
}

function mapped(c: Case): PolicyRequest {
  const m = toPolicyRequest({
    ...(review({ operation: c.operation, ...(c.object ? { object: c.object } : {}), oldObject: c.oldObject })
      .request as unknown as AdmissionRequest),
    object: c.object ? structuredClone(c.object) : null,
    oldObject: structuredClone(c.oldObject),
    userInfo: { username: 'test-user' },
  });
  if (m.outcome !== 'policed') throw new Error(`not policed: ${JSON.stringify(m)}`);
  return m.request;
}

/** Of a stored object, every field a rule or the defaulting reads, given the object that replaces it. */
function readFields(old: PolicedObject | undefined, object: PolicedObject | undefined): unknown {
  if (!old) return undefined;
  const meta = old.metadata;
  const out: Record<string, unknown> = {
    metadata: [
      meta.name,
      meta.namespace,
      meta.deletionTimestamp,
      meta.annotations?.['version-policy.gardener.cloud/managed-versions'],
    ],
  };
  if (old.kind === 'Shoot') {
    const first = (name: string) => old.spec.provider?.workers?.find((w) => w.name === name);
    const names = (object as Shoot).spec.provider?.workers?.map((w) => w.name) ?? [];
    return { ...out, version: old.spec.kubernetes.version, pools: names.map(first) };
  }
  // Each version the object lists: its first and last stored entry (rules read the first, maps the last).
  const ends = (list: readonly ExpirableVersion[] | undefined, listed: readonly ExpirableVersion[] | undefined) =>
    (listed ?? []).map((e) => {
      const all = (list ?? []).filter((x) => x.version === e.version);
      return [all[0], all.at(-1)];
    });
  const spec = old.spec as CloudProfile['spec'] & { parent?: unknown };
  const now = (object as CloudProfile).spec;
  const imagesOf = (s: CloudProfile['spec']) => s.machineImages ?? [];
  return {
    ...out,
    parent: spec.parent,
    kubernetes: ends(spec.kubernetes?.versions, now.kubernetes?.versions),
    images: imagesOf(now).map((i) => {
      const all = imagesOf(spec).filter((x) => x.name === i.name);
      return [all.length > 0, ...[all[0], all.at(-1)].map((x) => [x?.updateStrategy, ends(x?.versions, i.versions)])];
    }),
  };
}

t.test(`the read of a stored object and the whole one agree (seed ${SEED}, ${CASES} cases)`, async (t) => {
  let compared = 0;
  let byName = 0;
  const seen = { allowed: 0, denied: 0, patched: 0, warned: 0 };
  for (let index = 0; index < CASES; index++) {
    const c = makeCase(index);
    const read = mapped(c);
    const name = `case ${index} (${c.operation} ${c.oldObject.kind}${c.bigRemoval ? ', big removal' : ''})`;
    if (c.operation === 'UPDATE')
      t.same(readFields(read.oldObject, c.object), readFields(c.oldObject, c.object), `${name}: the fields read`);
    else t.equal(read.oldObject, undefined, `${name}: a DELETE hands on no stored object`);
    if (read.stored?.removed) byName++;
    t.equal(Boolean(read.stored?.removed), c.bigRemoval, `${name}: read by name only exactly when the removal is big`);
    for (const defaulting of [false, true]) {
      const opts = {
        now: NOW,
        config: config({ defaulting: { lifecycle: { enabled: defaulting } } }),
        state: staticState(structuredClone(c.state)),
      };
      const whole = evaluate(
        request({
          operation: c.operation,
          ...(c.object ? { object: structuredClone(c.object) } : {}),
          oldObject: structuredClone(c.oldObject),
        }),
        opts,
      );
      const got = evaluate(read, opts);
      const same = (d: typeof whole) => ({
        allowed: d.allowed,
        // Read by name, a version removed twice (a repeated entry or image, which Gardener cannot
        // store) is named once.
        violations: c.bigRemoval
          ? [...new Map(d.violations.map((v) => [JSON.stringify(v), v])).values()]
          : d.violations,
        patch: d.patch,
        ...(c.bigRemoval ? {} : { warnings: d.allWarnings }),
      });
      t.same(same(got), same(whole), `${name}, defaulting ${defaulting ? 'on' : 'off'}`);
      seen[whole.allowed ? 'allowed' : 'denied']++;
      if (whole.patch) seen.patched++;
      if (whole.allWarnings.length > 0) seen.warned++;
      compared++;
    }
  }
  t.ok(compared >= 2 * CASES && byName >= 3, `${compared} decisions compared, ${byName} removals read by name`);
  t.ok(
    Object.values(seen).every((n) => n >= 20),
    `both verdicts, patches and warnings among them: ${JSON.stringify(seen)}`,
  );
});

t.test('with forecast.deny set, a removal read by name only is denied, never guessed allowed', async (t) => {
  const c = makeCase(7);
  t.ok(c.bigRemoval);
  const read = mapped(c);
  const opts = {
    now: NOW,
    config: config({ forecast: { deny: ['trap', 'no-target', 'forced-soon'] } }),
    state: staticState(structuredClone(c.state)),
  };
  const got = evaluate(read, opts);
  t.notOk(got.allowed);
  t.match(
    got.violations.find((v) => v.rule === 'FORECAST')?.message,
    /maintenance forecast not made: the update removes [\d,]+ version entries and images, more than the 4,000 entries or 100 images read whole/,
  );
  const small = mapped(makeCase(1));
  t.notOk(small.stored?.removed, 'a removal read whole is forecast as before');
  t.notMatch(
    evaluate(small, { ...opts, state: staticState(structuredClone(makeCase(1).state)) })
      .violations.map((v) => v.message)
      .join('\n'),
    /forecast not made/,
  );
});

/** Every [container, key] of a JSON tree. */
function slots(root: unknown, out: Array<[Record<string, unknown> | unknown[], string | number]> = []) {
  if (Array.isArray(root))
    root.forEach((v, i) => {
      out.push([root, i]);
      slots(v, out);
    });
  else if (root !== null && typeof root === 'object')
    for (const [k, v] of Object.entries(root)) {
      out.push([root as Record<string, unknown>, k]);
      slots(v, out);
    }
  return out;
}

t.test(`a stored object is refused exactly when the whole parse refuses it (seed ${SEED})`, async (t) => {
  const swaps: unknown[] = [null, true, 0, '', '7', [], {}, [{}]];
  let refused = 0;
  for (let index = 0; index < CASES; index++) {
    const c = makeCase(index);
    const r = rng(SEED + 1, index);
    const old = structuredClone(c.oldObject) as unknown;
    const all = slots(old).filter(([, k]) => k !== 'apiVersion' && k !== 'kind');
    const [container, key] = pick(r, all);
    (container as Record<string | number, unknown>)[key] = pick(r, swaps);
    const whole = parsePolicedObject(c.oldObject.kind, structuredClone(old), { limits: false });
    const m = toPolicyRequest({
      ...(review({ operation: c.operation, ...(c.object ? { object: c.object } : {}), oldObject: c.oldObject })
        .request as unknown as AdmissionRequest),
      object: c.object ? structuredClone(c.object) : null,
      oldObject: old,
    });
    t.equal(
      m.outcome === 'malformed',
      !whole.ok,
      `case ${index} (${c.operation} ${c.oldObject.kind}, ${String(key)} swapped): ${whole.ok ? 'well-formed' : 'malformed'}`,
    );
    if (!whole.ok) refused++;
  }
  t.ok(refused >= CASES / 4, `${refused} of ${CASES} swaps made the stored object malformed`);
});
