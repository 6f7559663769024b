// What `check` prints: one verdict per judged object, as text for people, JSON for pipelines or
// JUnit XML for CI test reports (check-junit.ts), and errors in the same format.
import type { Place } from '../cluster/object-files.js';
import { formatViolation } from '../policy/decision.js';
import { githubAnnotations, githubErrorLine } from './check-github.js';
import { junitError, junitReport } from './check-junit.js';
import { sarifError, sarifReport } from './check-sarif.js';
import type { CheckReport, Defaulted, JudgedObject, ReportedError, SkippedResult, Summary } from './check-report.js';
import { objectName } from './check-report.js';

export type {
  CheckReport,
  CheckResult,
  Defaulted,
  JudgedObject,
  ReportedError,
  SkippedResult,
  Summary,
} from './check-report.js';
export { objectName } from './check-report.js';

export type OutputFormat = 'text' | 'json' | 'junit' | 'sarif' | 'github';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['text', 'json', 'junit', 'sarif', 'github'];

/** Text lines of defaults per object; JSON lists them all. */
const DEFAULTED_SHOWN = 10;
const VALUE_SHOWN = 120;

export function render(report: CheckReport, format: OutputFormat, opts: { quiet?: boolean } = {}): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(jsonReport(report), null, 2)}\n`;
    case 'junit':
      return junitReport(report, summarize(report));
    case 'sarif':
      return sarifReport(report);
    case 'github':
      return githubAnnotations(report) + textReport(report, opts.quiet === true);
    case 'text':
      return textReport(report, opts.quiet === true);
  }
}

/** An error (bad input or usage) in the output format; text output has none on stdout (the line goes to stderr). */
export function renderError(error: ReportedError, format: OutputFormat): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify({ error }, null, 2)}\n`;
    case 'junit':
      return junitError(error);
    case 'sarif':
      return sarifError(error);
    case 'github':
      return githubErrorLine(error);
    case 'text':
      return '';
  }
}

export function summarize(report: CheckReport): Summary {
  const allowed = report.results.filter((r) => r.allowed).length;
  return {
    objects: report.results.length + report.skipped.length,
    allowed,
    denied: report.results.length - allowed,
    skipped: report.skipped.length,
    notFullyChecked: report.results.filter((r) => r.notes.length > 0).length,
  };
}

function jsonReport(report: CheckReport): object {
  const results = report.results.map(({ shownWarnings: _, ...r }) => r);
  return {
    results,
    skipped: report.skipped,
    summary: summarize(report),
    ...(report.error ? { error: report.error } : {}),
  };
}

function textReport(report: CheckReport, quiet: boolean): string {
  const blocks = report.results.filter((r) => !quiet || !r.allowed).map(textVerdict);
  if (quiet) return blocks.join('');
  return [...blocks, ...report.skipped.map(textSkipped), `${textSummary(summarize(report))}\n`].join('');
}

export function where(p: Place): string {
  return `${p.file}:${p.line} (document ${p.document})`;
}

/** `DENIED Shoot garden-dev/web (UPDATE) at shoots.yaml:12 (document 2)`, then the details indented. */
function textVerdict(r: JudgedObject): string {
  const head = `${r.allowed ? 'ALLOWED' : 'DENIED'} ${objectName(r)} (${r.operation}) at ${where(r)}`;
  const details = [
    ...r.violations.map(formatViolation),
    ...r.notes.map((n) => `note: ${n}`),
    ...r.shownWarnings.map((w) => `warning: ${w}`),
    ...r.defaulted.slice(0, DEFAULTED_SHOWN).map(textDefaulted),
    ...(r.defaulted.length > DEFAULTED_SHOWN
      ? [`defaulted: … and ${r.defaulted.length - DEFAULTED_SHOWN} more (--output json lists them all)`]
      : []),
  ];
  return [head, ...details.map(indent)].join('\n') + '\n';
}

function textSkipped(s: SkippedResult): string {
  return `SKIPPED ${objectName(s)} at ${where(s)}: ${s.reason}\n`;
}

function textDefaulted(d: Defaulted): string {
  if (d.op === 'remove') return `defaulted: ${d.field}: removed`;
  const text = typeof d.value === 'string' ? d.value : JSON.stringify(d.value);
  return `defaulted: ${d.field}: ${text.length > VALUE_SHOWN ? `${text.slice(0, VALUE_SHOWN)}…` : text}`;
}

/** `4 objects: 2 allowed, 1 denied, 1 skipped`, and how many were not fully checked. */
export function textSummary(s: Summary): string {
  const counts = `${s.objects} object${s.objects === 1 ? '' : 's'}: ${s.allowed} allowed, ${s.denied} denied, ${s.skipped} skipped`;
  return s.notFullyChecked === 0 ? counts : `${counts}; ${s.notFullyChecked} not fully checked (see the notes)`;
}

/** Two spaces before every line of a detail: a message may span lines. */
function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}
