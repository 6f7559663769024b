// The three output formats of `check`, on verdicts built by hand so every line kind shows up
// whatever the rules say today (the end-to-end tests are in check*.test.ts).
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import t from '../helpers/parts.js';
import {
  type CheckReport,
  type JudgedObject,
  render,
  renderError,
  type SkippedResult,
  summarize,
} from '../../src/cli/check-output.js';
import { cloudProfile, shoot } from '../helpers/objects.js';

const denied: JudgedObject = {
  file: 'shoots.yaml',
  document: 2,
  line: 12,
  kind: 'Shoot',
  namespace: 'garden-dev',
  name: 'web',
  operation: 'UPDATE',
  allowed: false,
  violations: [
    {
      rule: 'SHOOT-NO-DOWNGRADE',
      field: 'spec.kubernetes.version',
      message: 'kubernetes version must not go down from "1.31.0" to "1.30.0"',
    },
    { rule: 'IN-USE', field: '', message: 'first line\nsecond line' },
  ],
  warnings: ['version "1.31.0" expires on 2026-09-20', 'a second warning beyond the budget'],
  shownWarnings: ['version "1.31.0" expires on 2026-09-20'],
  notes: [],
  defaulted: [],
  forecast: [],
  object: shoot({ name: 'web', version: '1.30.0' }),
};
const noted: JudgedObject = {
  file: 'profiles.yaml',
  document: 1,
  line: 1,
  kind: 'CloudProfile',
  namespace: null,
  name: 'aws',
  operation: 'DELETE',
  allowed: true,
  violations: [],
  warnings: [],
  shownWarnings: [],
  notes: ['IN-USE was not checked: no --state or --cluster was given'],
  defaulted: [],
  forecast: [],
  object: null,
};
const defaulted: JudgedObject = {
  ...noted,
  document: 3,
  line: 40,
  name: 'gcp',
  operation: 'CREATE',
  notes: [],
  defaulted: [
    {
      field: 'spec.machineImages[0].updateStrategy',
      op: 'add',
      path: '/spec/machineImages/0/updateStrategy',
      value: 'major',
    },
    {
      field: 'spec.machineImages[0].versions[0].cri',
      op: 'add',
      path: '/spec/machineImages/0/versions/0/cri',
      value: [{ name: 'containerd' }],
    },
    { field: 'metadata.labels.old', op: 'remove', path: '/metadata/labels/old' },
  ],
  object: cloudProfile({ name: 'gcp' }),
};
const configMap: SkippedResult = {
  file: 'profiles.yaml',
  document: 2,
  line: 20,
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace: 'garden',
  name: 'settings',
  reason: 'not a CloudProfile, NamespacedCloudProfile or Shoot',
};
const report: CheckReport = { results: [denied, noted, defaulted], skipped: [configMap] };

t.test(
  'text: a verdict line with its place, then violations, notes, warnings and defaults indented; skips; a summary',
  async (t) => {
    t.equal(
      render(report, 'text'),
      [
        'DENIED Shoot garden-dev/web (UPDATE) at shoots.yaml:12 (document 2)',
        '  [SHOOT-NO-DOWNGRADE] spec.kubernetes.version: kubernetes version must not go down from "1.31.0" to "1.30.0"',
        '  [IN-USE] first line',
        '  second line',
        '  warning: version "1.31.0" expires on 2026-09-20',
        'ALLOWED CloudProfile aws (DELETE) at profiles.yaml:1 (document 1)',
        '  note: IN-USE was not checked: no --state or --cluster was given',
        'ALLOWED CloudProfile gcp (CREATE) at profiles.yaml:40 (document 3)',
        '  defaulted: spec.machineImages[0].updateStrategy: major',
        '  defaulted: spec.machineImages[0].versions[0].cri: [{"name":"containerd"}]',
        '  defaulted: metadata.labels.old: removed',
        'SKIPPED ConfigMap garden/settings at profiles.yaml:20 (document 2): not a CloudProfile, NamespacedCloudProfile or Shoot',
        '4 objects: 2 allowed, 1 denied, 1 skipped; 1 not fully checked (see the notes)',
        '',
      ].join('\n'),
    );
    t.equal(
      render({ results: [], skipped: [] }, 'text'),
      '0 objects: 0 allowed, 0 denied, 0 skipped\n',
      'no objects: the summary alone',
    );
    t.equal(
      render({ results: [noted], skipped: [] }, 'text')
        .split('\n')
        .at(-2),
      '1 object: 1 allowed, 0 denied, 0 skipped; 1 not fully checked (see the notes)',
    );
  },
);

