// `version-policy forecast`, the built CLI as a child process, on the demo state at a fixed
// instant: text, JSON, an iCalendar file a real parser (ical.js) reads, and --proposed from a file
// and from git (`REF:PATH`, through the real git binary in a temp repository).
import { execFile } from 'node:child_process';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ICAL from 'ical.js';
import t from '../helpers/parts.js';
import { CLEAN_ENV, runCli, tempDir } from '../helpers/run-cli.js';

const git = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const STATE = join(ROOT, 'test/fixtures/demo-state.yaml');
const PROPOSED = join(ROOT, 'test/fixtures/forecast-aws-proposed.yaml');
const NOW = '2026-12-01T00:00:00Z';

t.test('text: grouped by date, then profile, then version', async (t) => {
  const run = await runCli(['forecast', '--state', STATE, '--now', NOW]);
  t.equal(run.code, 0, run.stderr);
  const lines = run.stdout.split('\n');
  t.equal(
    lines[0],
    'Forecast 2026-12-01T00:00:00Z to 2027-05-30T00:00:00Z (180 days): 4 Shoots, 5 steps (1 forced), 0 failures, 0 Shoots trapped, 3 uncertain (~, with the outcome of a late run)',
  );
  t.match(
    run.stdout,
    '2026-12-01\n  CloudProfile/aws\n    kubernetes 1.31.7\n      02:00 UTC  garden-prod/payments worker pool "batch": auto 1.31.7 → 1.31.9 (supported)',
  );
  t.match(
    run.stdout,
    '2027-05-01\n  CloudProfile/aws\n    machine image ubuntu 22.4.20250915\n      ~00:00 UTC  garden-ops/monitoring worker pool "pool-1" image ubuntu: forced 22.4.20250915 → 24.4.20251001 (supported); 22.4.20250915 expired at 2027-04-30T23:59:59Z; if its random window (none set) is 00:00-01:00 UTC\n',
  );
  // monitoring sets no window: the API server gives it a random hour, so the day's run may come at 22:00 too.
  t.match(
    run.stdout,
    '      ~22:00 UTC  garden-ops/monitoring worker pool "pool-1" image ubuntu: forced 22.4.20250915 → 24.4.20251001 (supported); 22.4.20250915 expired at 2027-04-30T23:59:59Z; if its random window (none set) is 22:00-23:00 UTC\n',
  );
});

t.test('json: every Shoot with its chain, instants in RFC 3339', async (t) => {
  const run = await runCli(['forecast', '--state', STATE, '--now', NOW, '--days', '30', '--output', 'json']);
  t.equal(run.code, 0, run.stderr);
  const doc = JSON.parse(run.stdout) as {
    until: string;
    shoots: Array<{
      shoot: string;
      window: string;
      events: Array<{ at: string; mode: string; from: string; to: string }>;
    }>;
  };
  t.equal(doc.until, '2026-12-31T00:00:00Z');
  const dev = doc.shoots.find((s) => s.shoot === 'garden-dev/dev-cluster');
  t.equal(dev?.window, '220000+0000-230000+0000');
  t.match(dev?.events, [{ at: '2026-12-01T22:00:00Z', mode: 'auto', from: '1.31.7', to: '1.31.9' }]);
  // Forced updates past the horizon are not shown.
  t.notOk(run.stdout.includes('24.4.20251001'));
});

t.test('ics: RFC 5545 as ical.js reads it, one VEVENT per forced update', async (t) => {
  const run = await runCli(['forecast', '--state', STATE, '--now', NOW, '--proposed', PROPOSED, '--output', 'ics']);
  t.equal(run.code, 0, run.stderr);
  const text = run.stdout;
  t.ok(text.endsWith('\r\n'), 'CRLF line ends');
  t.notOk(/[^\r]\n/.test(text), 'no bare LF');
  for (const line of text.split('\r\n')) t.ok(Buffer.byteLength(line) <= 75, `at most 75 octets: ${line}`);
  const calendar = new ICAL.Component(ICAL.parse(text) as unknown[]);
  const events = calendar.getAllSubcomponents('vevent').map((c) => new ICAL.Event(c));
  t.equal(
    events.length,
    2,
    'the proposal moves one forced update, of a Shoot whose window is random: both outcomes; its auto updates are no calendar entries',
  );
  t.equal(events[1]?.startDate.toJSDate().toISOString(), '2027-01-16T22:00:00.000Z');
  const [e] = events;
  t.equal(e?.startDate.toJSDate().toISOString(), '2027-01-16T00:00:00.000Z');
  t.equal(e?.startDate.zone?.tzid, 'UTC');
  t.equal(
    e?.summary,
    'Possible forced update garden-ops/monitoring worker pool "pool-1" image ubuntu 22.4.20250915 → 24.4.20251001',
    'unfolded across lines, the arrow intact; possible, as the window of the Shoot is random',
  );
  t.match(
    e?.description,
    'Reason: Machine image version expired - force update required (image update strategy: minor)\nTrigger: 22.4.20250915 expired at 2027-01-15T23:59:59Z',
  );
  t.match(e?.uid, /^[0-9a-f]{32}@forecast\.version-policy\.gardener\.cloud$/);
  t.equal(e?.component.getFirstPropertyValue('dtstamp')?.toString(), '2026-12-01T00:00:00Z');
});

