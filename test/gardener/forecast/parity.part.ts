// The forecast where Gardener's maintenance controller does something its docs do not say, each
// case as the differential test (npm run test:maintenance, test/fixtures/maintenance/) found it
// against Gardener v1.150.0; every rule with a case on each side.
import t from 'tap';
import { staticState } from '../../../src/cluster/static-state.js';
import {
  componentText,
  type ForecastEvent,
  forecastFleet,
  forecastShoot,
} from '../../../src/gardener/forecast/index.js';
import type {
  CloudProfileSpec,
  ExpirableVersion,
  MachineImageVersion,
  NamespacedCloudProfile,
  Shoot,
  Worker,
} from '../../../src/api/types.js';

const NOW = Date.parse('2027-03-01T00:00:00Z');
const DAY = 86_400_000;
const OFF = { kubernetesVersion: false, machineImageVersion: false };

const k = (version: string, classification?: string, expirationDate?: string): ExpirableVersion => ({
  version,
  ...(classification ? { classification } : {}),
  ...(expirationDate ? { expirationDate } : {}),
});
const iv = (version: string, extra: Partial<MachineImageVersion> = {}): MachineImageVersion => ({
  version,
  classification: 'supported',
  cri: [{ name: 'containerd' }],
  ...extra,
});
const gl = (versions: MachineImageVersion[], updateStrategy = 'major') => ({ name: 'gl', updateStrategy, versions });

function spec(
  machineImages: CloudProfileSpec['machineImages'],
  extra: Partial<CloudProfileSpec> = {},
): CloudProfileSpec {
  return {
    kubernetes: { versions: [k('1.31.9'), k('1.31.5', 'deprecated', '2027-03-05T23:59:59Z')] },
    machineImages,
    machineTypes: [
      { name: 'm5', architecture: 'amd64' },
      { name: 'arm', architecture: 'arm64' },
    ],
    ...extra,
  };
}

const pool = (name: string, version: string, type = 'm5', image = 'gl'): Worker => ({
  name,
  machine: { type, image: { name: image, version } },
});

function shoot(workers: Worker[], over: Partial<Shoot['spec']> = {}, version = '1.31.9'): Shoot {
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: { name: 's', namespace: 'garden-t' },
    spec: {
      cloudProfile: { kind: 'CloudProfile', name: 'p' },
      kubernetes: { version },
      provider: { type: 'aws', workers },
      maintenance: { timeWindow: { begin: '220000+0000', end: '230000+0000' } },
      ...over,
    },
  };
}

/** `2027-03-01 worker pool "a" image gl: auto 1.0.0 → 1.1.0 QUIRK unrecorded`. */
function line(e: ForecastEvent): string {
  const what = e.to ? `${e.from} → ${e.to}` : `FAILS ${e.failure?.kind}`;
  return `${new Date(e.at).toISOString().slice(0, 10)} ${componentText(e.component)}: ${e.mode} ${what}${e.quirk ? ` QUIRK ${e.quirk.kind}` : ''}${e.uncertain ? ' ~' : ''}`;
}
const lines = (s: Shoot, p: CloudProfileSpec, days = 10) => forecastShoot(s, p, NOW, NOW + days * DAY).events.map(line);

t.test('capability flavors are flat maps: an arm64-only flavor is no target for an amd64 pool', async (t) => {
  const caps = { machineCapabilities: [{ name: 'architecture', values: ['amd64', 'arm64'] }] };
  const p = spec(
    [
      gl([
        iv('3.0.0', { capabilityFlavors: [{ architecture: ['arm64'] }] }),
        iv('2.0.0', { capabilityFlavors: [{ architecture: ['amd64'] }, { architecture: ['arm64'] }] }),
        iv('1.0.0', { capabilityFlavors: [{ architecture: ['amd64'] }, { architecture: ['arm64'] }] }),
      ]),
    ],
    {
      ...caps,
      machineTypes: [
        { name: 'm5', capabilities: { architecture: ['amd64'] } },
        { name: 'arm', capabilities: { architecture: ['arm64'] } },
      ],
    },
  );
  t.same(lines(shoot([pool('amd', '1.0.0'), pool('arm', '1.0.0', 'arm')]), p), [
    '2027-03-01 worker pool "amd" image gl: auto 1.0.0 → 2.0.0',
    '2027-03-01 worker pool "arm" image gl: auto 1.0.0 → 3.0.0',
  ]);
});