t.test('text --quiet: only the denied objects, no skips, no summary', async (t) => {
  t.equal(render(report, 'text', { quiet: true }), render({ results: [denied], skipped: [] }, 'text', { quiet: true }));
  t.match(render(report, 'text', { quiet: true }), /^DENIED Shoot garden-dev\/web[^\n]*\n( {2}[^\n]*\n)+$/);
  t.equal(
    render({ results: [noted, defaulted], skipped: [configMap] }, 'text', { quiet: true }),
    '',
    'nothing when nothing is denied',
  );
});

t.test('text: many defaults are capped, long values cut; JSON keeps them all', async (t) => {
  const many = Array.from({ length: 25 }, (_, i) => ({
    field: `spec.kubernetes.versions[${i}].classification`,
    op: 'add' as const,
    path: `/spec/kubernetes/versions/${i}/classification`,
    value: 'supported',
  }));
  const long = {
    field: 'metadata.annotations',
    op: 'add' as const,
    path: '/metadata/annotations',
    value: { note: 'x'.repeat(500) },
  };
  const r = { ...defaulted, defaulted: [long, ...many] };
  const lines = render({ results: [r], skipped: [] }, 'text').split('\n');
  const shown = lines.filter((l) => l.startsWith('  defaulted: '));
  t.equal(shown.length, 11, 'ten and a line that counts the rest');
  t.equal(shown.at(-1), '  defaulted: … and 16 more (--output json lists them all)');
  t.ok((shown[0]?.length ?? 0) < 200 && shown[0]?.endsWith('…'), 'a long value is cut');
  const json = JSON.parse(render({ results: [r], skipped: [] }, 'json')) as {
    results: Array<{ defaulted: unknown[] }>;
  };
  t.equal(json.results[0]?.defaulted.length, 26);
});

t.test('json: results, skipped and summary, every key in order; all warnings; no text-only fields', async (t) => {
  const parsed = JSON.parse(render(report, 'json')) as {
    results: Array<Record<string, unknown>>;
    skipped: unknown[];
    summary: unknown;
  };
  t.same(Object.keys(parsed), ['results', 'skipped', 'summary']);
  t.same(Object.keys(parsed.results[0] ?? {}), [
    'file',
    'document',
    'line',
    'kind',
    'namespace',
    'name',
    'operation',
    'allowed',
    'violations',
    'warnings',
    'notes',
    'defaulted',
    'forecast',
    'object',
  ]);
  t.same(parsed.results[0]?.warnings, denied.warnings, 'every warning, not only the budgeted ones');
  t.same(parsed.skipped, [configMap]);
  t.same(parsed.summary, { objects: 4, allowed: 2, denied: 1, skipped: 1, notFullyChecked: 1 });
  t.same(parsed.summary, summarize(report));
  const { shownWarnings: _, ...plain } = defaulted;
  t.same(parsed.results[2], plain, 'round-trips');

  const failed = JSON.parse(render({ ...report, error: { message: '--require-state: …' } }, 'json')) as Record<
    string,
    unknown
  >;
  t.same(Object.keys(failed), ['results', 'skipped', 'summary', 'error']);
});

t.test('errors: JSON and JUnit on stdout, nothing for text (the line goes to stderr)', async (t) => {
  t.same(JSON.parse(renderError({ message: 'a.yaml:3: not valid YAML: x', file: 'a.yaml', line: 3 }, 'json')), {
    error: { message: 'a.yaml:3: not valid YAML: x', file: 'a.yaml', line: 3 },
  });
  t.equal(renderError({ message: 'x' }, 'text'), '');
  const xml = renderError({ message: 'a.yaml:3: bad <thing> & "more"', file: 'a.yaml', line: 3 }, 'junit');
  t.equal(XMLValidator.validate(xml), true, 'well-formed');
  const doc = parseJunit(xml);
  t.match(doc.testsuites, { '@_tests': '1', '@_errors': '1', '@_failures': '0' });
  t.equal(
    doc.testsuites.testsuite[0]?.testcase[0]?.error?.['@_message'],
    'a.yaml:3: bad <thing> & "more"',
    'the message survives escaping',
  );
});

interface JunitCase {
  '@_name': string;
  '@_classname': string;
  '@_file': string;
  '@_line'?: string;
  failure?: { '@_message': string; '@_type': string; '#text': string };
  error?: { '@_message': string; '#text'?: string };
  skipped?: { '@_message': string };
  'system-out'?: string;
}
interface JunitDoc {
  testsuites: Record<string, string> & { testsuite: Array<Record<string, string> & { testcase: JunitCase[] }> };
}

