// The forecast at admission: a profile UPDATE judged by what it changes in the maintenance steps of
// the Shoots on the changed versions. Each row names the Gardener behaviour it follows.
import t from '../../helpers/parts.js';
import { staticState } from '../../../src/cluster/static-state.js';
import {
  changedLists,
  ENTRY_BUDGET,
  type ForecastFinding,
  forecastFindings,
} from '../../../src/gardener/forecast/profile-change.js';
import type {
  CloudProfile,
  CloudProfileSpec,
  ExpirableVersion,
  MachineImage,
  MachineImageVersion,
  Shoot,
  Worker,
} from '../../../src/api/types.js';
import { objectKey } from '../../../src/api/types.js';

const NOW = Date.parse('2026-09-01T00:00:00Z');
const OPTS = { horizonDays: 180, soonDays: 7 };

const k = (version: string, classification?: string, expirationDate?: string): ExpirableVersion => ({
  version,
  ...(classification ? { classification } : {}),
  ...(expirationDate ? { expirationDate } : {}),
});
const iv = (
  version: string,
  classification?: string,
  expirationDate?: string,
  extra: Partial<MachineImageVersion> = {},
): MachineImageVersion => ({
  ...k(version, classification, expirationDate),
  cri: [{ name: 'containerd' }],
  architectures: ['amd64', 'arm64'],
  ...extra,
});
const img = (name: string, updateStrategy: string, versions: MachineImageVersion[]): MachineImage => ({
  name,
  updateStrategy,
  versions,
});
const spec = (kubernetes: ExpirableVersion[], machineImages: MachineImage[] = []): CloudProfileSpec => ({
  kubernetes: { versions: kubernetes },
  machineImages,
  machineTypes: [
    { name: 'm5', architecture: 'amd64' },
    { name: 'arm', architecture: 'arm64' },
  ],
});
const profile = (s: CloudProfileSpec): CloudProfile => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'CloudProfile',
  metadata: { name: 'p' },
  spec: s,
});

const OFF = { kubernetesVersion: false, machineImageVersion: false };
function shoot(
  name: string,
  version: string,
  opts: {
    autoUpdate?: { kubernetesVersion?: boolean; machineImageVersion?: boolean };
    workers?: Worker[];
    deleting?: boolean;
  } = {},
): Shoot {
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: { name, namespace: 'garden-t', ...(opts.deleting ? { deletionTimestamp: '2026-08-31T00:00:00Z' } : {}) },
    spec: {
      cloudProfile: { kind: 'CloudProfile', name: 'p' },
      kubernetes: { version },
      provider: { type: 'aws', workers: opts.workers ?? [] },
      maintenance: {
        timeWindow: { begin: '200000+0000', end: '210000+0000' },
        ...(opts.autoUpdate ? { autoUpdate: opts.autoUpdate } : {}),
      },
    },
  };
}
const pool = (name: string, image: { name: string; version: string }, type = 'm5'): Worker => ({
  name,
  machine: { type, image },
});

/** `trap 1.34.2 → 1.34.3 @2026-09-01 [garden-t/a]`: one line per finding, sorted. */
function lines(findings: readonly ForecastFinding[]): string[] {
  return findings
    .map((f) => {
      const what = f.step.to ? `${f.version} → ${f.step.to}` : `${f.version} FAILS ${f.step.failure?.kind}`;
      const before = f.before !== undefined ? ` (before ${new Date(f.before).toISOString().slice(0, 10)})` : '';
      return `${f.condition} ${f.image ? `${f.image} ` : ''}${what} @${new Date(f.at).toISOString().slice(0, 10)}${before} [${f.shoots.map(objectKey).sort().join(', ')}]`;
    })
    .sort();
}

function judge(before: CloudProfileSpec, after: CloudProfileSpec, shoots: Shoot[], opts = OPTS) {
  const state = staticState([profile(after), ...shoots]);
  return forecastFindings(
    [{ ref: { kind: 'CloudProfile', name: 'p' }, before: () => before, after: () => after }],
    changedLists(before, after),
    state,
    NOW,
    opts,
  );
}

