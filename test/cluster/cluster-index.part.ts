import t from '../helpers/parts.js';
import { ClusterIndex, emptyStore, upsertInto } from '../../src/cluster/cluster-index.js';
import type { Shoot } from '../../src/api/types.js';
import { cloudProfile, namespacedProfile, shoot } from '../helpers/objects.js';

const CP = { kind: 'CloudProfile', name: 'profile' } as const;
const names = (uses: Array<{ shoot: Shoot }>) => uses.map((u) => u.shoot.metadata.name).sort();
const shootNames = (shoots: Shoot[]) => shoots.map((s) => s.metadata.name).sort();

t.test('indexes control plane, worker-pool and machine-image uses per effective profile', async (t) => {
  const index = new ClusterIndex();
  index.upsert(cloudProfile());
  index.upsert(
    shoot({
      name: 'a',
      version: '1.30.1',
      workers: [{ name: 'pool', kubernetes: '1.29.5', image: ['gardenlinux', '1.0.0'] }],
    }),
  );
  index.upsert(
    shoot({
      name: 'b',
      cloudProfileName: 'profile',
      version: '1.30.1',
      workers: [{ name: 'p2', image: ['gardenlinux', '2.0.0'] }],
    }),
  );
  index.upsert(shoot({ name: 'c', profile: { kind: 'NamespacedCloudProfile', name: 'ncp' }, version: '1.30.1' }));

  t.same(names(index.kubernetesVersionUsers(CP, '1.30.1')), ['a', 'b']);
  t.same(names(index.kubernetesVersionUsers(CP, '1.29.5')), ['a'], 'a worker pool version is a use');
  t.same(index.kubernetesVersionUsers(CP, '1.29.5')[0]?.via, 'worker-kubernetes');
  t.same(names(index.machineImageUsers(CP, 'gardenlinux')), ['a', 'b']);
  t.same(shootNames(index.shootsUsing({ kind: 'NamespacedCloudProfile', namespace: 'garden-dev', name: 'ncp' })), [
    'c',
  ]);
  t.same(
    shootNames(index.shootsUsing({ kind: 'NamespacedCloudProfile', namespace: 'other', name: 'ncp' })),
    [],
    'an NCP reference is namespaced',
  );
});

t.test('an update moves a Shoot between buckets, a delete removes it everywhere', async (t) => {
  const index = new ClusterIndex();
  index.upsert(shoot({ name: 'a', version: '1.30.1', workers: [{ name: 'pool', image: ['gardenlinux', '1.0.0'] }] }));
  index.upsert(shoot({ name: 'a', version: '1.31.0', workers: [{ name: 'pool', image: ['gardenlinux', '1.1.0'] }] }));
  t.same(index.kubernetesVersionUsers(CP, '1.30.1'), []);
  t.same(names(index.kubernetesVersionUsers(CP, '1.31.0')), ['a']);
  t.same(index.machineImageVersionUsers(CP, 'gardenlinux', '1.0.0'), []);
  t.equal(index.count('Shoot'), 1);
  index.remove('Shoot', 'garden-dev', 'a');
  t.same(index.machineImageUsers(CP, 'gardenlinux'), []);
  t.same(index.shootsUsing(CP), []);
  t.equal(index.count('Shoot'), 0);
});

