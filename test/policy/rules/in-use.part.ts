// IN-USE: removing a used version, deleting a referenced profile. Each row is a request, the
// cluster state it meets, and the IN-USE violations expected (by the words they must contain).
import t from '../../helpers/parts.js';
import { ClusterIndex } from '../../../src/cluster/cluster-index.js';
import type { ClusterState } from '../../../src/api/cluster-state.js';
import { evaluate, NOT_READY_MESSAGE } from '../../../src/policy/evaluate.js';
import type { Decision, Violation } from '../../../src/policy/decision.js';
import type { CloudProfile, NamespacedCloudProfile, PolicedObject, Shoot } from '../../../src/api/types.js';
import type { DecideInput } from '../../helpers/objects.js';
import {
  cloudProfile,
  config,
  decide,
  hoursFromNow,
  image,
  namespacedProfile,
  NOW,
  request,
  shoot,
} from '../../helpers/objects.js';

const inUse = (d: Decision): Violation[] => d.violations.filter((x) => x.rule === 'IN-USE');

// The profile before and after: 1.30.0 and gardenlinux 1.0.0 go away, ubuntu goes away entirely.
const before = cloudProfile({
  kubernetes: ['1.31.0', '1.30.0'],
  images: [image('gardenlinux', ['1.1.0', '1.0.0']), image('ubuntu', ['22.4.0', '20.4.0'])],
});
const after = cloudProfile({ kubernetes: ['1.31.0'], images: [image('gardenlinux', ['1.1.0'])] });
const update = (state: PolicedObject[], extra: Partial<DecideInput> = {}): DecideInput => ({
  operation: 'UPDATE',
  oldObject: before,
  object: after,
  state: [before, ...state],
  ...extra,
});

const ncpRef = (name = 'ncp') => ({ kind: 'NamespacedCloudProfile', name });
const deleting = { deletionTimestamp: hoursFromNow(-1) };

interface Row {
  name: string;
  input: DecideInput;
  /** One string array per expected violation: words its message must contain. */
  want: string[][];
  fields?: string[];
}

