import t from '../../helpers/parts.js';
import type { ExpirableVersion, LifecycleStage } from '../../../src/api/types.js';
import { cloudProfile, hoursFromNow, image, namespacedProfile } from '../../helpers/objects.js';
import { runTable } from './table.js';

const legacy = (version: string, classification: string, expiresInHours?: number): ExpirableVersion => ({
  version,
  classification,
  ...(expiresInHours === undefined ? {} : { expirationDate: hoursFromNow(expiresInHours) }),
});
const stage = (classification: string, hours?: number): LifecycleStage =>
  hours === undefined ? { classification } : { classification, startTime: hoursFromNow(hours) };
const lc = (version: string, ...lifecycle: LifecycleStage[]): ExpirableVersion => ({ version, lifecycle });
/** The versions under test in the Kubernetes list, below a plain latest 1.40.0. */
const create = (...kubernetes: ExpirableVersion[]) => ({
  operation: 'CREATE' as const,
  object: cloudProfile({ kubernetes: ['1.40.0', ...kubernetes] }),
});
const K = (i: number) => `spec.kubernetes.versions[${i + 1}]`;
const DAY = 24;

runTable(t, 'SUPPORTED-PER-MINOR', [
  {
    name: 'plain versions never conflict',
    input: create({ version: '1.31.0' }, { version: '1.31.1' }, { version: '1.31.2' }),
    want: [],
  },
  {
    name: 'legacy supported next to a plain version',
    input: create(legacy('1.31.1', 'supported'), { version: '1.31.2' }),
    want: [],
  },
  {
    name: 'legacy supported next to preview and deprecated',
    input: create(legacy('1.31.1', 'supported'), legacy('1.31.2', 'preview'), legacy('1.31.0', 'deprecated')),
    want: [],
  },
  {
    name: 'supported in different minors',
    input: create(legacy('1.31.1', 'supported'), legacy('1.30.1', 'supported'), legacy('2.31.1', 'supported')),
    want: [],
  },
  {
    name: 'two legacy supported in one minor: one report naming both, and a pointer on the other (Gardener flags each)',
    input: create(legacy('1.31.1', 'supported'), legacy('1.31.2', 'supported')),
    want: [
      {
        field: K(0),
        words: [
          'unable to add version "1.31.1" with classification "supported"',
          'in minor 1.31, 1.31.1 and 1.31.2 are both explicitly supported from now on with no end',
        ],
      },
      {
        field: K(1),
        words: [`version "1.31.2" is one of the clashing supported versions of minor 1.31 reported at ${K(0)}`],
      },
    ],
  },
  {
    name: 'two lifecycle supported stages without start: reported once',
    input: create(lc('1.31.1', stage('supported')), lc('1.31.2', stage('supported'))),
    want: [{ field: K(0), words: ['1.31.1 and 1.31.2 are both explicitly supported'] }],
  },
  {
    name: 'three at once: all named in one report',
    input: create(
      lc('1.31.1', stage('supported')),
      lc('1.31.2', stage('supported')),
      lc('1.31.3', stage('supported')),
      lc('1.30.1', stage('supported')),
    ),
    want: [{ field: K(0), words: ['in minor 1.31, 1.31.1, 1.31.2 and 1.31.3 are all explicitly supported'] }],
  },
  {
    name: 'lifecycle windows that overlap in the future',
    input: create(
      lc('1.31.1', stage('supported'), stage('deprecated', 30 * DAY)),
      lc('1.31.2', stage('preview'), stage('supported', 14 * DAY)),
    ),
    want: [{ field: K(0), words: ['from 2026-09-15t00:00:00z until 2026-10-01t00:00:00z'] }],
  },
  {
    name: 'only the versions whose windows meet are named',
    input: create(
      lc('1.31.0', stage('supported'), stage('deprecated', -30 * DAY)),
      lc('1.31.1', stage('supported'), stage('deprecated', 30 * DAY)),
      lc('1.31.2', stage('preview'), stage('supported', 14 * DAY)),
    ),
    want: [{ field: K(1), words: ['1.31.1 and 1.31.2 are both'] }],
  },
  {
    name: 'lifecycle windows that touch (one ends where the other starts)',
    input: create(
      lc('1.31.1', stage('supported'), stage('deprecated', 14 * DAY)),
      lc('1.31.2', stage('preview'), stage('supported', 14 * DAY)),
    ),
    want: [],
  },
  {
    name: 'an overlap wholly in the past does not count',
    input: {
      operation: 'UPDATE',
      oldObject: cloudProfile({
        kubernetes: [
          '1.40.0',
          lc('1.31.1', stage('supported'), stage('deprecated', -14 * DAY)),
          lc('1.31.2', stage('supported')),
        ],
      }),
      object: cloudProfile({
        kubernetes: [
          '1.40.0',
          lc('1.31.1', stage('supported'), stage('deprecated', -14 * DAY)),
          lc('1.31.2', stage('supported')),
        ],
      }),
    },
    want: [],
  },
  {
    name: 'a lifecycle window ending exactly now does not overlap one that goes on',
    input: create(lc('1.31.1', stage('supported'), stage('deprecated', 0)), lc('1.31.2', stage('supported'))),
    want: [],
  },
  {
    name: "Gardener's check: a legacy supported version expiring exactly now is still supported now",
    input: create(legacy('1.31.1', 'supported', 0), lc('1.31.2', stage('supported'))),
    want: [
      {
        field: K(0),
        words: [
          '1.31.1 is supported now through its legacy classification, and 1.31.2 of the same minor also claims "supported"',
        ],
      },
    ],
  },
  {
    name: "Gardener's check: a legacy supported version against an expired legacy supported one",
    input: create(legacy('1.30.0', 'supported'), legacy('1.30.1', 'supported', -30 * DAY)),
    want: [{ field: K(0), words: ['1.30.0', '1.30.1', 'legacy classification'] }],
  },
  {
    name: "Gardener's check: a legacy supported version against a lifecycle that was supported before",
    input: create(legacy('1.30.2', 'supported'), lc('1.30.1', stage('supported'), stage('deprecated', -30 * DAY))),
    want: [{ field: K(0), words: ['1.30.2', '1.30.1'] }],
  },
  {
    name: 'an expired legacy supported version next to a lifecycle supported one',
    input: create(legacy('1.30.1', 'supported', -30 * DAY), lc('1.30.2', stage('supported'))),
    want: [],
  },
  {
    name: 'machine images: a pre-release flavor is a different version of the same minor',
    input: {
      operation: 'CREATE',
      object: cloudProfile({
        images: [image('gardenlinux', [legacy('1877.12.0', 'supported'), legacy('1877.12.0-inplace', 'supported')])],
      }),
    },
    want: [
      {
        field: 'spec.machineImages[0].versions[0]',
        words: [
          'machine image gardenlinux: unable to add version "1877.12.0"',
          '1877.12.0 and 1877.12.0-inplace are both',
        ],
      },
      {
        field: 'spec.machineImages[0].versions[1]',
        words: ['machine image gardenlinux: version "1877.12.0-inplace" is one of the clashing'],
      },
    ],
  },
  {
    name: 'machine images: build metadata alone does not make another version',
    input: {
      operation: 'CREATE',
      object: cloudProfile({
        images: [image('gardenlinux', [legacy('1.2.3+a', 'supported'), legacy('1.2.3+b', 'supported')])],
      }),
    },
    want: [],
  },
  {
    name: 'machine images: each image is its own list',
    input: {
      operation: 'CREATE',
      object: cloudProfile({
        images: [image('gardenlinux', [legacy('1.2.0', 'supported')]), image('ubuntu', [legacy('1.2.1', 'supported')])],
      }),
    },
    want: [],
  },
  {
    name: 'UPDATE: adding a second always-supported version to a minor',
    input: {
      operation: 'UPDATE',
      oldObject: cloudProfile({ kubernetes: [lc('1.31.1', stage('supported'))] }),
      object: cloudProfile({ kubernetes: [lc('1.31.1', stage('supported')), lc('1.31.2', stage('supported'))] }),
    },
    want: [
      { field: 'spec.kubernetes.versions[1]', words: ['unable to add version "1.31.2"', '1.31.1 and 1.31.2 are both'] },
    ],
  },
  {
    name: 'UPDATE: a clash among versions the profile already had is not called an addition',
    input: {
      operation: 'UPDATE',
      oldObject: cloudProfile({ kubernetes: [lc('1.31.1', stage('supported')), lc('1.31.2', stage('preview'))] }),
      object: cloudProfile({ kubernetes: [lc('1.31.1', stage('supported')), lc('1.31.2', stage('supported'))] }),
    },
    want: [
      {
        field: 'spec.kubernetes.versions[0]',
        words: ['"supported" lifecycle stages must not overlap per minor version: in minor 1.31'],
      },
    ],
  },
  {
    name: 'NamespacedCloudProfile: an extension that revives a second supported version',
    input: {
      operation: 'CREATE',
      object: namespacedProfile({ kubernetes: [{ version: '1.30.0', expirationDate: hoursFromNow(30 * DAY) }] }),
      state: [
        cloudProfile({
          kubernetes: ['1.31.0', legacy('1.30.1', 'supported', -30 * DAY), legacy('1.30.0', 'supported', -30 * DAY)],
        }),
      ],
    },
    want: [
      {
        field: 'status.cloudProfileSpec.kubernetes.versions[2]',
        words: [
          '1.30.0 (overridden by this namespacedcloudprofile) is supported now through its legacy classification, and 1.30.1',
          'merged profile',
        ],
      },
    ],
  },
  {
    name: 'NamespacedCloudProfile: an image of its own with two supported versions of a minor',
    input: {
      operation: 'CREATE',
      object: namespacedProfile({
        images: [image('custom', [legacy('1.0.0', 'supported', 30 * DAY), legacy('1.0.1', 'supported', 30 * DAY)])],
      }),
      state: [cloudProfile()],
    },
    want: [
      {
        field: 'status.cloudProfileSpec.machineImages[1].versions[0]',
        words: ['1.0.0 (of this namespacedcloudprofile) and 1.0.1 (of this namespacedcloudprofile) are both'],
      },
      { field: 'status.cloudProfileSpec.machineImages[1].versions[1]', words: ['is one of the clashing'] },
    ],
  },
]);