t.test('machine-type capabilities filter beyond the architecture, defaulted from the definitions', async (t) => {
  const p = spec(
    [
      gl([
        iv('3.0.0', { capabilityFlavors: [{ architecture: ['amd64'], network: ['standard'] }] }),
        iv('2.0.0', { capabilityFlavors: [{ architecture: ['amd64'] }] }),
        iv('1.0.0'),
      ]),
    ],
    {
      machineCapabilities: [
        { name: 'architecture', values: ['amd64'] },
        { name: 'network', values: ['standard', 'accelerated'] },
      ],
      machineTypes: [{ name: 'm5' }, { name: 'fast', capabilities: { network: ['accelerated'] } }],
    },
  );
  t.same(lines(shoot([pool('standard', '1.0.0'), pool('fast', '1.0.0', 'fast')]), p), [
    '2027-03-01 worker pool "standard" image gl: auto 1.0.0 → 3.0.0',
    '2027-03-01 worker pool "fast" image gl: auto 1.0.0 → 2.0.0',
  ]);
});

t.test(
  'a pool whose machine type the profile lacks stops the image part there; the pool before moves unrecorded',
  async (t) => {
    const p = spec([gl([iv('2.0.0'), iv('1.0.0', { expirationDate: '2027-03-02T23:59:59Z' })])]);
    const optedOut = { maintenance: { timeWindow: { begin: '220000+0000', end: '230000+0000' }, autoUpdate: OFF } };
    const s = shoot([pool('first', '1.0.0'), pool('gone', '1.0.0', 'm4'), pool('last', '1.0.0')], optedOut);
    t.same(lines(s, p), [
      '2027-03-01 worker pool "gone" image gl: forced FAILS no-machine-type QUIRK unrecorded',
      '2027-03-03 worker pool "first" image gl: forced 1.0.0 → 2.0.0 QUIRK unrecorded',
    ]);
    // With every machine type known, all three pools move, with events.
    t.same(lines(shoot([pool('first', '1.0.0'), pool('last', '1.0.0')], optedOut), p), [
      '2027-03-03 worker pool "first" image gl: forced 1.0.0 → 2.0.0',
      '2027-03-03 worker pool "last" image gl: forced 1.0.0 → 2.0.0',
    ]);
  },
);

t.test('a Kubernetes version whose lifecycle has not started is taken, and flagged', async (t) => {
  const later = { version: '1.31.12', lifecycle: [{ classification: 'supported', startTime: '2027-03-27T00:00:00Z' }] };
  const p: CloudProfileSpec = { ...spec([gl([iv('1.0.0')])]), kubernetes: { versions: [later, k('1.31.9')] } };
  t.same(lines(shoot([pool('a', '1.0.0')]), p), [
    '2027-03-01 control plane: auto 1.31.9 → 1.31.12 QUIRK before-lifecycle',
  ]);
  const preview = { ...later, lifecycle: [{ classification: 'preview' }, ...later.lifecycle] };
  t.same(
    lines(shoot([pool('a', '1.0.0')]), { ...p, kubernetes: { versions: [preview, k('1.31.9')] } }),
    [],
    'preview: never',
  );
});

t.test(
  'an image version whose lifecycle has not started: picked, rejected with the run, until it is preview',
  async (t) => {
    const next = iv('1.2.0', {
      classification: undefined,
      lifecycle: [
        { classification: 'preview', startTime: '2027-03-10T00:00:00Z' },
        { classification: 'supported', startTime: '2027-03-20T00:00:00Z' },
      ],
    });
    const p = spec([gl([next, iv('1.1.0'), iv('1.0.0')])]);
    const s = shoot(
      [pool('a', '1.0.0')],
      {
        maintenance: {
          timeWindow: { begin: '220000+0000', end: '230000+0000' },
          autoUpdate: { machineImageVersion: true },
        },
      },
      '1.31.5',
    );
    t.same(lines(s, p, 30), [
      '2027-03-01 the run: auto FAILS inactive-image QUIRK before-lifecycle',
      '2027-03-10 worker pool "a" image gl: auto 1.0.0 → 1.1.0',
      '2027-03-10 control plane: forced 1.31.5 → 1.31.9',
      '2027-03-20 worker pool "a" image gl: auto 1.1.0 → 1.2.0',
    ]);
  },
);

t.test("a NamespacedCloudProfile's own image version without cri is no target; with cri it is", async (t) => {
  const profile = { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'CloudProfile' as const, metadata: { name: 'p' } };
  const ncp = (version: MachineImageVersion): NamespacedCloudProfile => ({
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'NamespacedCloudProfile',
    metadata: { name: 'n', namespace: 'garden-t' },
    spec: { parent: { kind: 'CloudProfile', name: 'p' }, machineImages: [{ name: 'gl', versions: [version] }] },
  });
  const s = shoot([pool('a', '1.0.0')], { cloudProfile: { kind: 'NamespacedCloudProfile', name: 'n' } });
  const run = (v: MachineImageVersion) =>
    forecastFleet(
      staticState([{ ...profile, spec: spec([gl([iv('1.1.0'), iv('1.0.0')])]) }, ncp(v), s]),
      NOW,
      5,
    ).shoots[0]!.events.map(line);
  t.same(run({ version: '1.5.0', classification: 'supported' }), [
    '2027-03-01 worker pool "a" image gl: auto 1.0.0 → 1.1.0',
  ]);
  t.same(run(iv('1.5.0')), ['2027-03-01 worker pool "a" image gl: auto 1.0.0 → 1.5.0']);
});

