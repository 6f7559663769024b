// `check --output junit`: the JUnit XML that CI test reporters read (GitLab's `reports: junit`,
// GitHub Actions report actions). One testsuite per file, one testcase per judged object: a
// denial is a <failure> carrying the violations, an object that --require-state could not judge
// an <error>, a document read past a <skipped>. `time` is 0: reporters expect it; nothing is timed.
import { formatViolation } from '../policy/decision.js';
import type { CheckReport, JudgedObject, ReportedError, SkippedResult, Summary } from './check-report.js';
import { objectName } from './check-report.js';

interface Case {
  file: string;
  name: string;
  line: number | undefined;
  /** The element inside <testcase>, if any. */
  outcome?: { tag: 'failure' | 'error' | 'skipped'; message: string; type?: string; body?: string };
  out?: string;
}

export function junitReport(report: CheckReport, summary: Summary): string {
  const cases = [
    ...report.results.map((r) => judgedCase(r, report.error !== undefined)),
    ...report.skipped.map(skippedCase),
  ];
  const suites = new Map<string, Case[]>();
  for (const c of cases) {
    const list = suites.get(c.file);
    if (list) list.push(c);
    else suites.set(c.file, [c]);
  }
  const errors = cases.filter((c) => c.outcome?.tag === 'error').length;
  return document(
    { tests: summary.objects, failures: summary.denied, errors, skipped: summary.skipped },
    [...suites].map(([file, list]) => suite(file, list)),
  );
}

/** A run that could not judge (bad input or usage) as one errored testcase, so the report says why. */
export function junitError(error: ReportedError): string {
  const c: Case = {
    file: error.file ?? 'version-policy check',
    name: 'read the input and judge it',
    line: error.line,
    outcome: { tag: 'error', message: error.message, type: 'input' },
  };
  return document({ tests: 1, failures: 0, errors: 1, skipped: 0 }, [suite(c.file, [c])]);
}

function judgedCase(r: JudgedObject, requireStateFailed: boolean): Case {
  const base = {
    file: r.file,
    name: `${objectName(r)} (${r.operation}), document ${r.document}`,
    line: r.line,
    out: details(r),
  };
  if (!r.allowed) {
    const first = r.violations[0];
    const more = r.violations.length > 1 ? ` (and ${r.violations.length - 1} more)` : '';
    const rules = [...new Set(r.violations.map((v) => v.rule))].join(' ');
    return {
      ...base,
      outcome: {
        tag: 'failure',
        message: `denied: ${first ? formatViolation(first) : ''}${more}`,
        type: rules,
        body: r.violations.map(formatViolation).join('\n'),
      },
    };
  }
  if (requireStateFailed && r.notes.length > 0) {
    return {
      ...base,
      outcome: {
        tag: 'error',
        message: 'not fully checked without a cluster state (--require-state)',
        type: 'require-state',
        body: r.notes.join('\n'),
      },
    };
  }
  return base;
}

function skippedCase(s: SkippedResult): Case {
  return {
    file: s.file,
    name: `${objectName(s)}, document ${s.document}`,
    line: s.line,
    outcome: { tag: 'skipped', message: s.reason },
  };
}

/** Notes, warnings and defaults: shown by reporters as the case's output. */
function details(r: JudgedObject): string {
  return [
    ...r.notes.map((n) => `note: ${n}`),
    ...r.warnings.map((w) => `warning: ${w}`),
    ...r.defaulted.map(
      (d) => `defaulted: ${d.field}${d.op === 'remove' ? ' removed' : `: ${JSON.stringify(d.value)}`}`,
    ),
  ].join('\n');
}

interface Counts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

function document(counts: Counts, suites: string[]): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="version-policy check"${countAttrs(counts)}>`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

function suite(file: string, cases: readonly Case[]): string {
  const counts = {
    tests: cases.length,
    failures: cases.filter((c) => c.outcome?.tag === 'failure').length,
    errors: cases.filter((c) => c.outcome?.tag === 'error').length,
    skipped: cases.filter((c) => c.outcome?.tag === 'skipped').length,
  };
  return [`  <testsuite name="${attr(file)}"${countAttrs(counts)}>`, ...cases.map(testcase), '  </testsuite>'].join(
    '\n',
  );
}

function testcase(c: Case): string {
  const open = `    <testcase classname="${attr(c.file)}" name="${attr(c.name)}" file="${attr(c.file)}"${c.line === undefined ? '' : ` line="${c.line}"`} time="0"`;
  const inner: string[] = [];
  if (c.outcome) {
    const { tag, message, type, body } = c.outcome;
    const attrs = `message="${attr(message)}"${type ? ` type="${attr(type)}"` : ''}`;
    inner.push(body ? `      <${tag} ${attrs}>${text(body)}</${tag}>` : `      <${tag} ${attrs}/>`);
  }
  if (c.out) inner.push(`      <system-out>${text(c.out)}</system-out>`);
  return inner.length === 0 ? `${open}/>` : [`${open}>`, ...inner, '    </testcase>'].join('\n');
}

function countAttrs(c: Counts): string {
  return ` tests="${c.tests}" failures="${c.failures}" errors="${c.errors}" skipped="${c.skipped}" time="0"`;
}

// Characters XML 1.0 cannot carry at all, not even as references: C0 controls but tab, LF and CR,
// lone surrogates, U+FFFE and U+FFFF. Object names and versions come from the user's files.
const NOT_XML =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function text(s: string): string {
  return s.replace(NOT_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** An attribute value: also quotes, and line breaks and tabs as references so parsers keep them. */
function attr(s: string): string {
  return text(s)
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;')
    .replace(/\t/g, '&#9;');
}
