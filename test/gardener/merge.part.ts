// The merged profile of a NamespacedCloudProfile: parent + overrides, as POLICY.md defines it.
import t from '../helpers/parts.js';
import { mergeNamespacedProfile } from '../../src/gardener/merge.js';
import { cloudProfile, hoursFromNow, image, namespacedProfile } from '../helpers/objects.js';

const parent = cloudProfile({
  kubernetes: [
    { version: '1.31.0', classification: 'supported' },
    { version: '1.30.0', classification: 'deprecated', expirationDate: hoursFromNow(10) },
    '1.29.0',
  ],
  images: [image('gardenlinux', ['1.1.0', { version: '1.0.0', expirationDate: hoursFromNow(10) }], 'major')],
});
const later = hoursFromNow(1000);

t.test('Kubernetes: only the expirationDate of an override is taken, and only for parent versions', async (t) => {
  const snapshot = structuredClone(parent);
  const ncp = namespacedProfile({
    kubernetes: [
      { version: '1.30.0', expirationDate: later, classification: 'supported' },
      { version: '1.31.0', lifecycle: [{ classification: 'preview' }] },
      { version: '1.28.0', expirationDate: later },
    ],
  });
  const merged = mergeNamespacedProfile(parent.spec, ncp.spec);
  t.same(merged.kubernetes.versions, [
    { version: '1.31.0', classification: 'supported' },
    { version: '1.30.0', classification: 'deprecated', expirationDate: later },
    { version: '1.29.0' },
  ]);
  t.same(parent, snapshot, 'the parent is left alone');
});

t.test('an override without an expirationDate unsets the parent one', async (t) => {
  const merged = mergeNamespacedProfile(
    parent.spec,
    namespacedProfile({ kubernetes: ['1.30.0'], images: [{ name: 'gardenlinux', versions: [{ version: '1.0.0' }] }] })
      .spec,
  );
  t.same(merged.kubernetes.versions[1], { version: '1.30.0', classification: 'deprecated' });
  t.notOk('expirationDate' in merged.machineImages[0]!.versions[1]!);
});

t.test('machine images: overrides extend, own versions and images are appended', async (t) => {
  const ncp = namespacedProfile({
    images: [
      {
        name: 'gardenlinux',
        updateStrategy: 'patch',
        versions: [
          { version: '1.0.0', expirationDate: later, architectures: ['arm64'] },
          { version: '0.9.0', cri: [{ name: 'containerd' }], architectures: ['arm64'] },
        ],
      },
      image('custom', ['3.0.0']),
    ],
  });
  const merged = mergeNamespacedProfile(parent.spec, ncp.spec);
  t.same(
    merged.machineImages.map((i) => [i.name, i.updateStrategy, i.versions.map((v) => v.version)]),
    [
      ['gardenlinux', 'patch', ['1.1.0', '1.0.0', '0.9.0']],
      ['custom', 'major', ['3.0.0']],
    ],
  );
  t.same(
    merged.machineImages[0]!.versions[1],
    { version: '1.0.0', cri: [{ name: 'containerd' }], architectures: ['amd64'], expirationDate: later },
    'only the date of an override is taken',
  );
  t.same(merged.machineImages[0]!.versions[2]!.architectures, ['arm64'], 'an own version is taken as written');
});

t.test('an image override without an update strategy keeps the parent one', async (t) => {
  const merged = mergeNamespacedProfile(
    parent.spec,
    namespacedProfile({ images: [{ name: 'gardenlinux', versions: [] }] }).spec,
  );
  t.equal(merged.machineImages[0]!.updateStrategy, 'major');
  t.same(merged.machineImages[0]!.versions, parent.spec.machineImages[0]!.versions);
});

t.test('an NCP without overrides merges to the parent spec', async (t) => {
  const merged = mergeNamespacedProfile(parent.spec, namespacedProfile().spec);
  t.same(merged, parent.spec);
});
