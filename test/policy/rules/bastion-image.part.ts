import t from '../../helpers/parts.js';
import type { Bastion, CloudProfile, MachineImageVersion, MachineType } from '../../../src/api/types.js';
import { cloudProfile, decide, hoursFromNow, image, namespacedProfile } from '../../helpers/objects.js';
import { runTable, violationsOf } from './table.js';

const supported = (version: string, extra: Partial<MachineImageVersion> = {}): MachineImageVersion => ({
  version,
  classification: 'supported',
  ...extra,
});

function withBastion(
  bastion: Bastion,
  versions: Array<string | MachineImageVersion>,
  machineTypes?: MachineType[],
): CloudProfile {
  const p = cloudProfile({ images: [image('gardenlinux', versions), image('ubuntu', ['22.4.0'])] });
  p.spec.bastion = bastion;
  p.spec.machineTypes = machineTypes ?? [
    { name: 'm5.large', architecture: 'amd64' },
    { name: 'm6g.large', architecture: 'arm64' },
    { name: 'legacy' },
  ];
  return p;
}
const create = (object: CloudProfile) => ({ operation: 'CREATE' as const, object });
const gl = { name: 'gardenlinux' };
const NAME = 'spec.bastion.machineImage.name';
const VERSION = 'spec.bastion.machineImage.version';

runTable(t, 'BASTION-IMAGE', [
  { name: 'no bastion section', input: create(cloudProfile()), want: [] },
  {
    name: 'an image with a supported version, no machine type',
    input: create(withBastion({ machineImage: gl }, ['1.0.0', supported('1.1.0')])),
    want: [],
  },
  {
    name: 'the machine type picks the architecture',
    input: create(
      withBastion({ machineImage: gl, machineType: { name: 'm6g.large' } }, [
        supported('1.0.0'),
        supported('1.1.0', { architectures: ['amd64', 'arm64'] }),
      ]),
    ),
    want: [],
  },
  {
    name: 'a machine type without an architecture is amd64, as Gardener defaults it',
    input: create(withBastion({ machineImage: gl, machineType: { name: 'legacy' } }, [supported('1.0.0')])),
    want: [],
  },
  {
    name: 'a pinned version that qualifies',
    input: create(
      withBastion({ machineImage: { name: 'gardenlinux', version: '1.1.0' } }, ['1.0.0', supported('1.1.0')]),
    ),
    want: [],
  },
  {
    name: 'a machine type alone',
    input: create(withBastion({ machineType: { name: 'm5.large' } }, ['1.0.0'])),
    want: [],
  },
  {
    name: 'a supported version expiring exactly now is still supported now',
    input: create(withBastion({ machineImage: gl }, [supported('1.0.0', { expirationDate: hoursFromNow(0) })])),
    want: [],
  },
  {
    name: 'an image the profile does not have',
    input: create(withBastion({ machineImage: { name: 'suse' } }, [supported('1.0.0')])),
    want: [
      {
        field: NAME,
        words: ['image name not found in spec.machineimages', 'the bastion image "suse"', '"gardenlinux", "ubuntu"'],
      },
    ],
  },
  {
    name: 'only versions without a classification: Gardener does not count them',
    input: create(withBastion({ machineImage: gl }, ['1.0.0', '1.1.0'])),
    want: [
      {
        field: NAME,
        words: [
          'no image with classification supported and arch "<nil>" found',
          'no version of machine image gardenlinux',
        ],
      },
    ],
  },
  {
    name: 'only a supported version that expired',
    input: create(
      withBastion({ machineImage: gl }, [
        supported('1.0.0', { expirationDate: hoursFromNow(-1) }),
        { version: '1.1.0', classification: 'preview' },
      ]),
    ),
    want: [{ field: NAME, words: ['no image with classification supported'] }],
  },
  {
    name: 'a lifecycle supported stage does not count (Gardener reads the legacy field)',
    input: {
      ...create(
        withBastion({ machineImage: gl }, [{ version: '1.0.0', lifecycle: [{ classification: 'supported' }] }]),
      ),
      lifecycleGate: true,
    },
    want: [{ field: NAME, words: ['no image with classification supported'] }],
  },
  {
    name: 'no supported version for the machine type architecture',
    input: create(withBastion({ machineImage: gl, machineType: { name: 'm6g.large' } }, [supported('1.0.0')])),
    want: [
      {
        field: NAME,
        words: ['no image with classification supported and arch "arm64" found', 'for architecture arm64'],
      },
    ],
  },
  {
    name: 'a pinned version the image does not have',
    input: create(withBastion({ machineImage: { name: 'gardenlinux', version: '9.9.9' } }, [supported('1.0.0')])),
    want: [{ field: VERSION, words: ['image version not found in spec.machineimages', 'no version "9.9.9"'] }],
  },
  {
    name: 'a pinned version that is deprecated',
    input: create(
      withBastion({ machineImage: { name: 'gardenlinux', version: '1.0.0' } }, [
        { version: '1.0.0', classification: 'deprecated' },
        supported('1.1.0'),
      ]),
    ),
    want: [
      {
        field: VERSION,
        words: [
          'no image with classification supported and arch "<nil>" found',
          "bastion's version 1.0.0 of machine image gardenlinux is classified deprecated",
        ],
      },
    ],
  },
  {
    name: 'a pinned version without a classification',
    input: create(withBastion({ machineImage: { name: 'gardenlinux', version: '1.0.0' } }, ['1.0.0'])),
    want: [{ field: VERSION, words: ['has no classification: supported'] }],
  },
  {
    name: 'a pinned version that expired',
    input: create(
      withBastion({ machineImage: { name: 'gardenlinux', version: '1.0.0' } }, [
        supported('1.0.0', { expirationDate: hoursFromNow(-24) }),
      ]),
    ),
    want: [{ field: VERSION, words: [`is expired since ${hoursFromNow(-24).toLowerCase()}`] }],
  },
  {
    name: 'a pinned version for another architecture',
    input: create(
      withBastion({ machineImage: { name: 'gardenlinux', version: '1.0.0' }, machineType: { name: 'm6g.large' } }, [
        supported('1.0.0'),
      ]),
    ),
    want: [{ field: VERSION, words: ['arch "arm64"', 'is not built for arm64 (its architectures: amd64)'] }],
  },
  {
    name: 'a machine type the profile does not list (the image is then judged for any architecture)',
    input: create(withBastion({ machineImage: gl, machineType: { name: 'huge' } }, [supported('1.0.0')])),
    want: [
      { field: 'spec.bastion.machineType.name', words: ['machine type not found in spec.machinetypes', '"huge"'] },
    ],
  },
  {
    name: 'a bastion section naming nothing',
    input: create(withBastion({}, [supported('1.0.0')])),
    want: [{ field: 'spec.bastion', words: ['needs a machine type or machine image'] }],
  },
  {
    name: 'UPDATE is judged too: a stored bastion version that has expired since',
    input: {
      operation: 'UPDATE',
      oldObject: withBastion({ machineImage: gl }, [supported('1.0.0', { expirationDate: hoursFromNow(-1) })]),
      object: withBastion({ machineImage: gl }, [supported('1.0.0', { expirationDate: hoursFromNow(-1) })]),
    },
    want: [{ field: NAME, words: ['no image with classification supported'] }],
  },
  {
    name: 'with spec.machineCapabilities the architectures live in capability flavors, which this rule does not read',
    input: create(
      (() => {
        const p = withBastion({ machineImage: gl, machineType: { name: 'm6g.large' } }, [
          supported('1.0.0', { architectures: [] }),
        ]);
        p.spec.machineCapabilities = [{ name: 'architecture', values: ['amd64', 'arm64'] }];
        return p;
      })(),
    ),
    want: [],
  },
  {
    name: 'a NamespacedCloudProfile has no bastion',
    input: { operation: 'CREATE', object: namespacedProfile(), state: [cloudProfile()] },
    want: [],
  },
]);