const rows: Row[] = [
  {
    name: 'nothing uses the removed versions',
    input: update([shoot({ version: '1.31.0', workers: [{ name: 'w', image: ['gardenlinux', '1.1.0'] }] })]),
    want: [],
  },
  {
    name: 'control plane via spec.cloudProfile',
    input: update([shoot({ name: 'a', version: '1.30.0', workers: [{ name: 'w', image: ['gardenlinux', '1.1.0'] }] })]),
    want: [['unable to delete kubernetes version "1.30.0" from cloudprofile "profile"', "shoot 'garden-dev/a'"]],
    fields: ['spec.kubernetes.versions'],
  },
  {
    name: 'control plane via legacy spec.cloudProfileName',
    input: update([shoot({ name: 'a', cloudProfileName: 'profile', version: '1.30.0', workers: [] })]),
    want: [['"1.30.0"', "shoot 'garden-dev/a'"]],
  },
  {
    name: 'spec.cloudProfile without a kind means CloudProfile',
    input: update([shoot({ name: 'a', profile: { name: 'profile' }, version: '1.30.0', workers: [] })]),
    want: [['"1.30.0"', "shoot 'garden-dev/a'"]],
  },
  {
    name: 'spec.cloudProfile wins over spec.cloudProfileName',
    input: update([withLegacyName(shoot({ name: 'a', profile: 'other', version: '1.30.0', workers: [] }), 'profile')]),
    want: [],
  },
  {
    name: 'a worker pool Kubernetes version counts (Gardener ignores it)',
    input: update([
      shoot({
        name: 'a',
        version: '1.31.0',
        workers: [{ name: 'pool-old', kubernetes: '1.30.0', image: ['gardenlinux', '1.1.0'] }],
      }),
    ]),
    want: [['"1.30.0"', 'shoot \'garden-dev/a\' by worker "pool-old"']],
  },
  {
    name: 'control plane and worker pool of one Shoot make one entry',
    input: update([
      shoot({
        name: 'a',
        version: '1.30.0',
        workers: [
          { name: 'p1', kubernetes: '1.30.0' },
          { name: 'p2', kubernetes: '1.30.0' },
        ],
      }),
    ]),
    want: [['shoot \'garden-dev/a\' by its control plane and workers "p1", "p2"']],
  },
  {
    name: 'a Shoot being deleted does not count',
    input: update([
      shoot({ name: 'a', version: '1.30.0', workers: [{ name: 'w', image: ['gardenlinux', '1.0.0'] }], ...deleting }),
    ]),
    want: [],
  },
  {
    name: 'a Shoot of another CloudProfile does not count',
    input: update([
      shoot({
        name: 'a',
        profile: 'other',
        version: '1.30.0',
        workers: [{ name: 'w', image: ['gardenlinux', '1.0.0'] }],
      }),
    ]),
    want: [],
  },
  {
    name: 'a Shoot on a child NamespacedCloudProfile counts',
    input: update([namespacedProfile(), shoot({ name: 'a', profile: ncpRef(), version: '1.30.0', workers: [] })]),
    want: [["shoot 'garden-dev/a' (via namespacedcloudprofile 'garden-dev/ncp')"]],
  },
  {
    name: 'a Shoot on a same-named NamespacedCloudProfile in another namespace does not',
    input: update([
      namespacedProfile(),
      namespacedProfile({ namespace: 'garden-other', parent: 'other' }),
      shoot({ name: 'a', namespace: 'garden-other', profile: ncpRef(), version: '1.30.0', workers: [] }),
    ]),
    want: [],
  },
  {
    name: 'a Shoot referencing a missing NamespacedCloudProfile does not count',
    input: update([shoot({ name: 'a', namespace: 'garden-other', profile: ncpRef(), version: '1.30.0', workers: [] })]),
    want: [],
  },
  {
    name: 'a child NamespacedCloudProfile being deleted, and its Shoots, do not count',
    input: update([
      namespacedProfile({ kubernetes: [{ version: '1.30.0', expirationDate: hoursFromNow(100) }], ...deleting }),
      shoot({ name: 'a', profile: ncpRef(), version: '1.30.0', workers: [] }),
    ]),
    want: [],
  },
  {
    name: 'a child NamespacedCloudProfile still extending the version',
    input: update([namespacedProfile({ kubernetes: [{ version: '1.30.0', expirationDate: hoursFromNow(100) }] })]),
    want: [['"1.30.0"', "namespacedcloudprofile 'garden-dev/ncp'"]],
  },
  {
    name: 'several child NamespacedCloudProfiles are named in one violation, in order',
    input: update([
      namespacedProfile({
        namespace: 'team-b',
        kubernetes: [{ version: '1.30.0', expirationDate: hoursFromNow(100) }],
      }),
      namespacedProfile({
        namespace: 'team-a',
        kubernetes: [{ version: '1.30.0', expirationDate: hoursFromNow(100) }],
      }),
    ]),
    want: [["namespacedcloudprofile 'team-a/ncp', namespacedcloudprofile 'team-b/ncp'"]],
  },
  {
    name: 'a removed machine-image version used by a worker',
    input: update([shoot({ name: 'a', workers: [{ name: 'w1', image: ['gardenlinux', '1.0.0'] }] })]),
    want: [
      [
        'unable to delete machine image version \'gardenlinux/1.0.0\' from cloudprofile "profile"',
        'shoot \'garden-dev/a\' by worker "w1"',
      ],
    ],
    fields: ['spec.machineImages[0].versions'],
  },
  {
    name: 'a removed image: one violation per used version',
    input: update([
      shoot({ name: 'a', workers: [{ name: 'w1', image: ['ubuntu', '22.4.0'] }] }),
      shoot({ name: 'b', workers: [{ name: 'w2', image: ['ubuntu', '20.4.0'] }] }),
    ]),
    want: [
      ["'ubuntu/22.4.0'", "shoot 'garden-dev/a'"],
      ["'ubuntu/20.4.0'", "shoot 'garden-dev/b'"],
    ],
    fields: ['spec.machineImages'],
  },
  {
    name: 'a worker on an image version the old profile never had is ignored',
    input: update([shoot({ name: 'a', workers: [{ name: 'w1', image: ['ubuntu', '18.4.0'] }] })]),
    want: [],
  },
  {
    name: 'a removed image a child NamespacedCloudProfile lists',
    input: update([namespacedProfile({ images: [image('ubuntu', ['24.4.0'])] })]),
    want: [['unable to delete machineimage "ubuntu"', "namespacedcloudprofile 'garden-dev/ncp'"]],
  },
  {
    name: 'a removed image version a child NamespacedCloudProfile extends',
    input: update([
      namespacedProfile({
        images: [{ name: 'gardenlinux', versions: [{ version: '1.0.0', expirationDate: hoursFromNow(100) }] }],
      }),
    ]),
    want: [["machineimage version 'gardenlinux/1.0.0'", "namespacedcloudprofile 'garden-dev/ncp'"]],
  },
  {
    name: 'adding an image a child NamespacedCloudProfile already defines',
    input: {
      operation: 'UPDATE',
      oldObject: after,
      object: cloudProfile({
        kubernetes: ['1.31.0'],
        images: [image('gardenlinux', ['1.1.0']), image('suse', ['15.0.0'])],
      }),
      state: [after, namespacedProfile({ namespace: 'project-1', name: 'mine', images: [image('suse', ['15.1.0'])] })],
    },
    want: [['unable to add machineimage "suse" to cloudprofile "profile"', "namespacedcloudprofile 'project-1/mine'"]],
    fields: ['spec.machineImages[1]'],
  },
  {
    name: 'a profile already being deleted is not checked',
    input: {
      operation: 'UPDATE',
      oldObject: cloudProfile({ ...profileInput(before), ...deleting }),
      object: cloudProfile({ ...profileInput(after), ...deleting }),
      state: [shoot({ version: '1.30.0' })],
      synced: false,
    },
    want: [],
  },
];

