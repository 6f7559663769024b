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

declare const fraction: unique symbol;

/** A number with a fractional part, made by `loggedFraction` for the admission line. */
export type LoggedFraction = { readonly [fraction]: true };

/**
 * `n` as the admission line writes it: the same JSON number, but printed by JSON.stringify.
 *
 * pino writes a number field as `',"key":' + value`, and V8 turns a fractional number into text
 * through its number-to-string cache, which allocates every new text in the old generation (about
 * 34 bytes each, for a GC to find dead there later). A duration differs on every request, so
 * that was about three quarters of all the server added to its old generation under load, and it
 * brought the full collections that set the p99 latency (bench/NOTES.md section 2). pino hands an
 * object to JSON.stringify, which unwraps a Number and writes its digits without the cache; the
 * wrapper itself dies young.
 */
export function loggedFraction(n: number): LoggedFraction {
  return Object(n) as LoggedFraction;
}

/**
 * A field of the admission line: scalars, fractions from `loggedFraction`, and lists of strings,
 * so that no object with fields can be one. (Integers need no wrapper: V8 makes the text of a
 * small integer in the young generation.)
 */
type LineValue = string | number | LoggedFraction | boolean | readonly string[] | undefined;

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
