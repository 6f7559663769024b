import t from '../../helpers/parts.js';
import { cloudProfile, hoursFromNow, image, namespacedProfile } from '../../helpers/objects.js';
import { runTable } from './table.js';

const k8s = (classification: string) => cloudProfile({ kubernetes: ['1.32.0', { version: '1.31.0', classification }] });
const parent = cloudProfile({ name: 'profile', images: [image('gardenlinux', ['1.0.0'])] });

runTable(t, 'CLASSIFICATION', [
  {
    name: 'the three legacy values',
    input: {
      operation: 'CREATE',
      object: cloudProfile({
        kubernetes: [
          { version: '1.32.0', classification: 'preview' },
          { version: '1.31.2', classification: 'supported' },
          { version: '1.31.1', classification: 'deprecated', expirationDate: hoursFromNow(2000) },
        ],
      }),
    },
    want: [],
  },
  {
    name: 'an unknown value',
    input: { operation: 'CREATE', object: k8s('dummy') },
    want: [
      {
        field: 'spec.kubernetes.versions[1].classification',
        words: ['"dummy"', '1.31.0', 'supported values'],
        type: 'NotSupported',
      },
    ],
  },
  {
    name: 'expired is forbidden (use an expirationDate)',
    input: { operation: 'CREATE', object: k8s('expired') },
    want: [{ field: 'spec.kubernetes.versions[1].classification', words: ['expired', 'expirationdate'] }],
  },
  {
    name: 'expired is forbidden on UPDATE too, even unchanged',
    input: { operation: 'UPDATE', oldObject: k8s('expired'), object: k8s('expired') },
    want: [{ field: 'spec.kubernetes.versions[1].classification' }],
  },
  {
    name: 'unavailable is derived, never written',
    input: { operation: 'CREATE', object: k8s('unavailable') },
    want: [{ field: 'spec.kubernetes.versions[1].classification', words: ['unavailable', 'derived'] }],
  },
  {
    name: 'values are case-sensitive',
    input: { operation: 'CREATE', object: k8s('Supported') },
    want: [{ field: 'spec.kubernetes.versions[1].classification', words: ['"supported"'] }],
  },
  {
    name: 'machine image versions',
    input: {
      operation: 'CREATE',
      object: cloudProfile({
        images: [image('gardenlinux', ['1592.1.0', { version: '1592.0.0', classification: 'expired' }])],
      }),
    },
    want: [
      {
        field: 'spec.machineImages[0].versions[1].classification',
        words: ['machine image gardenlinux version 1592.0.0'],
      },
    ],
  },
  {
    name: 'lifecycle stages are LIFECYCLE-ORDER business, not this rule',
    input: {
      operation: 'CREATE',
      object: cloudProfile({ kubernetes: [{ version: '1.31.0', lifecycle: [{ classification: 'dummy' }] }] }),
    },
    want: [],
  },
  {
    name: 'a NamespacedCloudProfile image of its own',
    input: {
      operation: 'CREATE',
      object: namespacedProfile({
        images: [image('custom', [{ version: '1.0.0', classification: 'dummy', expirationDate: hoursFromNow(48) }])],
      }),
      state: [parent],
    },
    want: [
      {
        field: 'spec.machineImages[0].versions[0].classification',
        words: ['of machine image custom version 1.0.0 is not supported'],
      },
    ],
  },
  {
    name: 'a NamespacedCloudProfile override is called an override',
    input: {
      operation: 'CREATE',
      object: namespacedProfile({
        kubernetes: [{ version: '1.31.0', classification: 'dummy', expirationDate: hoursFromNow(48) }],
      }),
      state: [parent],
    },
    want: [
      {
        field: 'spec.kubernetes.versions[0].classification',
        words: ['classification "dummy" of the override of kubernetes version 1.31.0 is not supported'],
      },
    ],
  },
]);
