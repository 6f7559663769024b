// What the cache keeps of an object from the API server.
import t from '../helpers/parts.js';
import type { CloudProfileSpec, Shoot } from '../../src/api/types.js';
import { staticState } from '../../src/cluster/static-state.js';
import { sharedShoot, trimObject } from '../../src/cluster/trim.js';
import { forecastFleet } from '../../src/gardener/forecast/index.js';
import { changedLists, forecastFindings } from '../../src/gardener/forecast/profile-change.js';
import { served } from '../helpers/api-objects.js';
import { cloudProfile, decide, namespacedProfile, shoot } from '../helpers/objects.js';

t.test('a Shoot keeps only what the rules read', async (t) => {
  const raw = served(
    shoot({
      name: 'a',
      profile: { kind: 'NamespacedCloudProfile', name: 'dev' },
      version: '1.31.1',
      workers: [{ name: 'p1', kubernetes: '1.30.2', image: ['gardenlinux', '1.0.0'] }],
    }),
  );
  const listItem = { ...raw } as Record<string, unknown>;
  delete listItem.apiVersion;
  delete listItem.kind;
  const trimmed = trimObject('Shoot', {
    ...listItem,
    metadata: { ...raw.metadata, resourceVersion: '7', deletionTimestamp: '2026-01-01T00:00:00Z' },
  });
  t.same(trimmed, {
    ok: true,
    object: {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      metadata: { name: 'a', namespace: 'garden-dev', resourceVersion: '7', deletionTimestamp: '2026-01-01T00:00:00Z' },
      spec: {
        cloudProfile: { kind: 'NamespacedCloudProfile', name: 'dev' },
        kubernetes: { version: '1.31.1' },
        provider: {
          workers: [
            {
              name: 'p1',
              kubernetes: { version: '1.30.2' },
              machine: { type: 'm5.large', image: { name: 'gardenlinux', version: '1.0.0' } },
            },
          ],
        },
        maintenance: {
          timeWindow: { begin: '220000+0100', end: '230000+0100' },
          autoUpdate: { kubernetesVersion: true },
        },
      },
    },
  });
});

t.test(
  'profiles keep their whole spec and useful annotations; status, managedFields and last-applied go',
  async (t) => {
    const cp = served(
      cloudProfile({ name: 'aws', annotations: { 'version-policy.gardener.cloud/managed': '["1.31.0"]' } }),
    );
    const trimmed = trimObject('CloudProfile', cp);
    t.ok(trimmed.ok);
    if (!trimmed.ok) return;
    t.same(trimmed.object.spec, cp.spec);
    t.same(trimmed.object.metadata, {
      name: 'aws',
      generation: 3,
      annotations: { 'version-policy.gardener.cloud/managed': '["1.31.0"]' },
    });
    t.notOk('status' in trimmed.object);
    const ncp = trimObject(
      'NamespacedCloudProfile',
      served(namespacedProfile({ name: 'dev', parent: 'aws', kubernetes: ['1.31.0'] })),
    );
    t.ok(
      ncp.ok &&
        ncp.object.kind === 'NamespacedCloudProfile' &&
        !('status' in ncp.object) &&
        ncp.object.spec.parent.name === 'aws',
    );
  },
);

t.test('a wrongly typed field fails the schema instead of vanishing', async (t) => {
  const raw = served(shoot({ name: 'a', workers: [{ name: 'p1', kubernetes: '1.30.2' }] })) as unknown as {
    spec: { provider: { workers: Array<Record<string, unknown>> } };
  };
  (raw.spec.provider.workers[0] as { kubernetes: unknown }).kubernetes = { version: 1.3 };
  t.same(trimObject('Shoot', raw), {
    ok: false,
    errors: [{ field: 'spec.provider.workers[0].kubernetes.version', message: 'must be string' }],
  });
  t.same(trimObject('Shoot', 'nope'), { ok: false, errors: [{ field: '', message: 'a Shoot must be an object' }] });
});

/**
 * `value` behind a proxy that records, in `reads`, every field read through it that has a value:
 * the paths a consumer of the object depends on.
 */
function recording(value: unknown, path: string, reads: Map<string, unknown>): unknown {
  if (value === null || typeof value !== 'object') return value;
  const isArray = Array.isArray(value);
  return new Proxy(value, {
    get(target, key, receiver) {
      const v: unknown = Reflect.get(target, key, receiver);
      if (typeof key !== 'string' || typeof v === 'function' || (isArray && !/^\d+$/.test(key))) return v;
      const p = isArray ? `${path}[${key}]` : `${path}.${key}`;
      if (v !== undefined) reads.set(p, v);
      return recording(v, p, reads);
    },
  });
}

/** The value at a path `recording` wrote, in `root`. */
function at(root: unknown, path: string): unknown {
  let v = root;
  for (const part of path.match(/[^.[\]]+/g)!.slice(1)) v = (v as Record<string, unknown> | undefined)?.[part];
  return v;
}

