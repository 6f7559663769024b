// `check` judges what the cluster would store: the mutating path first, then the rules on its
// result, and it lists the defaults it applied. --no-mutate judges the object as written (issue 12).
import jsonpatch from 'fast-json-patch';
import t, { type Test } from '../helpers/parts.js';
import type { PolicedObject } from '../../src/api/types.js';
import { cloudProfile, shoot } from '../helpers/objects.js';
import { tempDir, writeFiles, yamlDocs } from '../helpers/run-cli.js';
import { parseReport, rulesOf, runCheckCli } from './check-run.js';

const NOW = '2026-09-01T00:00:00Z';
// As a user writes it: no updateStrategy, no cri, no architectures. Gardener defaults them.
const bare = cloudProfile({
  name: 'aws',
  kubernetes: ['1.30.0', '1.31.0'],
  images: [{ name: 'gardenlinux', versions: [{ version: '1592.1.0' }] }],
});

const CONFIGS = {
  'plain.yaml': 'defaulting: {lifecycle: {enabled: false}}\n',
  'lifecycle.yaml': 'defaulting: {lifecycle: {enabled: true}}\n',
};

async function check(t: Test, args: string[]) {
  const dir = await tempDir(t);
  await writeFiles(dir, { ...CONFIGS, 'apply.yaml': yamlDocs(bare) });
  return runCheckCli(['check', '--now', NOW, ...args, 'apply.yaml'], { cwd: dir });
}

/** The input with the reported defaults applied as the JSON Patch they claim to be. */
const patched = (defaulted: ReadonlyArray<{ op: string; path: string; value?: unknown }>) =>
  jsonpatch.applyPatch(
    structuredClone(bare),
    defaulted.map(({ op, path, value }) => ({ op, path, value })) as jsonpatch.Operation[],
    true,
    false,
  ).newDocument as PolicedObject;

t.test('the mutating path runs first; its defaults are listed, and they are exactly what changed', async (t) => {
  const [json, text, lifecycle] = await Promise.all([
    check(t, ['--config', 'plain.yaml', '--output', 'json']),
    check(t, ['--config', 'plain.yaml']),
    check(t, ['--config', 'lifecycle.yaml', '--output', 'json']),
  ]);
  t.equal(json.code, 0, json.stderr);
  const [result] = parseReport(json).results;
  const fields = result?.defaulted.map((d) => d.field) ?? [];
  t.same(
    fields,
    [
      'spec.machineImages[0].updateStrategy',
      'spec.machineImages[0].versions[0].architectures',
      'spec.machineImages[0].versions[0].cri',
    ],
    "Gardener's defaults, in field order",
  );
  t.match(result?.defaulted[0], { op: 'add', path: '/spec/machineImages/0/updateStrategy', value: 'major' });
  t.same(patched(result?.defaulted ?? []), result?.object, 'applied to the input, the defaults give the stored object');
  t.notSame(result?.object, bare);

  t.match(
    text.stdout,
    /\n {2}defaulted: spec\.machineImages\[0\]\.updateStrategy: major\n {2}defaulted: spec\.machineImages\[0\]\.versions\[0\]\.architectures: \["amd64"\]\n/,
  );

  t.equal(lifecycle.code, 0, lifecycle.stderr);
  const [managed] = parseReport(lifecycle).results;
  t.ok(
    managed?.defaulted.some((d) => /^spec\.kubernetes\.versions\[\d+\]\.(lifecycle|classification)$/.test(d.field)),
    `lifecycle defaulting, when the config turns it on, is listed too: ${managed?.defaulted.map((d) => d.field).join(', ')}`,
  );
  t.same(patched(managed?.defaulted ?? []), managed?.object);
});

t.test(
  '--no-mutate judges the object as written: nothing defaulted, and what defaulting would fix is denied',
  async (t) => {
    const [plain, lifecycle] = await Promise.all([
      check(t, ['--config', 'plain.yaml', '--output', 'json', '--no-mutate']),
      check(t, ['--config', 'lifecycle.yaml', '--output', 'json', '--no-mutate']),
    ]);
    for (const run of [plain, lifecycle]) {
      const [result] = parseReport(run).results;
      t.same(result?.defaulted, []);
      t.same(result?.object, bare, 'the object as written');
    }
    t.equal(plain.code, 1, 'an image version without architectures or cri is what Gardener refuses');
    t.same(rulesOf(parseReport(plain).results[0]), ['MACHINE-IMAGES']);
  },
);

t.test(
  'through check: adoption is opt-in and keeps the notice for versions Shoots run; an NCP image entry may carry only updateStrategy',
  async (t) => {
    const dir = await tempDir(t);
    const stored = cloudProfile({
      name: 'aws',
      kubernetes: ['1.28.5', '1.29.5', '1.30.2', '1.31.0'],
      images: [
        {
          name: 'gardenlinux',
          updateStrategy: 'major',
          versions: [{ version: '1592.1.0', cri: [{ name: 'containerd' }], architectures: ['amd64'] }],
        },
      ],
    });
    const edited = { ...stored, metadata: { ...stored.metadata, labels: { team: 'platform' } } };
    const ncp = {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'NamespacedCloudProfile',
      metadata: { name: 'team', namespace: 'garden-team' },
      spec: {
        parent: { kind: 'CloudProfile', name: 'aws' },
        machineImages: [{ name: 'gardenlinux', updateStrategy: 'minor' }],
      },
    };
    const shoots = ['a', 'b'].map((name) => shoot({ name, profile: 'aws', version: '1.28.5' }));
    await writeFiles(dir, {
      'adopt.yaml': 'defaulting: {lifecycle: {adoptExisting: true, expirationUnmaintained: 24h}}\n',
      'state.yaml': yamlDocs(stored, ...shoots),
      'old.yaml': yamlDocs(stored),
      'new.yaml': yamlDocs(edited),
      'ncp.yaml': yamlDocs(ncp),
    });
    const base = ['check', '--now', NOW, '--state', 'state.yaml', '--output', 'json'];
    const [plain, adopting, team] = await Promise.all([
      runCheckCli([...base, '--old', 'old.yaml', 'new.yaml'], { cwd: dir }),
      runCheckCli([...base, '--config', 'adopt.yaml', '--old', 'old.yaml', 'new.yaml'], { cwd: dir }),
      runCheckCli([...base, 'ncp.yaml'], { cwd: dir }),
    ]);
    t.equal(plain.code, 0, plain.stderr);
    t.same(parseReport(plain).results[0]?.defaulted, [], 'the default: an edit of a plain profile adopts nothing');

    t.equal(adopting.code, 0, adopting.stderr);
    const [result] = parseReport(adopting).results;
    const at = (path: string) => result?.defaulted.find((d) => d.path === path)?.value;
    t.same(
      [at('/spec/kubernetes/versions/0/classification'), at('/spec/kubernetes/versions/0/expirationDate')],
      ['deprecated', '2026-10-01T00:00:00Z'],
      '1.28.5 keeps the 30-day notice, not the 24h policy',
    );
    t.ok(
      result?.warnings.some((w) => w.startsWith('1.28.5') && w.includes('2 Shoots run it')),
      result?.warnings.join('\n') ?? 'no result',
    );

    t.equal(team.code, 0, `${team.stdout}${team.stderr}`);
    t.same(parseReport(team).results[0]?.violations, []);
  },
);
