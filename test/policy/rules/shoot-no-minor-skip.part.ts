// SHOOT-NO-MINOR-SKIP: the control plane moves one minor at a time; worker pools stay at or below
// the control plane and at most three minors behind; in-place pools do not skip minors.
import t from '../../helpers/parts.js';
import type { Shoot } from '../../../src/api/types.js';
import { shoot } from '../../helpers/objects.js';
import { deleting, withWorker } from './shoot-profile.js';
import type { RuleRow } from './shoot-rule-table.js';
import { runRows } from './shoot-rule-table.js';

const RULE = 'SHOOT-NO-MINOR-SKIP';
const CP = 'spec.kubernetes.version';
const W0 = 'spec.provider.workers[0].kubernetes.version';

const s = (version: string, workerK8s?: string): Shoot =>
  shoot({
    profile: 'aws',
    version,
    workers: [{ name: 'pool-a', image: ['gardenlinux', '1592.1.0'], ...(workerK8s ? { kubernetes: workerK8s } : {}) }],
  });
const inPlace = (x: Shoot): Shoot => withWorker(x, 'pool-a', { updateStrategy: 'ManualInPlaceUpdate' });

const rows: RuleRow[] = [
  { name: 'one minor up', operation: 'UPDATE', object: s('1.31.0'), oldObject: s('1.30.2'), want: [] },
  { name: 'a patch up', operation: 'UPDATE', object: s('1.30.2'), oldObject: s('1.30.1'), want: [] },
  {
    name: "two minors up, in Gardener's words",
    operation: 'UPDATE',
    object: s('1.31.0'),
    oldObject: s('1.29.4'),
    want: [
      [
        CP,
        'kubernetes version upgrade cannot skip a minor version',
        'from "1.29.4" to "1.31.0"',
        'upgrade to 1.30 first',
      ],
    ],
  },
  {
    name: 'a major bump counts as a skip',
    operation: 'UPDATE',
    object: s('2.0.0'),
    oldObject: s('1.31.0'),
    want: [[CP, 'cannot skip a minor version']],
  },
  { name: 'CREATE may start anywhere', operation: 'CREATE', object: s('1.32.0'), want: [] },
  { name: 'a pool at the control plane version', operation: 'CREATE', object: s('1.31.0', '1.31.0'), want: [] },
  {
    name: 'a pool above the control plane',
    operation: 'CREATE',
    object: s('1.30.2', '1.31.0'),
    want: [[W0, 'worker pool "pool-a"', 'must not be higher than control plane version']],
  },
  { name: 'a pool three minors behind', operation: 'CREATE', object: s('1.31.0', '1.28.5'), want: [] },
  {
    name: 'a pool four minors behind',
    operation: 'CREATE',
    object: s('1.31.0', '1.27.3'),
    want: [[W0, 'at most three minor versions behind control plane version', '"1.27.3"', '"1.31.0"']],
  },
  {
    name: 'a control plane upgrade that leaves a pool four minors behind',
    operation: 'UPDATE',
    object: s('1.31.0', '1.27.3'),
    oldObject: s('1.30.2', '1.27.3'),
    want: [[W0, 'three minor versions behind']],
  },
  {
    name: 'a pool on an older major is too far behind',
    operation: 'CREATE',
    object: s('2.0.0', '1.31.0'),
    want: [[W0, 'three minor versions behind']],
  },
  {
    name: 'a replaced pool may skip minors',
    operation: 'UPDATE',
    object: s('1.31.0', '1.31.0'),
    oldObject: s('1.31.0', '1.29.4'),
    want: [],
  },
  {
    name: 'an in-place pool must not skip a minor',
    operation: 'UPDATE',
    object: inPlace(s('1.31.0', '1.31.0')),
    oldObject: inPlace(s('1.31.0', '1.29.4')),
    want: [[W0, 'cannot skip a minor version when the update strategy is AutoInPlaceUpdate or ManualInPlaceUpdate']],
  },
  {
    name: 'a Shoot being deleted is not judged',
    operation: 'UPDATE',
    object: deleting(s('1.31.0', '1.32.0')),
    oldObject: deleting(s('1.29.4')),
    want: [],
  },
  {
    name: 'judged without a synced state: it needs none',
    operation: 'UPDATE',
    object: s('1.31.0'),
    oldObject: s('1.29.4'),
    synced: false,
    want: [[CP, 'cannot skip']],
  },
];

t.test(RULE, async (t) => runRows(t, RULE, rows));
