// SHOOT-VERSION-AVAILABLE: each row is a Shoot request against the `aws` profile (or its
// NamespacedCloudProfile `garden-dev/team`) and the violations it must produce.
import t from '../../helpers/parts.js';
import { failedFilter, poolFacts } from '../../../src/gardener/forecast/pool-filter.js';
import { NOT_READY_MESSAGE } from '../../../src/policy/evaluate.js';
import { hoursFromNow, namespacedProfile, shoot } from '../../helpers/objects.js';
import { AWS, deleting, withWorker } from './shoot-profile.js';
import type { RuleRow } from './shoot-rule-table.js';
import { runRows } from './shoot-rule-table.js';

const RULE = 'SHOOT-VERSION-AVAILABLE';
const CP = 'spec.kubernetes.version';
const W0_K8S = 'spec.provider.workers[0].kubernetes.version';
const W0_IMAGE = 'spec.provider.workers[0].machine.image';
const W1_K8S = 'spec.provider.workers[1].kubernetes.version';
const W1_IMAGE = 'spec.provider.workers[1].machine.image';

const onAws = (version: string, image = '1592.1.0', workerK8s?: string) =>
  shoot({
    profile: 'aws',
    version,
    workers: [{ name: 'pool-a', image: ['gardenlinux', image], ...(workerK8s ? { kubernetes: workerK8s } : {}) }],
  });
const onTeam = (version: string, image = '1592.1.0') =>
  shoot({
    profile: { kind: 'NamespacedCloudProfile', name: 'team' },
    version,
    workers: [{ name: 'pool-a', image: ['gardenlinux', image] }],
  });
const twoPools = (base: ReturnType<typeof onAws>, image: string, kubernetes?: string) => {
  const s = structuredClone(base);
  s.spec.provider!.workers!.push({
    name: 'pool-b',
    machine: { type: 'm5.large', image: { name: 'gardenlinux', version: image } },
    ...(kubernetes ? { kubernetes: { version: kubernetes } } : {}),
  });
  return s;
};

const create: RuleRow[] = [
  { name: 'supported versions', operation: 'CREATE', object: onAws('1.31.0'), want: [] },
  {
    name: 'a deprecated version may still be chosen',
    operation: 'CREATE',
    object: onAws('1.29.4', '1591.0.0'),
    want: [],
  },
  {
    name: 'a preview version may be chosen explicitly',
    operation: 'CREATE',
    object: onAws('1.32.0', '1593.0.0'),
    want: [],
  },
  {
    name: 'an expired control plane version lists the active versions, preview suffixed',
    operation: 'CREATE',
    object: onAws('1.28.5'),
    want: [
      [
        CP,
        'unsupported kubernetes version "1.28.5"',
        'expired in CloudProfile "aws" since',
        'supported values: "1.27.3", "1.29.4", "1.30.1", "1.30.2", "1.31.0", "1.32.0 (preview)"',
      ],
    ],
    absent: ['"1.33.0', '"1.29.1"'],
  },
  {
    name: 'an unavailable control plane version',
    operation: 'CREATE',
    object: onAws('1.33.0'),
    want: [[CP, '"1.33.0"', `unavailable in CloudProfile "aws" until ${hoursFromNow(24)}`]],
  },
  {
    name: 'a version the profile does not offer',
    operation: 'CREATE',
    object: onAws('1.26.0'),
    want: [[CP, '"1.26.0"', 'not in CloudProfile "aws"', 'supported values:']],
    type: 'NotSupported',
  },
  {
    name: 'an expired worker pool version',
    operation: 'CREATE',
    object: onAws('1.31.0', '1592.1.0', '1.29.1'),
    want: [[W0_K8S, 'worker pool "pool-a"', '"1.29.1"', 'expired']],
  },
  {
    name: 'a worker pool on a preview version',
    operation: 'CREATE',
    object: onAws('1.32.0', '1592.1.0', '1.32.0'),
    want: [],
  },
  {
    name: "an expired machine image version, in Gardener's words",
    operation: 'CREATE',
    object: onAws('1.31.0', '1590.0.0'),
    want: [
      [
        W0_IMAGE,
        "machine image version 'gardenlinux:1590.0.0' is expired",
        'supported machine image versions are: "1591.0.0", "1592.0.0", "1592.1.0", "1593.0.0 (preview)", "1595.0.0"',
      ],
    ],
    absent: ['"1594.0.0"'],
  },
  {
    name: 'an unavailable machine image version',
    operation: 'CREATE',
    object: onAws('1.31.0', '1594.0.0'),
    want: [[W0_IMAGE, "'gardenlinux:1594.0.0' is unavailable"]],
  },
  {
    name: 'a machine image version the profile does not offer',
    operation: 'CREATE',
    object: onAws('1.31.0', '1500.0.0'),
    want: [[W0_IMAGE, '\'gardenlinux:1500.0.0\' is not in CloudProfile "aws"']],
  },
  {
    name: 'a machine image the profile does not offer',
    operation: 'CREATE',
    object: shoot({ profile: 'aws', version: '1.31.0', workers: [{ name: 'pool-a', image: ['ubuntu', '24.4'] }] }),
    want: [
      [
        W0_IMAGE,
        'machine image "ubuntu" is not in CloudProfile "aws"',
        'supported machine images are: "gardenlinux", "suse-chost"',
      ],
    ],
  },
  {
    name: 'every violation at once: control plane, pool version and image',
    operation: 'CREATE',
    object: onAws('1.28.5', '1590.0.0', '1.29.1'),
    want: [[CP], [W0_K8S], [W0_IMAGE]],
  },
  { name: "the image's kubelet constraint is met", operation: 'CREATE', object: onAws('1.31.0', '1595.0.0'), want: [] },
  {
    name: "the image's kubelet constraint is not met by the control plane's version",
    operation: 'CREATE',
    object: onAws('1.30.2', '1595.0.0'),
    want: [[W0_IMAGE, 'does not support kubelet version "1.30.2"', "'>= 1.31'"]],
  },
  {
    name: "the kubelet constraint is judged against the pool's own version",
    operation: 'CREATE',
    object: onAws('1.31.0', '1595.0.0', '1.30.2'),
    want: [[W0_IMAGE, 'kubelet version "1.30.2"']],
  },
  {
    name: 'the legacy spec.cloudProfileName',
    operation: 'CREATE',
    object: shoot({
      cloudProfileName: 'aws',
      version: '1.31.0',
      workers: [{ name: 'pool-a', image: ['gardenlinux', '1592.1.0'] }],
    }),
    want: [],
  },
  {
    name: 'the legacy spec.cloudProfileName, expired version',
    operation: 'CREATE',
    object: shoot({
      cloudProfileName: 'aws',
      version: '1.28.5',
      workers: [{ name: 'pool-a', image: ['gardenlinux', '1592.1.0'] }],
    }),
    want: [[CP, 'expired in CloudProfile "aws"']],
  },
];

