// `version-policy explain` through the CLI's main() (the built CLI's process is process.test.ts's),
// checked against golden files in test/fixtures/explain/ at a fixed --now.
//
// After an intended change of the output, regenerate the goldens and review their diff:
//   UPDATE_GOLDEN=1 npx tap test/cli/explain.test.ts
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from '../helpers/parts.js';
import type { ExplainReport } from '../../src/report/version-report.js';
import { runCli } from '../helpers/run-cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = 'test/fixtures/explain';
const NOW = '2026-09-01T00:00:00Z';
const STATE = ['--state', `${FIXTURES}/profile.yaml`, '--state', `${FIXTURES}/shoots.yaml`, '--now', NOW];
const UPDATE = process.env.UPDATE_GOLDEN === '1';

const run = (args: readonly string[]) => runCli(['explain', ...args], ROOT);

const goldens: Array<{ name: string; args: string[]; golden: string }> = [
  { name: 'a CloudProfile, as text', args: [...STATE, `${FIXTURES}/profile.yaml`], golden: 'expected-profile.txt' },
  {
    name: 'a CloudProfile, as JSON',
    args: [...STATE, '--output', 'json', `${FIXTURES}/profile.yaml`],
    golden: 'expected-profile.json',
  },
  {
    name: 'a NamespacedCloudProfile, merged with its parent',
    args: [...STATE, `${FIXTURES}/ncp.yaml`],
    golden: 'expected-ncp.txt',
  },
];

for (const g of goldens) {
  t.test(`golden: ${g.name}`, async (t) => {
    const got = await run(g.args);
    t.equal(got.code, 0, got.stderr);
    t.equal(got.stderr, '');
    const path = join(ROOT, FIXTURES, g.golden);
    if (UPDATE) await writeFile(path, got.stdout);
    t.equal(got.stdout, await readFile(path, 'utf8'), `matches ${g.golden} (UPDATE_GOLDEN=1 regenerates it)`);
  });
}

// The goldens pin the layout; these pin the facts, so a wrong golden cannot be blessed unnoticed.
t.test('the JSON report says what the fixture implies', async (t) => {
  const got = await run([...STATE, '--output', 'json', `${FIXTURES}/profile.yaml`]);
  const report = JSON.parse(got.stdout) as ExplainReport;
  const p = report.profiles[0]!;
  t.equal(report.now, NOW);
  const k8s = Object.fromEntries(p.kubernetes.map((v) => [v.version, v]));
  t.same(
    p.kubernetes.map((v) => v.version),
    ['1.34.0', '1.33.0', '1.32.1', '1.31.2', '1.31.1', '1.30.5', '1.29.8', '1.28.9'],
    'newest first',
  );
  t.same(k8s['1.33.0']?.next, { classification: 'supported', at: '2026-10-01T00:00:00Z' });
  t.equal(k8s['1.34.0']?.classification, 'unavailable');
  t.same(
    [k8s['1.31.2']?.managed, k8s['1.30.5']?.managed, k8s['1.32.1']?.managed],
    [true, true, false],
    'managed per the annotation',
  );
  t.equal(k8s['1.29.8']?.shoots, 1, 'the Shoot being deleted is not counted');
  t.equal(k8s['1.31.1']?.shoots, 0, 'a Shoot on the NamespacedCloudProfile is counted there');
  const m = p.maintenance!;
  t.equal(m.until, '2027-09-01T00:00:00Z', 'the forecast runs to the window end, 365 days by default');
  t.equal(m.madeAt, null);
  t.notOk(
    m.shoots.some((x) => x.shoot === 'garden-dev/leaving'),
    'a Shoot being deleted is not updated',
  );
  const step = (shoot: string, kind: string, pool: string | undefined, from: string) =>
    m.shoots
      .find((x) => x.shoot === shoot)
      ?.events.find(
        (e) =>
          e.component.kind === kind &&
          'pool' in e.component === (pool !== undefined) &&
          (pool === undefined || (e.component as { pool: string }).pool === pool) &&
          e.from === from,
      );
  t.match(step('garden-dev/alpha', 'kubernetes', undefined, '1.30.5'), {
    mode: 'forced',
    to: '1.31.2',
    at: '2026-09-10T20:00:00Z',
    trigger: '1.30.5 expired at 2026-09-10T00:00:00Z',
  });
  t.match(step('garden-dev/beta', 'kubernetes', 'legacy', '1.28.9'), {
    mode: 'forced',
    to: '1.29.8',
    toClassification: 'expired',
    at: '2026-09-02T00:00:00Z',
  });
  t.match(step('garden-dev/beta', 'machine-image', 'ubuntu', '22.4.1'), {
    to: undefined,
    failure: { kind: 'no-target', message: /update strategy patch/ },
  });
  t.match(
    step('garden-dev/beta', 'machine-image', 'legacy', '15.5.0'),
    { mode: 'auto', to: '15.6.0', at: '2026-09-02T00:00:00Z' },
    'auto-updated the next night, although it expires on 2026-10-15: never called forced',
  );
  t.equal(p.warnings.length, 1, 'one maintenance failure ahead');
  t.match(
    p.warnings[0],
    /^forced update will fail at 2026-09-02T00:00:00Z: shoot 'garden-dev\/beta' .*ubuntu:22\.4\.1/,
  );
});

