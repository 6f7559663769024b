// Bounded work per review, whatever the input (issue 13): the limits at the edge on both sides,
// and for every rule family an input 10–100× larger than real ones, answered with a bounded
// message. No time is asserted, so a slow machine cannot fail it: timing is bench/'s
// (bench/limit-reviews.js times a review at each limit of the edge), and a return to quadratic
// work at these sizes (seconds to minutes, or a crash) would still run past tap's timeout.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from '../helpers/parts.js';
import { admit } from '../../src/admission/handler.js';
import type { AdmissionRequest } from '../../src/admission/review.js';
import { staticState } from '../../src/cluster/static-state.js';
import { LIMITS, parsePolicedObject } from '../../src/api/parse.js';
import type { Decision, RuleId } from '../../src/policy/decision.js';
import { DENIAL_LIMITS, formatDenial, MAX_VIOLATIONS_PER_RULE } from '../../src/policy/decision.js';
import type { ExpirableVersion, PolicedObject, Shoot } from '../../src/api/types.js';
import {
  cloudProfile,
  config,
  decide,
  hoursFromNow,
  image,
  namespacedProfile,
  NOW,
  shoot,
} from '../helpers/objects.js';

/** The answer is bounded: per rule, in the denial's lines and in its length. */
function bounded(t: Test, d: Decision, rule: RuleId): void {
  const mine = d.violations.filter((v) => v.rule === rule);
  t.ok(mine.length > 0, `${rule} denies`);
  t.ok(mine.length <= MAX_VIOLATIONS_PER_RULE + 1, `${mine.length} ${rule} violations kept`);
  const message = formatDenial(d.violations);
  t.ok(message.length <= DENIAL_LIMITS.length + 200, `a denial of ${message.length} characters`);
  t.ok(message.split('\n').length <= DENIAL_LIMITS.lines + 2, 'a bounded number of lines');
  t.notOk(
    d.violations.some((v) => v.message.length > 4_000),
    'no single message grows with the input',
  );
}

const versions = (n: number, make: (i: number) => string | ExpirableVersion) =>
  Array.from({ length: n }, (_, i) => make(i));

// --- limits at the edge ------------------------------------------------------------------------

const withK8s = (n: number) => cloudProfile({ kubernetes: versions(n, (i) => `1.${Math.floor(i / 100)}.${i % 100}`) });
const withImageVersions = (n: number) =>
  cloudProfile({
    images: [
      image(
        'gardenlinux',
        versions(n, (i) => `${i}.0.0`),
      ),
    ],
  });
const withImages = (n: number) =>
  cloudProfile({ images: versions(n, (i) => `image-${i}`).map((name) => image(name as string, ['1.0.0'])) });
const withStages = (n: number) =>
  cloudProfile({
    kubernetes: [
      '1.31.0',
      {
        version: '1.30.0',
        lifecycle: versions(n, (i) => ({
          version: '',
          classification: 'deprecated',
          startTime: hoursFromNow(i),
        })) as never,
      },
    ],
  });

