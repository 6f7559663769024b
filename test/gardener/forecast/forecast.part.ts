// The forecast, one table row per rule of Gardener's maintenance (GARDENER-MAINTENANCE.md; the
// Gardener file each row follows is in `source`). Rows name the runs they expect, in order, as
// `date component: mode from → to` or `date component: mode from FAILS kind`, plus any trap.
import t from '../../helpers/parts.js';
import { staticState } from '../../../src/cluster/static-state.js';
import {
  componentText,
  diffForecasts,
  type ForecastEvent,
  forecastFleet,
  forecastShoot,
} from '../../../src/gardener/forecast/index.js';
import type {
  CloudProfile,
  CloudProfileSpec,
  ExpirableVersion,
  MachineImage,
  MachineImageVersion,
  NamespacedCloudProfile,
  Shoot,
  Worker,
} from '../../../src/api/types.js';

const NOW = Date.parse('2026-09-01T00:00:00Z');
const DAY = 86_400_000;

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
  architectures: ['amd64'],
  ...extra,
});
const img = (name: string, updateStrategy: string, versions: MachineImageVersion[]): MachineImage => ({
  name,
  updateStrategy,
  versions,
});

function spec(
  kubernetes: ExpirableVersion[],
  machineImages: MachineImage[] = [],
  machineTypes = [
    { name: 'm5', architecture: 'amd64' },
    { name: 'arm', architecture: 'arm64' },
  ],
): CloudProfileSpec {
  return { kubernetes: { versions: kubernetes }, machineImages, machineTypes };
}

interface ShootIn {
  version: string;
  workers?: Worker[];
  autoUpdate?: { kubernetesVersion?: boolean; machineImageVersion?: boolean };
  window?: { begin: string; end: string };
  name?: string;
  deleting?: boolean;
  profile?: { kind: string; name: string };
}

function shoot(s: ShootIn): Shoot {
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: {
      name: s.name ?? 's',
      namespace: 'garden-t',
      ...(s.deleting ? { deletionTimestamp: '2026-08-31T00:00:00Z' } : {}),
    },
    spec: {
      cloudProfile: s.profile ?? { kind: 'CloudProfile', name: 'p' },
      kubernetes: { version: s.version },
      provider: { type: 'aws', workers: s.workers ?? [] },
      maintenance: {
        timeWindow: s.window ?? { begin: '200000+0000', end: '210000+0000' },
        ...(s.autoUpdate ? { autoUpdate: s.autoUpdate } : {}),
      },
    },
  };
}

const pool = (name: string, image?: { name: string; version: string }, kubernetes?: string, type = 'm5'): Worker => ({
  name,
  machine: { type, ...(image ? { image } : {}) },
  ...(kubernetes ? { kubernetes: { version: kubernetes } } : {}),
});

/** `2026-09-01 control plane: auto 1.34.1 → 1.34.2`, `… FAILS no-consecutive-minor`, `… TRAP gardener/gardener#13647`. */
function line(e: ForecastEvent): string {
  const what = e.to ? `${e.from} → ${e.to}` : `${e.from ? `${e.from} ` : ''}FAILS ${e.failure?.kind}`;
  return `${new Date(e.at).toISOString().slice(0, 10)} ${componentText(e.component)}: ${e.mode} ${what}${e.trap ? ` TRAP ${e.trap.issue}` : ''}`;
}

const OFF = { kubernetesVersion: false, machineImageVersion: false };

interface Row {
  name: string;
  source: string;
  profile: CloudProfileSpec;
  shoot: ShootIn;
  days?: number;
  want: string[];
}