function withLegacyName(s: Shoot, name: string): Shoot {
  s.spec.cloudProfileName = name;
  return s;
}

function profileInput(p: CloudProfile) {
  return { kubernetes: p.spec.kubernetes.versions, images: p.spec.machineImages };
}

/** Every way the IN-USE violations differ from the row's expectation; empty when they match. */
function problems(row: Row): string[] {
  const got = inUse(decide(row.input));
  const out: string[] = [];
  if (got.length !== row.want.length)
    out.push(`want ${row.want.length} violation(s), got ${got.length}: ${got.map((x) => x.message).join(' | ')}`);
  row.want.forEach((words, i) => {
    const message = got[i]?.message.toLowerCase() ?? '';
    for (const w of words) if (!message.includes(w)) out.push(`violation ${i} lacks ${w}: ${message}`);
  });
  for (const f of row.fields ?? []) if (!got.some((x) => x.field === f)) out.push(`no violation at ${f}`);
  // Removing or deleting what is in use is never a malformed field: Forbidden, as in Gardener.
  for (const x of got) if (x.type !== 'Forbidden') out.push(`violation ${x.field} is ${x.type}, not Forbidden`);
  return out;
}

t.test('CloudProfile UPDATE', async (t) => {
  for (const row of rows) t.test(row.name, async (t) => t.same(problems(row), []));
});

// --- NamespacedCloudProfile UPDATE ------------------------------------------------------

