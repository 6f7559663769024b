// `check --output sarif` and `--output github`: the SARIF log validates against the SARIF 2.1.0
// schema (from an npm package, test/helpers/sarif-schema.ts) and the annotations are workflow
// commands as the runner parses them; both put each finding at its file and the line of its field.
// First on verdicts built by hand, so every kind of finding shows up, then on real files.
import { readFile } from 'node:fs/promises';
import t from '../helpers/parts.js';
import { forecastWarnings } from '../../src/cli/check-forecast.js';
import { type JudgedObject, render, renderError } from '../../src/cli/check-output.js';
import type { LocatedFinding } from '../../src/cli/check-report.js';
import { cloudProfile } from '../helpers/objects.js';
import { tempDir, writeFiles, yamlDocs } from '../helpers/run-cli.js';
import { sarifProblems } from '../helpers/sarif-schema.js';
import { runCheckCli } from './check-run.js';
import { lineOf } from './ci-guide-examples.js';

const finding: LocatedFinding = {
  change: 'new',
  shoot: 'garden-dev/web',
  component: 'control plane',
  list: 'Kubernetes',
  at: '2026-12-11T22:00:00Z',
  mode: 'forced',
  from: '1.31.5',
  to: '1.32.0',
  trigger: '1.31.5 expired',
  field: 'spec.kubernetes.versions[1]',
  line: 18,
};

const denied: JudgedObject = {
  file: 'profiles/gcp/gcp.yaml',
  document: 2,
  line: 12,
  kind: 'CloudProfile',
  namespace: null,
  name: 'gcp',
  operation: 'UPDATE',
  allowed: false,
  violations: [
    {
      rule: 'K8S-VERSIONS',
      field: 'spec.kubernetes.versions[2].version',
      message: 'duplicate value "1.31.5"',
      line: 20,
    },
    { rule: 'IN-USE', field: '', message: 'first line\nsecond: 100%, done' },
  ],
  warnings: [...forecastWarnings([finding]).map((w) => w.text), 'a deprecated version'],
  shownWarnings: [],
  notes: ['IN-USE was not checked: no --state or --cluster was given'],
  defaulted: [],
  forecast: [finding],
  object: cloudProfile({ name: 'gcp' }),
};
const fromStdin: JudgedObject = { ...denied, file: '<stdin>', forecast: [], warnings: [], notes: [] };
const removed: JudgedObject = {
  ...denied,
  file: 'HEAD~1:profiles/with space/old.yaml',
  operation: 'DELETE',
  violations: [{ rule: 'IN-USE', field: 'spec', message: 'in use', line: 1 }],
  forecast: [],
  warnings: [],
  notes: [],
};
const absolute: JudgedObject = { ...removed, file: '/tmp/x y.yaml', operation: 'CREATE' };

interface Sarif {
  runs: Array<{
    tool: { driver: { rules: Array<{ id: string; helpUri: string }> } };
    invocations: Array<{ executionSuccessful: boolean; toolExecutionNotifications?: unknown[] }>;
    results: Array<{
      ruleId: string;
      ruleIndex: number;
      level: string;
      message: { text: string };
      locations?: Array<{
        physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string }; region: { startLine: number } };
      }>;
    }>;
  }>;
}