const rows: Row[] = [
  {
    name: 'the run is the window begin in UTC: 220000+0100 runs at 21:00 UTC, once a day',
    source: 'pkg/apis/utils/timewindow/timewindow.go ParseMaintenanceTime; maint/reconciler.go requeueAfterDuration',
    profile: spec([k('1.34.1'), k('1.34.2')]),
    shoot: { version: '1.34.1', window: { begin: '220000+0100', end: '230000+0100' } },
    want: ['2026-09-01 control plane: auto 1.34.1 → 1.34.2'],
  },
  {
    name: 'an expired version is forced even when the Shoot opted out, at the first window after the expiry; to the newest non-deprecated patch',
    source:
      'maint/reconciler.go shouldKubernetesVersionBeUpdated; v1h/cloudprofile.go getVersionForAutoUpdate (GARDENER-MAINTENANCE.md example 2)',
    profile: spec([
      k('1.34.1', 'deprecated', '2027-01-31T00:00:00Z'),
      k('1.34.2'),
      k('1.34.3', 'deprecated'),
      k('1.35.0'),
    ]),
    shoot: { version: '1.34.1', autoUpdate: OFF },
    want: ['2027-01-31 control plane: forced 1.34.1 → 1.34.2'],
  },
  {
    name: 'a version missing from the profile is forced',
    source:
      'maint/reconciler.go shouldKubernetesVersionBeUpdated; v1h/cloudprofile.go KubernetesVersionExistsInCloudProfile',
    profile: spec([k('1.34.2'), k('1.35.0')]),
    shoot: { version: '1.34.1', autoUpdate: OFF },
    want: ['2026-09-01 control plane: forced 1.34.1 → 1.34.2'],
  },
  {
    name: 'an autoUpdate block that sets only machineImageVersion leaves Kubernetes auto-update off',
    source: 'pkg/apis/core/v1beta1/defaults_shoot.go SetDefaults_Shoot',
    profile: spec([k('1.34.1'), k('1.34.2')]),
    shoot: { version: '1.34.1', autoUpdate: { machineImageVersion: true } },
    want: [],
  },
  {
    name: 'preview versions are never a target, and auto-update never changes the minor',
    source:
      'v1h/cloudprofile.go GetLatestQualifyingVersion, GetLatestVersionForPatchAutoUpdate; maint/helper/helper.go DetermineVersionForStrategy',
    profile: spec([k('1.34.1'), k('1.34.2', 'preview'), k('1.35.0')]),
    shoot: { version: '1.34.1' },
    want: [],
  },
  {
    name: 'a chain of expired minors is walked one minor per window; a pinned pool follows, capped at the control plane',
    source:
      'v1h/cloudprofile.go GetVersionForForcefulUpdateToConsecutiveMinor; maint/reconciler.go reconcile (GARDENER-MAINTENANCE.md example 4)',
    profile: spec([
      k('1.31.9', 'supported', '2026-06-01T00:00:00Z'),
      k('1.32.5', 'supported', '2026-07-01T00:00:00Z'),
      k('1.32.6', 'supported', '2026-07-01T00:00:00Z'),
      k('1.33.3'),
      k('1.34.1'),
    ]),
    shoot: { version: '1.31.9', autoUpdate: OFF, workers: [pool('a', undefined, '1.31.9'), pool('b')] },
    want: [
      '2026-09-01 control plane: forced 1.31.9 → 1.32.6',
      '2026-09-01 worker pool "a": forced 1.31.9 → 1.32.6',
      '2026-09-02 control plane: forced 1.32.6 → 1.33.3',
      '2026-09-02 worker pool "a": forced 1.32.6 → 1.33.3',
    ],
  },
  {
    name: 'the trap of gardener#13647: first the supported patch, the next window the newer deprecated one',
    source: 'v1h/cloudprofile.go getVersionForAutoUpdate (GARDENER-MAINTENANCE.md example 2)',
    profile: spec([
      k('1.34.1', 'deprecated', '2027-01-31T00:00:00Z'),
      k('1.34.2'),
      k('1.34.3', 'deprecated'),
      k('1.35.0'),
    ]),
    shoot: { version: '1.34.1' },
    want: [
      '2026-09-01 control plane: auto 1.34.1 → 1.34.2',
      '2026-09-02 control plane: auto 1.34.2 → 1.34.3 TRAP gardener/gardener#13647',
    ],
  },
  {
    name: 'the trap of gardener#13703: the forced minor step takes a deprecated patch over a supported one',
    source: 'v1h/cloudprofile.go GetVersionForForcefulUpdateToConsecutiveMinor (GARDENER-MAINTENANCE.md example 3)',
    profile: spec([k('1.33.6', 'deprecated', '2026-09-10T08:00:00Z'), k('1.34.2'), k('1.34.3', 'deprecated')]),
    shoot: { version: '1.33.6', autoUpdate: OFF },
    want: ['2026-09-10 control plane: forced 1.33.6 → 1.34.3 TRAP gardener/gardener#13703'],
  },
  {
    name: 'no consecutive minor: the forced update fails, listed once although it repeats every window',
    source: 'maint/reconciler.go maintainKubernetesVersion; maint/helper/helper.go DetermineVersionForStrategy',
    profile: spec([k('1.32.4', 'deprecated', '2026-08-01T00:00:00Z'), k('1.34.1')]),
    shoot: { version: '1.32.4' },
    want: ['2026-09-01 control plane: forced 1.32.4 FAILS no-consecutive-minor'],
  },
  {
    name: 'image patch strategy: a forced chain through an expired minor (onto a deprecated patch), then no target once the last minor expires',
    source: 'v1h/cloudprofile.go GetVersionForForcefulUpdateToNextHigherMinor (GARDENER-MAINTENANCE.md example 6)',
    profile: spec(
      [k('1.34.1')],
      [
        img('suse', 'patch', [
          iv('15.1.0', 'deprecated', '2026-08-01T00:00:00Z'),
          iv('15.2.0', 'deprecated', '2026-08-15T00:00:00Z'),
          iv('15.2.1', 'preview'),
          iv('15.3.0'),
          iv('15.3.1', 'deprecated', '2026-10-01T00:00:00Z'),
          iv('16.0.0'),
        ]),
      ],
    ),
    shoot: { version: '1.34.1', autoUpdate: OFF, workers: [pool('w', { name: 'suse', version: '15.1.0' })] },
    want: [
      '2026-09-01 worker pool "w" image suse: forced 15.1.0 → 15.2.0',
      // Deprecated 15.3.1 beats supported 15.3.0: the forced step has no preference, as in gardener#13703.
      '2026-09-02 worker pool "w" image suse: forced 15.2.0 → 15.3.1 TRAP gardener/gardener#13703',
      '2026-10-01 worker pool "w" image suse: forced 15.3.1 FAILS no-target',
    ],
  },
  {
    name: 'image major strategy: forced to the supported version, then the trap of gardener#13647 the next window (example 7)',
    source: 'v1h/cloudprofile.go GetOverallLatestVersionForAutoUpdate, getVersionForAutoUpdate',
    profile: spec(
      [k('1.34.1')],
      [img('gl', 'major', [iv('2.1', 'deprecated', '2026-09-01T12:00:00Z'), iv('2.2'), iv('2.3', 'deprecated')])],
    ),
    shoot: {
      version: '1.34.1',
      autoUpdate: { kubernetesVersion: false, machineImageVersion: true },
      workers: [pool('w', { name: 'gl', version: '2.1' })],
    },
    want: [
      '2026-09-01 worker pool "w" image gl: forced 2.1 → 2.2',
      '2026-09-02 worker pool "w" image gl: auto 2.2 → 2.3 TRAP gardener/gardener#13647',
    ],
  },
  {
    name: 'image minor strategy: the forced step goes to the next major',
    source: 'v1h/cloudprofile.go GetVersionForForcefulUpdateToNextHigherMajor (GARDENER-MAINTENANCE.md example 8)',
    profile: spec(
      [k('1.34.1')],
      [
        img('gl', 'minor', [
          iv('934.8.0', 'deprecated', '2026-10-01T00:00:00Z'),
          iv('1096.1.0'),
          iv('1096.2.0', 'preview'),
          iv('1443.0.0'),
        ]),
      ],
    ),
    shoot: { version: '1.34.1', workers: [pool('w', { name: 'gl', version: '934.8.0' })] },
    want: ['2026-10-01 worker pool "w" image gl: forced 934.8.0 → 1096.1.0'],
  },
  {
    name: 'image major strategy: end of life when nothing newer is left',
    source: 'maint/helper/helper.go DetermineMachineImageVersion',
    profile: spec([k('1.34.1')], [img('gl', 'major', [iv('2.1', 'deprecated', '2026-08-01T00:00:00Z'), iv('1.9')])]),
    shoot: { version: '1.34.1', workers: [pool('w', { name: 'gl', version: '2.1' })] },
    want: ['2026-09-01 worker pool "w" image gl: forced 2.1 FAILS end-of-life'],
  },
  {
    name: "no target for the pool's architecture: the only newer version is amd64, the pool arm64",
    source: 'maint/helper/helper.go FilterMachineImageVersions, filterForArchitecture',
    profile: spec(
      [k('1.34.1')],
      [
        img('gl', 'major', [
          iv('2.1', 'deprecated', '2026-08-01T00:00:00Z', { architectures: ['amd64', 'arm64'] }),
          iv('2.2'),
        ]),
      ],
    ),
    shoot: { version: '1.34.1', workers: [pool('w', { name: 'gl', version: '2.1' }, undefined, 'arm')] },
    want: ['2026-09-01 worker pool "w" image gl: forced 2.1 FAILS pool-constraint'],
  },
  {
    name: "no target for the pool's CRI: the newer version lists no containerd",
    source: 'maint/helper/helper.go filterForCRI',
    profile: spec(
      [k('1.34.1')],
      [
        img('gl', 'major', [
          iv('2.1', 'deprecated', '2026-08-01T00:00:00Z'),
          iv('2.2', undefined, undefined, { cri: [{ name: 'docker' }] }),
        ]),
      ],
    ),
    shoot: { version: '1.34.1', workers: [pool('w', { name: 'gl', version: '2.1' })] },
    want: ['2026-09-01 worker pool "w" image gl: forced 2.1 FAILS pool-constraint'],
  },
  {
    name: 'no target for the kubelet: the newer version wants kubelet 1.35',
    source: 'maint/helper/helper.go filterForKubeletVersionConstraint',
    profile: spec(
      [k('1.34.1')],
      [
        img('gl', 'major', [
          iv('2.1', 'deprecated', '2026-08-01T00:00:00Z'),
          iv('2.2', undefined, undefined, { kubeletVersionConstraint: '>= 1.35' }),
        ]),
      ],
    ),
    shoot: { version: '1.34.1', workers: [pool('w', { name: 'gl', version: '2.1' })] },
    want: ['2026-09-01 worker pool "w" image gl: forced 2.1 FAILS pool-constraint'],
  },
  {
    name: 'a pool whose current image its own filters reject is forced, as if the version were missing, even with auto-update off',
    source: 'maint/reconciler.go shouldMachineImageVersionBeUpdated (GARDENER-MAINTENANCE.md §6.1)',
    profile: spec(
      [k('1.34.1')],
      [img('gl', 'major', [iv('2.1', undefined, undefined, { kubeletVersionConstraint: '< 1.34' }), iv('2.2')])],
    ),
    shoot: { version: '1.34.1', autoUpdate: OFF, workers: [pool('w', { name: 'gl', version: '2.1' })] },
    want: ['2026-09-01 worker pool "w" image gl: forced 2.1 → 2.2'],
  },
  {
    name: 'an in-place pool moves only to a version whose minVersionForUpdate it has reached',
    source: 'maint/helper/helper.go filterForInPlaceUpdateConstraint',
    profile: spec(
      [k('1.34.1')],
      [
        img('gl', 'major', [
          iv('2.1', undefined, undefined, { inPlaceUpdates: { supported: true } }),
          iv('2.2', undefined, undefined, { inPlaceUpdates: { supported: true, minVersionForUpdate: '2.1' } }),
          iv('2.3', undefined, undefined, { inPlaceUpdates: { supported: true, minVersionForUpdate: '2.2' } }),
        ]),
      ],
    ),
    shoot: {
      version: '1.34.1',
      workers: [{ ...pool('w', { name: 'gl', version: '2.1' }), updateStrategy: 'AutoInPlaceUpdate' }],
    },
    want: [
      '2026-09-01 worker pool "w" image gl: auto 2.1 → 2.2',
      '2026-09-02 worker pool "w" image gl: auto 2.2 → 2.3',
    ],
  },
  {
    name: "the dry run rejects a control plane past the image's kubelet constraint: nothing of the run applies (example 9)",
    source: 'plugin/pkg/shoot/validator/admission.go validateKubeletVersion; maint/reconciler.go reconcile',
    profile: spec(
      [k('1.34.3', 'deprecated', '2026-08-01T00:00:00Z'), k('1.35.1')],
      [
        img('gl', 'major', [
          iv('1.0.0', undefined, undefined, { kubeletVersionConstraint: '< 1.35' }),
          iv('2.0.0', undefined, undefined, { kubeletVersionConstraint: '>= 1.35' }),
        ]),
      ],
    ),
    shoot: { version: '1.34.3', workers: [pool('w', { name: 'gl', version: '1.0.0' })] },
    want: ['2026-09-01 the run: forced FAILS kubelet-constraint'],
  },
  {
    name: 'the dry run rejects a pool four minors behind the control plane (example 5)',
    source: 'pkg/api/core/validation/shoot.go validateWorkerGroupAndControlPlaneKubernetesVersion',
    profile: spec([k('1.30.14'), k('1.33.5', 'deprecated', '2026-08-01T00:00:00Z'), k('1.34.2')]),
    shoot: { version: '1.33.5', workers: [pool('legacy', undefined, '1.30.14')] },
    want: ['2026-09-01 the run: forced FAILS skew'],
  },
];

