import t from '../../helpers/parts.js';
import type { ExpirableVersion } from '../../../src/api/types.js';
import { cloudProfile, hoursFromNow, image, namespacedProfile, NOW_ISO } from '../../helpers/objects.js';
import { runTable } from './table.js';

const expiring = (version: string, expirationDate: string): ExpirableVersion => ({
  version,
  classification: 'deprecated',
  expirationDate,
});
const withK8s = (...older: ExpirableVersion[]) => cloudProfile({ kubernetes: ['1.31.0', ...older] });
const PAST = hoursFromNow(-24);
const FUTURE = hoursFromNow(24 * 30);
const parent = cloudProfile({
  name: 'profile',
  kubernetes: ['1.31.0', '1.30.0'],
  images: [image('test-image', ['1.1.0', '1.2.0'])],
});
const ncp = (kubernetes: ExpirableVersion[] = [], images = [image('test-image', [])]) =>
  namespacedProfile({ kubernetes, images });
const imageOverride = (expirationDate: string) => [
  { name: 'test-image', versions: [{ version: '1.1.0', expirationDate }] },
];

runTable(t, 'PAST-EXPIRATION', [
  {
    name: 'CREATE with a future expiry',
    input: { operation: 'CREATE', object: withK8s(expiring('1.30.5', FUTURE)) },
    want: [],
  },
  {
    name: 'CREATE with a past expirationDate',
    input: { operation: 'CREATE', object: withK8s(expiring('1.30.5', PAST)) },
    want: [
      {
        field: 'spec.kubernetes.versions[1].expirationDate',
        words: ['expiration date for version "1.30.5" is in the past', 'is added with', 'future'],
      },
    ],
  },
  {
    name: 'CREATE with an expirationDate exactly now (at or before now counts)',
    input: { operation: 'CREATE', object: withK8s(expiring('1.30.5', NOW_ISO)) },
    want: [{ field: 'spec.kubernetes.versions[1].expirationDate', words: ['1.30.5', '2026-09-01t00:00:00z'] }],
  },
  {
    name: 'CREATE with an expirationDate one second after now',
    input: { operation: 'CREATE', object: withK8s(expiring('1.30.5', '2026-09-01T00:00:01Z')) },
    want: [],
  },
  {
    name: 'CREATE with a lifecycle whose expired stage is in the past',
    input: {
      operation: 'CREATE',
      object: withK8s({
        version: '1.30.9',
        lifecycle: [{ classification: 'deprecated' }, { classification: 'expired', startTime: PAST }],
      }),
    },
    want: [{ field: 'spec.kubernetes.versions[1].lifecycle[1].startTime', words: ['1.30.9', 'expired stage'] }],
  },
  {
    name: 'CREATE with a lifecycle that is expired from the start',
    input: { operation: 'CREATE', object: withK8s({ version: '1.30.9', lifecycle: [{ classification: 'expired' }] }) },
    want: [{ field: 'spec.kubernetes.versions[1].lifecycle[0]', words: ['without starttime'] }],
  },
  {
    name: 'CREATE with an expired machine image version',
    input: {
      operation: 'CREATE',
      object: cloudProfile({
        images: [image('gardenlinux', ['1592.2.0', { version: '1592.1.0', expirationDate: PAST }])],
      }),
    },
    want: [
      {
        field: 'spec.machineImages[0].versions[1].expirationDate',
        words: ['machine image gardenlinux version 1592.1.0'],
      },
    ],
  },
  {
    name: 'UPDATE re-applying an unchanged expired version',
    input: {
      operation: 'UPDATE',
      oldObject: withK8s(expiring('1.30.5', PAST)),
      object: withK8s({ version: '1.30.6' }, expiring('1.30.5', PAST)),
    },
    want: [],
  },
  {
    name: 'UPDATE: the same instant written differently is unchanged',
    input: {
      operation: 'UPDATE',
      oldObject: withK8s(expiring('1.30.5', '2026-08-01T00:00:00Z')),
      object: withK8s(expiring('1.30.5', '2026-08-01T00:00:00.000Z')),
    },
    want: [],
  },
  {
    name: 'UPDATE: an expiry changed to a past instant',
    input: {
      operation: 'UPDATE',
      oldObject: withK8s(expiring('1.30.5', FUTURE)),
      object: withK8s(expiring('1.30.5', PAST)),
    },
    want: [
      {
        field: 'spec.kubernetes.versions[1].expirationDate',
        words: ['kubernetes version 1.30.5 is changed to', 'must not be moved into the past'],
      },
    ],
  },
  {
    name: 'UPDATE: an expiry changed to exactly now',
    input: {
      operation: 'UPDATE',
      oldObject: withK8s(expiring('1.30.5', FUTURE)),
      object: withK8s(expiring('1.30.5', NOW_ISO)),
    },
    want: [{ field: 'spec.kubernetes.versions[1].expirationDate' }],
  },
  {
    name: 'UPDATE: a past expiry moved into the future (extending an expired version)',
    input: {
      operation: 'UPDATE',
      oldObject: withK8s(expiring('1.30.5', PAST)),
      object: withK8s(expiring('1.30.5', FUTURE)),
    },
    want: [],
  },
  {
    name: 'UPDATE: removing an expiry',
    input: {
      operation: 'UPDATE',
      oldObject: withK8s(expiring('1.30.5', FUTURE)),
      object: withK8s({ version: '1.30.5', classification: 'deprecated' }),
    },
    want: [],
  },
  {
    name: 'UPDATE: a new version added already expired',
    input: { operation: 'UPDATE', oldObject: withK8s(), object: withK8s(expiring('1.30.5', PAST)) },
    want: [{ field: 'spec.kubernetes.versions[1].expirationDate', words: ['is added with'] }],
  },
  {
    name: 'UPDATE: an image version is new when its image is new, even if another image has it',
    input: {
      operation: 'UPDATE',
      oldObject: cloudProfile({
        images: [image('gardenlinux', [{ version: '1.0.0', expirationDate: PAST }, '2.0.0'])],
      }),
      object: cloudProfile({
        images: [
          image('gardenlinux', [{ version: '1.0.0', expirationDate: PAST }, '2.0.0']),
          image('ubuntu', [{ version: '1.0.0', expirationDate: PAST }, '2.0.0']),
        ],
      }),
    },
    want: [{ field: 'spec.machineImages[1].versions[0].expirationDate', words: ['ubuntu'] }],
  },
  {
    name: 'NamespacedCloudProfile CREATE: an override already in the past',
    input: { operation: 'CREATE', object: ncp([{ version: '1.30.0', expirationDate: PAST }]), state: [parent] },
    want: [
      {
        field: 'spec.kubernetes.versions[0].expirationDate',
        words: ['the override of kubernetes version 1.30.0 sets expirationdate', 'an override extends'],
      },
    ],
  },
  {
    name: 'NamespacedCloudProfile CREATE: a version of its own image already in the past is added, not an override',
    input: {
      operation: 'CREATE',
      object: ncp(
        [],
        [
          {
            name: 'test-image',
            versions: [
              { version: '9.0.0', expirationDate: PAST, cri: [{ name: 'containerd' }], architectures: ['amd64'] },
            ],
          },
        ],
      ),
      state: [parent],
    },
    want: [
      {
        field: 'spec.machineImages[0].versions[0].expirationDate',
        words: ['machine image test-image version 9.0.0 is added with'],
      },
    ],
  },
  {
    name: 'NamespacedCloudProfile UPDATE: an unchanged past override',
    input: {
      operation: 'UPDATE',
      oldObject: ncp([{ version: '1.30.0', expirationDate: PAST }]),
      object: ncp([{ version: '1.30.0', expirationDate: PAST }]),
      state: [parent],
    },
    want: [],
  },
  {
    name: 'NamespacedCloudProfile UPDATE: an override changed to exactly now',
    input: {
      operation: 'UPDATE',
      oldObject: ncp([{ version: '1.30.0', expirationDate: FUTURE }]),
      object: ncp([{ version: '1.30.0', expirationDate: NOW_ISO }]),
      state: [parent],
    },
    want: [
      {
        field: 'spec.kubernetes.versions[0].expirationDate',
        words: ['the override of kubernetes version 1.30.0 is changed to'],
      },
    ],
  },
  {
    name: 'NamespacedCloudProfile UPDATE: an image override changed into the past',
    input: {
      operation: 'UPDATE',
      oldObject: ncp([], imageOverride(FUTURE)),
      object: ncp([], imageOverride(PAST)),
      state: [parent],
    },
    want: [
      {
        field: 'spec.machineImages[0].versions[0].expirationDate',
        words: ['the override of machine image test-image version 1.1.0 is changed to'],
      },
    ],
  },
  {
    name: 'DELETE is not judged',
    input: { operation: 'DELETE', oldObject: withK8s(expiring('1.30.5', PAST)) },
    want: [],
  },
]);