t.test('limits: at the limit allowed, one past denied, naming the list, the count and the limit', async (t) => {
  const cases: Array<[string, (n: number) => PolicedObject, number, string, string]> = [
    [
      'Kubernetes versions',
      withK8s,
      LIMITS.versionsPerList,
      'spec.kubernetes.versions',
      'has 1,001 versions, more than the limit of 1,000 per list',
    ],
    [
      'versions of an image',
      withImageVersions,
      LIMITS.versionsPerList,
      'spec.machineImages[0].versions',
      'has 1,001 versions, more than the limit of 1,000 per list',
    ],
    [
      'machine images',
      withImages,
      LIMITS.machineImages,
      'spec.machineImages',
      'has 101 machine images, more than the limit of 100',
    ],
    [
      'lifecycle stages',
      withStages,
      LIMITS.lifecycleStages,
      'spec.kubernetes.versions[1].lifecycle',
      'has 9 stages, more than the limit of 8',
    ],
  ];
  for (const [what, make, limit, field, message] of cases) {
    t.ok(parsePolicedObject('CloudProfile', make(limit)).ok, `${what}: ${limit} pass`);
    t.same(
      parsePolicedObject('CloudProfile', make(limit + 1)),
      { ok: false, errors: [{ field, message }] },
      `${what}: ${limit + 1} are refused`,
    );
    t.ok(
      parsePolicedObject('CloudProfile', make(limit + 1), { limits: false }).ok,
      `${what}: objects read from the cluster are not held to the limit`,
    );
  }

  // All lists together: three full image lists and a full Kubernetes list are 4,000 entries.
  const full = (extra: number) =>
    cloudProfile({
      kubernetes: versions(1_000, (i) => `1.${Math.floor(i / 100)}.${i % 100}`),
      images: [
        ...versions(3, (j) => `image-${j}`).map((name) =>
          image(
            name as string,
            versions(1_000, (i) => `${i}.0.0`),
          ),
        ),
        ...(extra ? [image('one-more', ['1.0.0'])] : []),
      ],
    });
  t.ok(parsePolicedObject('CloudProfile', full(0)).ok, '4,000 entries pass');
  t.same(parsePolicedObject('CloudProfile', full(1)), {
    ok: false,
    errors: [{ field: 'spec', message: 'has 4,001 version entries in all, more than the limit of 4,000 per object' }],
  });

  const ncp = namespacedProfile({
    kubernetes: versions(1_001, (i) => ({ version: `1.0.${i}`, expirationDate: hoursFromNow(100) })),
  });
  t.same(parsePolicedObject('NamespacedCloudProfile', ncp), {
    ok: false,
    errors: [
      { field: 'spec.kubernetes.versions', message: 'has 1,001 versions, more than the limit of 1,000 per list' },
    ],
  });

  const pools = (n: number) =>
    shoot({
      workers: versions(n, (i) => `pool-${i}`).map((name) => ({
        name: name as string,
        image: ['gardenlinux', '1592.1.0'] as [string, string],
      })),
    });
  t.ok(parsePolicedObject('Shoot', pools(LIMITS.workers)).ok, `a Shoot with ${LIMITS.workers} worker pools passes`);
  t.same(parsePolicedObject('Shoot', pools(LIMITS.workers + 1)), {
    ok: false,
    errors: [{ field: 'spec.provider.workers', message: 'has 1,001 worker pools, more than the limit of 1,000' }],
  });
  t.ok(
    parsePolicedObject('Shoot', pools(LIMITS.workers + 1), { limits: false }).ok,
    'Shoots read from the cluster are not held to it',
  );
  t.ok(
    parsePolicedObject('Shoot', pools(LIMITS.workers + 1), { stored: pools(LIMITS.workers + 1) }).ok,
    'an UPDATE may keep the pools a stored Shoot has',
  );
});

t.test('limits: the webhook denies under the SCHEMA label before any rule runs', async (t) => {
  const object = withK8s(3_000);
  const req: AdmissionRequest = {
    uid: 'u-limit',
    kind: { group: 'core.gardener.cloud', version: 'v1beta1', kind: 'CloudProfile' },
    operation: 'CREATE',
    object,
  };
  const outcome = admit('validate', req, [], { now: NOW, config: config(), state: staticState([]) });
  t.equal(outcome.response.allowed, false);
  t.equal(
    outcome.response.status?.message,
    '[SCHEMA] spec.kubernetes.versions: has 3,000 versions, more than the limit of 1,000 per list',
  );
  t.same(outcome.rules, ['SCHEMA']);
});

t.test('schema errors are capped too', async (t) => {
  const bad = withK8s(500) as unknown as { spec: { kubernetes: { versions: unknown[] } } };
  bad.spec.kubernetes.versions = bad.spec.kubernetes.versions.map(() => ({ version: 7 }));
  const result = parsePolicedObject('CloudProfile', bad);
  t.equal(result.ok, false);
  if (!result.ok) {
    t.equal(result.errors.length, 20);
    t.same(result.errors.at(-1), { field: '', message: 'and 481 more problems' });
  }
});

// --- SUPPORTED-PER-MINOR: N versions of one minor ----------------------------------------------

