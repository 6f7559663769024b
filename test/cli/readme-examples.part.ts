// The README's and its docs' examples are real runs: the `explain` command of docs/explain.md and
// the `check` commands of docs/check.md are run here (main() in-process) and must print what the
// pages show, and the README's webhook answer to the demo review must be the policy's. The demo
// fixtures they use must agree with the demo state.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import t from '../helpers/parts.js';
import type { CheckResult } from '../../src/cli/check-output.js';
import { readObjectFile } from '../../src/cluster/object-files.js';
import { loadStaticState } from '../../src/cluster/static-state.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { formatDenial } from '../../src/policy/decision.js';
import type { CloudProfile } from '../../src/api/types.js';
import { loadConfig } from '../../src/config.js';
import { NOW } from '../helpers/objects.js';
import { runCli } from '../helpers/run-cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const page = (path: string) => readFile(new URL(`../../${path}`, import.meta.url), 'utf8');
const readme = () => page('README.md');

/** The text between `from` (a line that starts a block's content) and the block's closing fence. */
function blockFrom(text: string, from: string): string {
  const start = text.indexOf(from);
  if (start < 0) throw new Error(`no block starting ${JSON.stringify(from)}`);
  return text.slice(start, text.indexOf('\n```', start) + 1);
}

/** A shell command as the README writes it (backslash continuations, no quoting) → its arguments. */
const argsOf = (command: string) => command.replace(/\\\n/g, ' ').trim().split(/\s+/).slice(1);

const profileIn = async (file: string) =>
  (await readObjectFile(file)).map((o) => o.object).find((o): o is CloudProfile => o.kind === 'CloudProfile');
const withoutServerFields = (p: CloudProfile | undefined) => p && { ...p, metadata: { name: p.metadata.name } };

t.test("the demo profiles are the demo state's profile and the demo review's change", async (t) => {
  const state = await loadStaticState([fixture('demo-state.yaml')]);
  const review = JSON.parse(await readFile(fixture('review-remove-version-in-use.json'), 'utf8')) as {
    request: { object: CloudProfile };
  };
  t.same(
    await profileIn(fixture('demo-aws.yaml')),
    withoutServerFields(state.cloudProfile('aws')),
    'demo-aws.yaml is the stored profile',
  );
  t.same(
    await profileIn(fixture('demo-aws-without-1.31.7.yaml')),
    withoutServerFields(review.request.object),
    'demo-aws-without-1.31.7.yaml is the reviewed one',
  );
});

t.test('the examples of docs/explain.md and docs/check.md print what the pages show', async (t) => {
  const [explainPage, checkPage] = await Promise.all([page('docs/explain.md'), page('docs/check.md')]);
  const explainBlock = blockFrom(explainPage, '$ version-policy explain ');
  const [explainCommand = '', ...explainOutput] = explainBlock.split('\n');
  const checkCommand = blockFrom(checkPage, 'version-policy check \\\n');
  const checkOutput = blockFrom(checkPage.slice(checkPage.indexOf(checkCommand)), '{\n  "results"');
  const [explain, check] = await Promise.all([
    runCli(argsOf(explainCommand.slice(2)), ROOT),
    runCli(argsOf(checkCommand), ROOT),
  ]);

  t.equal(explain.code, 0, explain.stderr);
  t.equal(explain.stdout, explainOutput.join('\n'), 'explain: docs/explain.md shows the output of its command');

  t.equal(check.code, 1, 'check: the release is denied');
  const shown = (JSON.parse(checkOutput) as { results: CheckResult[] }).results;
  const got = (JSON.parse(check.stdout) as { results: CheckResult[] }).results;
  // The page shortens `object`; everything else is as printed.
  t.same(
    shown.map(({ object: _, ...r }) => r),
    got.map(({ object: _, ...r }) => r),
    'check: docs/check.md shows the output of its command',
  );
  t.same(
    shown.map((r) => [r.object?.apiVersion, r.object?.kind]),
    got.map((r) => [r.object?.apiVersion, r.object?.kind]),
  );
});

t.test("docs/check.md's transcripts of the forecast print what the page shows", async (t) => {
  const checkPage = await page('docs/check.md');
  const runs = [...checkPage.matchAll(/^```console\n\$ (version-policy check [^\n]*)\n([\s\S]*?)^```$/gm)];
  t.equal(runs.length, 2, 'the warning, then the gate');
  const [warned, gated] = await Promise.all(runs.map((m) => runCli(argsOf(m[1] ?? ''), ROOT)));
  t.equal(warned?.code, 0, 'a warning does not fail the run');
  t.equal(warned?.stdout, runs[0]?.[2]);
  t.equal(gated?.code, 1, 'forecast.deny denies');
  t.equal(gated?.stdout, runs[1]?.[2]);
});

t.test("the README's webhook answer to the demo review is the policy's", async (t) => {
  const text = await readme();
  const answer = JSON.parse(
    blockFrom(text, '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response"'),
  ) as { response: { allowed: boolean; status: { message: string } } };
  const review = JSON.parse(await readFile(fixture('review-remove-version-in-use.json'), 'utf8')) as {
    request: { object: CloudProfile; oldObject: CloudProfile };
  };
  const state = await loadStaticState([fixture('demo-state.yaml')]);
  const { object, oldObject } = review.request;
  // `npm start` runs with the demo config: the product defaults, the timeline pages on.
  const decision = evaluate(
    { operation: 'UPDATE', kind: 'CloudProfile', name: 'aws', object, oldObject, dryRun: false },
    { now: NOW, config: await loadConfig(fixture('demo-config.yaml')), state },
  );
  t.equal(answer.response.allowed, decision.allowed);
  t.equal(answer.response.status.message, formatDenial(decision.violations));
});