for (const row of rows) {
  t.test(row.name, async (t) => {
    const { events } = forecastShoot(shoot(row.shoot), row.profile, NOW, NOW + (row.days ?? 180) * DAY);
    t.same(events.map(line), row.want, row.source);
  });
}

t.test('reasons are the texts Gardener records, triggers name the expiry', async (t) => {
  const profile = spec([k('1.34.1', 'deprecated', '2026-08-01T00:00:00Z'), k('1.34.2')]);
  const [e] = forecastShoot(shoot({ version: '1.34.1' }), profile, NOW, NOW + DAY).events;
  t.equal(
    e?.reason,
    'Kubernetes version expired - force update required',
    'maint/reconciler.go shouldKubernetesVersionBeUpdated',
  );
  t.equal(e?.trigger, '1.34.1 expired at 2026-08-01T00:00:00Z');
  t.equal(e?.at, Date.parse('2026-09-01T20:00:00Z'));
  t.equal(e?.windowEnd, Date.parse('2026-09-01T21:00:00Z'));
});

t.test('an expiry inside the window makes the step uncertain: the random run instant decides', async (t) => {
  // maint/reconciler.go requeueAfterDuration draws the instant in [begin, end − 15 min).
  const profile = spec([k('1.34.1', 'deprecated', '2026-09-01T20:30:00Z'), k('1.34.2')]);
  const [e] = forecastShoot(shoot({ version: '1.34.1', autoUpdate: OFF }), profile, NOW, NOW + 5 * DAY).events;
  t.equal(e?.at, Date.parse('2026-09-02T20:00:00Z'));
  t.equal(e?.uncertain, true);
});

