// pino, one JSON line per event. Objects never reach the logs: the admission line carries only
// identifiers and the verdict, and `redact` removes any object or body that a future log call
// might pass by mistake, at every level. Levels are written as words ("level":"info"), as
// operators grep them.
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
