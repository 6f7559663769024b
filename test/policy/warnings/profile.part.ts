// Profile warnings: allowed, but said. Each test writes a profile into a cluster and reads the
// warnings the real evaluate() returns.
import t from '../../helpers/parts.js';
import type { ClusterState } from '../../../src/api/cluster-state.js';
import type { CloudProfileContext } from '../../../src/policy/rule.js';
import type { CloudProfile, PolicedObject } from '../../../src/api/types.js';
import { sayWarning } from '../../../src/policy/warning.js';
import { profileWarnings } from '../../../src/policy/warnings/profile.js';
import type { DecideInput } from '../../helpers/objects.js';
import {
  cloudProfile,
  config,
  decide,
  hoursFromNow,
  image,
  namespacedProfile,
  NOW,
  request,
  shoot,
} from '../../helpers/objects.js';

const warned = (input: DecideInput, about: string) => decide(input).warnings.filter((w) => w.includes(about));
const apply = (object: CloudProfile, state: PolicedObject[] = []): DecideInput => ({
  operation: 'UPDATE',
  oldObject: object,
  object,
  state: [object, ...state],
});

t.test('a deprecated version without an expiry', async (t) => {
  const p = cloudProfile({
    kubernetes: [
      { version: '1.31.0', classification: 'deprecated' },
      { version: '1.30.0', classification: 'deprecated' },
      {
        version: '1.29.0',
        lifecycle: [{ classification: 'supported' }, { classification: 'deprecated', startTime: hoursFromNow(10) }],
      },
      { version: '1.28.0', classification: 'deprecated', expirationDate: hoursFromNow(500) },
      '1.27.0',
    ],
    images: [image('gardenlinux', [{ version: '1.0.0', classification: 'deprecated' }, '2.0.0'])],
  });
  const w = warned({ operation: 'CREATE', object: p }, 'never expires');
  t.equal(w.length, 3, w.join('\n'));
  t.equal(
    w[0],
    'no Shoot is ever forced off Kubernetes version "1.30.0": it is deprecated but never expires; give it an expiry',
  );
  t.match(w[1], /Kubernetes version "1.29.0"/, 'a lifecycle that will deprecate it counts');
  t.match(w[2], /machine image version "gardenlinux\/1.0.0"/);
  t.notMatch(w.join(), /1\.31\.0/, 'the latest Kubernetes version may not expire, so it is not nagged');
});

t.test('a version in use that expires soon names the count and the date', async (t) => {
  const soon = hoursFromNow(24 * 14);
  const p = cloudProfile({
    kubernetes: [
      '1.31.0',
      { version: '1.30.0', expirationDate: soon },
      { version: '1.29.0', expirationDate: hoursFromNow(24 * 60) },
    ],
    images: [image('gardenlinux', ['2.0.0', { version: '1.0.0', expirationDate: hoursFromNow(5) }])],
  });
  const users = [
    shoot({ name: 'a', version: '1.30.0', workers: [{ name: 'w', image: ['gardenlinux', '1.0.0'] }] }),
    shoot({
      name: 'b',
      version: '1.31.0',
      workers: [{ name: 'w', kubernetes: '1.30.0', image: ['gardenlinux', '2.0.0'] }],
    }),
    shoot({ name: 'c', version: '1.30.0', deletionTimestamp: hoursFromNow(-1) }),
    shoot({ name: 'd', version: '1.29.0' }),
  ];
  const w = warned(apply(p, users), 'expires in');
  t.same(w, [
    `move 2 Shoots off Kubernetes version "1.30.0": it expires in 14 days (${soon})`,
    `move 1 Shoot off machine image version "gardenlinux/1.0.0": it expires in less than a day (${hoursFromNow(5)})`,
  ]);
  t.same(
    warned({ ...apply(p, users), config: { warnings: { expiringWithinDays: 90 } } }, 'expires in').length,
    3,
    'the window is configurable',
  );
  t.same(warned(apply(p, []), 'expires in'), [], 'nobody uses them');
});