const meta = (name: string) => ({ name });
const fleetProfile = (versions: ExpirableVersion[]): CloudProfile => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'CloudProfile',
  metadata: meta('p'),
  spec: spec(versions),
});

t.test('Shoots being deleted are skipped', async (t) => {
  // maint/reconciler.go Reconcile: only a deletionTimestamp stops maintenance.
  const state = staticState([
    fleetProfile([k('1.34.1'), k('1.34.2')]),
    shoot({ version: '1.34.1', name: 'gone', deleting: true }),
    shoot({ version: '1.34.1', name: 'here' }),
  ]);
  const f = forecastFleet(state, NOW, 30);
  t.same(f.skipped, [{ shoot: 'garden-t/gone', why: 'being deleted' }]);
  t.same(
    f.shoots.map((s) => s.shoot),
    ['garden-t/here'],
  );
});

t.test("a NamespacedCloudProfile's expirationDate moves the forced update for its Shoots only", async (t) => {
  // pkg/controllermanager/controller/namespacedcloudprofile/reconciler.go mergeExpirationDates.
  const ncp: NamespacedCloudProfile = {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'NamespacedCloudProfile',
    metadata: { name: 'n', namespace: 'garden-t' },
    spec: {
      parent: { kind: 'CloudProfile', name: 'p' },
      kubernetes: { versions: [{ version: '1.34.1', expirationDate: '2026-10-01T00:00:00Z' }] },
    },
  };
  const state = staticState([
    fleetProfile([k('1.34.1', 'deprecated', '2026-09-05T00:00:00Z'), k('1.35.0')]),
    ncp,
    shoot({ version: '1.34.1', name: 'a', autoUpdate: OFF }),
    shoot({ version: '1.34.1', name: 'b', autoUpdate: OFF, profile: { kind: 'NamespacedCloudProfile', name: 'n' } }),
  ]);
  const f = forecastFleet(state, NOW, 60);
  t.same(
    f.shoots.map((s) => [s.shoot, s.events.map(line)]),
    [
      ['garden-t/a', ['2026-09-05 control plane: forced 1.34.1 → 1.35.0']],
      ['garden-t/b', ['2026-10-01 control plane: forced 1.34.1 → 1.35.0']],
    ],
  );
});

