import t from '../../helpers/parts.js';
import type { MachineImage, MachineImageVersion } from '../../../src/api/types.js';
import { cloudProfile, hoursFromNow, image, imageVersion, namespacedProfile } from '../../helpers/objects.js';
import { runTable } from './table.js';

const withImages = (...images: MachineImage[]) => ({ operation: 'CREATE' as const, object: cloudProfile({ images }) });
/** One image with one (defaulted) version carrying `fields`. */
const withVersion = (fields: Partial<MachineImageVersion>) =>
  withImages(image('gardenlinux', [imageVersion({ version: '1.0.0', ...fields })]));
const raw = (name: string, versions: MachineImageVersion[], updateStrategy?: string): MachineImage => ({
  name,
  versions,
  ...(updateStrategy ? { updateStrategy } : {}),
});
const noDefaults = { defaulting: { gardenerDefaults: false } };
const V = 'spec.machineImages[0].versions[0]';
const parent = cloudProfile({ name: 'profile', images: [image('test-image', ['1.0.0', '1.1.0'])] });
const ncpCreate = (images: MachineImage[], state = [parent]) => ({
  operation: 'CREATE' as const,
  object: namespacedProfile({ images }),
  state,
});
const expiry = hoursFromNow(24 * 30);
function withCapabilities(...images: MachineImage[]) {
  const profile = cloudProfile({ images });
  profile.spec.machineCapabilities = [{ name: 'architecture', values: ['arm64'] }];
  return profile;
}