t.test('counts the live Shoots of a version once each, and keeps the count through updates', async (t) => {
  const index = new ClusterIndex();
  const both = shoot({
    name: 'a',
    version: '1.30.1',
    workers: [
      { name: 'p1', kubernetes: '1.30.1', image: ['gardenlinux', '1.0.0'] },
      { name: 'p2', image: ['gardenlinux', '1.0.0'] },
    ],
  });
  index.upsert(both);
  index.upsert(shoot({ name: 'b', version: '1.30.1', workers: [] }));
  index.upsert(
    shoot({
      name: 'gone',
      version: '1.30.1',
      deletionTimestamp: '2026-01-01T00:00:00Z',
      workers: [{ name: 'p', image: ['gardenlinux', '1.0.0'] }],
    }),
  );
  index.upsert(shoot({ name: 'c', profile: { kind: 'NamespacedCloudProfile', name: 'ncp' }, version: '1.30.1' }));

  t.equal(
    index.kubernetesVersionShootCount(CP, '1.30.1'),
    2,
    'a control plane and a pool on the same version count once; a deleting Shoot not at all',
  );
  t.equal(
    index.kubernetesVersionUsers(CP, '1.30.1').length,
    4,
    'the uses still list every place, the deleting Shoot included',
  );
  t.equal(index.machineImageVersionShootCount(CP, 'gardenlinux', '1.0.0'), 1);
  t.equal(
    index.kubernetesVersionShootCount(
      { kind: 'NamespacedCloudProfile', namespace: 'garden-dev', name: 'ncp' },
      '1.30.1',
    ),
    1,
  );

  index.upsert(shoot({ name: 'a', version: '1.31.0', workers: [{ name: 'p1', image: ['gardenlinux', '1.1.0'] }] }));
  t.equal(index.kubernetesVersionShootCount(CP, '1.30.1'), 1);
  t.equal(index.kubernetesVersionShootCount(CP, '1.31.0'), 1);
  t.equal(index.machineImageVersionShootCount(CP, 'gardenlinux', '1.0.0'), 0);
  index.upsert(shoot({ name: 'b', version: '1.30.1', deletionTimestamp: '2026-01-01T00:00:00Z', workers: [] }));
  t.equal(index.kubernetesVersionShootCount(CP, '1.30.1'), 0, 'a Shoot that starts deleting stops counting');
  index.remove('Shoot', 'garden-dev', 'gone');
  index.remove('Shoot', 'garden-dev', 'b');
  t.equal(index.kubernetesVersionShootCount(CP, '1.30.1'), 0);
  t.same(index.kubernetesVersionUsers(CP, '1.30.1'), []);
  t.same(names(index.machineImageUsers(CP, 'gardenlinux')), ['a']);
});

t.test('NamespacedCloudProfiles are found by parent, and follow a re-parenting', async (t) => {
  const index = new ClusterIndex();
  index.upsert(namespacedProfile({ name: 'x', parent: 'profile' }));
  index.upsert(namespacedProfile({ name: 'y', namespace: 'garden-other', parent: 'profile' }));
  t.same(
    index
      .namespacedProfilesOf('profile')
      .map((n) => n.metadata.name)
      .sort(),
    ['x', 'y'],
  );
  index.upsert(namespacedProfile({ name: 'x', parent: 'other' }));
  t.same(
    index.namespacedProfilesOf('profile').map((n) => n.metadata.name),
    ['y'],
  );
  t.same(
    index.namespacedProfilesOf('other').map((n) => n.metadata.name),
    ['x'],
  );
  t.ok(index.namespacedCloudProfile('garden-other', 'y'));
});

t.test('a store of a kind is swapped in whole, in one step; an object of another kind does not fit', async (t) => {
  const index = new ClusterIndex();
  index.upsert(cloudProfile());
  index.upsert(shoot({ name: 'a', version: '1.30.1' }));
  const fresh = emptyStore('Shoot');
  fresh.upsert(shoot({ name: 'b', version: '1.31.0' }));
  t.same(names(index.kubernetesVersionUsers(CP, '1.30.1')), ['a'], 'the serving store answers until the swap');
  index.swap(fresh);
  t.same(names(index.kubernetesVersionUsers(CP, '1.30.1')), []);
  t.same(names(index.kubernetesVersionUsers(CP, '1.31.0')), ['b']);
  t.equal(index.cloudProfile('profile')?.metadata.name, 'profile', 'other kinds untouched');
  index.clear('CloudProfile');
  t.equal(index.count('CloudProfile'), 0);
  t.throws(() => upsertInto(emptyStore('CloudProfile'), shoot()), /a Shoot does not belong in the CloudProfile store/);
});

t.test('synced and notReadyReason: set directly, or reported by what feeds the index', async (t) => {
  t.same([new ClusterIndex().synced, new ClusterIndex().notReadyReason], [true, undefined]);
  const index = new ClusterIndex(false);
  t.same([index.synced, index.notReadyReason], [false, undefined], 'not synced, no reason given');
  let reason: string | undefined = 'stale';
  index.reportNotReadyBy(() => reason);
  t.same([index.synced, index.notReadyReason], [false, 'stale'], 'the reporter decides');
  reason = undefined;
  t.same([index.synced, index.notReadyReason], [true, undefined], 'and is asked every time');
  index.synced = false;
  t.notOk(index.synced, 'an explicit false still wins');
});