const parent = cloudProfile({
  kubernetes: [
    '1.31.0',
    { version: '1.30.0', classification: 'deprecated', expirationDate: hoursFromNow(-24) },
    '1.29.0',
  ],
  images: [image('gardenlinux', ['1.1.0', { version: '1.0.0', expirationDate: hoursFromNow(-24) }, '0.9.0'])],
});
const extended = namespacedProfile({
  kubernetes: [
    { version: '1.30.0', expirationDate: hoursFromNow(500) },
    { version: '1.29.0', expirationDate: hoursFromNow(500) },
  ],
  images: [
    {
      name: 'gardenlinux',
      versions: [
        { version: '1.0.0', expirationDate: hoursFromNow(500) },
        { version: '0.9.0', expirationDate: hoursFromNow(500) },
        imageOnly('0.5.0'),
      ],
    },
  ],
});

function imageOnly(version: string) {
  return { version, cri: [{ name: 'containerd' }], architectures: ['amd64'] };
}

function ncpUpdate(change: (n: NamespacedCloudProfile) => void, state: PolicedObject[], old = extended): DecideInput {
  const object = structuredClone(old);
  change(object);
  return { operation: 'UPDATE', oldObject: old, object, state: [parent, old, ...state] };
}

const dropK8s = (version: string) => (n: NamespacedCloudProfile) => {
  n.spec.kubernetes!.versions = n.spec.kubernetes!.versions.filter((x) => x.version !== version);
};
const dropImage = (version: string) => (n: NamespacedCloudProfile) => {
  n.spec.machineImages![0]!.versions = n.spec.machineImages![0]!.versions!.filter((x) => x.version !== version);
};
const onNcp = (s: Parameters<typeof shoot>[0] = {}) =>
  shoot({
    name: 'a',
    profile: ncpRef(),
    version: '1.31.0',
    workers: [{ name: 'w', image: ['gardenlinux', '1.1.0'] }],
    ...s,
  });

const ncpRows: Row[] = [
  {
    name: 'removing an override of an expired parent version a Shoot uses',
    input: ncpUpdate(dropK8s('1.30.0'), [onNcp({ version: '1.30.0' })]),
    want: [
      [
        'unable to delete kubernetes version "1.30.0" from namespacedcloudprofile \'garden-dev/ncp\'',
        "shoot 'garden-dev/a'",
        'expired since',
      ],
    ],
  },
  {
    name: 'removing the whole kubernetes section counts the same',
    input: ncpUpdate((n) => delete n.spec.kubernetes, [onNcp({ version: '1.30.0' })]),
    want: [['"1.30.0"']],
  },
  {
    name: 'the parent version is still valid',
    input: ncpUpdate(dropK8s('1.29.0'), [onNcp({ version: '1.29.0' })]),
    want: [],
  },
  {
    name: 'a worker pool on the version counts',
    input: ncpUpdate(dropK8s('1.30.0'), [onNcp({ workers: [{ name: 'pool-old', kubernetes: '1.30.0' }] })]),
    want: [['"1.30.0"', 'shoot \'garden-dev/a\' by worker "pool-old"']],
  },
  {
    name: 'a Shoot being deleted does not count',
    input: ncpUpdate(dropK8s('1.30.0'), [onNcp({ version: '1.30.0', ...deleting })]),
    want: [],
  },
  {
    name: 'a Shoot on a same-named NamespacedCloudProfile in another namespace does not count',
    input: ncpUpdate(dropK8s('1.30.0'), [onNcp({ namespace: 'garden-other', version: '1.30.0' })]),
    want: [],
  },
  {
    name: 'a Shoot on the parent directly does not count',
    input: ncpUpdate(dropK8s('1.30.0'), [shoot({ name: 'a', version: '1.30.0' })]),
    want: [],
  },
  {
    name: 'extending a used override further is fine',
    input: ncpUpdate(
      (n) => (n.spec.kubernetes!.versions[0]!.expirationDate = hoursFromNow(900)),
      [onNcp({ version: '1.30.0' })],
    ),
    want: [],
  },
  {
    name: 'removing an image override of an expired parent version a worker uses',
    input: ncpUpdate(dropImage('1.0.0'), [onNcp({ workers: [{ name: 'w1', image: ['gardenlinux', '1.0.0'] }] })]),
    want: [
      [
        "unable to delete machine image version 'gardenlinux/1.0.0' from namespacedcloudprofile 'garden-dev/ncp'",
        'by worker "w1"',
        'has it expired',
      ],
    ],
  },
  {
    name: 'removing an image override of a valid parent version',
    input: ncpUpdate(dropImage('0.9.0'), [onNcp({ workers: [{ name: 'w1', image: ['gardenlinux', '0.9.0'] }] })]),
    want: [],
  },
  {
    name: 'removing an own image version a worker uses (absent from the parent)',
    input: ncpUpdate(dropImage('0.5.0'), [onNcp({ workers: [{ name: 'custom', image: ['gardenlinux', '0.5.0'] }] })]),
    want: [["'gardenlinux/0.5.0'", 'by worker "custom"', 'does not offer it']],
  },
  { name: 'removing an own image version nobody uses', input: ncpUpdate(dropImage('0.5.0'), [onNcp()]), want: [] },
  {
    name: 'a NamespacedCloudProfile being deleted is not checked',
    input: ncpUpdate(
      dropK8s('1.30.0'),
      [onNcp({ version: '1.30.0' })],
      namespacedProfile({ ...ncpInput(extended), ...deleting }),
    ),
    want: [],
  },
];