t.test('a proposed profile: the diff names new, earlier and gone steps, and new traps', async (t) => {
  const s = [shoot({ version: '1.34.1', name: 'a', autoUpdate: OFF }), shoot({ version: '1.34.2', name: 'b' })];
  const current = forecastFleet(
    staticState([fleetProfile([k('1.34.1', 'deprecated', '2026-10-01T00:00:00Z'), k('1.34.2'), k('1.35.0')]), ...s]),
    NOW,
    90,
  );
  // Expire 1.34.1 earlier, and add a deprecated 1.34.3 (to withdraw it, as in gardener#13647).
  const proposed = forecastFleet(
    staticState([
      fleetProfile([
        k('1.34.1', 'deprecated', '2026-09-15T00:00:00Z'),
        k('1.34.2'),
        k('1.34.3', 'deprecated'),
        k('1.35.0'),
      ]),
      ...s,
    ]),
    NOW,
    90,
  );
  const changes = diffForecasts(current, proposed);
  t.same(
    changes.map((c) => `${c.kind} ${c.shoot} ${line(c.event)}`),
    [
      'new garden-t/b 2026-09-01 control plane: auto 1.34.2 → 1.34.3 TRAP gardener/gardener#13647',
      'earlier garden-t/a 2026-09-15 control plane: forced 1.34.1 → 1.34.2',
    ],
  );
});