for (const [kind, make] of [
  ['legacy classification', (i: number): ExpirableVersion => ({ version: `1.30.${i}`, classification: 'supported' })],
  [
    'lifecycle',
    (i: number): ExpirableVersion => ({ version: `1.30.${i}`, lifecycle: [{ classification: 'supported' }] }),
  ],
] as const) {
  t.test(`SUPPORTED-PER-MINOR: 4,000 supported versions of one minor (${kind}) are one report`, async (t) => {
    const profile = cloudProfile({ kubernetes: ['1.31.0', ...versions(4_000, make)] });
    const d = decide({ operation: 'CREATE', object: profile, lifecycleGate: true });
    bounded(t, d, 'SUPPORTED-PER-MINOR');
    const spm = d.violations.filter((v) => v.rule === 'SUPPORTED-PER-MINOR');
    t.ok(spm.length <= 5, `${spm.length} lines: the report and at most four pointers`);
    t.match(
      spm[0]!.message,
      /in minor 1\.30, 1\.30\.0, 1\.30\.1, 1\.30\.2, 1\.30\.3, 1\.30\.4 and 3,995 more are all explicitly supported/,
    );
  });
}

t.test(
  'SUPPORTED-PER-MINOR: 100 minors of 40 clashing versions each: one report per minor, capped per rule',
  async (t) => {
    const kubernetes = versions(4_000, (i) => ({
      version: `1.${Math.floor(i / 40)}.${i % 40}`,
      lifecycle: [{ classification: 'supported' }],
    }));
    const d = decide({ operation: 'CREATE', object: cloudProfile({ kubernetes }), lifecycleGate: true });
    bounded(t, d, 'SUPPORTED-PER-MINOR');
    t.match(
      d.violations.filter((v) => v.rule === 'SUPPORTED-PER-MINOR').at(-1)!.message,
      /^and 50 more violations of this rule$/,
    );
  },
);

// --- every other rule family, 10–100× -------------------------------------------------------

const many = 10_000;

t.test('K8S-VERSIONS: 10,000 malformed versions', async (t) => {
  const d = decide({
    operation: 'CREATE',
    object: cloudProfile({ kubernetes: ['1.31.0', ...versions(many, (i) => `v1.0.${i}`)] }),
  });
  bounded(t, d, 'K8S-VERSIONS');
});

t.test('MACHINE-IMAGES: 10,000 image versions with unsupported runtimes and architectures', async (t) => {
  const bad = versions(many, (i) => ({ version: `${i}.0.0`, cri: [{ name: 'docker' }], architectures: ['s390x'] }));
  const d = decide({ operation: 'CREATE', object: cloudProfile({ images: [image('gardenlinux', bad)] }) });
  bounded(t, d, 'MACHINE-IMAGES');
});

t.test('CLASSIFICATION and LIFECYCLE-ORDER: 10,000 bad classifications and lifecycles', async (t) => {
  const kubernetes = [
    '1.40.0',
    ...versions(many, (i) => ({ version: `1.${Math.floor(i / 100)}.${i % 100}`, classification: 'expired' })),
  ];
  const d = decide({ operation: 'CREATE', object: cloudProfile({ kubernetes }) });
  bounded(t, d, 'CLASSIFICATION');
  bounded(t, d, 'LIFECYCLE-ORDER');
  const out = versions(many, (i) => ({
    version: `1.${Math.floor(i / 100)}.${i % 100}`,
    lifecycle: [{ classification: 'expired' }, { classification: 'preview', startTime: hoursFromNow(-1) }],
  }));
  const order = decide({
    operation: 'CREATE',
    object: cloudProfile({ kubernetes: ['1.40.0', ...out] }),
    lifecycleGate: true,
  });
  bounded(t, order, 'LIFECYCLE-ORDER');
});

t.test('one version with 10,000 lifecycle stages (past the edge, as evaluate() sees it)', async (t) => {
  const lifecycle = versions(10_000, (i) => ({
    version: '',
    classification: i % 2 ? 'supported' : 'deprecated',
    startTime: hoursFromNow(i),
  }));
  const profile = cloudProfile({
    kubernetes: [
      '1.31.0',
      { version: '1.30.0', lifecycle: lifecycle as never },
      { version: '1.30.1', lifecycle: [{ classification: 'supported' }] },
    ],
  });
  const d = decide({ operation: 'CREATE', object: profile, lifecycleGate: true });
  bounded(t, d, 'LIFECYCLE-ORDER');
  bounded(t, d, 'SUPPORTED-PER-MINOR');
});