t.test('a Shoot keeps every field the forecast reads, whatever its value', async (t) => {
  const NOW = Date.parse('2026-09-01T00:00:00Z');
  const version = (v: string, expirationDate?: string) => ({
    version: v,
    classification: 'supported',
    ...(expirationDate ? { expirationDate } : {}),
  });
  const imageVersion = (v: string, expirationDate?: string) => ({
    ...version(v, expirationDate),
    architectures: ['amd64', 'arm64'],
    cri: [{ name: 'containerd', containerRuntimes: [{ type: 'gvisor' }] }],
    kubeletVersionConstraint: '>= 1.30',
    inPlaceUpdates: { supported: true },
  });
  const spec = (expiry?: string): CloudProfileSpec => ({
    kubernetes: { versions: [version('1.30.2', expiry), version('1.31.1', expiry), version('1.32.0')] },
    machineImages: [
      {
        name: 'gardenlinux',
        updateStrategy: 'minor',
        versions: [imageVersion('1.0.0', expiry), imageVersion('1.1.0')],
      },
    ],
    machineTypes: [{ name: 'arm.large', architecture: 'arm64' }],
  });
  const before = spec();
  const after = spec('2026-09-03T00:00:00Z');
  const raw = served(
    shoot({
      name: 'a',
      profile: 'p',
      version: '1.31.1',
      workers: [
        { name: 'p1', image: ['gardenlinux', '1.0.0'] },
        { name: 'p2', kubernetes: '1.30.2', image: ['gardenlinux', '1.0.0'] },
      ],
    }),
  );
  raw.spec.maintenance = {
    ...raw.spec.maintenance,
    autoUpdate: { kubernetesVersion: true, machineImageVersion: false },
  };
  // A hibernated Shoot's steps say that the rollout waits for the wake-up.
  Object.assign(raw.spec, { hibernation: { enabled: true, schedules: [{ start: '00 20 * * 1,2,3,4,5' }] } });
  const workers = raw.spec.provider!.workers!;
  Object.assign(workers[0]!, {
    machine: { ...workers[0]!.machine, type: 'arm.large', architecture: 'arm64' },
    cri: { name: 'containerd', containerRuntimes: [{ type: 'gvisor', providerConfig: { x: 1 } }] },
    updateStrategy: 'AutoInPlaceUpdate',
    minimum: 1,
    maximum: 3,
  });
  Object.assign(workers[1]!, {
    machine: { ...workers[1]!.machine, type: 'arm.large' },
    updateStrategy: 'AutoRollingUpdate',
  });

  const reads = new Map<string, unknown>();
  const watched = recording(raw, 'shoot', reads) as Shoot;
  const profileObject = {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'CloudProfile' as const,
    metadata: { name: 'p' },
    spec: after,
  };
  const state = staticState([profileObject, watched]);
  const fleet = forecastFleet(state, NOW, 180);
  const findings = forecastFindings(
    [{ ref: { kind: 'CloudProfile', name: 'p' }, before: () => before, after: () => after }],
    changedLists(before, after),
    state,
    NOW,
    { horizonDays: 180, soonDays: 7 },
  );
  // The rules read the state's Shoots too: IN-USE on a removed version, the forecast on the rest.
  const removed = { ...after, kubernetes: { versions: after.kubernetes.versions.slice(1) } };
  const decision = decide({
    operation: 'UPDATE',
    oldObject: { ...profileObject, spec: before },
    object: { ...profileObject, spec: removed },
    state: [{ ...profileObject, spec: before }, watched],
    now: NOW,
    config: { forecast: { deny: ['trap', 'no-target', 'forced-soon'] } },
  });
  t.ok(
    decision.violations.some((v) => v.rule === 'IN-USE'),
    'the rules judged the Shoot',
  );
  t.equal(fleet.shoots.length, 1, 'the fleet forecast ran on the Shoot');
  t.ok(findings.findings.length > 0, 'the forecast at admission ran on the Shoot');

  const trimmed = trimObject('Shoot', raw);
  if (!trimmed.ok) return t.fail(JSON.stringify(trimmed.errors));
  for (const p of [
    'shoot.spec.maintenance.autoUpdate.machineImageVersion',
    'shoot.spec.hibernation.enabled',
    'shoot.spec.provider.workers[0].machine.architecture',
    'shoot.spec.provider.workers[0].machine.type',
    'shoot.spec.provider.workers[0].cri.containerRuntimes[0].type',
    'shoot.spec.provider.workers[0].updateStrategy',
  ])
    t.ok(reads.has(p), `the forecast reads ${p}`);
  for (const [p, v] of reads) {
    if (v !== null && typeof v === 'object') t.type(at(trimmed.object, p), 'object', p);
    else t.equal(at(trimmed.object, p), v, p);
  }
});

t.test("a worker's mirror rebuilds a Shoot in the trimmed shape, with its own strings", async (t) => {
  const raw = served(
    shoot({ name: 'a', workers: [{ name: 'p1', kubernetes: '1.30.2', image: ['gardenlinux', '1.0.0'] }] }),
  );
  const trimmed = trimObject('Shoot', raw);
  if (!trimmed.ok) return t.fail('trimmed');
  const cloned = structuredClone(trimmed.object) as Shoot;
  t.same(sharedShoot(cloned), trimmed.object, 'a trimmed Shoot from the feed: the same fields and values');
  t.same(sharedShoot(raw), trimmed.object, 'a whole Shoot (a --state file): cut as the informers cut it');
});
