// NCP-OVERRIDES: what a NamespacedCloudProfile may say about its parent. Each row is a request
// against one parent, and the NCP-OVERRIDES field paths expected (empty = none).
import t from '../../helpers/parts.js';
import { NOT_READY_MESSAGE } from '../../../src/policy/evaluate.js';
import type { Decision } from '../../../src/policy/decision.js';
import type { MachineImageVersion, NamespacedCloudProfile, PolicedObject } from '../../../src/api/types.js';
import type { DecideInput, NamespacedProfileInput } from '../../helpers/objects.js';
import { cloudProfile, decide, hoursFromNow, image, namespacedProfile } from '../../helpers/objects.js';

const overrides = (d: Decision) => d.violations.filter((x) => x.rule === 'NCP-OVERRIDES');

const parent = cloudProfile({
  kubernetes: [
    '1.31.0',
    '1.30.0',
    {
      version: '1.29.0',
      lifecycle: [{ classification: 'supported' }, { classification: 'deprecated', startTime: hoursFromNow(100) }],
    },
  ],
  images: [
    image(
      'gardenlinux',
      ['1.1.0', '1.0.0', { version: '0.9.0', lifecycle: [{ classification: 'supported' }] }],
      'major',
    ),
  ],
});

const later = hoursFromNow(1000);
const extend = (version: string, extra: Partial<MachineImageVersion> = {}): MachineImageVersion => ({
  version,
  expirationDate: later,
  ...extra,
});
const gl = (versions: MachineImageVersion[], updateStrategy?: string) => ({
  name: 'gardenlinux',
  ...(updateStrategy ? { updateStrategy } : {}),
  versions,
});

const create = (p: NamespacedProfileInput, state: PolicedObject[] = [parent]): DecideInput => ({
  operation: 'CREATE',
  object: namespacedProfile(p),
  state,
});
function update(
  old: NamespacedProfileInput,
  change: (n: NamespacedCloudProfile) => void,
  state: PolicedObject[] = [parent],
): DecideInput {
  const oldObject = namespacedProfile(old);
  const object = structuredClone(oldObject);
  change(object);
  return { operation: 'UPDATE', oldObject, object, state: [...state, oldObject] };
}

interface Row {
  name: string;
  input: DecideInput;
  /** Field paths of the expected violations, in order; each message must contain `words`. */
  fields: string[];
  words?: string[];
}