t.test('a proposed profile: an uncertain window diffs both outcomes, the late one marked', async (t) => {
  const s = [shoot({ version: '1.34.1', name: 'a', autoUpdate: OFF })];
  const at = (expiry: string) =>
    forecastFleet(staticState([fleetProfile([k('1.34.1', 'deprecated', expiry), k('1.34.2')]), ...s]), NOW, 90);
  // The window is 20:00-21:00; Gardener runs by 20:44:59, so an expiry at 20:10 is taken that day or the next.
  const changes = diffForecasts(at('2026-10-01T00:00:00Z'), at('2026-09-15T20:10:00Z'));
  t.same(
    changes.map(
      (c) =>
        `${c.kind}${c.late ? ' (late)' : ''} ${c.shoot} ${line(c.event)} was ${new Date(c.before ?? 0).toISOString()}`,
    ),
    [
      'earlier (late) garden-t/a 2026-09-15 control plane: forced 1.34.1 → 1.34.2 was 2026-10-01T20:00:00.000Z',
      'earlier garden-t/a 2026-09-16 control plane: forced 1.34.1 → 1.34.2 was 2026-10-01T20:00:00.000Z',
    ],
  );
  // Both sides uncertain alike: the late outcome moves with the early one, and only the date changes.
  const both = diffForecasts(at('2026-10-01T20:10:00Z'), at('2026-09-15T20:10:00Z'));
  t.same(
    both.map(
      (c) => `${c.kind}${c.late ? ' (late)' : ''} ${line(c.event)} was ${new Date(c.before ?? 0).toISOString()}`,
    ),
    [
      'earlier (late) 2026-09-15 control plane: forced 1.34.1 → 1.34.2 was 2026-10-01T20:00:00.000Z',
      'earlier 2026-09-16 control plane: forced 1.34.1 → 1.34.2 was 2026-10-02T20:00:00.000Z',
    ],
  );
  // A certain expiry on either side: no late change.
  t.equal(diffForecasts(at('2026-10-01T00:00:00Z'), at('2026-09-15T00:00:00Z')).filter((c) => c.late).length, 0);
});
