// What `check` does with real denials: exit 1, DENIED lines and violations, the state deciding
// UPDATE vs CREATE, and --now, --feature-gates and --config reaching the rules. Each test needs a
// rule to deny and is skipped while that rule is pending (test/helpers/cases.ts).
import t, { type Test } from '../helpers/parts.js';
import type { CheckResult } from '../../src/cli/check-output.js';
import { cloudProfile, image, shoot } from '../helpers/objects.js';
import { runCli, tempDir, writeFiles, yamlDocs } from '../helpers/run-cli.js';
import { verdicts } from './check-run.js';

const NOW = '2026-09-01T00:00:00Z';
async function check(t: Test, files: Record<string, string>, args: string[]) {
  const dir = await tempDir(t);
  await writeFiles(dir, { 'cfg.yaml': 'defaulting: {lifecycle: {enabled: false}}\n', ...files });
  return runCli(['check', '--config', 'cfg.yaml', ...args], dir);
}

async function checkJson(t: Test, files: Record<string, string>, args: string[]) {
  const run = await check(t, files, ['--output', 'json', ...args]);
  t.equal(run.stderr, '', 'nothing on stderr');
  return { ...run, results: (JSON.parse(run.stdout) as { results: CheckResult[] }).results };
}

const rulesOf = (r: CheckResult | undefined) => [...new Set(r?.violations.map((v) => v.rule))];

const good = cloudProfile({ name: 'good', kubernetes: ['1.31.0'] });
const bad = cloudProfile({ name: 'bad', kubernetes: ['v1.31.0'] });

t.test('one denied object: DENIED with its violations indented, exit 1', async (t) => {
  const run = await check(t, { 'apply.yaml': yamlDocs(good, bad) }, ['--now', NOW, 'apply.yaml']);
  t.equal(run.code, 1, run.stderr);
  t.same(verdicts(run.stdout), ['ALLOWED CloudProfile good (CREATE)', 'DENIED CloudProfile bad (CREATE)']);
  const lines = run.stdout.split('\n');
  const at = lines.findIndex((l) => /^DENIED CloudProfile bad \(CREATE\) at apply\.yaml:\d+ \(document 2\)$/.test(l));
  t.ok(at > 0, 'the verdict line names the file, line and document');
  const details = lines.slice(at + 1).filter((l) => l.startsWith('  '));
  t.equal(lines.at(-2), '2 objects: 1 allowed, 1 denied, 0 skipped', 'the summary');

  const quiet = await check(t, { 'apply.yaml': yamlDocs(good, bad) }, ['--now', NOW, '--quiet', 'apply.yaml']);
  t.equal(quiet.code, 1);
  t.same(verdicts(quiet.stdout), ['DENIED CloudProfile bad (CREATE)'], '--quiet: only the denied object');
  t.ok(
    quiet.stdout
      .split('\n')
      .slice(1, -1)
      .every((l) => l.startsWith('  ')),
    'with its details, and no summary',
  );
  t.ok(
    details.some((l) => l.startsWith('  [K8S-VERSIONS] spec.kubernetes.versions[0]') && l.includes('v1.31.0')),
    `a violation line "[RULE] field: message" names the version:\n${run.stdout}`,
  );

  const json = await checkJson(t, { 'apply.yaml': yamlDocs(good, bad) }, ['--now', NOW, 'apply.yaml']);
  t.equal(json.code, 1);
  t.match(json.results, [
    { name: 'good', allowed: true, violations: [] },
    { name: 'bad', allowed: false },
  ]);
  const violations = json.results[1]?.violations ?? [];
  t.ok(violations.length > 0);
  for (const v of violations)
    t.same(
      Object.keys(v).sort(),
      ['field', 'line', 'message', 'rule', 'type'],
      'each violation: its rule, field, message, error type and line (docs/check.md)',
    );
  t.ok(violations.some((v) => v.rule === 'K8S-VERSIONS' && v.field.startsWith('spec.kubernetes.versions[0]')));
});

