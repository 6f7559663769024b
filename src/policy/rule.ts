// The contract between evaluate() and the rules: what a rule sees, and what it returns.
import type { ClusterState } from './cluster-state.js';
import type { Config } from '../config.js';
import type {
  CloudProfile,
  CloudProfileSpec,
  Kind,
  NamespacedCloudProfile,
  Operation,
  PolicedObject,
  Shoot,
} from './types.js';
import type { Warning } from './warning.js';
import type { JsonPatchOperation } from './defaulting/patch.js';
import type { ProfileEntries } from './forced-update.js';
import type { VersionIndex } from './rules/version-lists.js';

/** Every rule ID of POLICY.md. The ID is the label in messages, metrics, config and tests. */
export const RULE_IDS = [
  'K8S-VERSIONS',
  'MACHINE-IMAGES',
  'CLASSIFICATION',
  'LIFECYCLE-ORDER',
  'LATEST-NO-EXPIRY',
  'SUPPORTED-PER-MINOR',
  'PAST-EXPIRATION',
  'IN-USE',
  'NCP-OVERRIDES',
  'SHOOT-VERSION-AVAILABLE',
  'SHOOT-NO-DOWNGRADE',
  'SHOOT-NO-MINOR-SKIP',
  'BASTION-IMAGE',
  'DEFAULT-GARDENER',
  'DEFAULT-LIFECYCLE',
] as const;
export type RuleId = (typeof RULE_IDS)[number];

export interface Violation {
  rule: RuleId;
  /** Field path, e.g. `spec.kubernetes.versions[3].lifecycle[1].classification`; '' for the whole object. */
  field: string;
  /** Lower-case, names the version(s) and the other side of any conflict. */
  message: string;
  /** Set on the line that stands for violations left out by the cap (`and 950 more …`): how many. */
  omitted?: number;
}

export interface PolicyRequest {
  operation: Operation;
  kind: Kind;
  name: string;
  namespace?: string;
  /** The object to be stored (CREATE, UPDATE). */
  object?: PolicedObject;
  /** The stored object (UPDATE, DELETE). */
  oldObject?: PolicedObject;
  dryRun: boolean;
  user?: string;
}

export interface Decision {
  allowed: boolean;
  violations: Violation[];
  /** What the webhook answers and `check` prints: within the warning budget (POLICY.md "Warnings"). */
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

interface ContextBase {
  operation: Operation;
  request: PolicyRequest;
  /** Epoch ms; time rules compare against this and never read the clock. */
  now: number;
  config: Config;
  /** Feature gate VersionClassificationLifecycle. */
  lifecycleGate: boolean;
  state: ClusterState;
  /**
   * What several rules read, prepared on first use and then shared for the rest of the review.
   * evaluate() gives each review a fresh one; a context without it prepares per call.
   */
  prepared?: Prepared;
}

export interface Prepared {
  /** The old object's versions on a profile UPDATE (PAST-EXPIRATION, LIFECYCLE-ORDER, SUPPORTED-PER-MINOR). */
  oldVersions?: VersionIndex;
}

export interface CloudProfileContext extends ContextBase {
  kind: 'CloudProfile';
  /** After the mutating path. */
  object?: CloudProfile;
  oldObject?: CloudProfile;
}

export interface NamespacedCloudProfileContext extends ContextBase {
  kind: 'NamespacedCloudProfile';
  object?: NamespacedCloudProfile;
  oldObject?: NamespacedCloudProfile;
  /** The parent CloudProfile from the cluster state, if it exists. */
  parent?: CloudProfile;
  /** Parent + overrides of `object` (see merge.ts), when the parent exists. */
  merged?: CloudProfileSpec;
  /** Parent + overrides of `oldObject`, when the parent exists. */
  oldMerged?: CloudProfileSpec;
}

export interface ShootContext extends ContextBase {
  kind: 'Shoot';
  object?: Shoot;
  oldObject?: Shoot;
  /** The Shoot's effective profile spec (merged for a NamespacedCloudProfile), when it exists in the state. */
  profile?: CloudProfileSpec;
  /** The profile's versions by list and version, prepared once (per state profile, or per review for a merged one). */
  entries?: ProfileEntries;
}

export type RuleContext = CloudProfileContext | NamespacedCloudProfileContext | ShootContext;

export interface Rule {
  id: RuleId;
  /** Whether the rule judges this request at all (kind, operation). */
  appliesTo(ctx: RuleContext): boolean;
  /**
   * Whether judging this request needs the cluster state. When it does and the state is not
   * synced, evaluate() denies with "cluster state not ready" instead of calling check().
   */
  needsState?(ctx: RuleContext): boolean;
  check(ctx: RuleContext): Violation[];
  /** Things worth saying that do not deny. */
  warnings?(ctx: RuleContext): Warning[];
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

/** The violations a rule reported, cut to MAX_VIOLATIONS_PER_RULE with a line counting the rest. */
export function capViolations(rule: RuleId, found: readonly Violation[]): Violation[] {
  if (found.length <= MAX_VIOLATIONS_PER_RULE) return found.slice();
  const omitted = found.length - MAX_VIOLATIONS_PER_RULE;
  return [...found.slice(0, MAX_VIOLATIONS_PER_RULE), { rule, field: '', message: `and ${omitted.toLocaleString('en-US')} more violations of this rule`, omitted }];
}

/** What a denial message lists at most: lines, characters per line, characters in all. */
export const DENIAL_LIMITS = { lines: 20, lineLength: 1_000, length: 16_384 } as const;

const clipLine = (line: string) => (line.length <= DENIAL_LIMITS.lineLength ? line : `${line.slice(0, DENIAL_LIMITS.lineLength - 1)}…`);

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
  if (listed < total) lines.push(`and ${(total - listed).toLocaleString('en-US')} more violations; see version-policy check --output json`);
  if (total === 1 && lines.length === 1) return lines[0]!;
  return `${total.toLocaleString('en-US')} violations:\n${lines.join('\n')}`;
}
