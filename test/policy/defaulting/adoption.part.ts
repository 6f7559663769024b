// DEFAULT-LIFECYCLE's adoption of versions a profile already had (defaulting.lifecycle.adoptExisting):
// off by default, so nothing existing changes; on, it defaults them too, but never expires a
// version that Shoots run sooner than adoptionNotice, and says how many Shoots are forced off and
// from when. Shoots are counted through the state's indexes, with those of live child
// NamespacedCloudProfiles; without a synced state nothing is adopted.
import t from '../../helpers/parts.js';
import type { CloudProfile, ExpirableVersion, PolicedObject } from '../../../src/api/types.js';
import type { ConfigInput } from '../../helpers/objects.js';
import { cloudProfile, decide, hoursFromNow, image, namespacedProfile, shoot } from '../../helpers/objects.js';

const STORED = cloudProfile({
  kubernetes: ['1.28.5', '1.28.6', '1.29.5', '1.30.1', '1.30.2', '1.31.0'],
  images: [image('gardenlinux', ['1592.1.0', '1592.1.1'])],
});
/** The same manifest again, one new patch added. */
const APPLIED = cloudProfile({
  kubernetes: ['1.28.5', '1.28.6', '1.29.5', '1.30.1', '1.30.2', '1.31.0', '1.31.1'],
  images: [image('gardenlinux', ['1592.1.0', '1592.1.1'])],
});

/** Short expiries, so the notice is what keeps a version in use alive. */
const SHORT = { expirationMaintained: '48h', expirationUnmaintained: '24h', machineImageExpiration: '24h' };
const adopting = (extra: Record<string, unknown> = {}): ConfigInput => ({
  defaulting: { lifecycle: { adoptExisting: true, ...SHORT, ...extra } },
});

const IN_24H = hoursFromNow(24);
const IN_48H = hoursFromNow(48);
const NOTICE = hoursFromNow(720);

const runs = (
  name: string,
  version: string,
  image?: string,
  namespace = 'garden-dev',
  profile: string | { kind: string; name: string } = 'profile',
) =>
  shoot({
    name,
    namespace,
    profile,
    version: image ? '1.31.0' : version,
    workers: [{ name: 'pool', image: ['gardenlinux', image ?? '1592.1.1'] }],
  });

function update(config: ConfigInput, state: PolicedObject[] = [], gate = false, synced = true) {
  return decide({
    operation: 'UPDATE',
    object: structuredClone(APPLIED),
    oldObject: structuredClone(STORED),
    lifecycleDefaulting: true,
    lifecycleGate: gate,
    config,
    state,
    synced,
  });
}

const k8s = (d: ReturnType<typeof update>, version: string): ExpirableVersion | undefined =>
  (d.object as CloudProfile).spec.kubernetes.versions.find((v) => v.version === version);
const img = (d: ReturnType<typeof update>, version: string): ExpirableVersion | undefined =>
  (d.object as CloudProfile).spec.machineImages[0]!.versions.find((v) => v.version === version);
const legacy = ({ classification, expirationDate }: ExpirableVersion) => ({ classification, expirationDate });

t.test('off (the default): existing plain versions stay as written, the new one is defaulted', async (t) => {
  const d = update({ defaulting: { lifecycle: SHORT } }, [runs('a', '1.28.5')]);
  for (const v of ['1.28.5', '1.28.6', '1.29.5', '1.30.1', '1.30.2', '1.31.0'])
    t.same(k8s(d, v), { version: v }, `${v} untouched`);
  t.same(legacy(k8s(d, '1.31.1')!), { classification: 'supported', expirationDate: undefined });
  t.same(d.allWarnings, ['1.31.1: supported (policy: newest patch of maintained minor 1.31)']);
});

t.test('on, no Shoots: existing versions are adopted with the plain policy', async (t) => {
  const d = update(adopting());
  t.same(legacy(k8s(d, '1.28.5')!), { classification: 'deprecated', expirationDate: IN_24H }, 'unmaintained minor');
  t.same(
    legacy(k8s(d, '1.30.1')!),
    { classification: 'deprecated', expirationDate: IN_48H },
    'older patch of a maintained minor',
  );
  t.same(legacy(k8s(d, '1.30.2')!), { classification: 'supported', expirationDate: undefined });
  t.same(
    legacy(k8s(d, '1.31.0')!),
    { classification: 'deprecated', expirationDate: IN_48H },
    'superseded by the new 1.31.1',
  );
  t.same(legacy(img(d, '1592.1.0')!), { classification: 'deprecated', expirationDate: IN_24H });
  t.ok(
    d.allWarnings.includes(
      `1.28.5: deprecated, expires ${IN_24H} (adopted, policy: minor 1.28 is no longer maintained, only the newest 3 are)`,
    ),
    d.allWarnings.join('\n'),
  );
  t.ok(
    d.allWarnings.includes('1.31.1: supported (policy: newest patch of maintained minor 1.31)'),
    'a new version is not called adopted',
  );
  t.same(d.violations, []);
});