runTable(t, 'MACHINE-IMAGES', [
  { name: 'one valid image', input: withImages(image('gardenlinux', ['1592.1.0'])), want: [] },
  {
    name: 'no images',
    input: withImages(),
    want: [{ field: 'spec.machineImages', words: ['at least one machine image'], type: 'Required' }],
  },
  {
    name: 'an image without versions',
    input: withImages(raw('gardenlinux', [], 'major')),
    want: [{ field: 'spec.machineImages[0].versions', words: ["machine image 'gardenlinux'"] }],
  },
  {
    name: 'duplicate image names and versions',
    input: withImages(image('gardenlinux', ['1.0.0', '1.0.0']), image('gardenlinux', ['2.0.0'])),
    want: [
      { field: 'spec.machineImages[0].versions[1]', words: ['gardenlinux-1.0.0', 'more than once'] },
      { field: 'spec.machineImages[1]', words: ['"gardenlinux"', 'more than once'] },
    ],
  },
  {
    name: 'image names must be qualified names',
    input: withImages(image('Bad Name', ['1.0.0']), image('', ['1.0.0']), image('a/b', ['1.0.0'])),
    want: [
      { field: 'spec.machineImages[0].name', words: ['"bad name"', 'qualified name'] },
      { field: 'spec.machineImages[1].name', words: ['must not be empty'] },
      { field: 'spec.machineImages[2].name', words: ['no prefix'] },
    ],
  },
  {
    name: 'every update strategy',
    input: withImages(image('a', ['1.0.0'], 'patch'), image('b', ['1.0.0'], 'minor'), image('c', ['1.0.0'], 'major')),
    want: [],
  },
  {
    name: 'an unknown update strategy',
    input: withImages(image('gardenlinux', ['1.0.0'], 'dummy')),
    want: [
      {
        field: 'spec.machineImages[0].updateStrategy',
        words: ['updatestrategy "dummy"', '"major", "minor", "patch"'],
        type: 'NotSupported',
      },
    ],
  },
  {
    name: 'a missing update strategy without Gardener defaults',
    input: { ...withImages(raw('gardenlinux', [imageVersion('1.0.0')])), config: noDefaults },
    want: [{ field: 'spec.machineImages[0].updateStrategy', words: ['must provide an update strategy'] }],
  },
  { name: 'lenient semver versions', input: withImages(image('gardenlinux', ['v1.2', '1', '1.2.3-x+y'])), want: [] },
  {
    name: 'versions that do not parse',
    input: withImages(image('gardenlinux', ['latest', '1.2.3.4', ''])),
    want: [
      {
        field: 'spec.machineImages[0].versions[0].version',
        words: ['could not parse version "latest"', 'semantic version'],
      },
      { field: 'spec.machineImages[0].versions[1].version', words: ['1.2.3.4'] },
      { field: 'spec.machineImages[0].versions[2].version', words: ['must provide a version'] },
    ],
  },
  {
    name: "an in-place minimum version that does not parse (on Gardener's path)",
    input: withVersion({ inPlaceUpdates: { supported: true, minVersionForUpdate: 'old' } }),
    want: [{ field: `${V}.minVersionForInPlaceUpdate`, words: ['inplaceupdates.minversionforupdate', '"old"'] }],
  },
  {
    name: 'a parseable in-place minimum version',
    input: withVersion({ inPlaceUpdates: { supported: true, minVersionForUpdate: 'v1.0' } }),
    want: [],
  },
  {
    name: 'kubelet version constraints that parse',
    input: withImages(
      image('gardenlinux', [
        { version: '1.0.0', kubeletVersionConstraint: '< 1.26' },
        { version: '1.0.1', kubeletVersionConstraint: '>= 1.26, < 1.30 || ~1.31' },
      ]),
    ),
    want: [],
  },
  {
    name: 'kubelet version constraints that do not parse',
    input: withImages(
      image('gardenlinux', [
        { version: '1.0.0', kubeletVersionConstraint: '' },
        { version: '1.0.1', kubeletVersionConstraint: 'newest' },
      ]),
    ),
    want: [
      {
        field: 'spec.machineImages[0].versions[0].kubeletVersionConstraint',
        words: ['cannot parse the kubeletversionconstraint'],
      },
      { field: 'spec.machineImages[0].versions[1].kubeletVersionConstraint', words: ['"newest"'] },
    ],
  },
  {
    name: 'unsupported and duplicate container runtime interfaces',
    input: withVersion({ cri: [{ name: 'docker' }, { name: 'containerd' }, { name: 'containerd' }] }),
    want: [
      { field: `${V}.cri[0].name`, words: ['cri', '"docker"', 'supported values: "containerd"'] },
      { field: `${V}.cri[2]`, words: ['duplicate', 'containerd'] },
    ],
  },
  {
    name: 'container runtime types must be qualified names, once each',
    input: withVersion({
      cri: [{ name: 'containerd', containerRuntimes: [{ type: 'no spaces' }, { type: 'gvisor' }, { type: 'gvisor' }] }],
    }),
    want: [
      { field: `${V}.cri[0].containerRuntimes[0].type`, words: ['containerruntimes', '"no spaces"'] },
      { field: `${V}.cri[0].containerRuntimes[2].type`, words: ['duplicate', 'gvisor'] },
    ],
  },
  {
    name: 'no container runtime without Gardener defaults',
    input: {
      ...withImages(raw('gardenlinux', [{ version: '1.0.0', architectures: ['amd64'] }], 'major')),
      config: noDefaults,
    },
    want: [{ field: `${V}.cri`, words: ['at least one supported container runtime'] }],
  },
  {
    name: 'architectures outside amd64 and arm64',
    input: withVersion({ architectures: ['arm64', 's390x'] }),
    want: [{ field: `${V}.architectures[1]`, words: ['"s390x"', 'supported values: "amd64", "arm64"'] }],
  },
  {
    name: 'no architecture without Gardener defaults',
    input: {
      ...withImages(raw('gardenlinux', [{ version: '1.0.0', cri: [{ name: 'containerd' }] }], 'major')),
      config: noDefaults,
    },
    want: [{ field: `${V}.architectures`, words: ['at least one architecture', 'gardenlinux version 1.0.0'] }],
  },
  {
    name: 'capability flavors without spec.machineCapabilities',
    input: withVersion({ capabilityFlavors: [{ architecture: ['amd64'] }] }),
    want: [{ field: `${V}.capabilityFlavors`, words: ['without global definition'] }],
  },
  {
    name: 'with spec.machineCapabilities the allowed architectures come from there',
    input: {
      operation: 'CREATE',
      object: withCapabilities(
        raw(
          'gardenlinux',
          [
            { version: '1.0.0', architectures: ['amd64'] },
            { version: '1.0.1', capabilityFlavors: [{}] },
          ],
          'major',
        ),
      ),
    },
    want: [{ field: `${V}.architectures[0]`, words: ['supported values: "arm64"'] }],
  },
  {
    name: 'NamespacedCloudProfile: an override of a parent version needs no cri or architectures',
    input: ncpCreate([raw('test-image', [{ version: '1.0.0', expirationDate: expiry }], 'patch')]),
    want: [],
  },
  {
    name: 'NamespacedCloudProfile: an image override may list no versions',
    input: ncpCreate([raw('test-image', [])]),
    want: [],
  },
  {
    name: 'NamespacedCloudProfile: structural checks on a parent image',
    input: ncpCreate([
      raw(
        'test-image',
        [
          { version: 'next', expirationDate: expiry },
          { version: '1.0.0', architectures: ['ppc'], expirationDate: expiry },
        ],
        'sometimes',
      ),
    ]),
    want: [
      { field: 'spec.machineImages[0].updateStrategy' },
      { field: 'spec.machineImages[0].versions[0].version', words: ['"next"'] },
      { field: 'spec.machineImages[0].versions[1].architectures[0]', words: ['"ppc"'] },
      // "next" is new to the parent image, so the merged profile needs its cri; its version error is not repeated there.
      { field: 'status.cloudProfileSpec.machineImages[0].versions[2].cri', words: ['merged profile'] },
    ],
  },
  {
    name: 'NamespacedCloudProfile: duplicate image names',
    input: ncpCreate([
      raw('test-image', [{ version: '1.0.0', expirationDate: expiry }]),
      image('test-image', ['1.3.0']),
    ]),
    want: [{ field: 'spec.machineImages[1]', words: ['test-image'] }],
  },
  {
    name: 'NamespacedCloudProfile: an image of its own is judged like a CloudProfile image, once',
    input: ncpCreate([raw('another-image', [{ version: '1.0.0', expirationDate: expiry }])]),
    want: [
      { field: 'spec.machineImages[0].updateStrategy', words: ['another-image'] },
      { field: 'spec.machineImages[0].versions[0].cri', words: ['another-image version 1.0.0'] },
      { field: 'spec.machineImages[0].versions[0].architectures', words: ['architecture'] },
    ],
  },
  {
    name: 'NamespacedCloudProfile: an image of its own needs a version',
    input: ncpCreate([raw('another-image', [], 'major')]),
    want: [{ field: 'spec.machineImages[0].versions', words: ['another-image'] }],
  },
  {
    name: 'NamespacedCloudProfile: a new version of a parent image is judged in the merged profile (cri required, architectures defaulted)',
    input: ncpCreate([raw('test-image', [{ version: '1.3.0' }])]),
    want: [
      {
        field: 'status.cloudProfileSpec.machineImages[0].versions[2].cri',
        words: ['test-image version 1.3.0', 'merged profile'],
      },
    ],
  },
  {
    name: 'NamespacedCloudProfile: a parent read without Gardener defaults (e.g. from a file) is taken as stored',
    input: ncpCreate(
      [raw('test-image', [{ version: '1.0.0', expirationDate: expiry }])],
      [cloudProfile({ images: [raw('test-image', [{ version: '1.0.0' }])] })],
    ),
    want: [],
  },
  {
    name: 'NamespacedCloudProfile without a parent: structural checks only',
    input: ncpCreate([raw('another-image', [{ version: '1.0.0' }])], []),
    want: [],
  },
]);
