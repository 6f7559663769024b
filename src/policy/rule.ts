// The contract between evaluate() and the rules: what a rule is told, what it judges, what it returns.
import type { ClusterState } from '../api/cluster-state.js';
import type { FieldViolation } from '../api/field.js';
import type {
  CloudProfile,
  CloudProfileSpec,
  Kind,
  NamespacedCloudProfile,
  Operation,
  PolicedObject,
  Shoot,
} from '../api/types.js';
import type { ProfileEntries } from '../gardener/version-uses.js';
import type { ForecastCondition } from '../gardener/forecast/profile-change.js';
import type { SortedStrings } from '../util/sorted-strings.js';

/** What of the config a review reads besides the rules' switches. */
export interface ReviewSettings {
  featureGates: { VersionClassificationLifecycle: boolean };
  warnings: { expiringWithinDays: number };
  /** What a profile UPDATE does to maintenance (forecast/admission.ts): warned, or denied per condition. */
  forecast: { warn: boolean; deny: readonly ForecastCondition[]; horizonDays: number; soonDays: number };
}

export interface PolicyRequest {
  operation: Operation;
  kind: Kind;
  name: string;
  namespace?: string;
  /** The object to be stored (CREATE, UPDATE). */
  object?: PolicedObject;
  /** The stored object (UPDATE, DELETE), or what the webhook read of it (`stored`). */
  oldObject?: PolicedObject;
  /** Set when `oldObject` is what the webhook read of the stored object, not all of it (admission/stored.ts). */
  stored?: StoredRead;
  dryRun: boolean;
  user?: string;
}

/** What was decided on the whole stored object of an UPDATE, where `oldObject` holds only part of it. */
export interface StoredRead {
  /** Whether the stored spec, and the metadata, equal the object's (a NamespacedCloudProfile's). */
  sameSpec?: boolean;
  sameMetadata?: boolean;
  /** The versions the UPDATE removes, as names only: `oldObject` then lists only the versions the object keeps. */
  removed?: RemovedVersions;
}

/** What a profile UPDATE removes, by name: too many to read whole (STORED_READ). */
export interface RemovedVersions {
  /** Entries and whole images removed. */
  count: number;
  kubernetes: SortedStrings;
  /** `image\u0000version` of each removed image version. */
  imageVersions: SortedStrings;
  /** Images removed whole. */
  images: SortedStrings;
}

interface ContextBase {
  operation: Operation;
  request: PolicyRequest;
  /** Epoch ms; time rules compare against this and never read the clock. */
  now: number;
  config: ReviewSettings;
  /** Feature gate VersionClassificationLifecycle. */
  lifecycleGate: boolean;
  state: ClusterState;
  /**
   * What several rules read, prepared on first use and then shared for the rest of the review.
   * evaluate() gives each review a fresh one; a context without it prepares per call.
   */
  prepared?: Prepared;
}

/** A key of the review's memo: one per kind of prepared value, declared by the module that computes it. */
export interface PreparedKey<T> {
  readonly name: string;
  /** Never set: it only carries the value's type. */
  readonly type?: T;
}

/** Declares a key of the review's memo; `name` is for debugging only. */
export function preparedKey<T>(name: string): PreparedKey<T> {
  return { name };
}

/**
 * What several rules or warnings read, computed on first use and shared for the rest of one
 * review. The contract names no client: each module declares its own key (preparedKey) beside
 * the code that computes the value.
 */
export class Prepared {
  readonly #values = new Map<PreparedKey<unknown>, unknown>();

  /** The value under `key`, made by `make` on first use in this review. */
  get<T>(key: PreparedKey<T>, make: () => T): T {
    if (this.#values.has(key)) return this.#values.get(key) as T;
    const value = make();
    this.#values.set(key, value);
    return value;
  }

  /** Puts a value computed elsewhere under `key`: a later `get` returns it. */
  set<T>(key: PreparedKey<T>, value: T): void {
    this.#values.set(key, value);
  }
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

/** The operations that write an object: the rules of these see `object` always set. */
export const WRITES = ['CREATE', 'UPDATE'] as const;
export type Write = (typeof WRITES)[number];

type ContextOf<K extends Kind> = Extract<RuleContext, { kind: K }>;

/**
 * The context a rule of kinds K and operations O is called with, narrowed once by evaluate(): a
 * union per kind and operation, so `ctx.kind` and `ctx.operation` narrow it further, and on a
 * write `object` is there.
 */
export type Judged<K extends Kind, O extends Operation> = K extends Kind
  ? O extends Write
    ? ContextOf<K> & { operation: O; object: NonNullable<ContextOf<K>['object']> }
    : ContextOf<K> & { operation: O }
  : never;

/** How a rule is declared: once, with what it judges and a check typed for exactly that. */
export interface RuleSpec<Id extends string, K extends Kind, O extends Operation> {
  id: Id;
  kinds: readonly K[];
  operations: readonly O[];
  /** One line for the rule book, the README and the config reference: what the rule denies. */
  summary: string;
  /**
   * Whether judging this request needs the cluster state. When it does and the state is not
   * synced, evaluate() denies with "cluster state not ready" instead of calling check(). Default false.
   */
  needsState?: boolean | ((ctx: Judged<K, O>) => boolean);
  check: (ctx: Judged<K, O>) => FieldViolation[];
}

/** A rule as the list holds it: evaluate() calls it only for its kinds and operations. */
export interface Rule<Id extends string = string> {
  readonly id: Id;
  readonly kinds: readonly Kind[];
  readonly operations: readonly Operation[];
  readonly summary: string;
  needsState(ctx: RuleContext): boolean;
  check(ctx: RuleContext): FieldViolation[];
}

const never = () => false;
const always = () => true;

/**
 * A rule of the list. The dispatch narrows here, once: evaluate() calls `check` and `needsState`
 * only with a context of the declared kinds and operations, and with `object` set on a write.
 */
export function defineRule<const Id extends string, K extends Kind, O extends Operation>(
  spec: RuleSpec<Id, K, O>,
): Rule<Id> {
  const needs = spec.needsState;
  return {
    id: spec.id,
    kinds: spec.kinds,
    operations: spec.operations,
    summary: spec.summary,
    needsState: typeof needs === 'function' ? needs : needs ? always : never,
    check: spec.check,
  };
}