const namespaced: RuleRow[] = [
  {
    name: 'the NamespacedCloudProfile extends an expired version: the merged profile allows it',
    operation: 'CREATE',
    object: onTeam('1.28.5'),
    want: [],
  },
  {
    name: 'an image version only the NamespacedCloudProfile has',
    operation: 'CREATE',
    object: onTeam('1.31.0', '1596.0.0'),
    want: [],
  },
  {
    name: 'the same image version is not in the parent',
    operation: 'CREATE',
    object: onAws('1.31.0', '1596.0.0'),
    want: [[W0_IMAGE, 'not in CloudProfile "aws"']],
  },
  {
    name: 'a version the merged profile still has expired names the NamespacedCloudProfile',
    operation: 'CREATE',
    object: onTeam('1.29.1'),
    want: [[CP, "expired in NamespacedCloudProfile 'garden-dev/team'", '"1.28.5"']],
  },
];

const missing: RuleRow[] = [
  {
    name: 'the CloudProfile does not exist',
    operation: 'CREATE',
    object: shoot({ profile: 'gcp' }),
    want: [['spec.cloudProfile.name', 'CloudProfile "gcp" referenced by shoot \'garden-dev/shoot\' does not exist']],
  },
  {
    name: 'the legacy reference does not exist',
    operation: 'CREATE',
    object: shoot({ cloudProfileName: 'gcp' }),
    want: [['spec.cloudProfileName', 'CloudProfile "gcp"', 'does not exist']],
  },
  {
    name: 'the NamespacedCloudProfile does not exist',
    operation: 'CREATE',
    object: shoot({ profile: { kind: 'NamespacedCloudProfile', name: 'other' } }),
    want: [['spec.cloudProfile.name', "NamespacedCloudProfile 'garden-dev/other'", 'does not exist']],
  },
  {
    name: 'a NamespacedCloudProfile of another namespace does not count',
    operation: 'CREATE',
    object: shoot({ namespace: 'garden-ops', profile: { kind: 'NamespacedCloudProfile', name: 'team' } }),
    want: [['spec.cloudProfile.name', "NamespacedCloudProfile 'garden-ops/team'", 'does not exist']],
  },
  {
    name: "the NamespacedCloudProfile's parent does not exist",
    operation: 'CREATE',
    object: shoot({ profile: { kind: 'NamespacedCloudProfile', name: 'orphan' } }),
    state: [AWS, namespacedProfile({ name: 'orphan', parent: 'gone' })],
    want: [['spec.cloudProfile.name', 'parent CloudProfile "gone"', "NamespacedCloudProfile 'garden-dev/orphan'"]],
  },
  {
    name: 'an unknown profile kind',
    operation: 'CREATE',
    object: shoot({ profile: { kind: 'SecretBinding', name: 'aws' } }),
    want: [['spec.cloudProfile.kind', '"SecretBinding"', 'supported values']],
  },
  {
    name: 'the state is not synced',
    operation: 'CREATE',
    object: onAws('1.31.0'),
    synced: false,
    want: [['', NOT_READY_MESSAGE]],
  },
  {
    name: 'an UPDATE whose profile is gone',
    operation: 'UPDATE',
    object: shoot({ profile: 'gcp' }),
    oldObject: shoot({ profile: 'gcp' }),
    want: [['spec.cloudProfile.name', 'does not exist']],
  },
  {
    name: 'a Shoot being deleted is not judged',
    operation: 'UPDATE',
    object: deleting(shoot({ profile: 'gcp' })),
    oldObject: deleting(shoot({ profile: 'gcp' })),
    want: [],
  },
  { name: 'DELETE is not judged', operation: 'DELETE', oldObject: shoot({ profile: 'gcp' }), want: [] },
];