t.test('--to ends the maintenance forecast in the text and JSON too', async (t) => {
  const [text, json] = await Promise.all([
    run([...STATE, '--to', '2026-09-05', `${FIXTURES}/profile.yaml`]),
    run([...STATE, '--to', '4d', '--output', 'json', `${FIXTURES}/profile.yaml`]),
  ]);
  t.same([text.code, json.code], [0, 0], text.stderr + json.stderr);
  t.match(text.stdout, /^Maintenance until 2026-09-05T00:00:00Z: 5 steps \(4 forced\) on 2 Shoots, 1 failure$/m);
  const m = (JSON.parse(json.stdout) as ExplainReport).profiles[0]!.maintenance!;
  t.equal(m.until, '2026-09-05T00:00:00Z');
  const ats = m.shoots.flatMap((x) => x.events.map((e) => e.at));
  t.ok(ats.length > 0 && ats.every((at) => at < '2026-09-05'), `every step before the end: ${ats.join(' ')}`);
});

t.test('usage and input errors exit 2 with one line', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'explain-'));
  const onlyShoot = join(dir, 'shoot.yaml');
  await writeFile(
    onlyShoot,
    'apiVersion: core.gardener.cloud/v1beta1\nkind: Shoot\nmetadata: { name: s, namespace: n }\nspec: { kubernetes: { version: 1.31.0 } }\n',
  );
  const cases: Array<[string, string[], RegExp]> = [
    [
      '--now must be RFC 3339',
      ['--now', 'yesterday', `${FIXTURES}/profile.yaml`],
      /--now.*'yesterday' is invalid\. not an RFC 3339 timestamp/,
    ],
    [
      '--state and --cluster exclude each other',
      ['--cluster', '--state', `${FIXTURES}/shoots.yaml`, `${FIXTURES}/profile.yaml`],
      /exclude each other/,
    ],
    ['the file must exist', [`${FIXTURES}/missing.yaml`], /missing\.yaml: cannot read/],
    ['the file must hold a profile', [onlyShoot], /contains no CloudProfile or NamespacedCloudProfile/],
    [
      "a NamespacedCloudProfile's parent must be in the state",
      ['--now', NOW, `${FIXTURES}/ncp.yaml`],
      /parent CloudProfile "local".*not in the state; pass it with --state/,
    ],
    ['--output is text or json', ['--output', 'yaml', `${FIXTURES}/profile.yaml`], /Allowed choices are text, json/],
  ];
  const runs = await Promise.all(cases.map(([, args]) => run(args)));
  cases.forEach(([name, , message], i) => {
    const got = runs[i]!;
    t.equal(got.code, 2, `${name}: exit code`);
    t.match(got.stderr, message, `${name}: message`);
    t.equal(got.stderr.trim().split('\n').length, 1, `${name}: one line`);
    t.equal(got.stdout, '', `${name}: nothing on stdout`);
  });
});
