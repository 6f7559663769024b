// The schema check at the edge: timestamps must be RFC 3339 date-times, whether or not the same
// string has been checked before (the check remembers its answers); NamespacedCloudProfile image
// entries may leave out their versions, CloudProfile ones may not.
import t from '../helpers/parts.js';
import { staticState } from '../../src/cluster/static-state.js';
import { mergedProfileOf } from '../../src/policy/evaluate.js';
import { parsePolicedObject } from '../../src/api/parse.js';
import type { CloudProfile } from '../../src/api/types.js';
import { cloudProfile, decide, image, namespacedProfile } from '../helpers/objects.js';

const withExpiry = (expirationDate: string) =>
  cloudProfile({ kubernetes: ['1.31.0', { version: '1.30.0', classification: 'deprecated', expirationDate }] });

// The reasons are Go's own (time.Parse, as metav1.Time decodes), as test/e2e/semver proves.
t.test('an expirationDate must be a timestamp Gardener decodes, the first time and every time after', async (t) => {
  const refused: Array<[string, string]> = [
    ['2026-02-30T00:00:00Z', 'parsing time "2026-02-30T00:00:00Z": day out of range'],
    ['2024-06-31T00:00:00Z', 'parsing time "2024-06-31T00:00:00Z": day out of range'],
    ['2026-03-01', 'parsing time "2026-03-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"'],
    ['2026-03-01T25:00:00Z', 'parsing time "2026-03-01T25:00:00Z": hour out of range'],
    ['2026-12-31T23:59:60Z', 'parsing time "2026-12-31T23:59:60Z": second out of range'],
    ['tomorrow', 'parsing time "tomorrow" as "2006-01-02T15:04:05Z07:00": cannot parse "tomorrow" as "2006"'],
    // RFC 3339 allows these; Go does not.
    ['2026-03-01t00:00:00Z', 'cannot parse "t00:00:00Z" as "T"'],
    ['2026-03-01T00:00:00z', 'cannot parse "z" as "Z07:00"'],
    ['2026-03-01 00:00:00Z', 'cannot parse " 00:00:00Z" as "T"'],
    ['2026-03-01T00:00:00+0100', 'cannot parse "+0100" as "Z07:00"'],
  ];
  // And Go allows these, which RFC 3339 does not.
  const accepted = [
    '2026-03-01T00:00:00Z',
    '2026-03-01T1:00:00Z',
    '2026-03-01T00:00:00,5Z',
    '2026-03-01T00:00:00+24:00',
  ];
  for (let round = 0; round < 2; round++) {
    for (const good of accepted)
      t.ok(parsePolicedObject('CloudProfile', withExpiry(good)).ok, `${good} (round ${round + 1})`);
    for (const [bad, reason] of refused) {
      const result = parsePolicedObject('CloudProfile', withExpiry(bad));
      t.match(
        result,
        {
          ok: false,
          errors: [{ field: 'spec.kubernetes.versions[1].expirationDate', message: 'as Gardener decodes it: ' }],
        },
        `${bad} (round ${round + 1})`,
      );
      t.ok(!result.ok && result.errors[0]!.message.endsWith(reason), `${bad}: ${reason}`);
    }
  }
});

t.test('a NamespacedCloudProfile image entry may leave out its versions (an updateStrategy override)', async (t) => {
  const parent = cloudProfile({ images: [image('gardenlinux', ['1592.1.0', '1592.2.0'])] });
  const ncp = namespacedProfile({ images: [{ name: 'gardenlinux', updateStrategy: 'patch' }] });
  t.same(parsePolicedObject('NamespacedCloudProfile', ncp), { ok: true, object: ncp }, 'the schema takes it');
  const d = decide({ operation: 'CREATE', object: ncp, state: [parent] });
  t.same(d.violations, [], 'and so does every rule');
  const merged = mergedProfileOf(ncp, staticState([parent]))!.merged;
  t.same(
    merged.machineImages[0],
    { ...parent.spec.machineImages[0], updateStrategy: 'patch' },
    "the merged image keeps the parent's versions with the NCP's strategy",
  );

  const own = namespacedProfile({ images: [{ name: 'custom', updateStrategy: 'major' }] });
  t.ok(parsePolicedObject('NamespacedCloudProfile', own).ok);
  t.same(
    decide({ operation: 'CREATE', object: own, state: [parent] }).violations.map((v) => `${v.rule} ${v.field}`),
    ['MACHINE-IMAGES spec.machineImages[0].versions'],
    'an image of its own still needs versions: MACHINE-IMAGES says so (once; the merged profile repeats nothing new)',
  );
});

t.test('a CloudProfile image still needs versions', async (t) => {
  const profile = cloudProfile({ images: [image('gardenlinux', ['1592.1.0'])] });
  const missing = structuredClone(profile) as unknown as { spec: { machineImages: Array<Record<string, unknown>> } };
  delete missing.spec.machineImages[0]!.versions;
  t.same(parsePolicedObject('CloudProfile', missing), {
    ok: false,
    errors: [{ field: 'spec.machineImages[0].versions', message: 'required field is missing' }],
  });
  const empty = cloudProfile({ images: [{ name: 'gardenlinux', updateStrategy: 'major', versions: [] }] });
  t.ok(parsePolicedObject('CloudProfile', empty).ok, 'an empty list is well-formed');
  t.same(
    decide({ operation: 'CREATE', object: empty }).violations.map((v) => `${v.rule} ${v.field}: ${v.message}`),
    [
      "MACHINE-IMAGES spec.machineImages[0].versions: must provide at least one version for the machine image 'gardenlinux'",
    ],
  );
});

t.test('the bastion fields BASTION-IMAGE reads are typed', async (t) => {
  const profile = () => cloudProfile() as CloudProfile & { spec: Record<string, unknown> };
  const good = profile();
  good.spec.bastion = { machineImage: { name: 'gardenlinux', version: '1592.1.0' }, machineType: { name: 'm5.large' } };
  good.spec.machineTypes = [{ name: 'm5.large', architecture: 'amd64', cpu: '2' }];
  t.ok(parsePolicedObject('CloudProfile', good).ok);
  // As it may arrive: wrongly typed, so not a CloudProfile yet.
  const bad = profile() as unknown as { spec: Record<string, unknown> };
  bad.spec.bastion = { machineImage: { version: 1 }, machineType: {} };
  bad.spec.machineTypes = [{ name: 'm5.large', architecture: 64 }];
  const result = parsePolicedObject('CloudProfile', bad);
  t.same(result.ok ? [] : result.errors.map((e) => e.field).sort(), [
    'spec.bastion.machineImage.name',
    'spec.bastion.machineImage.version',
    'spec.bastion.machineType.name',
    'spec.machineTypes[0].architecture',
  ]);
});