function parseJunit(xml: string): JunitDoc {
  const parser = new XMLParser({
    ignoreAttributes: false,
    isArray: (name) => name === 'testsuite' || name === 'testcase',
    trimValues: false,
    processEntities: true,
  });
  return parser.parse(xml) as JunitDoc;
}

t.test('junit: a suite per file, a case per object; failures carry the violations; counts add up', async (t) => {
  const xml = render(report, 'junit');
  t.equal(XMLValidator.validate(xml), true, 'well-formed');
  t.ok(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites '));
  const doc = parseJunit(xml);
  t.match(doc.testsuites, { '@_tests': '4', '@_failures': '1', '@_errors': '0', '@_skipped': '1' });
  const [shoots, profiles] = doc.testsuites.testsuite;
  t.same([shoots?.['@_name'], profiles?.['@_name']], ['shoots.yaml', 'profiles.yaml']);
  t.match(shoots, { '@_tests': '1', '@_failures': '1' });
  t.match(profiles, { '@_tests': '3', '@_failures': '0', '@_skipped': '1' });

  const web = shoots?.testcase[0];
  t.match(web, {
    '@_classname': 'shoots.yaml',
    '@_file': 'shoots.yaml',
    '@_line': '12',
    '@_name': 'Shoot garden-dev/web (UPDATE), document 2',
  });
  t.equal(web?.failure?.['@_type'], 'SHOOT-NO-DOWNGRADE IN-USE', 'the rule IDs');
  t.match(web?.failure?.['@_message'], /^denied: \[SHOOT-NO-DOWNGRADE\] .*\(and 1 more\)$/);
  t.equal(
    web?.failure?.['#text'],
    '[SHOOT-NO-DOWNGRADE] spec.kubernetes.version: kubernetes version must not go down from "1.31.0" to "1.30.0"\n[IN-USE] first line\nsecond line',
    'every violation, escaped and restored',
  );
  t.match(web?.['system-out'], /warning: a second warning beyond the budget/, 'every warning');

  const [aws, gcp, cm] = profiles?.testcase ?? [];
  t.notOk(aws?.failure ?? aws?.error ?? aws?.skipped, 'allowed: a passing case');
  t.match(aws?.['system-out'], /^note: IN-USE was not checked/);
  t.match(gcp?.['system-out'], /defaulted: spec\.machineImages\[0\]\.updateStrategy: "major"/);
  t.equal(cm?.skipped?.['@_message'], configMap.reason);
  t.equal(cm?.['@_name'], 'ConfigMap garden/settings, document 2');
});

t.test('junit: with a --require-state error, the objects not fully checked are errors', async (t) => {
  const doc = parseJunit(render({ ...report, error: { message: '--require-state: …' } }, 'junit'));
  t.match(doc.testsuites, { '@_errors': '1', '@_failures': '1' });
  const aws = doc.testsuites.testsuite[1]?.testcase[0];
  t.match(aws?.error, { '@_message': /--require-state/, '#text': /IN-USE was not checked/ });
});

t.test('junit: whatever the files hold, the XML stays well-formed and says it back', async (t) => {
  const nasty = 'a<b>&c"d\'e\u0000\u0008\u001f\ud800 é ✓ \r\n]]>';
  const r: JudgedObject = {
    ...denied,
    file: `dir/${nasty}.yaml`,
    name: nasty,
    violations: [{ rule: 'K8S-VERSIONS', field: `spec["${nasty}"]`, message: nasty }],
    warnings: [nasty],
  };
  const xml = render({ results: [r], skipped: [{ ...configMap, name: nasty }] }, 'junit');
  t.equal(XMLValidator.validate(xml), true, 'well-formed');
  // What the validator does not look at: characters XML 1.0 cannot hold, and `<` inside attributes.
  // eslint-disable-next-line no-control-regex
  t.notMatch(xml, /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/, 'no character XML forbids');
  t.equal(Buffer.from(xml, 'utf8').toString('utf8'), xml, 'no lone surrogate (UTF-8 would change it)');
  t.notMatch(xml, /="[^"]*</, 'no raw < in an attribute');
  const c = parseJunit(xml).testsuites.testsuite[0]?.testcase[0];
  const kept = 'a<b>&c"d\'e\ufffd\ufffd\ufffd\ufffd é ✓';
  t.ok(c?.['@_name'].includes(kept), `names survive: ${c?.['@_name']}`);
  t.ok(c?.failure?.['#text'].includes(kept), 'messages survive');
  t.ok(c?.failure?.['#text'].includes(']]>'));
});