t.test('the rule can be switched off', async (t) => {
  const input = {
    ...create(withBastion({ machineImage: gl }, ['1.0.0'])),
    config: { rules: { 'BASTION-IMAGE': { enabled: false } } },
  };
  t.same(violationsOf('BASTION-IMAGE', input), []);
  t.equal(decide(input).allowed, true);
});

t.test(
  'lifecycle defaulting and the bastion: legacy classification with the gate off, a lifecycle (which does not count) with it on',
  async (t) => {
    const profile = withBastion({ machineImage: gl }, ['1.0.0', '1.1.0']);
    const off = decide({ ...create(structuredClone(profile)), lifecycleDefaulting: true, lifecycleGate: false });
    t.same(
      violationsOf('BASTION-IMAGE', {
        ...create(structuredClone(profile)),
        lifecycleDefaulting: true,
        lifecycleGate: false,
      }),
      [],
      'gate off: the defaulted versions are classified supported',
    );
    t.equal(off.allowed, true);
    const on = violationsOf('BASTION-IMAGE', {
      ...create(structuredClone(profile)),
      lifecycleDefaulting: true,
      lifecycleGate: true,
    });
    t.equal(
      on.length,
      1,
      'gate on: Gardener would refuse the stored object too; the operator classifies a bastion version explicitly',
    );
  },
);
