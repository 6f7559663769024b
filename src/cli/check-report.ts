// What a `check` run found, in the shapes every output format reads (check-output.ts, check-junit.ts).
import type { Place } from '../cluster/object-files.js';
import type { Violation } from '../policy/decision.js';
import type { Kind, Operation, PolicedObject } from '../api/types.js';

/** One change the mutating path made: a JSON Patch operation, with the field spelled for people. */
export interface Defaulted {
  field: string;
  op: 'add' | 'replace' | 'remove';
  /** RFC 6901 pointer, as in the patch the webhook answers. */
  path: string;
  /** Absent on remove. */
  value?: unknown;
}

/** One judged object, in the JSON shape of docs/ci.md. */
export interface CheckResult extends Place {
  kind: Kind;
  /** null for the cluster-scoped CloudProfile, so every result has the same keys. */
  namespace: string | null;
  name: string;
  operation: Operation;
  allowed: boolean;
  violations: Violation[];
  /** Every warning, in full. */
  warnings: string[];
  /** What could not be judged (a rule that needs the cluster state, run without one). */
  notes: string[];
  defaulted: Defaulted[];
  /** The object as it would be stored, after the mutating path; null on DELETE (nothing is stored). */
  object: PolicedObject | null;
}

/** A result as judged, with the warnings that text output shows (within the warning budget). */
export interface JudgedObject extends CheckResult {
  shownWarnings: string[];
}

/** A document read past: another kind, or an --old object that no FILE holds. */
export interface SkippedResult extends Place {
  apiVersion: string | null;
  kind: string;
  namespace: string | null;
  name: string | null;
  reason: string;
}

export interface Summary {
  /** Judged and skipped. */
  objects: number;
  allowed: number;
  denied: number;
  skipped: number;
  /** Judged objects with notes: some rule could not be checked. */
  notFullyChecked: number;
}

/** What makes a run exit 2 although it judged: --require-state with objects not fully checked. */
export interface ReportedError {
  message: string;
  file?: string;
  line?: number;
}

export interface CheckReport {
  results: readonly JudgedObject[];
  skipped: readonly SkippedResult[];
  error?: ReportedError;
}

export function objectName(r: { kind: string; namespace: string | null; name: string | null }): string {
  const name = r.name ?? '(unnamed)';
  return `${r.kind} ${r.namespace === null ? name : `${r.namespace}/${name}`}`;
}