t.test('a preview-only minor below the target: the forced step takes the expired newest of the minor', async (t) => {
  const p = spec([
    gl(
      [
        iv('5.8.0'),
        iv('5.7.3', { expirationDate: '2027-02-01T00:00:00Z' }),
        iv('5.7.1'),
        iv('5.6.0', { classification: 'preview' }),
        iv('5.5.9', { expirationDate: '2027-03-03T23:59:59Z' }),
      ],
      'patch',
    ),
  ]);
  const s = shoot([pool('a', '5.5.9')], {
    maintenance: { timeWindow: { begin: '220000+0000', end: '230000+0000' }, autoUpdate: OFF },
  });
  t.same(lines(s, p), [
    '2027-03-04 worker pool "a" image gl: forced 5.5.9 → 5.7.3 QUIRK expired-target',
    '2027-03-05 worker pool "a" image gl: forced 5.7.3 → 5.8.0',
  ]);
  // Without the preview-only minor, the non-expired 5.7.1 is the next minor's target.
  const plain = spec([
    gl(
      p.machineImages[0]!.versions.filter((v) => v.version !== '5.6.0'),
      'patch',
    ),
  ]);
  t.same(lines(s, plain), ['2027-03-04 worker pool "a" image gl: forced 5.5.9 → 5.7.1']);
});

t.test('an expiry inside the window: the step is uncertain, and the late run takes it a day earlier', async (t) => {
  const p: CloudProfileSpec = {
    ...spec([gl([iv('1.0.0')])]),
    kubernetes: { versions: [k('1.31.9'), k('1.31.5', 'deprecated', '2027-03-05T22:20:00Z')] },
  };
  const s = shoot(
    [pool('a', '1.0.0')],
    { maintenance: { timeWindow: { begin: '220000+0000', end: '230000+0000' }, autoUpdate: OFF } },
    '1.31.5',
  );
  const f = forecastShoot(s, p, NOW, NOW + 10 * DAY);
  t.same(f.events.map(line), ['2027-03-06 control plane: forced 1.31.5 → 1.31.9 ~']);
  t.same(f.otherwise?.map(line), ['2027-03-05 control plane: forced 1.31.5 → 1.31.9 ~']);
  // An expiry after the window's last second (22:44:59) moves nothing: no second outcome.
  const after: CloudProfileSpec = {
    ...p,
    kubernetes: { versions: [k('1.31.9'), k('1.31.5', 'deprecated', '2027-03-05T22:50:00Z')] },
  };
  const g = forecastShoot(s, after, NOW, NOW + 10 * DAY);
  t.same(g.events.map(line), ['2027-03-06 control plane: forced 1.31.5 → 1.31.9']);
  t.equal(g.otherwise, undefined);
});

t.test(
  'a Shoot without a window: the earliest and the latest of the random windows the API server gives',
  async (t) => {
    const p = spec([gl([iv('1.0.0')])]);
    const s = shoot([pool('a', '1.0.0')], { maintenance: { autoUpdate: OFF } }, '1.31.5');
    const f = forecastShoot(s, p, NOW, NOW + 10 * DAY);
    t.same(
      f.events.map((e) => new Date(e.at).toISOString()),
      ['2027-03-06T00:00:00.000Z'],
    );
    t.same(
      f.otherwise?.map((e) => new Date(e.at).toISOString()),
      ['2027-03-06T22:00:00.000Z'],
    );
    t.equal(f.window.text, 'none set: a random hour from 00:00 to 23:00 UTC');
  },
);

t.test('a hibernated Shoot gets its steps all the same, each saying so', async (t) => {
  const p = spec([gl([iv('1.1.0'), iv('1.0.0')])]);
  const asleep = forecastShoot(shoot([pool('a', '1.0.0')], { hibernation: { enabled: true } }), p, NOW, NOW + DAY);
  t.same(
    asleep.events.map((e) => [line(e), e.hibernated]),
    [['2027-03-01 worker pool "a" image gl: auto 1.0.0 → 1.1.0', true]],
  );
  const awake = forecastShoot(shoot([pool('a', '1.0.0')], { hibernation: { enabled: false } }), p, NOW, NOW + DAY);
  t.equal(awake.events[0]?.hibernated, undefined);
});