const rows: Row[] = [
  { name: 'only a parent', input: create({}), fields: [] },
  {
    name: 'a missing parent',
    input: create({ parent: 'idontexist' }, []),
    fields: ['spec.parent.name'],
    words: ['"idontexist"', 'could not be found'],
  },
  {
    name: 'a parent of another kind',
    input: {
      operation: 'CREATE',
      object: withParent(namespacedProfile(), 'NamespacedCloudProfile', 'profile'),
      state: [parent],
    },
    fields: ['spec.parent.kind'],
    words: ['"namespacedcloudprofile"'],
  },
  {
    name: 'an empty parent name',
    input: { operation: 'CREATE', object: withParent(namespacedProfile(), 'CloudProfile', ''), state: [parent] },
    fields: ['spec.parent.name'],
    words: ['must provide a parent name'],
  },
  {
    name: 'a changed parent',
    input: update({}, (n) => (n.spec.parent.name = 'other'), [parent, cloudProfile({ name: 'other' })]),
    fields: ['spec.parent'],
    words: ['immutable', '"profile"', '"other"'],
  },
  // Kubernetes overrides
  {
    name: 'a Kubernetes override with an expirationDate',
    input: create({ kubernetes: [{ version: '1.30.0', expirationDate: later }] }),
    fields: [],
  },
  {
    name: 'a Kubernetes override of a version the parent lacks',
    input: create({ kubernetes: [{ version: '1.28.0', expirationDate: later }] }),
    fields: ['spec.kubernetes.versions[0].version'],
    words: ['\'1.28.0\' does not exist in parent cloudprofile "profile"'],
  },
  {
    name: 'a Kubernetes override without an expirationDate',
    input: create({ kubernetes: ['1.30.0'] }),
    fields: ['spec.kubernetes.versions[0].expirationDate'],
    words: ["'1.30.0' does not set expiration date"],
  },
  {
    name: 'a Kubernetes override with a classification',
    input: create({ kubernetes: [{ version: '1.30.0', expirationDate: later, classification: 'supported' }] }),
    fields: ['spec.kubernetes.versions[0].classification'],
  },
  {
    name: 'a Kubernetes override with a lifecycle',
    input: create({
      kubernetes: [{ version: '1.30.0', expirationDate: later, lifecycle: [{ classification: 'supported' }] }],
    }),
    fields: ['spec.kubernetes.versions[0].lifecycle'],
    words: ['"1.30.0"'],
  },
  {
    name: 'an expirationDate on a parent version that uses a lifecycle',
    input: create({ kubernetes: [{ version: '1.29.0', expirationDate: later }] }),
    fields: ['spec.kubernetes.versions[0].expirationDate'],
    words: ['"1.29.0"', 'lifecycle'],
  },
  // machine-image overrides
  {
    name: 'an image override with an expirationDate and an update strategy',
    input: create({ images: [gl([extend('1.0.0')], 'patch')] }),
    fields: [],
  },
  { name: 'an image of its own', input: create({ images: [image('custom', ['1.0.0'])] }), fields: [] },
  {
    name: 'a version of its own in a parent image',
    input: create({ images: [gl([{ version: '2.0.0', cri: [{ name: 'containerd' }], architectures: ['arm64'] }])] }),
    fields: [],
  },
  {
    name: 'an image override without an expirationDate',
    input: create({ images: [gl([{ version: '1.0.0' }])] }),
    fields: ['spec.machineImages[0].versions[0].expirationDate'],
    words: ['"1.0.0"'],
  },
  ...(
    [
      ['classification', 'deprecated'],
      ['lifecycle', [{ classification: 'supported' }]],
      ['cri', [{ name: 'containerd' }]],
      ['architectures', ['amd64']],
      ['kubeletVersionConstraint', '>= 1.30'],
      ['inPlaceUpdates', { supported: true }],
      ['capabilityFlavors', [{}]],
    ] as const
  ).map(([field, value]): Row => ({
    name: `an image override that sets ${field}`,
    input: create({ images: [gl([extend('1.0.0', { [field]: value })])] }),
    fields: [`spec.machineImages[0].versions[0].${field}`],
    words: ['"gardenlinux@1.0.0"', 'may only set expirationdate'],
  })),
  {
    name: 'an image override of a parent version that uses a lifecycle',
    input: create({ images: [gl([extend('0.9.0')])] }),
    fields: ['spec.machineImages[0].versions[0].expirationDate'],
    words: ['"gardenlinux@0.9.0"', 'lifecycle'],
  },
  {
    name: 'changing the update strategy of an existing image override',
    input: update(
      { images: [gl([extend('1.0.0')], 'major')] },
      (n) => (n.spec.machineImages![0]!.updateStrategy = 'minor'),
    ),
    fields: ['spec.machineImages[0].updateStrategy'],
    words: ['"gardenlinux"'],
  },
  {
    name: 'setting an update strategy on an image override created without one',
    input: update({ images: [gl([extend('1.0.0')])] }, (n) => (n.spec.machineImages![0]!.updateStrategy = 'patch')),
    fields: ['spec.machineImages[0].updateStrategy'],
  },
  {
    name: 'changing the expirationDate of an existing image override',
    input: update(
      { images: [gl([extend('1.0.0')], 'patch')] },
      (n) => (n.spec.machineImages![0]!.versions![0]!.expirationDate = hoursFromNow(2000)),
    ),
    fields: [],
  },
  {
    name: 'an own version the parent has added since is kept as it is',
    input: update(
      { images: [gl([{ version: '1.1.0', cri: [{ name: 'containerd' }], architectures: ['amd64'] }])] },
      (n) => (n.spec.machineImages![0]!.versions![0]!.expirationDate = later),
    ),
    fields: [],
  },
  {
    name: 'an own version the parent has added since cannot change',
    input: update(
      { images: [gl([{ version: '1.1.0', cri: [{ name: 'containerd' }], architectures: ['amd64'] }])] },
      (n) => (n.spec.machineImages![0]!.versions![0]!.architectures = ['arm64']),
    ),
    fields: ['spec.machineImages[0].versions[0]'],
    words: ['"gardenlinux@1.1.0"', 'except for the expiration date'],
  },
  {
    name: 'a new image override on UPDATE is judged like on CREATE',
    input: update({ images: [gl([extend('1.0.0')])] }, (n) =>
      n.spec.machineImages![0]!.versions!.push(extend('1.1.0', { classification: 'supported' })),
    ),
    fields: ['spec.machineImages[0].versions[1].classification'],
  },
];

function withParent(n: NamespacedCloudProfile, kind: string, name: string): NamespacedCloudProfile {
  n.spec.parent = { kind, name };
  return n;
}

/** Every way the NCP-OVERRIDES violations differ from the row's expectation. */
function problems(row: Row): string[] {
  const got = overrides(decide(row.input));
  const out: string[] = [];
  const fields = got.map((x) => x.field);
  if (JSON.stringify(fields) !== JSON.stringify(row.fields))
    out.push(
      `want fields ${row.fields.join(', ') || 'none'}, got ${got.map((x) => `${x.field}: ${x.message}`).join(' | ') || 'none'}`,
    );
  for (const w of row.words ?? [])
    if (!got.some((x) => x.message.toLowerCase().includes(w))) out.push(`no message contains ${w}`);
  return out;
}

t.test('NamespacedCloudProfile overrides', async (t) => {
  for (const row of rows) t.test(row.name, async (t) => t.same(problems(row), []));
});

t.test('the parent is read from the state, so an unsynced state is not ready', async (t) => {
  const d = decide({ ...create({}), synced: false });
  t.same(
    overrides(d).map((x) => x.message),
    [NOT_READY_MESSAGE],
  );
});

t.test('a deleting NCP with an unchanged spec is not checked, even without its parent', async (t) => {
  const old = namespacedProfile({
    parent: 'gone',
    kubernetes: [{ version: '1.30.0', expirationDate: later }],
    deletionTimestamp: hoursFromNow(-1),
  });
  const finalizerRemoved = structuredClone(old);
  finalizerRemoved.metadata.finalizers = [];
  for (const synced of [true, false]) {
    const d = decide({ operation: 'UPDATE', oldObject: old, object: finalizerRemoved, state: [old], synced });
    t.same(overrides(d), [], `synced: ${synced}`);
  }
  const changed = structuredClone(finalizerRemoved);
  changed.spec.kubernetes!.versions[0]!.expirationDate = hoursFromNow(2000);
  t.same(
    overrides(decide({ operation: 'UPDATE', oldObject: old, object: changed, state: [old] })).map((x) => x.field),
    ['spec.parent.name'],
    'a spec change is checked',
  );
});
