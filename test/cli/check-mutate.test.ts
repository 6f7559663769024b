// `check` judges what the cluster would store: the mutating path first, then the rules on its
// result, and it lists the defaults it applied. --no-mutate judges the object as written (issue 12).
import jsonpatch from 'fast-json-patch';
import t, { type Test } from 'tap';
import type { PolicedObject } from '../../src/policy/types.js';
import { cloudProfile } from '../helpers/objects.js';
import { tempDir, writeFiles, yamlDocs } from '../helpers/run-cli.js';
import { parseReport, rulesOf, runCheckCli } from './check-run.js';

const NOW = '2026-09-01T00:00:00Z';
// As a user writes it: no updateStrategy, no cri, no architectures. Gardener defaults them.
const bare = cloudProfile({ name: 'aws', kubernetes: ['1.30.0', '1.31.0'], images: [{ name: 'gardenlinux', versions: [{ version: '1592.1.0' }] }] });

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
  jsonpatch.applyPatch(structuredClone(bare), defaulted.map(({ op, path, value }) => ({ op, path, value })) as jsonpatch.Operation[], true, false).newDocument as PolicedObject;

t.test('the mutating path runs first; its defaults are listed, and they are exactly what changed', async (t) => {
  const [json, text, lifecycle] = await Promise.all([
    check(t, ['--config', 'plain.yaml', '--output', 'json']),
    check(t, ['--config', 'plain.yaml']),
    check(t, ['--config', 'lifecycle.yaml', '--output', 'json']),
  ]);
  t.equal(json.code, 0, json.stderr);
  const [result] = parseReport(json).results;
  const fields = result?.defaulted.map((d) => d.field) ?? [];
  t.same(fields, ['spec.machineImages[0].updateStrategy', 'spec.machineImages[0].versions[0].architectures', 'spec.machineImages[0].versions[0].cri'], "Gardener's defaults, in field order");
  t.match(result?.defaulted[0], { op: 'add', path: '/spec/machineImages/0/updateStrategy', value: 'major' });
  t.same(patched(result?.defaulted ?? []), result?.object, 'applied to the input, the defaults give the stored object');
  t.notSame(result?.object, bare);

  t.match(text.stdout, /\n {2}defaulted: spec\.machineImages\[0\]\.updateStrategy: major\n {2}defaulted: spec\.machineImages\[0\]\.versions\[0\]\.architectures: \["amd64"\]\n/);

  t.equal(lifecycle.code, 0, lifecycle.stderr);
  const [managed] = parseReport(lifecycle).results;
  t.ok(
    managed?.defaulted.some((d) => /^spec\.kubernetes\.versions\[\d+\]\.(lifecycle|classification)$/.test(d.field)),
    `lifecycle defaulting, when the config turns it on, is listed too: ${managed?.defaulted.map((d) => d.field).join(', ')}`,
  );
  t.same(patched(managed?.defaulted ?? []), managed?.object);
});

t.test('--no-mutate judges the object as written: nothing defaulted, and what defaulting would fix is denied', async (t) => {
  const [plain, lifecycle] = await Promise.all([check(t, ['--config', 'plain.yaml', '--output', 'json', '--no-mutate']), check(t, ['--config', 'lifecycle.yaml', '--output', 'json', '--no-mutate'])]);
  for (const run of [plain, lifecycle]) {
    const [result] = parseReport(run).results;
    t.same(result?.defaulted, []);
    t.same(result?.object, bare, 'the object as written');
  }
  t.equal(plain.code, 1, 'an image version without architectures or cri is what Gardener refuses');
  t.same(rulesOf(parseReport(plain).results[0]), ['MACHINE-IMAGES']);
});