function ncpInput(n: NamespacedCloudProfile) {
  return { kubernetes: n.spec.kubernetes!.versions, images: n.spec.machineImages! };
}

t.test('NamespacedCloudProfile UPDATE', async (t) => {
  for (const row of ncpRows) t.test(row.name, async (t) => t.same(problems(row), []));
});

// --- DELETE -------------------------------------------------------------------------------

const deleteRows: Row[] = [
  {
    name: 'a CloudProfile used by a Shoot and a child NamespacedCloudProfile',
    input: {
      operation: 'DELETE',
      oldObject: after,
      state: [
        after,
        shoot({ name: 'b' }),
        shoot({ name: 'a', cloudProfileName: 'profile' }),
        namespacedProfile({ namespace: 'project-1' }),
      ],
    },
    want: [
      ['cannot delete cloudprofile "profile"', "shoots are still referencing it: 'garden-dev/a', 'garden-dev/b'"],
      ['cannot delete cloudprofile "profile"', "namespacedcloudprofiles are still referencing it: 'project-1/ncp'"],
    ],
  },
  {
    name: 'a CloudProfile whose referrers are all being deleted',
    input: {
      operation: 'DELETE',
      oldObject: after,
      state: [after, shoot(deleting), namespacedProfile(deleting), shoot({ name: 'via-ncp', profile: ncpRef() })],
    },
    want: [],
  },
  {
    name: 'an unused CloudProfile',
    input: { operation: 'DELETE', oldObject: after, state: [after, shoot({ profile: 'other' })] },
    want: [],
  },
  {
    name: 'a NamespacedCloudProfile used by a Shoot of its namespace',
    input: {
      operation: 'DELETE',
      oldObject: extended,
      state: [parent, extended, onNcp(), onNcp({ namespace: 'garden-other', name: 'x' })],
    },
    want: [["cannot delete namespacedcloudprofile 'garden-dev/ncp'", "'garden-dev/a'"]],
  },
  {
    name: 'a NamespacedCloudProfile whose Shoot is being deleted',
    input: { operation: 'DELETE', oldObject: extended, state: [parent, extended, onNcp(deleting)] },
    want: [],
  },
];

t.test('DELETE', async (t) => {
  for (const row of deleteRows) t.test(row.name, async (t) => t.same(problems(row), []));
});

// --- cluster state not synced -------------------------------------------------------------

