// pino, one JSON line per event. Objects never reach the logs: the admission line carries only
// identifiers and the verdict, typed so that nothing else fits (AdmissionLine), and `redact`
// removes any object or body that any other log call might pass by mistake, at every level.
// Levels are written as words ("level":"info"), as operators grep them.
import { pino, type DestinationStream, type Logger } from 'pino';
import sonicBoom, { type SonicBoom as SonicBoomClass } from 'sonic-boom';

// A CommonJS module whose types declare an ES default export: the class is module.exports itself.
const SonicBoom = sonicBoom as unknown as typeof SonicBoomClass;
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

/**
 * The most log bytes that may wait for stdout: 8 MiB, about 20,000 admission lines of ~400 bytes,
 * minutes of a busy landscape's reviews at debug level. A node's log pipeline that stops reading
 * (a stuck container runtime or log agent) must not grow the webhook's memory without bound, as
 * pino's unbounded default destination did; past this, lines are dropped and counted
 * (`version_policy_log_lines_dropped_total`).
 */
export const LOG_BUFFER_BYTES = 8 * 1024 * 1024;

/** Where `serve` logs: stdout, never blocking, bounded in bytes. */
export interface LogDestination extends DestinationStream {
  /** Lines dropped so far: the buffer was full, or stdout is gone. */
  readonly dropped: number;
  /** Resolves true once everything written so far has reached stdout, false after `ms` if not. */
  flushWithin(ms: number): Promise<boolean>;
}

/**
 * stdout through an asynchronous sonic-boom (pino's own writer) with a byte bound. Admission never
 * waits on it: a write only appends to the buffer. Built directly, not with pino.destination(),
 * which registers a synchronous flush at process exit: with stdout blocked, that flush waited
 * forever and the pod outlived its grace period. What has not reached stdout at exit is lost.
 */
export function stdoutDestination(maxBytes = LOG_BUFFER_BYTES): LogDestination {
  // Opening process.stdout makes a pipe's fd non-blocking (libuv's uv_pipe_open). Without it, a
  // write to a pipe nobody reads blocks a libuv thread forever, and process.exit() waits for it.
  // A blocked non-blocking write is retried by sonic-boom on a timer instead.
  const fd = process.stdout.fd;
  const boom = new SonicBoom({ fd, sync: false, maxLength: maxBytes });
  let dropped = 0;
  let pending = 0;
  let broken = false;
  boom.on('drop', () => dropped++);
  boom.on('write', (n: number) => (pending = Math.max(0, pending - n)));
  // EPIPE (nobody reads any more) or any other write error: stop writing, count what is lost.
  boom.on('error', () => (broken = true));
  return {
    get dropped() {
      return dropped;
    },
    write(line: string) {
      if (broken) {
        dropped++;
        return;
      }
      const bytes = Buffer.byteLength(line);
      const before = dropped;
      boom.write(line);
      if (dropped === before) pending += bytes;
    },
    async flushWithin(ms: number) {
      const until = Date.now() + ms;
      while (pending > 0 && !broken && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
      return pending === 0;
    },
  };
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

declare const boxed: unique symbol;

/** A number wrapped in a Number object (see `boxedNumber`); only the admission line takes one. */
export type BoxedNumber = { readonly [boxed]: true };

/**
 * `n` boxed: `Object(n)`, a Number object. pino writes it through JSON.stringify, which prints the
 * very same number without V8's number-string cache; a plain fraction's text goes through that
 * cache, into the old generation, on every request (bench/NOTES.md, "the hot path's tricks").
 */
export function boxedNumber(n: number): BoxedNumber {
  return Object(n) as BoxedNumber;
}

/**
 * A field of the admission line: scalars, fractions boxed by `boxedNumber` (integers need none), and
 * lists of strings, so that no object with fields can be one.
 */
type LineValue = string | number | BoxedNumber | boolean | readonly string[] | undefined;

/** The admission line: the request's identity and the verdict, nothing that could hold an object. */
export type AdmissionLine = Readonly<Record<string, LineValue>>;

/**
 * The admission line's logger: the root logger's level, bindings and destination, without the
 * redaction walk (a third of the line's cost); the line's type already keeps objects out of it.
 */
export function admissionLogger(root: Logger): {
  [level in 'debug' | 'info' | 'warn']: (line: AdmissionLine, msg: string) => void;
} & {
  isLevelEnabled(level: string): boolean;
} {
  return root.child({}, { redact: [] });
}
