// Every bad input to `check` exits 2 with one line on stderr that names the file (and the line,
// where the parser gives one), nothing on stdout (or, with --output json|junit, the error in that
// format), and never a stack trace.
import { mkdir } from 'node:fs/promises';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import t from '../helpers/parts.js';
import { cloudProfile, shoot } from '../helpers/objects.js';
import { tempDir, writeFiles, yamlDocs } from '../helpers/run-cli.js';
import { fewAtATime, runCheckCli } from './check-run.js';

// About 40 cold CLI starts (~12 s of CPU): tap's 120 s per file is not enough on a machine that
// other test runs share; a generous bound, not a figure.
t.setTimeout(300_000);

const good = yamlDocs(cloudProfile({ name: 'aws' }));
/** `good` with one line replaced: the fixtures differ from a valid profile in one place only. */
const edited = (from: RegExp, to: string) => {
  const text = good.replace(from, to);
  if (text === good) throw new Error(`fixture edit ${String(from)} matched nothing`);
  return text;
};
const lineOf = (text: string, needle: string) => text.slice(0, text.indexOf(needle)).split('\n').length;

const versionIsNumber = edited(/- version: .*\n/, '- version: 1.30\n');
const versionsNotList = edited(/versions:\n {6}- version: .*\n/, 'versions: "1.30.0"\n');

interface BadInput {
  what: string;
  files?: Record<string, string>;
  /** Standard input. */
  input?: string;
  args: string[];
  stderr: RegExp;
}

