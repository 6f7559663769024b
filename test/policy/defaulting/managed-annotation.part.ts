import t from '../../helpers/parts.js';
import {
  MANAGED_VERSIONS_ANNOTATION,
  managedVersions,
  readManagedVersions,
  writeManagedVersions,
} from '../../../src/policy/defaulting/managed-annotation.js';
import { cloudProfile } from '../../helpers/objects.js';

const annotated = (value: string | undefined) =>
  cloudProfile(value === undefined ? {} : { annotations: { [MANAGED_VERSIONS_ANNOTATION]: value } });

t.test('reading the annotation', async (t) => {
  const rows: {
    value: string | undefined;
    kubernetes: string[];
    images: Record<string, string[]>;
    problem?: string;
  }[] = [
    { value: undefined, kubernetes: [], images: {} },
    {
      value: '{"kubernetes":["1.30.2"],"machineImages":{"gardenlinux":["1592.1.0"]}}',
      kubernetes: ['1.30.2'],
      images: { gardenlinux: ['1592.1.0'] },
    },
    { value: '{"kubernetes":["1.31.0","1.30.2"]}', kubernetes: ['1.31.0', '1.30.2'], images: {} },
    { value: '{}', kubernetes: [], images: {} },
    { value: 'not json', kubernetes: [], images: {}, problem: 'not JSON' },
    { value: '["1.30.2"]', kubernetes: [], images: {}, problem: 'not a JSON object' },
    { value: '{"kubernetes":"1.30.2"}', kubernetes: [], images: {}, problem: 'kubernetes is not a list of versions' },
    {
      value: '{"machineImages":["gardenlinux"]}',
      kubernetes: [],
      images: {},
      problem: 'machineImages is not an object',
    },
    {
      value: '{"machineImages":{"gardenlinux":[1592]}}',
      kubernetes: [],
      images: {},
      problem: 'machineImages.gardenlinux is not a list of versions',
    },
  ];
  for (const row of rows) {
    const read = readManagedVersions(annotated(row.value));
    t.strictSame([...read.managed.kubernetes], row.kubernetes, `${row.value}: kubernetes`);
    t.strictSame(
      Object.fromEntries([...read.managed.machineImages].map(([n, s]) => [n, [...s]])),
      row.images,
      `${row.value}: images`,
    );
    if (row.problem) t.match(read.problem, `is not valid (${row.problem})`, `${row.value}: says why`);
    else t.equal(read.problem, undefined, `${row.value}: no problem`);
    t.strictSame(managedVersions(annotated(row.value)), read.managed, `${row.value}: managedVersions() agrees`);
  }
});

t.test(
  'writing the annotation: sorted by semver, empty images left out, removed when nothing is managed',
  async (t) => {
    const profile = cloudProfile({ annotations: { other: 'kept' } });
    writeManagedVersions(profile, {
      kubernetes: new Set(['1.31.0', '1.9.1', '1.10.0']),
      machineImages: new Map([
        ['suse', new Set<string>()],
        ['gardenlinux', new Set(['1592.10.0', '1592.2.0'])],
      ]),
    });
    t.strictSame(profile.metadata.annotations, {
      other: 'kept',
      [MANAGED_VERSIONS_ANNOTATION]:
        '{"kubernetes":["1.9.1","1.10.0","1.31.0"],"machineImages":{"gardenlinux":["1592.2.0","1592.10.0"]}}',
    });

    writeManagedVersions(profile, { kubernetes: new Set(), machineImages: new Map() });
    t.strictSame(profile.metadata.annotations, { other: 'kept' });

    const bare = cloudProfile({ annotations: { [MANAGED_VERSIONS_ANNOTATION]: '{}' } });
    writeManagedVersions(bare, { kubernetes: new Set(), machineImages: new Map() });
    t.equal(bare.metadata.annotations, undefined, 'no empty annotations map is left behind');

    const untouched = cloudProfile();
    writeManagedVersions(untouched, { kubernetes: new Set(), machineImages: new Map() });
    t.strictSame(untouched, cloudProfile(), 'nothing to record, nothing written');
  },
);
