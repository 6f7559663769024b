// Parsers for CLI option values shared by `check` and `explain`. Each throws commander's
// InvalidArgumentError, which commander turns into one usage line (exit code 2).
import { InvalidArgumentError } from 'commander';
import type { Config } from '../config.js';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** An RFC 3339 instant (offset required, no leap seconds) → epoch milliseconds. */
export function parseRfc3339(text: string): number {
  const m = RFC3339.exec(text);
  const [, y, mo, d, h, mi, s, , zone, oh, om] = m ?? [];
  const ms = Date.parse(text);
  const valid =
    m !== null &&
    !Number.isNaN(ms) &&
    Number(mo) >= 1 &&
    Number(mo) <= 12 &&
    Number(d) >= 1 &&
    Number(d) <= daysInMonth(Number(y), Number(mo)) &&
    Number(h) <= 23 &&
    Number(mi) <= 59 &&
    Number(s) <= 59 &&
    (zone === 'Z' || zone === 'z' || (Number(oh) <= 23 && Number(om) <= 59));
  if (!valid)
    throw new InvalidArgumentError(`not an RFC 3339 timestamp (e.g. 2026-09-01T00:00:00Z): ${JSON.stringify(text)}`);
  return ms;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

export type FeatureGates = Config['featureGates'];
const GATES: ReadonlyArray<keyof FeatureGates> = ['VersionClassificationLifecycle'];

/**
 * `Gate=true,Other=false` (Kubernetes' --feature-gates syntax), merged into the gates of earlier
 * occurrences of the flag.
 */
export function parseFeatureGates(text: string, previous: Partial<FeatureGates> = {}): Partial<FeatureGates> {
  const out = { ...previous };
  for (const pair of text.split(',')) {
    const [name = '', value, ...rest] = pair.split('=').map((s) => s.trim());
    if (!(GATES as readonly string[]).includes(name)) {
      throw new InvalidArgumentError(`unknown feature gate ${JSON.stringify(name)}; known: ${GATES.join(', ')}`);
    }
    if ((value !== 'true' && value !== 'false') || rest.length > 0) {
      throw new InvalidArgumentError(`feature gate ${name} needs =true or =false, got ${JSON.stringify(pair.trim())}`);
    }
    out[name as keyof FeatureGates] = value === 'true';
  }
  return out;
}

/** For repeatable options: each occurrence appends. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