t.test('on, with Shoots: a version they run keeps at least the notice, and the warning counts them', async (t) => {
  const state = [
    runs('a', '1.28.5'),
    runs('b', '1.28.5'),
    runs('c', '', '1592.1.0'),
    shoot({
      name: 'd',
      version: '1.30.2',
      workers: [{ name: 'old', kubernetes: '1.30.1', image: ['gardenlinux', '1592.1.1'] }],
    }),
  ];
  const d = update(adopting(), state);
  t.same(
    legacy(k8s(d, '1.28.5')!),
    { classification: 'deprecated', expirationDate: NOTICE },
    'run by a and b: 720h, not 24h',
  );
  t.same(
    legacy(k8s(d, '1.28.6')!),
    { classification: 'deprecated', expirationDate: IN_24H },
    'run by nobody: the policy expiry',
  );
  t.same(
    legacy(k8s(d, '1.30.1')!),
    { classification: 'deprecated', expirationDate: NOTICE },
    "a worker pool's version counts",
  );
  t.same(
    legacy(img(d, '1592.1.0')!),
    { classification: 'deprecated', expirationDate: NOTICE },
    'machine image versions too',
  );
  t.same(
    legacy(k8s(d, '1.30.2')!),
    { classification: 'supported', expirationDate: undefined },
    'a supported one needs no notice',
  );
  t.ok(
    d.allWarnings.includes(
      `1.28.5: deprecated, expires ${NOTICE} (adopted, policy: minor 1.28 is no longer maintained, only the newest 3 are); 2 Shoots run it and will be force-updated from then`,
    ),
    d.allWarnings.join('\n'),
  );
  t.ok(
    d.allWarnings.some(
      (w) =>
        w.startsWith(`machine image gardenlinux 1592.1.0: deprecated, expires ${NOTICE}`) &&
        w.endsWith('; 1 Shoot run it and will be force-updated from then'),
    ),
  );
  t.notOk(
    d.allWarnings.some((w) => w.startsWith('1.30.2') && w.includes('Shoot')),
    'no forced update where nothing expires',
  );
  t.same(d.violations, []);
});

t.test('a notice shorter than the policy expiry changes nothing: the policy stands', async (t) => {
  const d = update(adopting({ adoptionNotice: '24h', expirationUnmaintained: '720h' }), [runs('a', '1.28.5')]);
  t.same(
    legacy(k8s(d, '1.28.5')!),
    { classification: 'deprecated', expirationDate: NOTICE },
    'the policy gives more than the notice: the policy stands',
  );
});

t.test('Shoots being deleted do not count', async (t) => {
  const gone = {
    ...runs('a', '1.28.5'),
    metadata: { ...runs('a', '1.28.5').metadata, deletionTimestamp: hoursFromNow(-1) },
  };
  const d = update(adopting(), [gone]);
  t.same(legacy(k8s(d, '1.28.5')!), { classification: 'deprecated', expirationDate: IN_24H });
});

t.test('Shoots of live child NamespacedCloudProfiles count; those of a deleting one do not', async (t) => {
  const child = namespacedProfile({ name: 'team', namespace: 'garden-team' });
  const leaving = {
    ...namespacedProfile({ name: 'old', namespace: 'garden-old' }),
    metadata: { name: 'old', namespace: 'garden-old', deletionTimestamp: hoursFromNow(-1) },
  };
  const state = [
    STORED,
    child,
    leaving,
    runs('x', '1.28.5', undefined, 'garden-team', { kind: 'NamespacedCloudProfile', name: 'team' }),
    runs('y', '1.28.6', undefined, 'garden-old', { kind: 'NamespacedCloudProfile', name: 'old' }),
  ];
  const d = update(adopting(), state);
  t.same(
    legacy(k8s(d, '1.28.5')!),
    { classification: 'deprecated', expirationDate: NOTICE },
    "the child's Shoot runs it",
  );
  t.same(
    legacy(k8s(d, '1.28.6')!),
    { classification: 'deprecated', expirationDate: IN_24H },
    'only a deleting child runs it',
  );
});