interface Row {
  name: string;
  source: string;
  before: CloudProfileSpec;
  after: CloudProfileSpec;
  shoots: Shoot[];
  want: string[];
}

const ROWS: Row[] = [
  {
    name: 'gardener#13647: a deprecated patch added to withdraw it draws in the auto-updating Shoots below it',
    source: 'v1h/cloudprofile.go getVersionForAutoUpdate (GARDENER-MAINTENANCE.md example 2)',
    before: spec([k('1.34.1', 'deprecated', '2027-01-31T00:00:00Z'), k('1.34.2'), k('1.35.0')]),
    after: spec([
      k('1.34.1', 'deprecated', '2027-01-31T00:00:00Z'),
      k('1.34.2'),
      k('1.34.3', 'deprecated'),
      k('1.35.0'),
    ]),
    shoots: [
      shoot('a', '1.34.2'),
      shoot('b', '1.34.1'),
      shoot('off', '1.34.2', { autoUpdate: OFF }),
      shoot('gone', '1.34.2', { deleting: true }),
    ],
    // b steps to 1.34.2 first, then the next window onto 1.34.3 (the finding is the step, first
    // taken by a); off never auto-updates; gone is being deleted.
    want: ['trap 1.34.2 → 1.34.3 @2026-09-01 [garden-t/a, garden-t/b]'],
  },
  {
    name: 'gardener#13703: the forced minor step takes a deprecated patch over a supported one',
    source: 'v1h/cloudprofile.go GetVersionForForcefulUpdateToConsecutiveMinor (GARDENER-MAINTENANCE.md example 3)',
    before: spec([k('1.33.6', 'deprecated', '2026-09-20T08:00:00Z'), k('1.34.2')]),
    after: spec([k('1.33.6', 'deprecated', '2026-09-20T08:00:00Z'), k('1.34.2'), k('1.34.3', 'deprecated')]),
    shoots: [shoot('x', '1.33.6', { autoUpdate: OFF })],
    want: ['trap 1.33.6 → 1.34.3 @2026-09-20 [garden-t/x]'],
  },
  {
    name: 'no target: removing the only version of the next minor leaves the expiring minor stranded',
    source:
      'maint/helper/helper.go DetermineVersionForStrategy; v1h/cloudprofile.go GetVersionForForcefulUpdateToConsecutiveMinor',
    before: spec([k('1.32.4', 'deprecated', '2026-12-01T00:00:00Z'), k('1.33.1'), k('1.34.0')]),
    after: spec([k('1.32.4', 'deprecated', '2026-12-01T00:00:00Z'), k('1.34.0')]),
    shoots: [shoot('x', '1.32.4', { autoUpdate: OFF })],
    want: ['no-target 1.32.4 FAILS no-consecutive-minor @2026-12-01 [garden-t/x]'],
  },
  {
    name: 'forced soon: an expiry brought forward into the next 7 days, with when it was before',
    source: 'maint/reconciler.go shouldKubernetesVersionBeUpdated (expired → forced)',
    before: spec([k('1.31.7', 'deprecated', '2026-12-01T00:00:00Z'), k('1.32.1')]),
    after: spec([k('1.31.7', 'deprecated', '2026-09-05T00:00:00Z'), k('1.32.1')]),
    shoots: [shoot('x', '1.31.7', { autoUpdate: OFF }), shoot('y', '1.31.7', { autoUpdate: OFF })],
    want: ['forced-soon 1.31.7 → 1.32.1 @2026-09-05 (before 2026-12-01) [garden-t/x, garden-t/y]'],
  },
  {
    name: 'forced soon: an expiry exactly 7 days ahead is not within them',
    source: 'the window is [now, now + 7 days)',
    before: spec([k('1.31.7', 'deprecated', '2026-12-01T00:00:00Z'), k('1.32.1')]),
    after: spec([k('1.31.7', 'deprecated', '2026-09-08T00:00:00Z'), k('1.32.1')]),
    shoots: [shoot('x', '1.31.7', { autoUpdate: OFF })],
    want: [],
  },
  {
    name: 'forced soon: already forced within 7 days before the change is no news',
    source: 'the finding is what the UPDATE changes',
    before: spec([k('1.31.7', 'deprecated', '2026-09-06T00:00:00Z'), k('1.32.1')]),
    after: spec([k('1.31.7', 'deprecated', '2026-09-03T00:00:00Z'), k('1.32.1')]),
    shoots: [shoot('x', '1.31.7', { autoUpdate: OFF })],
    want: [],
  },
  {
    name: 'removing a version in use is no forecast finding: IN-USE denies it',
    source: 'POLICY.md IN-USE; the forced update of a missing version (maint/reconciler.go) never comes',
    before: spec([k('1.31.7', 'deprecated', '2026-12-01T00:00:00Z'), k('1.32.1')]),
    after: spec([k('1.32.1')]),
    shoots: [shoot('x', '1.31.7', { autoUpdate: OFF })],
    want: [],
  },
  {
    name: 'a change above every version in use concerns no Shoot',
    source: 'maintenance never moves down (v1h/cloudprofile.go, the targets are higher versions)',
    before: spec([k('1.31.7', 'deprecated', '2026-09-05T00:00:00Z'), k('1.32.1'), k('1.33.0')]),
    after: spec([k('1.31.7', 'deprecated', '2026-09-05T00:00:00Z'), k('1.32.1'), k('1.33.0', 'deprecated')]),
    shoots: [shoot('x', '1.33.0', { autoUpdate: OFF })],
    want: [],
  },
  {
    name: 'image under major: a deprecated newest version catches the pools after their supported step',
    source:
      'v1h/cloudprofile.go GetOverallLatestVersionForAutoUpdate, getVersionForAutoUpdate (GARDENER-MAINTENANCE.md example 7)',
    before: spec([k('1.34.1')], [img('gl', 'major', [iv('2.1'), iv('2.2')])]),
    after: spec([k('1.34.1')], [img('gl', 'major', [iv('2.1'), iv('2.2'), iv('2.3', 'deprecated')])]),
    shoots: [
      shoot('x', '1.34.1', {
        autoUpdate: { kubernetesVersion: false, machineImageVersion: true },
        workers: [pool('w', { name: 'gl', version: '2.1' })],
      }),
    ],
    want: ['trap gl 2.2 → 2.3 @2026-09-02 [garden-t/x]'],
  },
  {
    name: 'image: a target that drops an architecture strands the arm64 pool only',
    source: 'maint/helper/helper.go FilterMachineImageVersions (architecture filter)',
    before: spec([k('1.34.1')], [img('gl', 'major', [iv('2.1', 'deprecated', '2026-10-01T00:00:00Z'), iv('2.2')])]),
    after: spec(
      [k('1.34.1')],
      [
        img('gl', 'major', [
          iv('2.1', 'deprecated', '2026-10-01T00:00:00Z'),
          iv('2.2', undefined, undefined, { architectures: ['amd64'] }),
        ]),
      ],
    ),
    shoots: [
      shoot('x', '1.34.1', {
        autoUpdate: OFF,
        workers: [pool('amd', { name: 'gl', version: '2.1' }), pool('arm', { name: 'gl', version: '2.1' }, 'arm')],
      }),
    ],
    want: ['no-target gl 2.1 FAILS pool-constraint @2026-10-01 [garden-t/x]'],
  },
  {
    name: 'image: an in-place pool is stranded when the target no longer accepts its version, a replacing pool is not',
    source: 'maint/helper/helper.go filterForInPlaceUpdateConstraint',
    before: spec(
      [k('1.34.1')],
      [
        img('gl', 'major', [
          iv('2.1', 'deprecated', '2026-10-01T00:00:00Z', { inPlaceUpdates: { supported: true } }),
          iv('2.2', undefined, undefined, { inPlaceUpdates: { supported: true, minVersionForUpdate: '2.1' } }),
        ]),
      ],
    ),
    after: spec(
      [k('1.34.1')],
      [
        img('gl', 'major', [
          iv('2.1', 'deprecated', '2026-10-01T00:00:00Z', { inPlaceUpdates: { supported: true } }),
          iv('2.2', undefined, undefined, { inPlaceUpdates: { supported: true, minVersionForUpdate: '2.2' } }),
        ]),
      ],
    ),
    shoots: [
      shoot('x', '1.34.1', {
        autoUpdate: OFF,
        workers: [{ ...pool('in-place', { name: 'gl', version: '2.1' }), updateStrategy: 'AutoInPlaceUpdate' }],
      }),
      shoot('y', '1.34.1', { autoUpdate: OFF, workers: [pool('replace', { name: 'gl', version: '2.1' })] }),
    ],
    want: ['no-target gl 2.1 FAILS pool-constraint @2026-10-01 [garden-t/x]'],
  },
];

