// `check` without --state or --cluster judges against a state that is not there, and says on each
// result what it could not check instead of judging against an empty landscape (issue 12):
// removals and deletions note IN-USE, Shoots note the rule that needs their profile, NCPs the
// rule that needs their parent. --require-state refuses to run without a state (exit 2).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import t, { type Test } from '../helpers/parts.js';
import { cloudProfile, namespacedProfile, shoot } from '../helpers/objects.js';
import { tempDir, writeFiles, yamlDocs } from '../helpers/run-cli.js';
import { parseReport, runCheckCli } from './check-run.js';

const NOW = '2026-09-01T00:00:00Z';
const before = cloudProfile({ name: 'aws', kubernetes: ['1.30.0', '1.31.0'] });
const after = cloudProfile({ name: 'aws', kubernetes: ['1.31.0'] });
const team = namespacedProfile({ name: 'team', namespace: 'garden-dev', parent: 'aws' });
const web = shoot({ name: 'web', namespace: 'garden-dev', profile: 'aws', version: '1.31.0' });
const user = shoot({ name: 'old', namespace: 'garden-dev', profile: 'aws', version: '1.30.0' });

const FILES = {
  'cfg.yaml': 'defaulting: {lifecycle: {enabled: false}}\n',
  'before.yaml': yamlDocs(before),
  'after.yaml': yamlDocs(after),
  'objects.yaml': yamlDocs(team, web),
  'state.yaml': yamlDocs(before, user),
};

async function check(t: Test, args: string[]) {
  const dir = await tempDir(t);
  await writeFiles(dir, FILES);
  return runCheckCli(['check', '--now', NOW, '--config', 'cfg.yaml', ...args], { cwd: dir });
}

const notesOf = (stdout: string) =>
  parseReport({ code: 0, stdout, stderr: '' }).results.map((r) => [
    `${r.operation} ${r.kind} ${r.name}`,
    r.notes.map((n) => n.split(' ')[0]),
  ]);

t.test('without a state, what needs one is noted, never judged against nothing', async (t) => {
  const [removal, deletion, others, text] = await Promise.all([
    check(t, ['--output', 'json', '--old', 'before.yaml', 'after.yaml']),
    check(t, ['--output', 'json', '--delete', 'before.yaml', 'objects.yaml']),
    check(t, ['--output', 'json', 'objects.yaml', 'after.yaml']),
    check(t, ['--old', 'before.yaml', 'after.yaml', 'objects.yaml']),
  ]);
  t.equal(removal.code, 0, removal.stderr);
  t.same(notesOf(removal.stdout), [['UPDATE CloudProfile aws', ['IN-USE']]], 'a removal: IN-USE was not checked');
  t.same(parseReport(removal).results[0]?.notes, ['IN-USE was not checked: no --state or --cluster was given']);
  t.same(
    notesOf(deletion.stdout),
    [
      ['DELETE CloudProfile aws', ['IN-USE']],
      ['DELETE NamespacedCloudProfile team', ['IN-USE']],
      ['DELETE Shoot web', []],
    ],
    'deleting a profile: IN-USE; deleting a Shoot needs nothing',
  );
  t.same(
    notesOf(others.stdout),
    [
      ['CREATE NamespacedCloudProfile team', ['NCP-OVERRIDES']],
      ['CREATE Shoot web', ['SHOOT-VERSION-AVAILABLE']],
      ['CREATE CloudProfile aws', []],
    ],
    'an NCP needs its parent, a Shoot its profile; a new CloudProfile removes nothing',
  );
  t.match(parseReport(others).summary, { objects: 3, allowed: 3, notFullyChecked: 2 });

  t.equal(text.code, 0);
  t.match(
    text.stdout,
    /^ALLOWED CloudProfile aws \(UPDATE\) at after\.yaml:1 \(document 1\)\n {2}note: IN-USE was not checked: no --state or --cluster was given\n/,
    'text: a note line under the verdict',
  );
  t.equal(
    text.stdout.split('\n').at(-2),
    '3 objects: 3 allowed, 0 denied, 0 skipped; 3 not fully checked (see the notes)',
  );
});

t.test('with a state, the same removal is judged, and denied', async (t) => {
  const run = await check(t, ['--output', 'json', '--state', 'state.yaml', 'after.yaml']);
  t.equal(run.code, 1);
  t.match(parseReport(run).results, [{ operation: 'UPDATE', allowed: false, notes: [] }]);
});

t.test('--require-state without --state or --cluster: exit 2 naming what is missing, nothing judged', async (t) => {
  const dir = await tempDir(t);
  await writeFiles(dir, FILES);
  const run = (args: string[]) =>
    runCheckCli(['check', '--now', NOW, '--config', 'cfg.yaml', '--require-state', ...args], { cwd: dir });
  const [text, json, junit, report, nothingToNote, withState] = await Promise.all([
    run(['--old', 'before.yaml', 'after.yaml', 'objects.yaml']),
    run(['--output', 'json', '--old', 'before.yaml', 'after.yaml']),
    run(['--output', 'junit', 'after.yaml']),
    run(['--junit', 'report.xml', 'after.yaml']),
    run(['after.yaml']),
    run(['--state', 'state.yaml', 'before.yaml']),
  ]);
  const missing =
    'version-policy: --require-state: no landscape to judge against: give --state FILE (e.g. from `version-policy state export`) or --cluster\n';
  t.equal(text.code, 2, 'exit 2');
  t.equal(text.stderr, missing);
  t.equal(text.stdout, '', 'nothing judged');
  t.equal(nothingToNote.code, 2, 'even a new CloudProfile, which needs no state: the job lost its state argument');
  t.equal(nothingToNote.stderr, missing);

  t.equal(json.code, 2);
  t.match(parseReport(json), { error: { message: /^--require-state: no landscape/ } });

  t.equal(junit.code, 2);
  const xml = new XMLParser({ ignoreAttributes: false }).parse(junit.stdout) as {
    testsuites: { '@_errors': string; testsuite: { testcase: { error?: { '@_message': string } } } };
  };
  t.equal(xml.testsuites['@_errors'], '1');
  t.match(xml.testsuites.testsuite.testcase.error?.['@_message'], /--require-state: no landscape/);
  t.equal(report.code, 2);
  t.match(await readFile(join(dir, 'report.xml'), 'utf8'), /--require-state: no landscape/, '--junit FILE says why');

  t.equal(withState.code, 0, withState.stderr);
});
