// What evaluate() answers: the decision, its violations, and how a denial prints them.
import type { JsonPatchOperation } from './defaulting/patch.js';
import type { FieldViolation } from '../api/field.js';
import type { RuleId } from './rules/index.js';
import type { PolicedObject } from '../api/types.js';

export type { RuleId } from './rules/index.js';

/** A field violation of one rule, as a decision lists it. No type on the lines evaluate() writes itself: the cap's count, a state not ready. */
export interface Violation extends Omit<FieldViolation, 'type'> {
  rule: RuleId;
  type?: FieldViolation['type'];
  /** Set on the line that stands for violations left out by the cap (`and 950 more …`): how many. */
  omitted?: number;
}

export interface Decision {
  allowed: boolean;
  violations: Violation[];
  /** What the webhook answers and `check` prints: within the warning budget (docs/rules.md, "Reading a denial"). */
  warnings: string[];
  /** Every warning, in full: for `explain`, `check --output json` and the debug log. */
  allWarnings: string[];
  /**
   * What the decision could not judge and says so without denying: a rule that needs the cluster
   * state when the caller asked for notes instead of denials (`check` without a state).
   */
  notes: string[];
  /** The object as it would be stored, after the mutating path (CREATE, UPDATE). */
  object?: PolicedObject;
  /** True if the mutating path changed the object. */
  mutated: boolean;
  /** When mutated: the RFC 6902 operations that turn the request's object into `object`. */
  patch?: readonly JsonPatchOperation[];
}

/** Formats a violation the way every denial lists it. */
export function formatViolation(v: Violation): string {
  return v.field ? `[${v.rule}] ${v.field}: ${v.message}` : `[${v.rule}] ${v.message}`;
}

/**
 * How many violations of one rule a decision keeps; the rest are counted in one line. Every rule
 * keeps its first ones, so each rule that fired shows in the denial, the metrics and the log, and
 * a decision holds at most RULE_IDS.length × (MAX_VIOLATIONS_PER_RULE + 1) violations.
 */
export const MAX_VIOLATIONS_PER_RULE = 50;

/** The violations a rule reported, with its ID, cut to MAX_VIOLATIONS_PER_RULE with a line counting the rest. */
export function capViolations(rule: RuleId, found: readonly FieldViolation[]): readonly Violation[] {
  // A loop, not map(): no closure per rule and review, and nothing at all for a rule that found nothing.
  if (found.length === 0) return NO_VIOLATIONS;
  const kept = Math.min(found.length, MAX_VIOLATIONS_PER_RULE);
  const out: Violation[] = [];
  for (let i = 0; i < kept; i++)
    out.push({ rule, field: found[i]!.field, message: found[i]!.message, type: found[i]!.type });
  const omitted = found.length - kept;
  if (omitted > 0)
    out.push({
      rule,
      field: '',
      message: `and ${omitted.toLocaleString('en-US')} more violations of this rule`,
      omitted,
    });
  return out;
}

const NO_VIOLATIONS: readonly Violation[] = [];

/** What a denial message lists at most: lines, characters per line, characters in all. */
export const DENIAL_LIMITS = { lines: 20, lineLength: 1_000, length: 16_384 } as const;

const clipLine = (line: string) =>
  line.length <= DENIAL_LIMITS.lineLength ? line : `${line.slice(0, DENIAL_LIMITS.lineLength - 1)}…`;

/**
 * The message of a denial: every violation as `formatViolation` writes it, within DENIAL_LIMITS.
 * kubectl prints it after `admission webhook "…" denied the request: `, as it is. One violation
 * stays on that line; several start on a line of their own each, after a count that ends that
 * first line: `denied the request: 3 violations:`.
 */
export function formatDenial(violations: readonly Violation[]): string {
  const total = violations.reduce((n, v) => n + (v.omitted ?? 1), 0);
  const lines: string[] = [];
  let length = 0;
  let listed = 0;
  for (const v of violations) {
    if (lines.length === DENIAL_LIMITS.lines) break;
    const line = clipLine(formatViolation(v));
    if (length + line.length > DENIAL_LIMITS.length) break;
    lines.push(line);
    length += line.length + 1;
    listed += v.omitted ?? 1;
  }
  if (listed < total)
    lines.push(
      `and ${(total - listed).toLocaleString('en-US')} more violations; see version-policy check --output json`,
    );
  if (total === 1 && lines.length === 1) return lines[0]!;
  return `${total.toLocaleString('en-US')} violations:\n${lines.join('\n')}`;
}