const update: RuleRow[] = [
  {
    name: 'an unchanged expired version stays',
    operation: 'UPDATE',
    object: onAws('1.28.5', '1590.0.0', '1.28.5'),
    oldObject: onAws('1.28.5', '1590.0.0', '1.28.5'),
    want: [],
  },
  {
    name: 'off an expired version to a deprecated one',
    operation: 'UPDATE',
    object: onAws('1.29.4'),
    oldObject: onAws('1.28.5'),
    want: [],
  },
  {
    name: 'a changed control plane version must not be expired',
    operation: 'UPDATE',
    object: onAws('1.29.1'),
    oldObject: onAws('1.28.5'),
    want: [[CP, '"1.29.1"', 'expired']],
  },
  {
    name: 'a changed control plane version must not be unavailable',
    operation: 'UPDATE',
    object: onAws('1.33.0'),
    oldObject: onAws('1.32.0'),
    want: [[CP, 'unavailable']],
  },
  {
    name: 'a changed control plane version must exist',
    operation: 'UPDATE',
    object: onAws('1.31.9'),
    oldObject: onAws('1.31.0'),
    want: [[CP, 'not in CloudProfile']],
  },
  {
    name: 'an existing pool may follow the control plane onto its current, expired version',
    operation: 'UPDATE',
    object: onAws('1.29.1', '1592.1.0', '1.29.1'),
    oldObject: onAws('1.29.1', '1592.1.0', '1.28.5'),
    want: [],
  },
  {
    name: 'an existing pool must not move to another expired version',
    operation: 'UPDATE',
    object: onAws('1.29.4', '1592.1.0', '1.29.1'),
    oldObject: onAws('1.29.4', '1592.1.0', '1.28.5'),
    want: [[W0_K8S, 'expired']],
  },
  {
    name: 'an existing pool must not move to an unavailable version',
    operation: 'UPDATE',
    object: onAws('1.32.0', '1592.1.0', '1.33.0'),
    oldObject: onAws('1.32.0', '1592.1.0', '1.31.0'),
    want: [[W0_K8S, 'unavailable']],
  },
  {
    name: 'pinning a pool to the version it already follows is no change',
    operation: 'UPDATE',
    object: onAws('1.28.5', '1592.1.0', '1.28.5'),
    oldObject: onAws('1.28.5'),
    want: [],
  },
  {
    name: 'an existing pool may move to an expired image not lower than its own',
    operation: 'UPDATE',
    object: onAws('1.31.0', '1590.0.0'),
    oldObject: onAws('1.31.0', '1589.0.0'),
    want: [],
  },
  {
    name: 'an existing pool must not move to a lower expired image',
    operation: 'UPDATE',
    object: onAws('1.31.0', '1589.0.0'),
    oldObject: onAws('1.31.0', '1590.0.0'),
    want: [[W0_IMAGE, "'gardenlinux:1589.0.0' is expired", 'not lower than the current "1590.0.0"']],
  },
  {
    name: 'an existing pool must not move to an unavailable image',
    operation: 'UPDATE',
    object: onAws('1.31.0', '1594.0.0'),
    oldObject: onAws('1.31.0', '1592.1.0'),
    want: [[W0_IMAGE, 'unavailable']],
  },
  {
    name: 'switching the image of a pool is judged like a new one',
    operation: 'UPDATE',
    object: withWorker(onAws('1.31.0'), 'pool-a', {
      machine: { type: 'm5.large', image: { name: 'gardenlinux', version: '1590.0.0' } },
    }),
    oldObject: withWorker(onAws('1.31.0'), 'pool-a', {
      machine: { type: 'm5.large', image: { name: 'suse-chost', version: '15.6.0' } },
    }),
    want: [[W0_IMAGE, 'is expired']],
    absent: ['not lower than'],
  },
  {
    name: 'a new pool is judged like CREATE: expired image',
    operation: 'UPDATE',
    object: twoPools(onAws('1.31.0', '1590.0.0'), '1590.0.0'),
    oldObject: onAws('1.31.0', '1590.0.0'),
    want: [[W1_IMAGE, 'worker pool "pool-b"', 'is expired']],
  },
  {
    name: "a new pool is judged like CREATE: expired Kubernetes version, even the control plane's",
    operation: 'UPDATE',
    object: twoPools(onAws('1.29.1'), '1592.1.0', '1.29.1'),
    oldObject: onAws('1.29.1'),
    want: [[W1_K8S, 'worker pool "pool-b"', 'expired']],
  },
  {
    name: 'a new pool with active versions',
    operation: 'UPDATE',
    object: twoPools(onAws('1.31.0'), '1592.0.0', '1.30.2'),
    oldObject: onAws('1.31.0'),
    want: [],
  },
  {
    name: 'an unchanged pool is not judged again against its kubelet constraint',
    operation: 'UPDATE',
    object: onAws('1.30.2', '1595.0.0'),
    oldObject: onAws('1.30.2', '1595.0.0'),
    want: [],
  },
  {
    name: "a control plane change judges a following pool's kubelet constraint again",
    operation: 'UPDATE',
    object: onAws('1.30.2', '1595.0.0'),
    oldObject: onAws('1.30.1', '1595.0.0'),
    want: [[W0_IMAGE, 'does not support kubelet version "1.30.2"']],
  },
  {
    name: 'the merged profile on UPDATE: the extended version is still active',
    operation: 'UPDATE',
    object: onTeam('1.28.5', '1592.0.0'),
    oldObject: onTeam('1.27.3', '1592.0.0'),
    want: [],
  },
];

