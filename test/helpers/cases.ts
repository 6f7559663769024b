// The shared policy cases (test/fixtures/public-cases.json, copied from shared/cases so the
// repository stands alone): loading, turning a case into a request plus state, and judging a
// Decision against the case's expectation. Used by the evaluate() and the CLI case tests.
import { readFileSync } from 'node:fs';
import { formatViolation } from '../../src/policy/decision.js';
import type { Decision, Violation } from '../../src/policy/decision.js';
import type { Operation, PolicedObject } from '../../src/api/types.js';
import type { DecideInput } from './objects.js';

export interface PolicyCase {
  id: string;
  rule: string;
  operation: Operation;
  kind: string;
  now: string;
  featureGates: { VersionClassificationLifecycle: boolean };
  object: PolicedObject | null;
  oldObject: PolicedObject | null;
  shoots: PolicedObject[];
  parentCloudProfile?: PolicedObject;
  namespacedCloudProfiles?: PolicedObject[];
  expect: {
    allowed: boolean;
    rules: string[];
    fields?: string[];
    reasonContains: string[];
    defaulted?: Record<string, unknown>;
    mutated?: Record<string, unknown>;
    allowedAfterMutation?: boolean;
  };
}

export const CASES_FILE = new URL('../fixtures/public-cases.json', import.meta.url);

export function loadCases(): PolicyCase[] {
  return (JSON.parse(readFileSync(CASES_FILE, 'utf8')) as { cases: PolicyCase[] }).cases;
}

/** The objects that exist when the case's request arrives. */
export function caseState(c: PolicyCase): PolicedObject[] {
  return [
    ...(c.oldObject ? [c.oldObject] : []),
    ...c.shoots,
    ...(c.parentCloudProfile ? [c.parentCloudProfile] : []),
    ...(c.namespacedCloudProfiles ?? []),
  ];
}

export function caseInput(c: PolicyCase, lifecycleDefaulting: boolean): DecideInput {
  return {
    operation: c.operation,
    ...(c.object ? { object: structuredClone(c.object) } : {}),
    ...(c.oldObject ? { oldObject: structuredClone(c.oldObject) } : {}),
    state: structuredClone(caseState(c)),
    now: Date.parse(c.now),
    lifecycleGate: c.featureGates.VersionClassificationLifecycle,
    lifecycleDefaulting,
  };
}

/**
 * A listed path matches a reported one that equals it or continues it after `.` or `[`;
 * `[]` in a listed path matches any index.
 */
export function fieldMatches(listed: string, reported: string): boolean {
  const escaped = listed
    .split('[]')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('\\[[0-9]+\\]');
  return new RegExp(`^${escaped}(?:$|[.[])`).test(reported);
}

export function denialMessage(violations: readonly Violation[]): string {
  return violations.map(formatViolation).join('; ');
}

/** Reads a dotted/indexed field path out of an object. */
export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const seg of path.match(/[^.[\]]+/g) ?? []) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

export interface Verdict {
  allowed: boolean;
  violations: Violation[];
  object?: unknown;
}

/** Every way `got` differs from the case's expectation; empty when it meets it. */
export function mismatches(c: PolicyCase, got: Verdict | Decision): string[] {
  const out: string[] = [];
  const e = c.expect;
  if (got.allowed !== e.allowed)
    out.push(`allowed: want ${e.allowed}, got ${got.allowed} (${denialMessage(got.violations) || 'no violations'})`);
  const rules = new Set(got.violations.map((v) => v.rule));
  for (const r of e.rules)
    if (!rules.has(r as Violation['rule'])) out.push(`rule ${r} not reported (got ${[...rules].join(', ') || 'none'})`);
  for (const f of e.fields ?? []) {
    if (!got.violations.some((v) => fieldMatches(f, v.field)))
      out.push(`no violation at ${f} (got ${got.violations.map((v) => v.field).join(', ')})`);
  }
  const message = denialMessage(got.violations).toLowerCase();
  for (const word of e.reasonContains)
    if (!message.includes(word.toLowerCase())) out.push(`message lacks "${word}": ${message}`);
  for (const [path, want] of Object.entries(e.defaulted ?? {})) {
    const have = getPath(got.object, path);
    if (JSON.stringify(have) !== JSON.stringify(want))
      out.push(`defaulted ${path}: want ${JSON.stringify(want)}, got ${JSON.stringify(have)}`);
  }
  for (const [path, want] of Object.entries(e.mutated ?? {})) {
    const have = getPath(got.object, path);
    if (canonical(have) !== canonical(want))
      out.push(`mutated ${path}: want ${canonical(want)}, got ${canonical(have)}`);
  }
  return out;
}

/** JSON with object keys sorted, so key order never matters. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}