t.test('Shoots of a child NCP count unless it extends the version', async (t) => {
  const p = cloudProfile({ kubernetes: ['1.31.0', { version: '1.30.0', expirationDate: hoursFromNow(48) }] });
  const onNcp = (namespace: string) =>
    shoot({ name: 'x', namespace, profile: { kind: 'NamespacedCloudProfile', name: 'ncp' }, version: '1.30.0' });
  const plain = namespacedProfile({ namespace: 'team-a' });
  const extending = namespacedProfile({
    namespace: 'team-b',
    kubernetes: [{ version: '1.30.0', expirationDate: hoursFromNow(24 * 100) }],
  });
  const w = warned(apply(p, [plain, extending, onNcp('team-a'), onNcp('team-b')]), 'expires in');
  t.equal(w.length, 1);
  t.match(w[0], /^move 1 Shoot off /);

  // Written on the NCP itself, the merged profile and the NCP's own Shoots count.
  const shortened = namespacedProfile({
    namespace: 'team-b',
    kubernetes: [{ version: '1.30.0', expirationDate: hoursFromNow(24 * 3) }],
  });
  const ncpWrite = warned(
    {
      operation: 'UPDATE',
      oldObject: extending,
      object: shortened,
      state: [p, extending, onNcp('team-b'), onNcp('team-a')],
    },
    'expires in',
  );
  t.same(ncpWrite, [`move 1 Shoot off Kubernetes version "1.30.0": it expires in 3 days (${hoursFromNow(72)})`]);
});

t.test('Kubernetes versions Gardener drops on CREATE because they are unavailable', async (t) => {
  const p = cloudProfile({
    kubernetes: [
      '1.31.0',
      { version: '1.32.0', lifecycle: [{ classification: 'preview', startTime: hoursFromNow(24) }] },
    ],
  });
  const w = warned({ operation: 'CREATE', object: p }, 'on create');
  t.same(w, [
    `gardener-apiserver drops Kubernetes version "1.32.0" on create: it is unavailable until ${hoursFromNow(24)}; add it by a later update`,
  ]);
  t.same(warned(apply(p), 'on create'), [], 'an UPDATE keeps them');
});

t.test('a forced update with nowhere to go', async (t) => {
  const expired = { version: '1.29.5', expirationDate: hoursFromNow(-24) };
  const users = [
    shoot({ name: 'a', version: '1.29.5' }),
    shoot({ name: 'b', version: '1.31.0', workers: [{ name: 'old', kubernetes: '1.29.5' }] }),
  ];
  const cases: Array<[string, NonNullable<Parameters<typeof cloudProfile>[0]>['kubernetes'], number]> = [
    ['the next minor only has a preview', ['1.31.0', { version: '1.30.0', classification: 'preview' }, expired], 1],
    ['the next minor is missing', ['1.31.0', expired], 1],
    ['the next minor is expired too', ['1.31.0', { version: '1.30.0', expirationDate: hoursFromNow(-1) }, expired], 1],
    ['the next minor has a supported version', ['1.31.0', '1.30.0', expired], 0],
    [
      'the next minor has a deprecated version',
      ['1.31.0', { version: '1.30.0', classification: 'deprecated', expirationDate: hoursFromNow(100) }, expired],
      0,
    ],
    ['a newer patch of the same minor is active', ['1.31.0', '1.29.6', expired], 0],
  ];
  for (const [name, kubernetes, count] of cases) {
    const w = warned(apply(cloudProfile({ kubernetes }), users), 'forced update will fail');
    t.equal(w.length, count, name);
    if (count)
      t.equal(
        w[0],
        'forced update will fail for 2 Shoots: expired Kubernetes version "1.29.5" has no target (a newer patch or a 1.30 version)',
        name,
      );
  }
  t.same(
    warned(apply(cloudProfile({ kubernetes: ['1.31.0', expired] })), 'forced update will fail'),
    [],
    'nobody is on it',
  );
});

t.test('an unsynced state is never read', async (t) => {
  const p = cloudProfile({
    kubernetes: [
      '1.31.0',
      { version: '1.30.0', classification: 'deprecated' },
      { version: '1.29.0', expirationDate: hoursFromNow(-1) },
    ],
  });
  const untouchable = new Proxy({} as ClusterState, {
    get: (_target, key) => (key === 'synced' ? false : () => t.fail(`state.${String(key)} read`)),
  });
  const ctx: CloudProfileContext = {
    kind: 'CloudProfile',
    operation: 'UPDATE',
    request: request({ operation: 'UPDATE', oldObject: p, object: p }),
    now: NOW,
    config: config(),
    lifecycleGate: true,
    state: untouchable,
    object: p,
    oldObject: p,
  };
  const w = profileWarnings(ctx).map(sayWarning);
  t.equal(w.length, 1, 'the state-free warnings still come');
  t.match(w[0], /"1.30.0": it is deprecated/);
});