const BAD: BadInput[] = [
  { what: 'an empty file', files: { 'empty.yaml': '' }, args: ['empty.yaml'], stderr: /empty\.yaml: file is empty/ },
  {
    what: 'only comments',
    files: { 'comments.yaml': '# nothing here\n---\n' },
    args: ['comments.yaml'],
    stderr: /comments\.yaml: contains no CloudProfile/,
  },
  {
    what: 'text that is not YAML',
    files: { 'bad.yaml': 'kind: [CloudProfile\nmetadata: {name: x\n' },
    args: ['bad.yaml'],
    stderr: /bad\.yaml:\d+: not valid YAML: /,
  },
  {
    what: 'prose',
    files: { 'prose.yaml': 'Please check my profile.\n' },
    args: ['prose.yaml'],
    stderr: /prose\.yaml:1: expected a Kubernetes object, found string/,
  },
  {
    what: 'the wrong apiVersion',
    files: { 'api.yaml': edited(/v1beta1/, 'v1') },
    args: ['api.yaml'],
    stderr: /api\.yaml:1: invalid CloudProfile "aws": apiVersion: must be "core\.gardener\.cloud\/v1beta1"/,
  },
  {
    what: 'another kind with --strict-kinds',
    files: { 'kind.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: aws}\n' },
    args: ['--strict-kinds', 'kind.yaml'],
    stderr: /kind\.yaml:2: unsupported kind "ConfigMap"/,
  },
  {
    what: 'a document without a kind',
    files: { 'nokind.yaml': 'apiVersion: v1\nmetadata: {name: aws}\n' },
    args: ['nokind.yaml'],
    stderr: /nokind\.yaml:1: unsupported kind null/,
  },
  { what: 'an empty standard input', args: ['-'], stderr: /<stdin>: file is empty/ },
  { what: 'bad YAML on standard input', input: 'kind: [\n', args: ['-'], stderr: /<stdin>:\d+: not valid YAML/ },
  {
    what: 'standard input named twice',
    input: good,
    args: ['-', '-'],
    stderr: /standard input \(-\) can be read only once/,
  },
  {
    what: 'an --old file with bad content',
    files: { 'ok.yaml': good, 'old.yaml': versionIsNumber },
    args: ['--old', 'old.yaml', 'ok.yaml'],
    stderr: /old\.yaml:\d+: invalid CloudProfile "aws"/,
  },
  {
    what: 'an object without spec',
    files: { 'nospec.yaml': edited(/spec:[\s\S]*/, '') },
    args: ['nospec.yaml'],
    stderr: /nospec\.yaml:1: invalid CloudProfile "aws": spec: required field is missing/,
  },
  {
    what: 'versions that is not a list',
    files: { 'versions.yaml': versionsNotList },
    args: ['versions.yaml'],
    stderr: new RegExp(
      `versions\\.yaml:${lineOf(versionsNotList, 'versions: "1.30.0"')}: invalid CloudProfile "aws": spec\\.kubernetes\\.versions: must be array`,
    ),
  },
  {
    what: 'a version that is a number',
    files: { 'number.yaml': versionIsNumber },
    args: ['number.yaml'],
    stderr: new RegExp(
      `number\\.yaml:${lineOf(versionIsNumber, '1.30\n')}: invalid CloudProfile "aws": spec\\.kubernetes\\.versions\\[0\\]\\.version: must be string, found 1\\.30 \\(quote it: "1\\.30"\\)`,
    ),
  },
  {
    what: 'a bad object in the second document of a file',
    files: { 'multi.yaml': yamlDocs(shoot({ profile: 'aws' }), { ...cloudProfile({ name: 'gcp' }), spec: undefined }) },
    args: ['multi.yaml'],
    stderr: /multi\.yaml:\d+: invalid CloudProfile "gcp": spec: required field is missing/,
  },
  { what: 'a missing file', args: ['nope.yaml'], stderr: /nope\.yaml: cannot read: no such file/ },
  {
    what: 'a folder without a manifest',
    files: { 'sub/notes.txt': 'x\n', 'sub/.hidden/p.yaml': good },
    args: ['sub'],
    stderr: /^version-policy: sub: a folder with no \.yaml, \.yml or \.json file$/m,
  },
  {
    what: 'a path that names nothing',
    files: { 'ok.yaml': good },
    args: ['gone/'],
    stderr: /gone\/: cannot read: no such file/,
  },
  {
    what: 'a glob that matches nothing',
    files: { 'ok.yaml': good },
    args: ['profiles/**/*.yaml'],
    stderr: /^version-policy: profiles\/\*\*\/\*\.yaml: matches no file$/m,
  },
  {
    what: 'an empty List (like a file of bare ---, it holds nothing to judge)',
    files: { 'list.yaml': 'apiVersion: v1\nkind: List\nitems: []\n' },
    args: ['list.yaml'],
    stderr: /list\.yaml: contains no CloudProfile, NamespacedCloudProfile or Shoot/,
  },
  {
    what: 'a misspelt kind of core.gardener.cloud',
    files: { 'typo.yaml': edited(/kind: CloudProfile/, 'kind: CloudProfiles') },
    args: ['typo.yaml'],
    stderr:
      /typo\.yaml:2: unknown kind "CloudProfiles" in core\.gardener\.cloud \(did you mean "CloudProfile"\?\): Gardener has no such kind/,
  },
  {
    what: 'standard input with --old-ref',
    input: good,
    args: ['--old-ref', 'HEAD', '-'],
    stderr: /git revision HEAD is read at the same paths as the new side: standard input \(-\) has none/,
  },
  {
    what: 'an absolute path with --old-root',
    files: { 'ok.yaml': good },
    args: ['--old-root', 'old', '/etc/profiles'],
    stderr: /--old-root old reads the same paths on the old side: give them relative, not \/etc\/profiles/,
  },
  {
    what: '--old-ref with --old',
    files: { 'ok.yaml': good },
    args: ['--old-ref', 'HEAD', '--old', 'ok.yaml', 'ok.yaml'],
    stderr: /option '--old <file\|ref:path>' cannot be used with option '--old-ref <ref>'/,
  },
  {
    what: 'a --sarif file that cannot be written',
    files: { 'ok.yaml': good },
    args: ['--sarif', 'no/such/dir/report.sarif', 'ok.yaml'],
    stderr: /--sarif no\/such\/dir\/report\.sarif: cannot write the report/,
  },
  {
    what: 'a --state file with bad content',
    files: { 'ok.yaml': good, 'state.yaml': versionIsNumber },
    args: ['--state', 'state.yaml', 'ok.yaml'],
    stderr: /state\.yaml:\d+: invalid CloudProfile "aws"/,
  },
  {
    what: 'a missing --state file',
    files: { 'ok.yaml': good },
    args: ['--state', 'gone.yaml', 'ok.yaml'],
    stderr: /gone\.yaml: cannot read: no such file/,
  },
  {
    what: 'several bad files (the first named is reported)',
    files: { 'a.yaml': '', 'b.yaml': versionIsNumber },
    args: ['b.yaml', 'a.yaml'],
    stderr: /b\.yaml:\d+: invalid CloudProfile/,
  },
  {
    what: 'a bad --state file and a bad file (the state is reported)',
    files: { 'a.yaml': '', 'state.yaml': 'kind: [\n' },
    args: ['--state', 'state.yaml', 'a.yaml'],
    stderr: /state\.yaml:\d+: not valid YAML/,
  },
  {
    what: 'an unknown flag',
    files: { 'ok.yaml': good },
    args: ['--frobnicate', 'ok.yaml'],
    stderr: /unknown option '--frobnicate'/,
  },
  {
    what: "a misspelt flag (commander's suggestion joined onto the line)",
    files: { 'ok.yaml': good },
    args: ['--nw', '2026-09-01T00:00:00Z', 'ok.yaml'],
    stderr: /unknown option '--nw'.*Did you mean --now\?/,
  },
  { what: 'no PATH', args: [], stderr: /missing required argument 'path'/ },
  {
    what: 'a --now without an offset',
    files: { 'ok.yaml': good },
    args: ['--now', '2026-09-01T00:00:00', 'ok.yaml'],
    stderr: /--now.*not an RFC 3339 timestamp/,
  },
  {
    what: 'a --now that is a date only',
    files: { 'ok.yaml': good },
    args: ['--now', '2026-09-01', 'ok.yaml'],
    stderr: /--now.*not an RFC 3339 timestamp/,
  },
  {
    what: 'a --now on a day that does not exist',
    files: { 'ok.yaml': good },
    args: ['--now', '2026-02-30T00:00:00Z', 'ok.yaml'],
    stderr: /--now.*not an RFC 3339 timestamp/,
  },
  {
    what: 'an unknown feature gate',
    files: { 'ok.yaml': good },
    args: ['--feature-gates', 'Foo=true', 'ok.yaml'],
    stderr: /unknown feature gate "Foo"/,
  },
  {
    what: 'a feature gate without true|false',
    files: { 'ok.yaml': good },
    args: ['--feature-gates', 'VersionClassificationLifecycle=on', 'ok.yaml'],
    stderr: /VersionClassificationLifecycle needs =true or =false/,
  },
  {
    what: 'an unknown output format',
    files: { 'ok.yaml': good },
    args: ['--output', 'yaml', 'ok.yaml'],
    stderr: /--output.*Allowed choices are text, json, junit, sarif, github/,
  },
  {
    what: 'a config with an unknown key',
    files: { 'ok.yaml': good, 'cfg.yaml': 'featureGate: {}\n' },
    args: ['--config', 'cfg.yaml', 'ok.yaml'],
    stderr:
      /cfg\.yaml: \(top level\): unknown key "featureGate" \(did you mean "featureGates"\?\); allowed: featureGates, rules, /,
  },
  {
    what: 'a config that is not YAML',
    files: { 'ok.yaml': good, 'cfg.yaml': 'rules: [\n' },
    args: ['--config', 'cfg.yaml', 'ok.yaml'],
    stderr: /cfg\.yaml: not valid YAML/,
  },
  {
    what: 'a missing config',
    files: { 'ok.yaml': good },
    args: ['--config', 'gone.yaml', 'ok.yaml'],
    stderr: /gone\.yaml: cannot read config file/,
  },
  {
    what: '--state together with --cluster',
    files: { 'ok.yaml': good },
    args: ['--state', 'ok.yaml', '--cluster', 'ok.yaml'],
    stderr: /'--state <file>' cannot be used with option '--cluster'/,
  },
  {
    what: '--cluster with an unreadable kubeconfig',
    files: { 'ok.yaml': good, 'cfg.yaml': 'cluster: {kubeconfig: /nonexistent/kubeconfig}\n' },
    args: ['--cluster', '--config', 'cfg.yaml', 'ok.yaml'],
    stderr: /^version-policy: cannot read the cluster state: /,
  },
];

