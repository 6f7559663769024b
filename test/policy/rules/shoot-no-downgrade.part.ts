// SHOOT-NO-DOWNGRADE: Kubernetes versions of the control plane and the worker pools never go down;
// in-place pools do not downgrade their machine image either.
import t from '../../helpers/parts.js';
import type { Shoot } from '../../../src/api/types.js';
import { shoot } from '../../helpers/objects.js';
import { deleting, withWorker } from './shoot-profile.js';
import type { RuleRow } from './shoot-rule-table.js';
import { runRows } from './shoot-rule-table.js';

const RULE = 'SHOOT-NO-DOWNGRADE';
const CP = 'spec.kubernetes.version';

const s = (version: string, workerK8s?: string, image = '1592.1.0'): Shoot =>
  shoot({
    profile: 'aws',
    version,
    workers: [{ name: 'pool-a', image: ['gardenlinux', image], ...(workerK8s ? { kubernetes: workerK8s } : {}) }],
  });
const inPlace = (x: Shoot): Shoot => withWorker(x, 'pool-a', { updateStrategy: 'AutoInPlaceUpdate' });

const rows: RuleRow[] = [
  { name: 'the same version', operation: 'UPDATE', object: s('1.31.0'), oldObject: s('1.31.0'), want: [] },
  { name: 'an upgrade', operation: 'UPDATE', object: s('1.31.0'), oldObject: s('1.30.2'), want: [] },
  {
    name: "a control plane downgrade, in Gardener's words",
    operation: 'UPDATE',
    object: s('1.30.2'),
    oldObject: s('1.31.0'),
    want: [[CP, 'kubernetes version downgrade is not supported', 'from "1.31.0" to "1.30.2"']],
    type: 'Forbidden',
  },
  {
    name: 'a patch downgrade',
    operation: 'UPDATE',
    object: s('1.30.1'),
    oldObject: s('1.30.2'),
    want: [[CP, 'downgrade']],
  },
  {
    name: 'a worker pool downgrade',
    operation: 'UPDATE',
    object: s('1.31.0', '1.30.1'),
    oldObject: s('1.31.0', '1.30.2'),
    want: [['spec.provider.workers[0].kubernetes.version', 'worker pool "pool-a"', 'from "1.30.2" to "1.30.1"']],
  },
  {
    name: 'pinning a pool below the control plane version it followed is a downgrade',
    operation: 'UPDATE',
    object: s('1.31.0', '1.30.2'),
    oldObject: s('1.31.0'),
    want: [['spec.provider.workers[0].kubernetes.version', 'from "1.31.0" to "1.30.2"']],
  },
  {
    name: 'a pool that follows the control plane is judged with it, once',
    operation: 'UPDATE',
    object: s('1.30.2'),
    oldObject: s('1.31.0'),
    want: [[CP]],
  },
  {
    name: 'a new pool has no old version',
    operation: 'UPDATE',
    object: withWorker(s('1.31.0', '1.29.4'), 'pool-a', { name: 'pool-new' }),
    oldObject: s('1.31.0', '1.30.2'),
    want: [],
  },
  {
    name: 'a machine image downgrade is allowed by default',
    operation: 'UPDATE',
    object: s('1.31.0', undefined, '1592.0.0'),
    oldObject: s('1.31.0', undefined, '1592.1.0'),
    want: [],
  },
  {
    name: 'an in-place pool must not downgrade its machine image',
    operation: 'UPDATE',
    object: inPlace(s('1.31.0', undefined, '1592.0.0')),
    oldObject: inPlace(s('1.31.0', undefined, '1592.1.0')),
    want: [
      [
        'spec.provider.workers[0].machine.image.version',
        'AutoInPlaceUpdate or ManualInPlaceUpdate',
        "'gardenlinux:1592.1.0' to 'gardenlinux:1592.0.0'",
      ],
    ],
  },
  {
    name: 'hash-suffixed images are compared as Gardener compares them: the suffix is cut, so this is no downgrade',
    operation: 'UPDATE',
    object: inPlace(s('1.31.0', undefined, '2250.0.0-baremetal-sci-usi-amd64-2250-0-0-0a6f6d3e')),
    oldObject: inPlace(s('1.31.0', undefined, '2250.0.0-baremetal-sci-usi-amd64-2250-0-0-bc27cc47')),
    want: [],
  },
  {
    name: 'a hash-suffixed image of a lower release is a downgrade',
    operation: 'UPDATE',
    object: inPlace(s('1.31.0', undefined, '2250.0.0-baremetal-sci-usi-amd64-2250-0-0-bc27cc47')),
    oldObject: inPlace(s('1.31.0', undefined, '2250.1.0-baremetal-sci-usi-amd64-2250-1-0-9f1e2d3c')),
    want: [['spec.provider.workers[0].machine.image.version', 'downgrade']],
  },
  {
    name: "metal-stack's two-segment image versions: 24.04 is 24.4.0, below 24.04.20240101",
    operation: 'UPDATE',
    object: inPlace(s('1.31.0', undefined, '24.04')),
    oldObject: inPlace(s('1.31.0', undefined, '24.04.20240101')),
    want: [['spec.provider.workers[0].machine.image.version', 'downgrade']],
  },
  { name: 'CREATE has nothing to go down from', operation: 'CREATE', object: s('1.30.2'), want: [] },
  {
    name: 'a Shoot being deleted is not judged',
    operation: 'UPDATE',
    object: deleting(s('1.30.2')),
    oldObject: deleting(s('1.31.0')),
    want: [],
  },
  {
    name: 'judged without a synced state: it needs none',
    operation: 'UPDATE',
    object: s('1.30.2'),
    oldObject: s('1.31.0'),
    synced: false,
    want: [[CP, 'downgrade']],
  },
];

t.test(RULE, async (t) => runRows(t, RULE, rows));