t.test('sarif: a valid 2.1.0 log, each finding at its file and line', async (t) => {
  const text = render({ results: [denied, fromStdin, removed, absolute], skipped: [] }, 'sarif');
  const log = JSON.parse(text) as Sarif;
  t.same(sarifProblems(log), [], 'validates against the SARIF 2.1.0 schema');
  const run = log.runs[0];
  const at = (i: number) => {
    const l = run?.results[i]?.locations?.[0]?.physicalLocation;
    return l && [l.artifactLocation.uri, l.artifactLocation.uriBaseId, l.region.startLine];
  };
  t.same(
    run?.results.slice(0, 5).map((r) => [r.ruleId, r.level]),
    [
      ['K8S-VERSIONS', 'error'],
      ['IN-USE', 'error'],
      ['FORECAST', 'warning'],
      ['WARNING', 'warning'],
      ['NOT-CHECKED', 'note'],
    ],
  );
  t.same(at(0), ['profiles/gcp/gcp.yaml', '%SRCROOT%', 20], "the violation at its field's line");
  t.same(at(1), ['profiles/gcp/gcp.yaml', '%SRCROOT%', 12], 'no line of its own: the object');
  t.same(at(2), ['profiles/gcp/gcp.yaml', '%SRCROOT%', 18], "the forecast finding at its version's line");
  t.match(
    run?.results[2]?.message.text,
    /^CloudProfile gcp \(UPDATE\): forecast: forced update of Kubernetes 1\.31\.5 → 1\.32\.0 on 2026-12-11 for 1 Shoot/,
  );
  t.notOk(run?.results[3]?.message.text.includes('forecast:'), 'the forecast warning once, as FORECAST');
  t.equal(run?.results[5]?.locations, undefined, 'standard input: no location');
  t.same(at(7), ['profiles/with%20space/old.yaml', '%SRCROOT%', 1], 'a removed file: its path, without the revision');
  t.same(at(8), ['file:///tmp/x%20y.yaml', undefined, 1], 'an absolute path: a file URL');
  const ids = run?.tool.driver.rules.map((r) => r.id);
  t.same(ids, ['K8S-VERSIONS', 'IN-USE', 'FORECAST', 'WARNING', 'NOT-CHECKED']);
  for (const r of run?.results ?? []) t.equal(ids?.[r.ruleIndex], r.ruleId, `ruleIndex of ${r.ruleId}`);
  t.match(run?.tool.driver.rules[0]?.helpUri, /\/docs\/rules\.md#k8s-versions$/);
  t.same(run?.invocations, [{ executionSuccessful: true }]);
});

t.test('sarif: an error is a failed invocation with its notification, still valid', async (t) => {
  const log = JSON.parse(
    renderError({ message: 'bad.yaml:3: not valid YAML', file: 'bad.yaml', line: 3 }, 'sarif'),
  ) as Sarif;
  t.same(sarifProblems(log), []);
  t.match(log.runs[0]?.invocations, [{ executionSuccessful: false, toolExecutionNotifications: [{ level: 'error' }] }]);
  t.same(log.runs[0]?.results, []);
});

t.test('github: workflow commands, escaped as the runner unescapes them, then the text report', async (t) => {
  const out = render({ results: [denied, fromStdin], skipped: [] }, 'github');
  const lines = out.split('\n');
  t.equal(
    lines[0],
    '::error file=profiles/gcp/gcp.yaml,line=20,title=[K8S-VERSIONS] CloudProfile gcp (UPDATE)::spec.kubernetes.versions[2].version: duplicate value "1.31.5"',
  );
  t.equal(
    lines[1],
    '::error file=profiles/gcp/gcp.yaml,line=12,title=[IN-USE] CloudProfile gcp (UPDATE)::first line%0Asecond: 100%25, done',
    'a newline and a percent sign escaped in the message',
  );
  t.match(
    lines[2],
    /^::warning file=profiles\/gcp\/gcp\.yaml,line=18,title=\[FORECAST\] CloudProfile gcp \(UPDATE\)::forecast: forced update/,
  );
  t.equal(
    lines[3],
    '::warning file=profiles/gcp/gcp.yaml,line=12,title=CloudProfile gcp (UPDATE)::a deprecated version',
  );
  t.match(
    lines[4],
    /^::notice file=profiles\/gcp\/gcp\.yaml,line=12,title=not checked%3A CloudProfile gcp \(UPDATE\)::IN-USE was not checked/,
    'a colon escaped in a property',
  );
  t.match(lines[5], /^::error title=\[K8S-VERSIONS\] CloudProfile gcp \(UPDATE\)::/, 'standard input: no file');
  t.match(
    out,
    /^DENIED CloudProfile gcp \(UPDATE\) at profiles\/gcp\/gcp\.yaml:12 \(document 2\)$/m,
    'the text report follows',
  );
  t.equal(
    renderError({ message: 'x.yaml: file is empty', file: 'x.yaml' }, 'github'),
    '::error file=x.yaml,title=version-policy check could not judge::x.yaml: file is empty\n',
  );
});

t.test('on real files: the line of the entry, in a List item, in a later document; errors in the format', async (t) => {
  const dir = await tempDir(t);
  const dup = cloudProfile({ name: 'gcp', kubernetes: ['1.31.0', '1.31.5', '1.31.5'] });
  const list = { apiVersion: 'v1', kind: 'List', items: [cloudProfile({ name: 'ok' }), dup] };
  await writeFiles(dir, {
    'docs.yaml': `${yamlDocs(cloudProfile({ name: 'fine' }))}---\n${yamlDocs(dup)}`,
    'list.yaml': yamlDocs(list),
    'empty.yaml': '---\n',
  });
  const [github, sarif, bad] = await Promise.all([
    runCheckCli(['check', '--output', 'github', 'docs.yaml', 'list.yaml'], { cwd: dir }),
    runCheckCli(['check', '--output', 'sarif', 'docs.yaml', 'list.yaml'], { cwd: dir }),
    runCheckCli(['check', '--output', 'github', '--sarif', 'err.sarif', 'empty.yaml'], { cwd: dir }),
  ]);
  const docs = await readFile(`${dir}/docs.yaml`, 'utf8');
  const lst = await readFile(`${dir}/list.yaml`, 'utf8');
  t.equal(github.code, 1);
  t.match(
    github.stdout,
    `::error file=docs.yaml,line=${lineOf(docs, 'version: 1.31.5', 2)},title=[K8S-VERSIONS] CloudProfile gcp (CREATE)::`,
  );
  t.match(
    github.stdout,
    `::error file=list.yaml,line=${lineOf(lst, 'version: 1.31.5', 2)},title=[K8S-VERSIONS] CloudProfile gcp (CREATE)::`,
  );
  const log = JSON.parse(sarif.stdout) as Sarif;
  t.same(sarifProblems(log), []);
  t.same(
    log.runs[0]?.results
      .filter((r) => r.level === 'error')
      .map((r) => r.locations?.[0]?.physicalLocation.region.startLine),
    [lineOf(docs, 'version: 1.31.5', 2), lineOf(lst, 'version: 1.31.5', 2)],
  );
  t.equal(bad.code, 2);
  t.match(
    bad.stdout,
    /^::error file=empty\.yaml,title=version-policy check could not judge::empty\.yaml: contains no CloudProfile/,
  );
  const errLog = JSON.parse(await readFile(`${dir}/err.sarif`, 'utf8')) as Sarif;
  t.same(sarifProblems(errLog), [], '--sarif FILE holds the error, as a valid log');
  t.match(errLog.runs[0]?.invocations, [{ executionSuccessful: false }]);
});