/** Each case in its own directory, three CLI runs at a time: one cold node start each. */
const root = await tempDir(t);
async function runAll(label: string, cases: readonly BadInput[], args: (bad: BadInput) => string[]) {
  return fewAtATime(cases, async (bad, i) => {
    const dir = `${root}/${label}-${i}`;
    await mkdir(dir);
    await writeFiles(dir, bad.files ?? {});
    return runCheckCli(['check', ...args(bad)], { cwd: dir, ...(bad.input === undefined ? {} : { input: bad.input }) });
  });
}

// Both runs before any test is registered: the root directory goes when the tests end.
const textRuns = await runAll('text', BAD, (bad) => bad.args);
// One of each kind of error with --output json: the error is a document on stdout too.
const JSON_CASES = BAD.filter((b) =>
  [
    'a version that is a number',
    'a missing file',
    'bad YAML on standard input',
    'an unknown flag',
    '--cluster with an unreadable kubeconfig',
  ].includes(b.what),
);
const jsonRuns = await runAll('json', JSON_CASES, (bad) => ['--output', 'json', ...bad.args]);

BAD.forEach((bad, i) => {
  t.test(`exit 2 for ${bad.what}`, async (t) => {
    const run = textRuns[i]!;
    t.equal(run.code, 2, 'exit code');
    t.equal(run.stdout, '', 'no verdicts on stdout');
    t.match(run.stderr, /^[^\n]+\n$/, 'exactly one line on stderr');
    t.notMatch(run.stderr, /\bat .*\(.*:\d+:\d+\)|internal error/, 'no stack trace');
    t.match(run.stderr, bad.stderr, 'the message says what and where');
  });
});

