// What `check` prints: one verdict per judged object, as text for people or JSON for pipelines.
import { formatViolation, type Violation } from '../policy/rule.js';
import type { Kind, Operation, PolicedObject } from '../policy/types.js';

/** One judged object, in the JSON shape of DESIGN.md. */
export interface CheckResult {
  kind: Kind;
  /** null for the cluster-scoped CloudProfile, so every result has the same keys. */
  namespace: string | null;
  name: string;
  operation: Operation;
  allowed: boolean;
  violations: Violation[];
  warnings: string[];
  /** The object as it would be stored, after the mutating path; null on DELETE (nothing is stored). */
  object: PolicedObject | null;
}

export type OutputFormat = 'text' | 'json';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['text', 'json'];

export function render(results: readonly CheckResult[], format: OutputFormat): string {
  return format === 'json' ? `${JSON.stringify({ results }, null, 2)}\n` : results.map(textVerdict).join('');
}

/** `DENIED Shoot garden-dev/foo (UPDATE)`, then each violation and warning indented. */
function textVerdict(r: CheckResult): string {
  const head = `${r.allowed ? 'ALLOWED' : 'DENIED'} ${r.kind} ${r.namespace === null ? r.name : `${r.namespace}/${r.name}`} (${r.operation})`;
  const details = [...r.violations.map(formatViolation), ...r.warnings.map((w) => `warning: ${w}`)];
  return [head, ...details.map((d) => `  ${d}`)].join('\n') + '\n';
}
