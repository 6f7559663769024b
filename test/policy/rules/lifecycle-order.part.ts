import t from '../../helpers/parts.js';
import type { ExpirableVersion, LifecycleStage } from '../../../src/api/types.js';
import { cloudProfile, hoursFromNow, image, namespacedProfile, NOW_ISO } from '../../helpers/objects.js';
import { runTable } from './table.js';

const stage = (classification: string, hours?: number): LifecycleStage =>
  hours === undefined ? { classification } : { classification, startTime: hoursFromNow(hours) };
/** A profile whose second (non-latest) Kubernetes version is `v`. */
const withK8s = (v: ExpirableVersion) => cloudProfile({ kubernetes: ['1.32.0', v] });
const lc = (...stages: LifecycleStage[]): ExpirableVersion => ({ version: '1.31.0', lifecycle: stages });
const create = (v: ExpirableVersion, lifecycleGate = true) => ({
  operation: 'CREATE' as const,
  object: withK8s(v),
  lifecycleGate,
});
const update = (before: ExpirableVersion, after: ExpirableVersion) => ({
  operation: 'UPDATE' as const,
  oldObject: withK8s(before),
  object: withK8s(after),
});
const P = 'spec.kubernetes.versions[1]';

runTable(t, 'LIFECYCLE-ORDER', [
  {
    name: 'a full lifecycle in order',
    input: create(lc(stage('preview'), stage('supported', 1), stage('deprecated', 2), stage('expired', 3))),
    want: [],
  },
  {
    name: 'the first stage may omit its start',
    input: create(lc(stage('supported'), stage('deprecated', 24))),
    want: [],
  },
  { name: 'gaps between stages are fine', input: create(lc(stage('preview'), stage('expired', 24))), want: [] },
  {
    name: 'equal start times are allowed',
    input: create(lc(stage('supported'), stage('deprecated', 24), stage('expired', 24))),
    want: [],
  },
  {
    name: 'gate off: a lifecycle is forbidden, and nothing else is said about it',
    input: create(lc(stage('deprecated'), stage('supported')), false),
    want: [{ field: `${P}.lifecycle`, words: ['versionclassificationlifecycle', 'feature gate'] }],
  },
  {
    name: 'gate off: legacy fields are fine',
    input: create({ version: '1.31.0', classification: 'deprecated', expirationDate: hoursFromNow(24) }, false),
    want: [],
  },
  {
    name: 'lifecycle with classification',
    input: create({ ...lc(stage('supported')), classification: 'supported' }),
    want: [{ field: P, words: ['in combination with `lifecycle`', '1.31.0'] }],
  },
  {
    name: 'lifecycle with expirationDate on a machine image version',
    input: {
      operation: 'CREATE',
      object: cloudProfile({
        images: [
          image('gardenlinux', [
            { version: '1592.1.0', expirationDate: hoursFromNow(24), lifecycle: [stage('supported')] },
          ]),
        ],
      }),
    },
    want: [{ field: 'spec.machineImages[0].versions[0]', words: ['machine image gardenlinux version 1592.1.0'] }],
  },
  {
    name: 'unknown and unavailable stages',
    input: create(lc(stage('unavailable'), stage('beta', 1))),
    want: [
      { field: `${P}.lifecycle[0].classification`, words: ['"unavailable"', 'derived'] },
      { field: `${P}.lifecycle[1].classification`, words: ['"beta"', 'supported values'] },
    ],
  },
  {
    name: 'a stage twice',
    input: create(lc(stage('supported'), stage('supported', 1))),
    want: [{ field: `${P}.lifecycle[1].classification`, words: ['duplicate', 'supported'] }],
  },
  {
    name: 'stages out of order',
    input: create(lc(stage('deprecated'), stage('supported', 1))),
    want: [
      {
        field: `${P}.lifecycle[1].classification`,
        words: ['not in expected order', 'supported must be before deprecated'],
      },
    ],
  },
  {
    name: 'a later stage without start',
    input: create(lc(stage('preview'), stage('supported', 1), stage('deprecated'))),
    want: [{ field: `${P}.lifecycle[2]`, words: ['start time optional', 'deprecated'] }],
  },
  {
    name: 'a start before the previous one',
    input: create(lc(stage('preview', -24), stage('supported', 2), stage('deprecated', 1))),
    want: [{ field: `${P}.lifecycle[2]`, words: ['monotonically increasing', 'deprecated', 'supported'] }],
  },
  {
    name: 'legacy classification expired is forbidden here too',
    input: create({ version: '1.31.0', classification: 'expired' }),
    want: [{ field: `${P}.classification`, words: ['expired', 'expirationdate'] }],
  },
  {
    name: 'UPDATE: a plain version moved into the future',
    input: update({ version: '1.31.0' }, lc(stage('supported', 24 * 30))),
    want: [{ field: P, words: ['cannot be turned unavailable', '1.31.0', 'supported now'] }],
  },
  {
    name: 'UPDATE: even an expired version cannot become unavailable',
    input: update({ version: '1.31.0', expirationDate: hoursFromNow(-24) }, lc(stage('preview', 24))),
    want: [{ field: P, words: ['expired now'] }],
  },
  {
    name: 'UPDATE: a stage starting exactly now has not started',
    input: update({ version: '1.31.0' }, lc(stage('supported', 0))),
    want: [{ field: P, words: ['unavailable'] }],
  },
  {
    name: 'UPDATE: a scheduled version rescheduled',
    input: update(lc(stage('preview', 24)), lc(stage('preview', 24 * 30))),
    want: [],
  },
  {
    name: 'UPDATE: a scheduled version activated early',
    input: update(lc(stage('preview', 24)), lc(stage('preview', -1))),
    want: [],
  },
  {
    name: 'UPDATE: an unchanged lifecycle',
    input: update(lc(stage('supported', -24)), lc(stage('supported', -24))),
    want: [],
  },
  {
    name: 'UPDATE: a machine image version that was preview',
    input: {
      operation: 'UPDATE',
      oldObject: cloudProfile({ images: [image('ubuntu', [{ version: '2135.6.0', lifecycle: [stage('preview')] }])] }),
      object: cloudProfile({
        images: [image('ubuntu', [{ version: '2135.6.0', lifecycle: [stage('supported', 1)] }])],
      }),
    },
    want: [
      { field: 'spec.machineImages[0].versions[0]', words: ['machine image ubuntu version 2135.6.0', 'preview now'] },
    ],
  },
  {
    name: 'UPDATE: image versions are matched by image name and version',
    input: {
      operation: 'UPDATE',
      oldObject: cloudProfile({ images: [image('ubuntu', ['1.0.0'])] }),
      object: cloudProfile({ images: [image('debian', [{ version: '1.0.0', lifecycle: [stage('preview', 24)] }])] }),
    },
    want: [],
  },
  {
    name: 'NamespacedCloudProfile: an image of its own is checked',
    input: {
      operation: 'CREATE',
      object: namespacedProfile({
        images: [image('custom', [{ version: '1.0.0', lifecycle: [stage('deprecated'), stage('preview', 1)] }])],
      }),
      state: [cloudProfile()],
    },
    want: [{ field: 'spec.machineImages[0].versions[0].lifecycle[1].classification', words: ['custom'] }],
  },
  {
    name: 'NamespacedCloudProfile UPDATE: its own image version cannot become unavailable',
    input: {
      operation: 'UPDATE',
      oldObject: namespacedProfile({
        images: [image('custom', [{ version: '1.0.0', lifecycle: [stage('supported')] }])],
      }),
      object: namespacedProfile({
        images: [
          image('custom', [{ version: '1.0.0', lifecycle: [{ classification: 'supported', startTime: NOW_ISO }] }]),
        ],
      }),
      state: [cloudProfile()],
    },
    want: [{ field: 'spec.machineImages[0].versions[0]', words: ['unavailable'] }],
  },
]);