t.test('CREATE', async (t) => runRows(t, RULE, create));
t.test('NamespacedCloudProfile: the merged profile', async (t) => runRows(t, RULE, namespaced));
t.test('the profile is missing, or cannot be known', async (t) => runRows(t, RULE, missing));
t.test('UPDATE', async (t) => runRows(t, RULE, update));

/** AWS with image version 1595.0.0 under another kubeletVersionConstraint. */
const withConstraint = (constraint: string) => {
  const p = structuredClone(AWS);
  p.spec.machineImages[0]!.versions.find((v) => v.version === '1595.0.0')!.kubeletVersionConstraint = constraint;
  return p;
};

// Masterminds' own spellings, read by admission and the forecast alike (issue 37): `=>`, `=<`, `~>`.
const constraintCases: Array<[constraint: string, kubelet: string, meets: boolean]> = [
  ['=> 1.31.0', '1.31.0', true],
  ['=> 1.31.0', '1.30.2', false],
  ['=< 1.30', '1.30.2', true],
  ['=< 1.30', '1.31.0', false],
  ['~> 1.30', '1.30.2', true],
  ['~> 1.30', '1.31.0', false],
  ['>= 1.30, < 1.31 || 1.32.x', '1.30.2', true],
  ['>= 1.30, < 1.31 || 1.32.x', '1.31.0', false],
  ['1.30 - 1.30.1', '1.30.2', false],
  ['newest', '1.31.0', false],
];

t.test("the kubelet constraint in Masterminds' grammar", async (t) => {
  runRows(
    t,
    RULE,
    constraintCases.map(([constraint, kubelet, meets]) => ({
      name: `${kubelet} against '${constraint}'`,
      operation: 'CREATE' as const,
      object: onAws('1.31.0', '1595.0.0', kubelet),
      state: [withConstraint(constraint)],
      want: meets ? [] : [[W0_IMAGE, `does not support kubelet version "${kubelet}"`]],
    })),
  );
});

t.test('an unreadable constraint is denied with its reason: the webhook cannot judge it', async (t) => {
  runRows(t, RULE, [
    {
      name: 'newest',
      operation: 'CREATE',
      object: onAws('1.31.0', '1595.0.0'),
      state: [withConstraint('newest')],
      want: [[W0_IMAGE, 'cannot parse the kubeletVersionConstraint: improper constraint: "newest"', 'cannot judge']],
    },
  ]);
});

t.test('admission and the forecast give one answer about a pool and a constraint', async (t) => {
  for (const [constraint, kubelet, meets] of constraintCases) {
    const profile = withConstraint(constraint).spec;
    const version = profile.machineImages[0]!.versions.find((v) => v.version === '1595.0.0')!;
    const worker = onAws('1.31.0', '1595.0.0', kubelet).spec.provider!.workers![0]!;
    const filtered = failedFilter(version, poolFacts(worker, profile), kubelet, '1592.1.0');
    t.equal(filtered === 'kubelet', !meets, `${kubelet} against '${constraint}'`);
  }
});