t.test('ics without --proposed: both outcomes of an uncertain forced update', async (t) => {
  const run = await runCli(['forecast', '--state', STATE, '--now', NOW, '--output', 'ics']);
  t.equal(run.code, 0, run.stderr);
  const calendar = new ICAL.Component(ICAL.parse(run.stdout) as unknown[]);
  const events = calendar.getAllSubcomponents('vevent').map((c) => new ICAL.Event(c));
  t.same(
    events.map((e) => [e.startDate.toJSDate().toISOString(), e.summary.slice(0, 22)]),
    [
      ['2027-05-01T00:00:00.000Z', 'Possible forced update'],
      ['2027-05-01T22:00:00.000Z', 'Possible forced update'],
    ],
  );
  t.match(events[1]?.description, 'this is the outcome if its random window (none set) is 22:00-23:00 UTC');
  t.equal(events[0]?.component.getFirstPropertyValue('categories'), 'FORCED-UPDATE');
  t.not(events[0]?.uid, events[1]?.uid, 'each outcome its own event');
});

t.test('--proposed: only what changes, the trap named', async (t) => {
  const run = await runCli(['forecast', '--state', STATE, '--now', NOW, '--proposed', PROPOSED]);
  t.equal(run.code, 0, run.stderr);
  t.equal(
    run.stdout.split('\n')[0],
    'Changes of the proposed profile, 2026-12-01T00:00:00Z to 2027-05-30T00:00:00Z: 6 (4 new, 2 earlier, 3 Shoots newly trapped, 2 of them the outcome of a late run)',
  );
  t.match(
    run.stdout,
    'new garden-dev/dev-cluster worker pool "worker-a" image gardenlinux: auto 1877.2.0 → 1877.3.0 (deprecated); auto-update on, 1877.2.0 is supported; TRAP gardener/gardener#13647',
  );
  t.match(run.stdout, 'earlier (was 2027-05-01T00:00:00Z) garden-ops/monitoring');
  // Both outcomes of the random window: the late one compares with the late one of the stored profile.
  t.match(run.stdout, 'earlier (was 2027-05-01T22:00:00Z) garden-ops/monitoring');
  t.notMatch(run.stdout, 'dev-cluster control plane', 'unchanged steps are not shown');
});

t.test('--proposed REF:PATH reads the profile from git, as check --old does', async (t) => {
  const dir = await tempDir(t);
  await copyFile(PROPOSED, join(dir, 'aws.yaml'));
  const env = {
    ...CLEAN_ENV,
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@example.com',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@example.com',
  };
  await git('git', ['init', '-q'], { cwd: dir, env });
  await git('git', ['add', 'aws.yaml'], { cwd: dir, env });
  await git('git', ['commit', '-q', '-m', 'proposal'], { cwd: dir, env });
  const fromGit = await runCli(['forecast', '--state', STATE, '--now', NOW, '--proposed', 'HEAD:aws.yaml'], dir);
  const fromFile = await runCli(['forecast', '--state', STATE, '--now', NOW, '--proposed', PROPOSED]);
  t.equal(fromGit.code, 0, fromGit.stderr);
  t.equal(fromGit.stdout, fromFile.stdout);
});

t.test('usage errors are one line, exit 2', async (t) => {
  for (const [args, words] of [
    [['forecast', '--now', NOW], 'give --state FILE or --cluster'],
    [['forecast', '--state', STATE, '--days', '0'], 'a whole number of days'],
    [['forecast', '--state', STATE, '--proposed', 'HEAD:no/such/file.yaml'], 'git show HEAD:no/such/file.yaml failed'],
  ] as const) {
    const run = await runCli(args, ROOT);
    t.equal(run.code, 2, args.join(' '));
    t.match(run.stderr, words);
    t.equal(run.stderr.trim().split('\n').length, 1);
  }
});

