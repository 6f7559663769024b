// One answer about maintenance (issue 35): `explain` and `forecast` are run through the CLI on the
// same state, at the same instant and to the same horizon, and must list the same Shoots, with the
// same steps on the same dates: on the demo, on every proposed profile of test/fixtures/forecast-*.yaml
// put in the demo state's place, and on the explain and timeline fixtures.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from '../helpers/parts.js';
import { stringify } from 'yaml';
import { readObjectFile } from '../../src/cluster/object-files.js';
import { objectKey } from '../../src/api/types.js';
import type { ExplainReport, MaintenanceShoot } from '../../src/report/version-report.js';
import { runCli } from '../helpers/run-cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = 'test/fixtures';
const NOWS = ['2026-09-01T00:00:00Z', '2027-01-20T00:00:00Z'];
const DAYS = 365;

interface Case {
  name: string;
  /** --state files. */
  state: string[];
  /** The file explain is given: every profile in it is explained. */
  profiles: string;
}

interface ForecastJson {
  shoots: MaintenanceShoot[];
}

/** What each tool says, per Shoot with a step: explain's for every profile of the file, forecast's for those profiles. */
async function both(c: Case, now: string): Promise<{ explained: MaintenanceShoot[]; forecast: MaintenanceShoot[] }> {
  const state = c.state.flatMap((f) => ['--state', f]);
  const [e, f] = await Promise.all([
    runCli(['explain', ...state, '--now', now, '--to', `${DAYS}d`, '--output', 'json', c.profiles], ROOT),
    runCli(['forecast', ...state, '--now', now, '--days', String(DAYS), '--output', 'json'], ROOT),
  ]);
  if (e.code !== 0 || f.code !== 0) throw new Error(`explain: ${e.stderr} forecast: ${f.stderr}`);
  const report = JSON.parse(e.stdout) as ExplainReport;
  const explained = report.profiles.flatMap((p) => p.maintenance!.shoots);
  const profiles = new Set(
    report.profiles.map((p) =>
      p.kind === 'CloudProfile' ? `CloudProfile/${p.name}` : `NamespacedCloudProfile/${p.namespace}/${p.name}`,
    ),
  );
  const forecast = (JSON.parse(f.stdout) as ForecastJson).shoots.filter(
    (s) => profiles.has(s.profile) && s.events.length > 0,
  );
  const byShoot = (a: MaintenanceShoot, b: MaintenanceShoot) => (a.shoot < b.shoot ? -1 : a.shoot > b.shoot ? 1 : 0);
  return { explained: explained.sort(byShoot), forecast: forecast.sort(byShoot) };
}

/** The demo state with each proposed profile of `file` in place of the one of the same kind and name. */
async function proposedState(file: string, dir: string): Promise<string> {
  const proposed = (await readObjectFile(file)).map((o) => o.object);
  const ids = new Set(proposed.map((o) => `${o.kind}/${objectKey(o)}`));
  const kept = (await readObjectFile(`${FIXTURES}/demo-state.yaml`))
    .map((o) => o.object)
    .filter((o) => !ids.has(`${o.kind}/${objectKey(o)}`));
  const out = join(dir, `state-${file.replace(/\W+/g, '-')}.yaml`);
  await writeFile(out, [...kept, ...proposed].map((o) => stringify(o)).join('---\n'));
  return out;
}

t.test('explain and forecast agree: the same Shoots, steps and dates', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'explain-forecast-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const proposals = (await readdir(join(ROOT, FIXTURES)))
    .filter((f) => /^forecast-.*\.yaml$/.test(f))
    .map((f) => `${FIXTURES}/${f}`);
  t.ok(proposals.length > 0, `forecast fixtures: ${proposals.join(', ')}`);
  const cases: Case[] = [
    // The demo state names every profile of the demo: explain them all.
    { name: 'the demo', state: [`${FIXTURES}/demo-state.yaml`], profiles: `${FIXTURES}/demo-state.yaml` },
    ...(await Promise.all(
      proposals.map(async (p) => ({ name: p, state: [await proposedState(p, dir)], profiles: p })),
    )),
    ...['profile.yaml', 'ncp.yaml'].map((file) => ({
      name: `the explain fixture ${file}`,
      state: [`${FIXTURES}/explain/profile.yaml`, `${FIXTURES}/explain/shoots.yaml`],
      profiles: `${FIXTURES}/explain/${file}`,
    })),
    {
      name: 'the timeline fixtures',
      state: [`${FIXTURES}/timeline/demo-state.yaml`],
      profiles: `${FIXTURES}/timeline/demo-profile.yaml`,
    },
  ];
  for (const c of cases) {
    for (const now of NOWS) {
      const { explained, forecast } = await both(c, now);
      const steps = forecast.reduce((n, s) => n + s.events.length, 0);
      t.ok(steps > 0, `${c.name} at ${now}: ${steps} steps to compare`);
      t.same(explained, forecast, `${c.name} at ${now}: the same Shoots, steps and dates`);
    }
  }
});

t.test("the demo of issue 35: the first night's auto-updates, never called forced", async (t) => {
  const now = '2026-09-01T00:00:00Z';
  const { explained } = await both(
    { name: 'demo', state: [`${FIXTURES}/demo-state.yaml`], profiles: `${FIXTURES}/demo-aws.yaml` },
    now,
  );
  const first = (shoot: string) => explained.find((s) => s.shoot === shoot)?.events[0];
  for (const [shoot, at] of [
    ['garden-prod/payments', '2026-09-01T02:00:00Z'],
    ['garden-dev/dev-cluster', '2026-09-01T22:00:00Z'],
  ] as const)
    t.match(first(shoot), { mode: 'auto', from: '1.31.7', to: '1.31.9', at }, `${shoot}: auto-updated that night`);
  const text = await runCli(
    ['explain', '--state', `${FIXTURES}/demo-state.yaml`, '--now', now, `${FIXTURES}/demo-aws.yaml`],
    ROOT,
  );
  const rows = text.stdout.split('\n').filter((l) => l.includes('kubernetes 1.31.7'));
  t.equal(rows.length, 2);
  for (const row of rows) {
    t.match(row, /\bauto\b/, 'said as an auto-update');
    t.notMatch(row, /\bforced\b/, 'never called forced');
    t.match(row, '1.31.7 expires 2027-01-31T23:59:59Z, after this step', 'the expiry shown as such');
  }
});
