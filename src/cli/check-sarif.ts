// `check --output sarif` (and `--sarif FILE`): a SARIF 2.1.0 log, which GitHub code scanning and
// other viewers read. One result per violation (level error), forecast finding and warning
// (warning) and rule not checked (note), each at the line of its field in its file: the entry of
// the version, so that a pull request shows the denial on the line that causes it.
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MUTATING_RULES } from '../policy/mutating-rules.js';
import { RULES } from '../policy/rules/index.js';
import { forecastWarnings } from './check-forecast.js';
import type { CheckReport, JudgedObject, ReportedError } from './check-report.js';
import { objectName } from './check-report.js';
import { STDIN_NAME } from './check-inputs.js';

const SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
  repository: { url: string };
};
const HOME = PACKAGE.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

/** Results that are no rule of the book: a warning, a rule not checked. */
const PSEUDO_RULES = [
  { id: 'WARNING', summary: 'a warning the webhook would give with an allowed request' },
  { id: 'NOT-CHECKED', summary: 'a rule that could not be checked without the cluster state' },
];

interface Result {
  ruleId: string;
  level: 'error' | 'warning' | 'note';
  message: { text: string };
  locations?: unknown[];
  properties: Record<string, unknown>;
}

export function sarifReport(report: CheckReport): string {
  return log(report.results.flatMap(resultsOf), report.error);
}

/** A run that could not judge: no result, and the error as the invocation's notification. */
export function sarifError(error: ReportedError): string {
  return log([], error);
}

function log(results: Result[], error: ReportedError | undefined): string {
  const used = new Set(results.map((r) => r.ruleId));
  const rules = [...RULES, ...MUTATING_RULES, ...PSEUDO_RULES]
    .filter((r) => used.has(r.id))
    .map((r) => ({
      id: r.id,
      shortDescription: { text: r.summary },
      helpUri: PSEUDO_RULES.includes(r)
        ? `${HOME}/blob/main/docs/ci.md`
        : `${HOME}/blob/main/docs/rules.md#${r.id.toLowerCase()}`,
    }));
  const index = new Map(rules.map((r, i) => [r.id, i]));
  const sarif = {
    $schema: SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'version-policy', version: PACKAGE.version, informationUri: HOME, rules } },
        invocations: [
          {
            executionSuccessful: error === undefined,
            ...(error
              ? {
                  toolExecutionNotifications: [
                    {
                      level: 'error',
                      message: { text: error.message },
                      ...(error.file ? { locations: [location(error.file, error.line ?? 1)] } : {}),
                    },
                  ],
                }
              : {}),
          },
        ],
        results: results.map((r) => ({ ...r, ruleIndex: index.get(r.ruleId) })),
      },
    ],
  };
  return `${JSON.stringify(sarif, null, 2)}\n`;
}

function resultsOf(r: JudgedObject): Result[] {
  const properties = { object: objectName(r), operation: r.operation };
  const at = (line: number | undefined) =>
    r.file === STDIN_NAME ? {} : { locations: [location(r.file, line ?? r.line)] };
  const forecast = forecastWarnings(r.forecast);
  const forecastTexts = new Set(forecast.map((f) => f.text));
  return [
    ...r.violations.map((v) => ({
      ruleId: v.rule,
      level: 'error' as const,
      message: { text: `${objectName(r)} (${r.operation}): ${v.field ? `${v.field}: ` : ''}${v.message}` },
      ...at(v.line),
      properties: { ...properties, field: v.field },
    })),
    ...forecast.map((f) => ({
      ruleId: 'FORECAST',
      level: 'warning' as const,
      message: { text: `${objectName(r)} (${r.operation}): ${f.text}` },
      ...at(f.finding.line),
      properties: { ...properties, field: f.finding.field },
    })),
    ...r.warnings
      .filter((w) => !forecastTexts.has(w))
      .map((w) => ({
        ruleId: 'WARNING',
        level: 'warning' as const,
        message: { text: `${objectName(r)} (${r.operation}): ${w}` },
        ...at(r.line),
        properties,
      })),
    ...r.notes.map((n) => ({
      ruleId: 'NOT-CHECKED',
      level: 'note' as const,
      message: { text: `${objectName(r)} (${r.operation}): ${n}` },
      ...at(r.line),
      properties,
    })),
  ];
}

function location(file: string, line: number): unknown {
  return { physicalLocation: { artifactLocation: artifact(file), region: { startLine: line } } };
}

/** A relative path under the checkout (`%SRCROOT%`), an absolute one as a file URL; git's `REF:PATH` as PATH. */
function artifact(file: string): { uri: string; uriBaseId?: string } {
  if (isAbsolute(file)) return { uri: pathToFileURL(file).href };
  return { uri: repositoryPath(file).split('/').map(encodeURIComponent).join('/'), uriBaseId: '%SRCROOT%' };
}

/** `HEAD~1:profiles/aws.yaml` → `profiles/aws.yaml`: where a removed object was (a revision has no colon). */
export function repositoryPath(file: string): string {
  const colon = file.indexOf(':');
  return colon < 0 ? file : file.slice(colon + 1).replace(/^\.\//, '');
}
