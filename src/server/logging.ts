// pino, one JSON line per event. Objects never reach the logs: the admission line carries only
// identifiers and the verdict, typed so that nothing else fits (AdmissionLine), and `redact`
// removes any object or body that any other log call might pass by mistake, at every level.
// Levels are written as words ("level":"info"), as operators grep them.
import { pino, type DestinationStream, type Logger } from 'pino';
import { bounded } from '../admission/limits.js';
import type { Config } from '../config.js';

export const REDACTED_PATHS = [
  'object',
  'oldObject',
  'body',
  'review',
  'request.object',
  'request.oldObject',
  '*.object',
  '*.oldObject',
  '*.body',
  'req.body',
];

/**
 * A request-controlled value for a log field (name, namespace, user, URL): strings cut to 256
 * characters (Kubernetes names have at most 253; usernames have no limit), anything else dropped.
 */
export function loggable(value: unknown): string | undefined {
  return typeof value === 'string' ? bounded(value) : undefined;
}

export function createLogger(level: Config['logLevel'], destination?: DestinationStream): Logger {
  const options = {
    level,
    name: 'version-policy',
    redact: { paths: REDACTED_PATHS, remove: true },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** A field of the admission line: scalars and lists of strings, so that no object can be one. */
type LineValue = string | number | boolean | readonly string[] | undefined;

/** The admission line: the request's identity and the verdict, nothing that could hold an object. */
export type AdmissionLine = Readonly<Record<string, LineValue>>;

/**
 * The admission line's logger: the root logger's level, bindings and destination, without the
 * redaction walk. Redaction cost a third of the line (about 3 µs on every review: the `*.`
 * paths visit each top-level key); the line's type already keeps objects out of it.
 */
export function admissionLogger(root: Logger): { info(line: AdmissionLine, msg: string): void; warn(line: AdmissionLine, msg: string): void; isLevelEnabled(level: string): boolean } {
  return root.child({}, { redact: [] });
}