t.test('--namespace, --shoot and --profile pick the Shoots; together they narrow', async (t) => {
  const shootsOf = async (...args: string[]) => {
    const run = await runCli(['forecast', '--state', STATE, '--now', NOW, '--output', 'json', ...args]);
    t.equal(run.code, 0, run.stderr);
    return (JSON.parse(run.stdout) as { shoots: Array<{ shoot: string }> }).shoots.map((s) => s.shoot);
  };
  t.same(await shootsOf('--namespace', 'garden-dev'), ['garden-dev/dev-cluster', 'garden-dev/experiments']);
  t.same(await shootsOf('--namespace', 'garden-dev', '--namespace', 'garden-ops'), [
    'garden-dev/dev-cluster',
    'garden-dev/experiments',
    'garden-ops/monitoring',
  ]);
  t.same(await shootsOf('--shoot', 'payments'), ['garden-prod/payments'], 'a name');
  t.same(await shootsOf('--shoot', 'garden-dev/experiments'), ['garden-dev/experiments'], 'namespace/name');
  t.same(
    await shootsOf('--profile', 'aws'),
    ['garden-dev/dev-cluster', 'garden-dev/experiments', 'garden-ops/monitoring', 'garden-prod/payments'],
    'a CloudProfile: its Shoots and those of its NamespacedCloudProfiles',
  );
  t.same(
    await shootsOf('--profile', 'garden-dev/aws-extended'),
    ['garden-dev/experiments'],
    'a NamespacedCloudProfile',
  );
  t.same(await shootsOf('--profile', 'aws', '--namespace', 'garden-ops'), ['garden-ops/monitoring'], 'narrowed');

  const none = await runCli([
    'forecast',
    '--state',
    STATE,
    '--now',
    NOW,
    '--namespace',
    'garden-dev',
    '--shoot',
    'payments',
  ]);
  t.equal(none.code, 2, 'a filter that picks nothing is no empty forecast');
  t.equal(
    none.stderr,
    'version-policy: no Shoot of the state matches --namespace garden-dev --shoot payments (the state has 4 Shoots)\n',
  );
});

t.test('--fail-on: exit 1 and the conditions met on stderr; with --proposed, what the proposal adds', async (t) => {
  const forecastOf = (...args: string[]) => runCli(['forecast', '--state', STATE, '--now', NOW, ...args]);
  const [quiet, forced, within, proposedTrap, proposedFine, plain] = await Promise.all([
    forecastOf('--fail-on', 'trap,failure'),
    forecastOf('--fail-on', 'forced'),
    forecastOf('--fail-on', 'forced-within=30d'),
    forecastOf('--proposed', PROPOSED, '--fail-on', 'trap'),
    forecastOf('--proposed', PROPOSED, '--fail-on', 'failure,forced-within=30d'),
    forecastOf('--proposed', PROPOSED),
  ]);
  t.equal(quiet.code, 0, 'no trap, no failure in the demo state');
  t.equal(quiet.stderr, '');
  t.equal(forced.code, 1);
  t.equal(
    forced.stderr,
    'version-policy: --fail-on: forced: 1 Shoot (garden-ops/monitoring)\n',
    'May: monitoring is forced off Ubuntu',
  );
  t.equal(within.code, 0, 'not within 30 days');
  t.equal(proposedTrap.code, 1);
  t.equal(
    proposedTrap.stderr,
    'version-policy: --fail-on: trap: 3 Shoots (garden-prod/payments, garden-dev/dev-cluster, garden-dev/experiments)\n',
  );
  t.equal(proposedTrap.stdout, plain.stdout, 'the output is the same, the exit code says it');
  t.equal(proposedFine.code, 0, 'the forced update it brings forward is in January: not within 30 days');

  for (const [spec, words] of [
    ['trapp', 'unknown condition "trapp" (did you mean "trap"?); allowed: trap, failure, forced, forced-within=Nd'],
    ['forced-within=2w', '"forced-within=2w": write forced-within=Nd, a whole number of days, e.g. forced-within=14d'],
  ] as const) {
    const bad = await forecastOf('--fail-on', spec);
    t.equal(bad.code, 2, spec);
    t.match(bad.stderr, words);
  }
});

t.test('ics --include-auto: an event per automatic update too', async (t) => {
  const [withAuto, without, text] = await Promise.all([
    runCli(['forecast', '--state', STATE, '--now', NOW, '--output', 'ics', '--include-auto']),
    runCli(['forecast', '--state', STATE, '--now', NOW, '--output', 'ics']),
    runCli(['forecast', '--state', STATE, '--now', NOW, '--include-auto']),
  ]);
  const events = (ics: string) =>
    new ICAL.Component(ICAL.parse(ics) as unknown[])
      .getAllSubcomponents('vevent')
      .map((c) => [new ICAL.Event(c).summary, c.getFirstPropertyValue('categories')]);
  t.equal(withAuto.code, 0, withAuto.stderr);
  // monitoring sets no window: its forced update once per outcome of the random hour.
  const possible =
    'Possible forced update garden-ops/monitoring worker pool "pool-1" image ubuntu 22.4.20250915 → 24.4.20251001';
  t.same(events(without.stdout), [
    [possible, 'FORCED-UPDATE'],
    [possible, 'FORCED-UPDATE'],
  ]);
  const all = events(withAuto.stdout);
  t.equal(all.length, 8, 'the 5 steps of the demo state, 4 of them automatic, and 3 outcomes of random windows');
  t.match(all, [['Automatic update garden-dev/dev-cluster control plane 1.31.7 → 1.31.9', 'AUTO-UPDATE']]);
  t.equal(
    all.filter(([s]) => String(s).startsWith('Possible automatic update garden-dev/experiments')).length,
    4,
    "experiments' two automatic steps, at either end of its random hour",
  );
  t.equal(text.code, 2, '--include-auto is for ics');
  t.match(text.stderr, '--include-auto is for --output ics');
});
