// The reader's error messages are the CLI's: they must name the file and the line of the problem.
import t from '../helpers/parts.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIMITS } from '../../src/api/limits.js';
import type { CloudProfile } from '../../src/api/types.js';
import { InputError, parseObjects } from '../../src/cluster/object-files.js';
import { loadStaticState } from '../../src/cluster/static-state.js';

const profile = (name: string, version = '"1.30.0"') => `apiVersion: core.gardener.cloud/v1beta1
kind: CloudProfile
metadata:
  name: ${name}
spec:
  kubernetes:
    versions:
      - version: "1.31.0"
      - version: ${version}
  machineImages:
    - name: gardenlinux
      versions: [{version: 1592.1.0}]
`;

const shootDoc = `apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata: {name: web}
spec: {cloudProfileName: aws, kubernetes: {version: 1.31.0}}
`;

/** The InputError message parsing `text` gives; any other outcome fails the match. */
function inputErrorOf(text: string): string {
  try {
    parseObjects(text, 'p.yaml');
  } catch (err) {
    if (err instanceof InputError) return err.message;
    throw err;
  }
  return '(parsed without error)';
}

t.test('reads multi-document streams, mixed kinds and Lists, each with its own line', async (t) => {
  const text = `# leading comment\n${shootDoc}---\napiVersion: v1\nkind: List\nitems:\n${profile('aws')
    .split('\n')
    .map((l, i) => (l === '' ? l : i === 0 ? `- ${l}` : `  ${l}`))
    .join('\n')}`;
  const got = parseObjects(text, 'mixed.yaml');
  t.same(
    got.map((s) => [s.object.kind, s.object.metadata.name, s.line]),
    [
      ['Shoot', 'web', 2],
      ['CloudProfile', 'aws', 10],
    ],
  );
  t.equal(got[0]?.object.metadata.namespace, 'default', 'a namespaced object without a namespace lands in "default"');
});

t.test('errors name the file and the line of the offending field', async (t) => {
  const cases: Array<[string, string, RegExp]> = [
    [
      'a number for a version',
      profile('aws', '1.30'),
      /^p\.yaml:9: invalid CloudProfile "aws": spec\.kubernetes\.versions\[1\]\.version: must be string, found 1\.30 \(quote it: "1\.30"\)$/,
    ],
    [
      'versions not a list',
      profile('aws').replace(/versions:\n(\s+- .*\n)+/, 'versions: "1.30.0"\n'),
      /^p\.yaml:7: invalid CloudProfile "aws": spec\.kubernetes\.versions: must be array$/,
    ],
    [
      'the wrong apiVersion',
      profile('aws').replace('v1beta1', 'v1'),
      /^p\.yaml:1: invalid CloudProfile "aws": apiVersion: must be "core\.gardener\.cloud\/v1beta1"$/,
    ],
    [
      'the wrong kind',
      profile('aws').replace('CloudProfile', 'CloudProfil'),
      /^p\.yaml:2: unknown kind "CloudProfil" in core\.gardener\.cloud \(did you mean "CloudProfile"\?\)/,
    ],
    [
      'no spec',
      profile('aws').replace(/spec:[\s\S]*/, ''),
      /^p\.yaml:1: invalid CloudProfile "aws": spec: required field is missing$/,
    ],
    [
      'broken YAML in the second document',
      `${shootDoc}---\nkind: [Shoot\nmetadata: x\n`,
      /^p\.yaml:7: not valid YAML: /,
    ],
    ['a scalar document', 'hello world\n', /^p\.yaml:1: expected a Kubernetes object, found string$/],
    ['a List without items', 'apiVersion: v1\nkind: List\n', /^p\.yaml:1: a List needs an `items` list$/],
    ['duplicate keys', `${shootDoc}kind: Shoot\n`, /^p\.yaml:5: not valid YAML: Map keys must be unique/],
    ['only comments', '# nothing\n---\n', /^p\.yaml: contains no CloudProfile, NamespacedCloudProfile or Shoot$/],
  ];
  for (const [what, text, want] of cases) t.match(inputErrorOf(text), want, what);
});

t.test('an alias bomb is refused, not expanded', async (t) => {
  const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i < 10; i++)
    levels.push(
      `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
        .fill(`*${String.fromCharCode(96 + i)}`)
        .join(',')}]`,
    );
  t.throws(() => parseObjects(`${levels.join('\n')}\n`, 'bomb.yaml'), {
    name: 'InputError',
    message: /^bomb\.yaml:1: not valid YAML: .*alias/i,
  });
});

t.test(
  'stored objects (a --state file) are read past the limits, as the informers read them; a request is not',
  async (t) => {
    const versions = Array.from({ length: LIMITS.versionsPerList + 1 }, (_, i) => `      - version: "1.${i}.0"`).join(
      '\n',
    );
    const big = `apiVersion: core.gardener.cloud/v1beta1
kind: CloudProfile
metadata: {name: big}
spec:
  kubernetes:
    versions:
${versions}
  machineImages: []
`;
    const [stored] = parseObjects(big, 'state.yaml', { stored: true });
    t.equal((stored!.object as CloudProfile).spec.kubernetes.versions.length, LIMITS.versionsPerList + 1);
    t.match(inputErrorOf(big), /more than the limit of 1,000 per list/, 'a file of objects to judge is held to them');
    const dir = await mkdtemp(join(tmpdir(), 'vp-state-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'state.yaml'), big);
    const state = await loadStaticState([join(dir, 'state.yaml')]);
    t.equal(
      state.cloudProfile('big')?.spec.kubernetes.versions.length,
      LIMITS.versionsPerList + 1,
      'serve --state loads it',
    );
  },
);
