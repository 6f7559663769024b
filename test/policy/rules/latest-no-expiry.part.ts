import t from '../../helpers/parts.js';
import type { ExpirableVersion, NamespacedCloudProfile } from '../../../src/api/types.js';
import { cloudProfile, hoursFromNow, image, namespacedProfile } from '../../helpers/objects.js';
import { runTable } from './table.js';

const expiring = (version: string, hours = 24 * 60): ExpirableVersion => ({
  version,
  expirationDate: hoursFromNow(hours),
});
const scheduled = (version: string): ExpirableVersion => ({
  version,
  lifecycle: [{ classification: 'preview', startTime: hoursFromNow(24) }],
});
const create = (...kubernetes: ExpirableVersion[]) => ({
  operation: 'CREATE' as const,
  object: cloudProfile({ kubernetes }),
});
const reapply = (...kubernetes: ExpirableVersion[]) => ({
  operation: 'UPDATE' as const,
  oldObject: cloudProfile({ kubernetes }),
  object: cloudProfile({ kubernetes }),
});
const parent = cloudProfile({ name: 'profile', kubernetes: ['1.31.0', expiring('1.30.0')] });
/** A parent that has become invalid since (its latest version expires). */
const brokenParent = cloudProfile({ name: 'profile', kubernetes: [expiring('1.31.0'), '1.30.0'] });
function withLabel(ncp: NamespacedCloudProfile): NamespacedCloudProfile {
  ncp.metadata.labels = { team: 'a' };
  return ncp;
}

runTable(t, 'LATEST-NO-EXPIRY', [
  { name: 'older versions may expire', input: create({ version: '1.32.0' }, expiring('1.31.0')), want: [] },
  {
    name: 'the latest is the highest semver, not the last entry',
    input: create({ version: '1.9.0' }, expiring('1.10.0')),
    want: [
      {
        field: 'spec.kubernetes.versions[1].expirationDate',
        words: ["latest kubernetes version ('1.10.0') must not be set"],
      },
    ],
  },
  {
    name: 'a past expirationDate on the latest, re-applied unchanged, is still denied',
    input: reapply({ version: '1.30.0' }, expiring('1.31.0', -24)),
    want: [{ field: 'spec.kubernetes.versions[1].expirationDate', words: ['1.31.0'] }],
  },
  {
    name: 'a preview latest without expiry',
    input: create(
      { version: '1.32.0', classification: 'preview' },
      { version: '1.31.4', classification: 'supported' },
      { ...expiring('1.30.9'), classification: 'deprecated' },
    ),
    want: [],
  },
  {
    name: 'a preview latest with an expirationDate',
    input: create({ ...expiring('1.32.0'), classification: 'preview' }, { version: '1.31.4' }),
    want: [{ field: 'spec.kubernetes.versions[0].expirationDate', words: ['1.32.0'] }],
  },
  {
    name: 'a latest in preview whose lifecycle ends expired',
    input: create(
      {
        version: '1.32.0',
        lifecycle: [
          { classification: 'preview' },
          { classification: 'supported', startTime: hoursFromNow(24 * 30) },
          { classification: 'expired', startTime: hoursFromNow(24 * 180) },
        ],
      },
      { version: '1.31.5', lifecycle: [{ classification: 'supported' }] },
    ),
    want: [{ field: 'spec.kubernetes.versions[0].lifecycle[2]', words: ['classification expired', "('1.32.0')"] }],
  },
  {
    name: 'a latest whose lifecycle ends deprecated',
    input: create(
      {
        version: '1.2.0',
        lifecycle: [{ classification: 'supported' }, { classification: 'deprecated', startTime: hoursFromNow(24) }],
      },
      { version: '1.1.0' },
    ),
    want: [],
  },
  {
    name: 'CREATE: the highest version that is not unavailable counts too (the scheduled one is dropped)',
    input: create(scheduled('1.32.0'), expiring('1.31.0'), { version: '1.30.0' }),
    want: [{ field: 'spec.kubernetes.versions[1].expirationDate', words: ["('1.31.0')", 'not unavailable', 'drops'] }],
  },
  {
    name: 'UPDATE: only the overall latest counts',
    input: reapply(scheduled('1.32.0'), expiring('1.31.0')),
    want: [],
  },
  {
    name: 'machine images are exempt',
    input: {
      operation: 'CREATE',
      object: cloudProfile({
        images: [image('gardenlinux', ['1.0.0', { version: '2.0.0', expirationDate: hoursFromNow(24) }])],
      }),
    },
    want: [],
  },
  {
    name: 'an unparseable entry does not hide the latest',
    input: create({ version: 'nope' }, expiring('1.31.0')),
    want: [{ field: 'spec.kubernetes.versions[1].expirationDate' }],
  },
  {
    name: 'NamespacedCloudProfile: extending an older parent version',
    input: {
      operation: 'CREATE',
      object: namespacedProfile({ kubernetes: [expiring('1.30.0', 24 * 90)] }),
      state: [parent],
    },
    want: [],
  },
  {
    name: 'NamespacedCloudProfile: an override that gives the latest parent version an expiry',
    input: { operation: 'CREATE', object: namespacedProfile({ kubernetes: [expiring('1.31.0')] }), state: [parent] },
    want: [
      { field: 'status.cloudProfileSpec.kubernetes.versions[0].expirationDate', words: ['1.31.0', 'merged profile'] },
    ],
  },
  {
    name: 'NamespacedCloudProfile UPDATE leaving spec and metadata alone: the merged profile is not judged (Gardener skips it too)',
    input: { operation: 'UPDATE', oldObject: namespacedProfile(), object: namespacedProfile(), state: [brokenParent] },
    want: [],
  },
  {
    name: 'NamespacedCloudProfile UPDATE of a deleting object (finalizer removal): not judged',
    input: {
      operation: 'UPDATE',
      oldObject: namespacedProfile({ deletionTimestamp: hoursFromNow(-1) }),
      object: withLabel(namespacedProfile({ deletionTimestamp: hoursFromNow(-1) })),
      state: [brokenParent],
    },
    want: [],
  },
  {
    name: 'NamespacedCloudProfile UPDATE changing only metadata: judged',
    input: {
      operation: 'UPDATE',
      oldObject: namespacedProfile(),
      object: withLabel(namespacedProfile()),
      state: [brokenParent],
    },
    want: [{ field: 'status.cloudProfileSpec.kubernetes.versions[0].expirationDate' }],
  },
  {
    name: 'NamespacedCloudProfile UPDATE changing its spec: judged',
    input: {
      operation: 'UPDATE',
      oldObject: namespacedProfile(),
      object: namespacedProfile({ kubernetes: [expiring('1.30.0')] }),
      state: [brokenParent],
    },
    want: [{ field: 'status.cloudProfileSpec.kubernetes.versions[0].expirationDate' }],
  },
  {
    name: 'NamespacedCloudProfile without a parent',
    input: { operation: 'CREATE', object: namespacedProfile({ parent: 'missing', kubernetes: [expiring('1.31.0')] }) },
    want: [],
  },
]);
