// `check --output github`: GitHub Actions workflow commands (`::error file=…,line=…::…`), which
// the runner turns into annotations on the pull request's lines, then the text report for the
// log. A denial is an error at the line of its field, a warning or forecast finding a warning, a
// rule not checked a notice.
import { forecastWarnings } from './check-forecast.js';
import { STDIN_NAME } from './check-inputs.js';
import type { CheckReport, JudgedObject, ReportedError } from './check-report.js';
import { objectName } from './check-report.js';
import { repositoryPath } from './check-sarif.js';

type Level = 'error' | 'warning' | 'notice';

export function githubAnnotations(report: CheckReport): string {
  const lines = report.results.flatMap(annotationsOf);
  if (report.error) lines.push(githubErrorLine(report.error));
  return lines.join('');
}

/** An input or usage error as one annotation, on its file and line where known. */
export function githubErrorLine(error: ReportedError): string {
  return command('error', error.file, error.line, 'version-policy check could not judge', error.message);
}

function annotationsOf(r: JudgedObject): string[] {
  const title = `${objectName(r)} (${r.operation})`;
  const forecast = forecastWarnings(r.forecast);
  const forecastTexts = new Set(forecast.map((f) => f.text));
  return [
    ...r.violations.map((v) =>
      command(
        'error',
        r.file,
        v.line ?? r.line,
        `[${v.rule}] ${title}`,
        `${v.field ? `${v.field}: ` : ''}${v.message}`,
      ),
    ),
    ...forecast.map((f) => command('warning', r.file, f.finding.line ?? r.line, `[FORECAST] ${title}`, f.text)),
    ...r.warnings.filter((w) => !forecastTexts.has(w)).map((w) => command('warning', r.file, r.line, title, w)),
    ...r.notes.map((n) => command('notice', r.file, r.line, `not checked: ${title}`, n)),
  ];
}

/** `::error file=F,line=L,title=T::message`, escaped as the runner unescapes it. */
function command(
  level: Level,
  file: string | undefined,
  line: number | undefined,
  title: string,
  message: string,
): string {
  const props = [
    ...(file && file !== STDIN_NAME ? [`file=${property(repositoryPath(file))}`] : []),
    ...(file && file !== STDIN_NAME && line !== undefined ? [`line=${line}`] : []),
    `title=${property(title)}`,
  ];
  return `::${level} ${props.join(',')}::${data(message)}\n`;
}

function data(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function property(text: string): string {
  return data(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
