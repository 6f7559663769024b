// What a `check` run found, in the shapes every output format reads (check-output.ts, check-junit.ts).
import type { Place } from '../cluster/object-files.js';
import type { Violation } from '../policy/decision.js';
import type { Kind, Operation, PolicedObject } from '../api/types.js';

/** A violation, with the line of its field in the object's file (the document's line for a DELETE). */
export interface LocatedViolation extends Violation {
  line?: number;
}

/** One change of the forecast that `check` reports: new or earlier, and forced, failing or trapped. */
export interface ForecastFinding {
  change: 'new' | 'earlier';
  shoot: string;
  /** `control plane`, `worker pool "batch" image ubuntu`. */
  component: string;
  /** The version list: `Kubernetes`, `machine image ubuntu`, or `the maintenance run` (a rejected dry run). */
  list: string;
  at: string;
  /** For `earlier`: when the stored profile has it. */
  before?: string;
  mode: 'auto' | 'forced';
  from?: string;
  to?: string;
  trigger: string;
  failure?: { kind: string; message: string };
  trap?: { issue: string; detail: string };
  /** The field of the version the step leaves, in the object: where the finding points. */
  field: string;
}

/** A forecast finding, with the line of the version it concerns. */
export interface LocatedFinding extends ForecastFinding {
  line?: number;
}

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
  violations: LocatedViolation[];
  /** Every warning, in full. */
  warnings: string[];
  /** What could not be judged (a rule that needs the cluster state, run without one). */
  notes: string[];
  defaulted: Defaulted[];
  /** What a profile UPDATE changes in its Shoots' maintenance (forced, failing or trapped steps). */
  forecast: LocatedFinding[];
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