for (const row of ROWS) {
  t.test(`${row.name} (${row.source})`, async (t) => {
    const { findings, skippedGroups } = judge(row.before, row.after, row.shoots);
    t.same(lines(findings), row.want);
    t.equal(skippedGroups, 0, 'every group stepped');
  });
}

t.test('a profile the UPDATE leaves alone reads no Shoot', async (t) => {
  const s = spec([k('1.34.2'), k('1.34.3', 'deprecated')]);
  t.same(changedLists(s, spec([k('1.34.2'), k('1.34.3', 'deprecated')])), new Map(), 'no list changed');
  t.same(judge(s, s, [shoot('a', '1.34.2')]).findings, []);
});

t.test('changedLists: the highest changed version per list; a new update strategy changes every version', async (t) => {
  const before = spec(
    [k('1.30.1'), k('1.31.2'), k('1.32.0')],
    [img('gl', 'major', [iv('1.0'), iv('2.0')]), img('suse', 'patch', [iv('15.1.0')])],
  );
  const after = spec(
    [k('1.30.1', 'deprecated'), k('1.31.2'), k('1.32.0')],
    [img('gl', 'minor', [iv('1.0'), iv('2.0')]), img('suse', 'patch', [iv('15.1.0'), iv('15.2.0')])],
  );
  const changed = changedLists(before, after);
  t.equal(changed.get(''), '1.30.1');
  t.equal(changed.get('suse'), '15.2.0');
  t.ok(changed.has('gl') && !['1.0', '2.0'].includes(changed.get('gl')!), 'gl: every version');
});

t.test('bounded: a list 100× a real one stops at the entry budget and says how many groups it left', async (t) => {
  // 4,000 patch versions of one minor, each expiring a day apart, and a Shoot on each of 2,000 of them.
  const versions = Array.from({ length: 4_000 }, (_, i) =>
    k(`1.30.${i}`, 'deprecated', new Date(NOW + (i + 1) * 3_600_000).toISOString()),
  );
  const before = spec([...versions, k('1.31.0')]);
  const after = spec([
    ...versions.map((v) => ({ ...v, expirationDate: new Date(Date.parse(v.expirationDate!) + 60_000).toISOString() })),
    k('1.31.0'),
  ]);
  const shoots = Array.from({ length: 2_000 }, (_, i) => shoot(`s${i}`, `1.30.${i * 2}`, { autoUpdate: OFF }));
  const { skippedGroups } = judge(before, after, shoots);
  // 2,000 versions in use, each with and without auto-update: 4,000 chains.
  t.ok(
    skippedGroups > 0 && skippedGroups < 4_000,
    `${skippedGroups} of 4,000 chains left unstepped (budget ${ENTRY_BUDGET} entries)`,
  );
});
