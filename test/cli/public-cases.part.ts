// One public case per rule, operation and verdict through the built CLI (every case runs through
// evaluate() in test/policy/public-cases.part.ts; this proves the CLI's plumbing): the case's object (its oldObject with --delete) in a
// file, its cluster state in --state (an empty List where the case has none: a landscape with
// nothing in it, which is not the same as no state at all), --now, --feature-gates and a --config
// that turns lifecycle defaulting on only for DEFAULT-LIFECYCLE cases. The JSON verdict must meet
// the case (skipped while a rule is pending) and must equal what evaluate() answers in-process
// (always).
//
// A CLI run judges each file against the state alone, so cases with the same state and settings
// share one run; the runs go two at a time to keep this file fast on a shared machine.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import t from '../helpers/parts.js';
import type { CheckResult } from '../../src/cli/check-output.js';
import { caseInput, caseState, loadCases, mismatches, type PolicyCase } from '../helpers/cases.js';
import { decide } from '../helpers/objects.js';
import { type CliRun, runCli, tempDir, writeFiles, yamlDocs } from '../helpers/run-cli.js';

// Dozens of CLI runs over every public case: tap's 120 s per file is not enough on a machine that
// other test runs share; a generous bound, not a figure.
t.setTimeout(300_000);

interface Batch {
  cases: PolicyCase[];
  now: string;
  gate: boolean;
  lifecycleDefaulting: boolean;
  isDelete: boolean;
  state: unknown[];
}

interface BatchRun extends CliRun {
  results?: CheckResult[];
}

const lifecycleDefaultingFor = (c: PolicyCase) => c.rule === 'DEFAULT-LIFECYCLE';

/** Cases that can share one CLI run: same state, instant, gate, defaulting and operation kind. */
function batches(cases: readonly PolicyCase[]): Batch[] {
  const byKey = new Map<string, Batch>();
  for (const c of cases) {
    const b: Omit<Batch, 'cases'> = {
      now: c.now,
      gate: c.featureGates.VersionClassificationLifecycle,
      lifecycleDefaulting: lifecycleDefaultingFor(c),
      isDelete: c.operation === 'DELETE',
      state: caseState(c),
    };
    const key = JSON.stringify(b);
    const found = byKey.get(key);
    if (found) found.cases.push(c);
    else byKey.set(key, { ...b, cases: [c] });
  }
  return [...byKey.values()];
}

async function judge(root: string, b: Batch, n: number): Promise<BatchRun> {
  const dir = join(root, `batch-${n}`);
  const objects = b.cases.map((c, i) => [`case-${i}.yaml`, yamlDocs(b.isDelete ? c.oldObject : c.object)] as const);
  await mkdir(dir);
  await writeFiles(dir, {
    'config.yaml': `defaulting: {lifecycle: {enabled: ${b.lifecycleDefaulting}}}\n`,
    'state.yaml': b.state.length > 0 ? yamlDocs(...b.state) : yamlDocs({ apiVersion: 'v1', kind: 'List', items: [] }),
    ...Object.fromEntries(objects),
  });
  const run = await runCli(
    [
      'check',
      '--output',
      'json',
      '--now',
      b.now,
      '--feature-gates',
      `VersionClassificationLifecycle=${b.gate}`,
      '--config',
      'config.yaml',
      '--state',
      'state.yaml',
      ...(b.isDelete ? ['--delete'] : []),
      ...objects.map(([file]) => file),
    ],
    dir,
  );
  if (run.code !== 0 && run.code !== 1) return run;
  return { ...run, results: (JSON.parse(run.stdout) as { results: CheckResult[] }).results };
}

async function inPairs<T, R>(items: readonly T[], work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await work(items[i] as T, i);
  };
  await Promise.all([worker(), worker()]);
  return out;
}

/** The first case of each rule, operation and expected verdict: both sides of every rule. */
function representatives(cases: readonly PolicyCase[]): PolicyCase[] {
  const seen = new Set<string>();
  return cases.filter((c) => {
    const key = `${c.rule} ${c.operation} ${c.expect.allowed}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const all = batches(representatives(loadCases()));
const root = await tempDir(t, 'version-policy-cases-');
const runs = await inPairs(all, (b, n) => judge(root, b, n));

all.forEach((batch, n) => {
  const run = runs[n] as BatchRun;
  batch.cases.forEach((c, i) => {
    t.test(`${c.id} [${c.rule}]`, async (t) => {
      t.ok(run.results, 'the CLI judged the batch', { code: run.code, stderr: run.stderr });
      t.equal(run.results?.length, batch.cases.length, 'one result per case file');
      t.equal(run.code, run.results?.every((r) => r.allowed) ? 0 : 1, 'the exit code follows the verdicts');
      const got = run.results?.[i];
      if (!got) return;
      t.match(got, { kind: c.kind, operation: c.operation }, 'the state made it the case operation');

      t.test('same answer as evaluate()', async (t) => {
        const want = decide(caseInput(c, lifecycleDefaultingFor(c)));
        t.same(
          {
            allowed: got.allowed,
            // The line of each field is check's own (where a pull request shows it): a positive number.
            violations: got.violations.map(({ line, ...v }) =>
              Number.isInteger(line) && (line ?? 0) >= 1 ? v : { ...v, line },
            ),
            // The Shoot-by-Shoot forecast's findings are check's own (check-forecast.test.ts).
            warnings: got.warnings.filter((w) => !w.startsWith('forecast: ')),
            notes: got.notes,
            object: got.object,
          },
          // --output json carries every warning, not only those within the webhook's budget.
          {
            allowed: want.allowed,
            violations: want.violations,
            warnings: want.allWarnings,
            notes: [],
            object: want.object ?? null,
          },
        );
      });
      t.test('meets the case', async (t) => {
        t.same(mismatches(c, got), []);
      });
    });
  });
});