t.test('the state decides: removing a version a Shoot uses is an UPDATE that is denied', async (t) => {
  const before = cloudProfile({ name: 'aws', kubernetes: ['1.30.0', '1.31.0'] });
  const after = cloudProfile({ name: 'aws', kubernetes: ['1.31.0'] });
  const user = shoot({ name: 'web', namespace: 'garden-dev', profile: 'aws', version: '1.30.0' });
  const files = { 'state.yaml': yamlDocs(before, user), 'apply.yaml': yamlDocs(after) };

  const update = await checkJson(t, files, ['--now', NOW, '--state', 'state.yaml', 'apply.yaml']);
  t.equal(update.code, 1);
  t.match(update.results, [{ operation: 'UPDATE', allowed: false }]);
  t.ok(rulesOf(update.results[0]).includes('IN-USE'));
  t.match(
    update.results[0]?.violations.find((v) => v.rule === 'IN-USE')?.message,
    /garden-dev\/web/,
    'names the Shoot',
  );

  const create = await checkJson(t, files, ['--now', NOW, 'apply.yaml']);
  t.equal(create.code, 0, 'without the state the same file is a CREATE and nothing is in use');
  t.match(create.results, [{ operation: 'CREATE', allowed: true }]);

  const del = await checkJson(t, { ...files, 'gone.yaml': yamlDocs(before) }, [
    '--now',
    NOW,
    '--state',
    'state.yaml',
    '--delete',
    'gone.yaml',
  ]);
  t.equal(del.code, 1);
  t.match(del.results, [{ operation: 'DELETE', allowed: false, object: null }]);
  t.ok(rulesOf(del.results[0]).includes('IN-USE'), 'a profile a Shoot uses cannot be deleted');
});

t.test('--now moves the time rules', async (t) => {
  const profile = cloudProfile({
    name: 'aws',
    kubernetes: [{ version: '1.30.0', expirationDate: '2026-06-01T00:00:00Z' }, '1.31.0'],
  });
  const files = { 'apply.yaml': yamlDocs(profile) };
  const late = await checkJson(t, files, ['--now', NOW, 'apply.yaml']);
  t.equal(late.code, 1);
  t.ok(rulesOf(late.results[0]).includes('PAST-EXPIRATION'), 'added already expired');
  const early = await checkJson(t, files, ['--now', '2026-01-01T00:00:00Z', 'apply.yaml']);
  t.equal(early.code, 0, JSON.stringify(early.results[0]?.violations));
});

t.test('--feature-gates overrides the config gate', async (t) => {
  const profile = cloudProfile({
    name: 'aws',
    kubernetes: [{ version: '1.31.0', lifecycle: [{ classification: 'supported' }] }],
  });
  const gateOff = 'featureGates: {VersionClassificationLifecycle: false}\ndefaulting: {lifecycle: {enabled: false}}\n';
  const files = { 'apply.yaml': yamlDocs(profile), 'off.yaml': gateOff };

  const byConfig = await checkJson(t, files, ['--now', NOW, '--config', 'off.yaml', 'apply.yaml']);
  t.equal(byConfig.code, 1, 'lifecycle with the gate off in the config');
  t.ok(rulesOf(byConfig.results[0]).includes('LIFECYCLE-ORDER'));

  const byFlag = await checkJson(t, files, [
    '--now',
    NOW,
    '--config',
    'off.yaml',
    '--feature-gates',
    'VersionClassificationLifecycle=true',
    'apply.yaml',
  ]);
  t.equal(byFlag.code, 0, 'the flag turns the gate back on');

  const flagOff = await checkJson(t, files, [
    '--now',
    NOW,
    '--feature-gates',
    'VersionClassificationLifecycle=false',
    'apply.yaml',
  ]);
  t.equal(flagOff.code, 1, 'and off');
});

t.test('the printed object is the one after the mutating path', async (t) => {
  const bare = cloudProfile({
    name: 'aws',
    kubernetes: ['1.31.0'],
    images: [{ name: 'gardenlinux', versions: [{ version: '1592.1.0' }] }],
  });
  const run = await checkJson(t, { 'apply.yaml': yamlDocs(bare) }, ['--now', NOW, 'apply.yaml']);
  t.equal(run.code, 0, JSON.stringify(run.results[0]?.violations));
  t.same(
    run.results[0]?.object?.spec,
    { ...bare.spec, machineImages: [image('gardenlinux', ['1592.1.0'], 'major')] },
    'Gardener defaults filled in',
  );
});

t.test('--config switches lifecycle defaulting', async (t) => {
  const profile = cloudProfile({ name: 'aws', kubernetes: ['1.30.0', '1.31.0'] });
  const files = { 'apply.yaml': yamlDocs(profile), 'on.yaml': 'defaulting: {lifecycle: {enabled: true}}\n' };
  const on = await checkJson(t, files, ['--now', NOW, '--config', 'on.yaml', 'apply.yaml']);
  const versions = (r: CheckResult | undefined) =>
    (r?.object?.spec.kubernetes?.versions ?? []) as Array<Record<string, unknown>>;
  t.ok(
    versions(on.results[0]).every((v) => typeof v.classification === 'string' && v.lifecycle === undefined),
    'every plain version gets a legacy classification (the lifecycle gate is off by default)',
  );
  t.ok((on.results[0]?.warnings.length ?? 0) > 0, 'each defaulting is reported as a warning');

  const off = await checkJson(t, files, ['--now', NOW, 'apply.yaml']);
  t.same(off.results[0]?.object, profile, 'with defaulting off the object is unchanged');
});