t.test(
  "gate off: a child that overrides the version's expirationDate keeps its own, so its Shoots are not counted",
  async (t) => {
    const child = namespacedProfile({
      name: 'team',
      namespace: 'garden-team',
      kubernetes: [{ version: '1.28.5', expirationDate: hoursFromNow(2000) }],
    });
    const state = [
      STORED,
      child,
      runs('x', '1.28.5', undefined, 'garden-team', { kind: 'NamespacedCloudProfile', name: 'team' }),
    ];
    t.same(legacy(k8s(update(adopting(), state, false), '1.28.5')!), {
      classification: 'deprecated',
      expirationDate: IN_24H,
    });
    // With the gate on the parent's lifecycle decides for the child's Shoots too.
    const on = k8s(update(adopting(), state, true), '1.28.5');
    t.same(on?.lifecycle, [{ classification: 'deprecated' }, { classification: 'expired', startTime: NOTICE }]);
  },
);

t.test(
  'without a synced state nothing is adopted, and the warning says why; new versions are still defaulted',
  async (t) => {
    const d = update(adopting(), [runs('a', '1.28.5')], false, false);
    for (const v of ['1.28.5', '1.28.6', '1.29.5', '1.30.1', '1.30.2', '1.31.0'])
      t.same(k8s(d, v), { version: v }, `${v} untouched`);
    t.same(img(d, '1592.1.0'), { version: '1592.1.0', cri: [{ name: 'containerd' }], architectures: ['amd64'] });
    t.same(legacy(k8s(d, '1.31.1')!), { classification: 'supported', expirationDate: undefined });
    t.ok(
      d.allWarnings.includes(
        'lifecycle defaulting did not adopt the existing versions without a classification (1.28.5, 1.28.6, 1.29.5 and 5 more): the cluster state is not ready (not synced); a later write adopts them',
      ),
      d.allWarnings.join('\n'),
    );
  },
);

t.test('a CREATE has nothing to adopt: every version is new', async (t) => {
  const d = decide({
    operation: 'CREATE',
    object: structuredClone(APPLIED),
    lifecycleDefaulting: true,
    lifecycleGate: false,
    config: adopting(),
    state: [runs('a', '1.28.5')],
  });
  t.same(
    legacy(k8s(d, '1.28.5')!),
    { classification: 'deprecated', expirationDate: IN_24H },
    'the notice is for versions a profile already had',
  );
  t.notOk(d.allWarnings.some((w) => w.includes('adopted')));
});

t.test('an adopted version is managed from then on: re-applying changes nothing', async (t) => {
  const first = update(adopting(), [runs('a', '1.28.5')]);
  const stored = first.object as CloudProfile;
  const again = decide({
    operation: 'UPDATE',
    object: structuredClone(APPLIED),
    oldObject: stored,
    lifecycleDefaulting: true,
    lifecycleGate: false,
    config: adopting(),
    state: [runs('a', '1.28.5')],
  });
  t.same(again.object, stored);
  t.notOk(
    again.allWarnings.some((w) => w.includes('policy:')),
    'no defaulting to report',
  );
});

t.test('many adopted versions in use are said as one warning, with the Shoots summed', async (t) => {
  const versions = Array.from({ length: 20 }, (_, i) => `1.27.${i}`);
  const stored = cloudProfile({ kubernetes: [...versions, '1.31.0'] });
  const state = versions.map((v, i) => runs(`s${i}`, v));
  const d = decide({
    operation: 'UPDATE',
    object: structuredClone(stored),
    oldObject: stored,
    lifecycleDefaulting: true,
    lifecycleGate: false,
    config: adopting(),
    state,
  });
  t.ok(d.warnings.length <= 10);
  t.ok(
    d.warnings.includes(
      `19 Kubernetes versions already in the profile get deprecated (1.27.0…1.27.18), expiring ${NOTICE.slice(0, 10)}; 19 Shoots run them and will be force-updated from then; see version-policy explain`,
    ),
    d.warnings.join('\n'),
  );
  // 1.27.19 and 1.31.0 are the newest patches of their minors: supported, no expiry, no Shoot forced.
  t.equal(
    d.allWarnings.filter((w) => w.includes('adopted')).length,
    22,
    'the full list names each, the image version too',
  );
});
