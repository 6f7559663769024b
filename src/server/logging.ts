// pino, one JSON line per event. Objects never reach the logs: the admission line carries only
// identifiers and the verdict, and `redact` removes any object or body that a future log call
// might pass by mistake, at every level.
import { pino, type DestinationStream, type Logger } from 'pino';
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

export function createLogger(level: Config['logLevel'], destination?: DestinationStream): Logger {
  const options = {
    level,
    name: 'version-policy',
    redact: { paths: REDACTED_PATHS, remove: true },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}