t.test('with --output json every error is JSON on stdout, with the same exit code and line on stderr', async (t) => {
  t.equal(JSON_CASES.length, 5, 'every case picked is in the table');
  JSON_CASES.forEach((bad, i) => {
    const run = jsonRuns[i]!;
    t.equal(run.code, 2, `${bad.what}: exit 2`);
    t.match(run.stderr, bad.stderr, `${bad.what}: the line on stderr`);
    let parsed: { error?: { message?: unknown; file?: unknown; line?: unknown } } = {};
    t.doesNotThrow(() => (parsed = JSON.parse(run.stdout) as typeof parsed), `${bad.what}: stdout is JSON`);
    t.same(Object.keys(parsed), ['error'], `${bad.what}: an error object`);
    t.match(
      String(parsed.error?.message),
      new RegExp(bad.stderr.source.replace(/^\^version-policy: /, '')),
      `${bad.what}: the same message`,
    );
    t.ok(run.stderr.includes(String(parsed.error?.message)), `${bad.what}: the message is the stderr line's`);
  });
  const numberCase = jsonRuns[JSON_CASES.findIndex((b) => b.what === 'a version that is a number')];
  t.match(
    JSON.parse(numberCase?.stdout ?? '{}'),
    { error: { file: 'number.yaml', line: lineOf(versionIsNumber, '1.30\n') } },
    'the place as data',
  );
});

t.test('with --output junit an error is a report with one errored case', async (t) => {
  const dir = await tempDir(t);
  await writeFiles(dir, { 'bad.yaml': 'kind: [\n' });
  const [file, flag] = await Promise.all([
    runCheckCli(['check', '--output', 'junit', 'bad.yaml'], { cwd: dir }),
    runCheckCli(['check', '--output=junit', '--frobnicate', 'bad.yaml'], { cwd: dir }),
  ]);
  for (const run of [file, flag]) {
    t.equal(run.code, 2);
    t.equal(XMLValidator.validate(run.stdout), true);
    const doc = new XMLParser({ ignoreAttributes: false }).parse(run.stdout) as {
      testsuites: { '@_errors': string; testsuite: { testcase: { error: { '@_message': string } } } };
    };
    t.equal(doc.testsuites['@_errors'], '1');
    t.ok(run.stderr.includes(doc.testsuites.testsuite.testcase.error['@_message']), 'the message of the stderr line');
  }
  t.match(file.stdout, /<testsuite name="bad\.yaml"/);
  t.match(flag.stderr, /unknown option '--frobnicate'/);
});
