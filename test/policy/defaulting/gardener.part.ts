import t from '../../helpers/parts.js';
import { applyGardenerDefaults } from '../../../src/policy/defaulting/gardener.js';
import type { CloudProfile, MachineImage } from '../../../src/api/types.js';
import { cloudProfile, decide, hoursFromNow, namespacedProfile } from '../../helpers/objects.js';

const profileWith = (...images: MachineImage[]): CloudProfile => cloudProfile({ images });

t.test('what Gardener defaults, and what it leaves alone', async (t) => {
  const rows: Array<{
    name: string;
    images: MachineImage[];
    capabilities?: boolean;
    set: string[];
    after: (p: CloudProfile) => unknown;
    want: unknown;
  }> = [
    {
      name: 'a missing updateStrategy becomes major',
      images: [
        { name: 'a', versions: [{ version: '1.0.0', cri: [{ name: 'containerd' }], architectures: ['arm64'] }] },
      ],
      set: ['spec.machineImages[0].updateStrategy'],
      after: (p) => p.spec.machineImages[0]!.updateStrategy,
      want: 'major',
    },
    {
      name: 'a given updateStrategy, even an invalid one, stays',
      images: [
        {
          name: 'a',
          updateStrategy: 'dummy',
          versions: [{ version: '1.0.0', cri: [{ name: 'containerd' }], architectures: ['arm64'] }],
        },
      ],
      set: [],
      after: (p) => p.spec.machineImages[0]!.updateStrategy,
      want: 'dummy',
    },
    {
      name: 'missing and empty cri become containerd',
      images: [
        {
          name: 'a',
          updateStrategy: 'minor',
          versions: [
            { version: '1.0.0', architectures: ['amd64'] },
            { version: '1.0.1', cri: [], architectures: ['amd64'] },
          ],
        },
      ],
      set: ['spec.machineImages[0].versions[0].cri', 'spec.machineImages[0].versions[1].cri'],
      after: (p) => p.spec.machineImages[0]!.versions.map((v) => v.cri),
      want: [[{ name: 'containerd' }], [{ name: 'containerd' }]],
    },
    {
      name: 'missing and empty architectures become amd64',
      images: [
        {
          name: 'a',
          updateStrategy: 'minor',
          versions: [
            { version: '1.0.0', cri: [{ name: 'containerd' }] },
            { version: '1.0.1', cri: [{ name: 'containerd' }], architectures: [] },
          ],
        },
      ],
      set: ['spec.machineImages[0].versions[0].architectures', 'spec.machineImages[0].versions[1].architectures'],
      after: (p) => p.spec.machineImages[0]!.versions.map((v) => v.architectures),
      want: [['amd64'], ['amd64']],
    },
    {
      name: 'with spec.machineCapabilities architectures are not defaulted',
      images: [{ name: 'a', updateStrategy: 'minor', versions: [{ version: '1.0.0', cri: [{ name: 'containerd' }] }] }],
      capabilities: true,
      set: [],
      after: (p) => p.spec.machineImages[0]!.versions[0]!.architectures,
      want: undefined,
    },
    {
      name: 'given values stay',
      images: [
        {
          name: 'a',
          updateStrategy: 'patch',
          versions: [{ version: '1.0.0', cri: [{ name: 'docker' }], architectures: ['arm64'] }],
        },
      ],
      set: [],
      after: (p) => p.spec.machineImages[0],
      want: {
        name: 'a',
        updateStrategy: 'patch',
        versions: [{ version: '1.0.0', cri: [{ name: 'docker' }], architectures: ['arm64'] }],
      },
    },
  ];
  for (const row of rows) {
    const profile = profileWith(...row.images);
    if (row.capabilities) profile.spec.machineCapabilities = [{ name: 'architecture', values: ['amd64'] }];
    t.same(applyGardenerDefaults(profile), row.set, `${row.name}: paths`);
    t.same(row.after(profile), row.want, `${row.name}: result`);
  }
});

t.test('the mutating path defaults a CloudProfile before validation', async (t) => {
  const original = profileWith({ name: 'gardenlinux', versions: [{ version: '1592.1.0' }] });
  const d = decide({ operation: 'CREATE', object: original });
  t.ok(d.allowed, 'allowed once defaulted');
  t.ok(d.mutated);
  const stored = d.object as CloudProfile;
  t.same(stored.spec.machineImages[0], {
    name: 'gardenlinux',
    updateStrategy: 'major',
    versions: [{ version: '1592.1.0', cri: [{ name: 'containerd' }], architectures: ['amd64'] }],
  });
  t.same(
    original.spec.machineImages[0],
    { name: 'gardenlinux', versions: [{ version: '1592.1.0' }] },
    'the request object is not changed',
  );
});

t.test('switched off, validation sees the object as sent', async (t) => {
  const d = decide({
    operation: 'CREATE',
    object: profileWith({ name: 'gardenlinux', versions: [{ version: '1592.1.0' }] }),
    config: { rules: { 'DEFAULT-GARDENER': { enabled: false } } },
  });
  t.notOk(d.mutated);
  t.same(d.violations.map((v) => `${v.rule} ${v.field}`).sort(), [
    'MACHINE-IMAGES spec.machineImages[0].updateStrategy',
    'MACHINE-IMAGES spec.machineImages[0].versions[0].architectures',
    'MACHINE-IMAGES spec.machineImages[0].versions[0].cri',
  ]);
});

t.test('NamespacedCloudProfiles are never defaulted', async (t) => {
  const ncp = namespacedProfile({
    images: [
      {
        name: 'another-image',
        updateStrategy: 'major',
        versions: [{ version: '1.0.0', cri: [{ name: 'containerd' }], expirationDate: hoursFromNow(48) }],
      },
    ],
  });
  const d = decide({ operation: 'CREATE', object: ncp, state: [cloudProfile()] });
  t.notOk(d.mutated);
  t.equal((d.object as typeof ncp).spec.machineImages![0]!.versions![0]!.architectures, undefined);
  t.same(
    d.violations.map((v) => `${v.rule} ${v.field}`),
    ['MACHINE-IMAGES spec.machineImages[0].versions[0].architectures'],
  );
});
