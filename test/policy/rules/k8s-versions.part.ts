import t from '../../helpers/parts.js';
import type { ProfileInput } from '../../helpers/objects.js';
import { cloudProfile, hoursFromNow, namespacedProfile, NOW_ISO } from '../../helpers/objects.js';
import { runTable } from './table.js';

const future = (version: string) => ({
  version,
  lifecycle: [{ classification: 'preview', startTime: hoursFromNow(24) }],
});
const parent = (kubernetes: ProfileInput['kubernetes']) => cloudProfile({ name: 'profile', kubernetes });

runTable(t, 'K8S-VERSIONS', [
  { name: 'one strict version', input: { operation: 'CREATE', object: cloudProfile() }, want: [] },
  {
    name: 'several versions in any order',
    input: { operation: 'CREATE', object: cloudProfile({ kubernetes: ['1.9.0', '1.31.12', '1.10.0'] }) },
    want: [],
  },
  {
    name: 'an empty list',
    input: { operation: 'CREATE', object: cloudProfile({ kubernetes: [] }) },
    want: [{ field: 'spec.kubernetes.versions', words: ['at least one kubernetes version'], type: 'Required' }],
  },
  {
    name: 'versions that are not strictly X.Y.Z',
    input: {
      operation: 'CREATE',
      object: cloudProfile({ kubernetes: ['1.31.0', '1.11', 'v1.30.0', '1.29.0-rc.1', '1.28.0+build'] }),
    },
    want: [
      { field: 'spec.kubernetes.versions[1]', words: ['"1.11"', 'regex'], type: 'Invalid' },
      { field: 'spec.kubernetes.versions[2]', words: ['v1.30.0'] },
      { field: 'spec.kubernetes.versions[3]', words: ['1.29.0-rc.1'] },
      { field: 'spec.kubernetes.versions[4]', words: ['1.28.0+build'] },
    ],
  },
  {
    name: 'a duplicate is reported on its second occurrence',
    input: { operation: 'CREATE', object: cloudProfile({ kubernetes: ['1.31.0', '1.30.0', '1.31.0'] }) },
    want: [{ field: 'spec.kubernetes.versions[2].version', words: ['duplicate', '1.31.0'], type: 'Duplicate' }],
  },
  {
    name: 'malformed duplicates are format errors only',
    input: { operation: 'CREATE', object: cloudProfile({ kubernetes: ['1.31.0', '1.30', '1.30'] }) },
    want: [{ field: 'spec.kubernetes.versions[1]' }, { field: 'spec.kubernetes.versions[2]' }],
  },
  {
    name: 'CREATE with only unavailable versions (gardener-apiserver would drop them all)',
    input: { operation: 'CREATE', object: cloudProfile({ kubernetes: [future('1.32.0'), future('1.33.0')] }) },
    want: [{ field: 'spec.kubernetes.versions', words: ['not unavailable', '1.32.0', '1.33.0'] }],
  },
  {
    name: 'CREATE with a version whose first stage starts exactly now (not yet reached)',
    input: {
      operation: 'CREATE',
      object: cloudProfile({
        kubernetes: [{ version: '1.32.0', lifecycle: [{ classification: 'preview', startTime: NOW_ISO }] }],
      }),
    },
    want: [{ field: 'spec.kubernetes.versions', words: ['not unavailable'] }],
  },
  {
    name: 'CREATE with one active version next to a scheduled one',
    input: { operation: 'CREATE', object: cloudProfile({ kubernetes: ['1.31.0', future('1.32.0')] }) },
    want: [],
  },
  {
    name: 'UPDATE keeps a profile of scheduled versions (nothing is dropped on UPDATE)',
    input: {
      operation: 'UPDATE',
      oldObject: cloudProfile({ kubernetes: [future('1.32.0')] }),
      object: cloudProfile({ kubernetes: [future('1.32.0')] }),
    },
    want: [],
  },
  {
    name: 'the gate does not matter for the format checks',
    input: { operation: 'CREATE', object: cloudProfile({ kubernetes: ['1.31'] }), lifecycleGate: false },
    want: [{ field: 'spec.kubernetes.versions[0]' }],
  },
  {
    name: 'DELETE is not judged',
    input: { operation: 'DELETE', oldObject: cloudProfile({ kubernetes: [] }) },
    want: [],
  },
  {
    name: 'NamespacedCloudProfile without Kubernetes overrides',
    input: { operation: 'CREATE', object: namespacedProfile(), state: [parent(['1.31.0'])] },
    want: [],
  },
  {
    name: 'NamespacedCloudProfile: its own overrides must be strict and unique',
    input: {
      operation: 'CREATE',
      object: namespacedProfile({
        kubernetes: [
          { version: '1.31', expirationDate: hoursFromNow(48) },
          { version: '1.30.0', expirationDate: hoursFromNow(48) },
          { version: '1.30.0', expirationDate: hoursFromNow(72) },
        ],
      }),
      state: [parent(['1.31.0', '1.30.0'])],
    },
    want: [
      { field: 'spec.kubernetes.versions[0]', words: ['1.31'] },
      { field: 'spec.kubernetes.versions[2].version', words: ['1.30.0'] },
    ],
  },
  {
    name: 'NamespacedCloudProfile: the merged profile is judged under status.cloudProfileSpec',
    input: { operation: 'CREATE', object: namespacedProfile(), state: [parent(['1.31.0', '1.31.0'])] },
    want: [
      {
        field: 'status.cloudProfileSpec.kubernetes.versions[1].version',
        words: ['1.31.0', 'merged profile', '"profile"'],
      },
    ],
  },
  {
    name: 'NamespacedCloudProfile: a merged profile without versions',
    input: { operation: 'CREATE', object: namespacedProfile(), state: [parent([])] },
    want: [{ field: 'status.cloudProfileSpec.kubernetes.versions', words: ['at least one', 'merged profile'] }],
  },
  {
    name: 'NamespacedCloudProfile without a parent: only its own list (the missing parent is NCP-OVERRIDES)',
    input: {
      operation: 'CREATE',
      object: namespacedProfile({
        parent: 'missing',
        kubernetes: [{ version: '1.31.0', expirationDate: hoursFromNow(48) }],
      }),
    },
    want: [],
  },
]);