t.test('PAST-EXPIRATION: 10,000 versions added already expired', async (t) => {
  const kubernetes = [
    '1.40.0',
    ...versions(many, (i) => ({
      version: `1.${Math.floor(i / 100)}.${i % 100}`,
      classification: 'deprecated',
      expirationDate: hoursFromNow(-1),
    })),
  ];
  const d = decide({ operation: 'CREATE', object: cloudProfile({ kubernetes }) });
  bounded(t, d, 'PAST-EXPIRATION');
});

t.test('IN-USE: 5,000 removed versions, one of them used by 10,000 Shoots', async (t) => {
  const kept = ['1.40.0'];
  const removed = versions(5_000, (i) => `1.${Math.floor(i / 100)}.${i % 100}`) as string[];
  const old = cloudProfile({ kubernetes: [...kept, ...removed] });
  // 5,001 Shoots on the first removed version, one on each of the others.
  const users: Shoot[] = versions(many, (i) => `s-${i}`).map((name, i) =>
    shoot({ name: name as string, version: removed[i < 5_000 ? 0 : i - 5_000]!, workers: [] }),
  );
  const d = decide({
    operation: 'UPDATE',
    oldObject: old,
    object: cloudProfile({ kubernetes: kept }),
    state: [old, ...users],
  });
  bounded(t, d, 'IN-USE');
  t.match(
    d.violations[0]!.message,
    /and 4,991 more \(5,001 in total\)/,
    'a removed version names ten of its Shoots and counts the rest',
  );
});

t.test('NCP-OVERRIDES: 10,000 overrides of versions the parent lacks', async (t) => {
  const ncp = namespacedProfile({
    kubernetes: versions(many, (i) => ({
      version: `1.${Math.floor(i / 100)}.${i % 100}`,
      expirationDate: hoursFromNow(100),
    })),
  });
  const d = decide({ operation: 'CREATE', object: ncp, state: [cloudProfile()] });
  bounded(t, d, 'NCP-OVERRIDES');
});

t.test('SHOOT-*: a Shoot with 10,000 worker pools on versions the profile does not offer', async (t) => {
  const profile = cloudProfile({
    kubernetes: versions(1_000, (i) => `1.${20 + Math.floor(i / 100)}.${i % 100}`),
    images: [
      image(
        'gardenlinux',
        versions(1_000, (i) => `${i}.0.0`),
      ),
    ],
  });
  const workers = versions(many, (i) => `pool-${i}`).map((name, i) => ({
    name: name as string,
    kubernetes: '1.99.0',
    image: ['gardenlinux', `${5_000 + i}.0.0`] as [string, string],
  }));
  const old = shoot({ version: '1.29.0', workers: workers.map((w) => ({ ...w, kubernetes: '1.29.5' })) });
  const d = decide({
    operation: 'UPDATE',
    oldObject: old,
    object: shoot({ version: '1.29.0', workers }),
    state: [profile],
  });
  bounded(t, d, 'SHOOT-VERSION-AVAILABLE');
  bounded(t, d, 'SHOOT-NO-MINOR-SKIP');
  const worse = shoot({ version: '1.29.0', workers: workers.map((w) => ({ ...w, kubernetes: '1.28.0' })) });
  const down = decide({ operation: 'UPDATE', oldObject: old, object: worse, state: [profile] });
  bounded(t, down, 'SHOOT-NO-DOWNGRADE');
});

// --- no unbounded spread into a call ------------------------------------------------------

t.test('no array is spread into a call anywhere in src/', async (t) => {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.ts')) files.push(path);
    }
  };
  walk(new URL('../../src', import.meta.url).pathname);
  // push(...x), Math.max(...x), fn(a, ...x): a long x overflows the call stack. Array and object
  // literals ([...a], {...o}) and rest parameters are fine.
  const callSpread = /\b(push|unshift|max|min|apply|concat|splice)\(([^()[\]{}]*,\s*)?\.\.\./;
  const offenders = files.flatMap((f) =>
    readFileSync(f, 'utf8')
      .split('\n')
      .flatMap((line, i) => (callSpread.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
  );
  t.same(offenders, []);
});
