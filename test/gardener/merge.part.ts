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

t.test("the NamespacedCloudProfile's own image versions keep no CRI; the parent's are untouched", async (t) => {
  // ncp/reconciler.go MergeCloudProfiles: nothing defaults the CRI of a version the NCP adds.
  const ncp = namespacedProfile({
    images: [
      { name: 'gardenlinux', versions: [{ version: '1.2.0' }, { version: '1.3.0', cri: [{ name: 'containerd' }] }] },
      { name: 'flatcar', updateStrategy: 'minor', versions: [{ version: '4.0.0' }] },
    ],
  });
  const merged = mergeNamespacedProfile(parent.spec, ncp.spec);
  const gl = merged.machineImages.find((i) => i.name === 'gardenlinux')!;
  t.same(gl.versions.slice(0, 2), parent.spec.machineImages[0]!.versions, "the parent's as they are");
  t.same(
    gl.versions.slice(2).map((v) => [v.version, v.cri]),
    [
      ['1.2.0', []],
      ['1.3.0', [{ name: 'containerd' }]],
    ],
  );
  t.same(merged.machineImages.find((i) => i.name === 'flatcar')?.versions, [{ version: '4.0.0', cri: [] }]);
});

t.test('machine types: the NamespacedCloudProfile replaces by name and adds', async (t) => {
  const withTypes = { ...parent.spec, machineTypes: [{ name: 'a', architecture: 'amd64' }, { name: 'b' }] };
  const ncp = {
    parent: { kind: 'CloudProfile', name: 'p' },
    machineTypes: [{ name: 'b', architecture: 'arm64' }, { name: 'c' }],
  };
  t.same(mergeNamespacedProfile(withTypes, ncp).machineTypes, [
    { name: 'a', architecture: 'amd64' },
    { name: 'b', architecture: 'arm64' },
    { name: 'c' },
  ]);
  t.same(
    mergeNamespacedProfile(withTypes, { parent: ncp.parent }).machineTypes,
    withTypes.machineTypes,
    "none: the parent's",
  );
});