t.test('an unsynced state denies what needs it and judges the rest normally', async (t) => {
  const notReady = (input: DecideInput) => inUse(decide({ ...input, synced: false })).map((x) => x.message);
  t.same(notReady(update([])), [NOT_READY_MESSAGE], 'an update that removes versions');
  t.same(notReady({ operation: 'DELETE', oldObject: after, state: [after] }), [NOT_READY_MESSAGE], 'a DELETE');
  t.same(
    notReady({
      operation: 'UPDATE',
      oldObject: after,
      object: cloudProfile({ kubernetes: ['1.32.0', '1.31.0'], images: after.spec.machineImages }),
      state: [after],
    }),
    [],
    'an update that only adds a version',
  );
  t.same(notReady({ operation: 'CREATE', object: after }), [], 'a CREATE');
  t.same(notReady(ncpUpdate(dropK8s('1.30.0'), [])), [NOT_READY_MESSAGE], 'an NCP update that removes an override');
  t.ok(
    decide({ operation: 'UPDATE', oldObject: after, object: after, state: [after], synced: false }).allowed,
    'a re-apply is allowed',
  );
});

// --- many users ---------------------------------------------------------------------------

/** The state's lookups a review made, by method: the work counted, not timed (timing is bench/'s). */
function countingState(objects: PolicedObject[]): { state: ClusterState; calls: Record<string, number> } {
  const index = new ClusterIndex(true);
  for (const o of objects) index.upsert(o);
  const calls: Record<string, number> = {};
  const counted = (name: keyof ClusterState) => ({
    value: (...args: unknown[]) => {
      calls[name] = (calls[name] ?? 0) + 1;
      return (index[name] as (...a: unknown[]) => unknown).apply(index, args);
    },
  });
  const methods = [
    'shootsUsing',
    'kubernetesVersionUsers',
    'machineImageVersionUsers',
    'machineImageUsers',
    'allShoots',
    'allProfiles',
  ] as const;
  return {
    state: Object.create(index, Object.fromEntries(methods.map((m) => [m, counted(m)]))) as ClusterState,
    calls,
  };
}

t.test(
  'one violation per version names 10 Shoots in order and counts the rest, with one lookup per removed version',
  async (t) => {
    const shoots = Array.from({ length: 5000 }, (_, i) =>
      shoot({ name: `s-${String(4999 - i).padStart(4, '0')}`, version: '1.30.0', workers: [] }),
    );
    const { state, calls } = countingState([before, ...shoots]);
    const got = inUse(
      evaluate(request({ operation: 'UPDATE', oldObject: before, object: after }), {
        now: NOW,
        config: config(),
        state,
      }),
    );
    // 1.30.0, gardenlinux 1.0.0 and the whole ubuntu image: a lookup each, whatever the number of
    // users; shootsUsing is the forecast warning's one question whether the profile has Shoots.
    t.same(calls, { kubernetesVersionUsers: 1, machineImageVersionUsers: 1, machineImageUsers: 1, shootsUsing: 1 });
    t.notOk(calls.allShoots ?? calls.allProfiles, 'no Shoot read but through the indexes');
    t.equal(got.length, 1);
    const message = got[0]!.message;
    t.match(
      message,
      /shoot 'garden-dev\/s-0000', shoot 'garden-dev\/s-0001',.* shoot 'garden-dev\/s-0009' and 4,990 more \(5,000 in total\)/,
    );
    t.notMatch(message, /s-0010/, 'only ten are named');
  },
);

t.test('the check reads the indexes, never every Shoot', async (t) => {
  const index = new ClusterIndex(true);
  for (const o of [
    before,
    namespacedProfile(),
    shoot({ name: 'a', version: '1.30.0' }),
    shoot({ name: 'b', profile: ncpRef(), version: '1.30.0' }),
  ])
    index.upsert(o);
  const guarded: ClusterState = Object.create(index, {
    allShoots: { value: () => t.fail('allShoots() called') },
    allProfiles: { value: () => t.fail('allProfiles() called') },
  }) as ClusterState;
  const d = evaluate(request({ operation: 'UPDATE', oldObject: before, object: after }), {
    now: NOW,
    config: config(),
    state: guarded,
  });
  t.equal(inUse(d).length, 1);
  t.match(inUse(d)[0]!.message, /garden-dev\/a.*garden-dev\/b/);
});
