// PolicyRequest + ClusterState + Config + now → Decision. Mutate first, then run every enabled
// rule of the request's kind and operation and collect all violations: the user sees everything at once.
import type { ClusterState } from '../api/cluster-state.js';
import type { Decision, RuleId, Violation } from './decision.js';
import { capViolations } from './decision.js';
import { applyMutatingPath } from './defaulting/index.js';
import type { JsonPatchOperation } from './defaulting/patch.js';
import { profileEntries, stateProfileEntries } from '../gardener/version-uses.js';
import { mergeNamespacedProfile } from '../gardener/merge.js';
import type { PolicyConfig } from './policy-config.js';
import { ruleEnabled } from './policy-config.js';
import type {
  CloudProfileContext,
  NamespacedCloudProfileContext,
  PolicyRequest,
  Rule,
  RuleContext,
  ShootContext,
} from './rule.js';
import { Prepared } from './rule.js';
import { RULES } from './rules/index.js';
import type {
  CloudProfile,
  CloudProfileSpec,
  Kind,
  NamespacedCloudProfile,
  Operation,
  PolicedObject,
  Shoot,
} from '../api/types.js';
import { effectiveProfileRef } from '../api/types.js';
import type { Warning } from './warning.js';
import { allWarningTexts, budgetWarnings } from './warnings/budget.js';
import { type WarningCheck, WARNINGS } from './warnings/index.js';
import {
  answerForecast,
  type ForecastAnswer,
  type ProfileUpdate,
  provideForecast,
  wantsForecast,
} from './warnings/forecast.js';

export interface EvaluateOptions {
  /** Epoch milliseconds. */
  now: number;
  config: PolicyConfig;
  state: ClusterState;
  /** Defaults to the rule list; tests may narrow it. */
  rules?: readonly Rule<RuleId>[];
  /** Defaults to every warning check; tests may narrow it. */
  warningChecks?: readonly WarningCheck[];
  /**
   * What a rule that needs the cluster state does when the state is not synced: `deny` (the
   * webhook: it never guesses "allowed") or `note` (`check` without a state: it says what it could
   * not judge). Default `deny`.
   */
  unsyncedState?: 'deny' | 'note';
  /** False judges the object as written, without the mutating path (`check --no-mutate`). Default true. */
  mutate?: boolean;
}

export const NOT_READY_MESSAGE =
  'cluster state not ready: the webhook has not finished reading Shoots and profiles from the API server; retry shortly';

/** The denial for a rule that needs the state while it is not synced, with the state's own reason when it gives one. */
export function notReadyMessage(state: ClusterState): string {
  return state.notReadyReason ? `cluster state not ready: ${state.notReadyReason}` : NOT_READY_MESSAGE;
}

export function evaluate(request: PolicyRequest, opts: EvaluateOptions): Decision {
  return beginEvaluation(request, opts).finish();
}

/** A review between its mutating path and its rules: where the server hands in a forecast made off the event loop. */
export interface Evaluation {
  /** True when the rules or warnings read the maintenance forecast of this profile UPDATE. */
  readonly wantsForecast: boolean;
  /** The forecast, computed here: what a worker thread runs for the server, on the same request, state and instant. */
  forecast(): ForecastAnswer;
  /** The decision; `forecast`, when given, stands in for the forecast judging would otherwise compute here. */
  finish(forecast?: ForecastAnswer): Decision;
}

/** Runs the mutating path and prepares the rules' context; `finish` judges. evaluate() is both at once. */
export function beginEvaluation(request: PolicyRequest, opts: EvaluateOptions): Evaluation {
  const mutation =
    opts.mutate === false
      ? undefined
      : applyMutatingPath(request, { now: opts.now, config: opts.config, state: opts.state });
  const object = mutation?.object ?? request.object;
  const ctx = buildContext(request, object, opts);
  // A write without an object (a malformed request in `check`) has nothing for the rules to judge.
  const rules =
    request.operation !== 'DELETE' && !object
      ? NO_RULES
      : rulesFor(opts.rules ?? RULES, request.kind, request.operation);
  const wants = wantsForecast(ctx, rules.some((r) => r.id === 'FORECAST') && ruleEnabled(opts.config, 'FORECAST'));
  return {
    wantsForecast: wants,
    forecast: () => (wants ? answerForecast(ctx as ProfileUpdate) : { findings: [], skippedGroups: 0 }),
    finish(forecast) {
      if (forecast && ctx.prepared) provideForecast(ctx.prepared, forecast);
      return judge(ctx, object, rules, mutation, opts);
    },
  };
}

function judge(
  ctx: RuleContext,
  object: PolicedObject | undefined,
  rules: readonly Rule<RuleId>[],
  mutation: ReturnType<typeof applyMutatingPath> | undefined,
  opts: EvaluateOptions,
): Decision {
  const violations: Violation[] = [];
  const notes: string[] = [];
  const warnings: Warning[] = mutation ? mutation.warnings.slice() : [];
  for (const rule of rules) {
    if (!ruleEnabled(opts.config, rule.id)) continue;
    if (!opts.state.synced && rule.needsState(ctx)) {
      if (opts.unsyncedState === 'note')
        notes.push(`${rule.id} was not checked: ${opts.state.notReadyReason ?? 'the cluster state is not known'}`);
      else violations.push({ rule: rule.id, field: '', message: notReadyMessage(opts.state) });
      continue;
    }
    appendAll(violations, capViolations(rule.id, rule.check(ctx)));
  }
  for (const warn of opts.warningChecks ?? WARNINGS) appendAll(warnings, warn(ctx));

  return new EvaluatedDecision(
    {
      allowed: violations.length === 0,
      violations,
      warnings: budgetWarnings(warnings),
      notes,
      ...(object && ctx.operation !== 'DELETE' ? { object } : {}),
      mutated: mutation?.mutated ?? false,
      ...(mutation?.mutated && ctx.operation !== 'DELETE' ? { patch: mutation.patch } : {}),
    },
    warnings,
  );
}

type RulesByKind = Record<Kind, Record<Operation, readonly Rule<RuleId>[]>>;

const NO_RULES: readonly Rule<RuleId>[] = [];
const indexed = new WeakMap<readonly Rule<RuleId>[], RulesByKind>();

/** The rules of a list that judge `kind` and `operation`, in list order; each list is indexed once. */
function rulesFor(list: readonly Rule<RuleId>[], kind: Kind, operation: Operation): readonly Rule<RuleId>[] {
  let index = indexed.get(list);
  if (!index) indexed.set(list, (index = indexOf(list)));
  return index[kind][operation];
}

function indexOf(list: readonly Rule<RuleId>[]): RulesByKind {
  const byOperation = (kind: Kind) => ({
    CREATE: list.filter((r) => r.kinds.includes(kind) && r.operations.includes('CREATE')),
    UPDATE: list.filter((r) => r.kinds.includes(kind) && r.operations.includes('UPDATE')),
    DELETE: list.filter((r) => r.kinds.includes(kind) && r.operations.includes('DELETE')),
  });
  return {
    CloudProfile: byOperation('CloudProfile'),
    NamespacedCloudProfile: byOperation('NamespacedCloudProfile'),
    Shoot: byOperation('Shoot'),
  };
}

/** Appends without spreading `items` into a call: a spread of a long list overflows the stack. */
function appendAll<T>(into: T[], items: readonly T[]): void {
  for (const item of items) into.push(item);
}

/**
 * The decision, with `allWarnings` built on first read: the full texts of a large profile cost
 * more than every rule together. A class getter, not one per object: see bench/NOTES.md.
 */
class EvaluatedDecision implements Decision {
  readonly allowed: boolean;
  readonly violations: Violation[];
  readonly warnings: string[];
  readonly notes: string[];
  readonly object?: PolicedObject;
  readonly mutated: boolean;
  readonly patch?: readonly JsonPatchOperation[];
  #all: string[] | undefined;
  readonly #source: readonly Warning[];

  constructor(d: Omit<Decision, 'allWarnings'>, warnings: readonly Warning[]) {
    this.allowed = d.allowed;
    this.violations = d.violations;
    this.warnings = d.warnings;
    this.notes = d.notes;
    if (d.object) this.object = d.object;
    this.mutated = d.mutated;
    if (d.patch) this.patch = d.patch;
    this.#source = warnings;
  }

  get allWarnings(): string[] {
    return (this.#all ??= allWarningTexts(this.#source));
  }

  /** What JSON output shows of a decision: every field, the full warnings last (as before this was a class). */
  toJSON(): Decision {
    return {
      allowed: this.allowed,
      violations: this.violations,
      warnings: this.warnings,
      notes: this.notes,
      ...(this.object ? { object: this.object } : {}),
      mutated: this.mutated,
      allWarnings: this.allWarnings,
    };
  }
}

/** The merged spec of a NamespacedCloudProfile, when its parent is in the state. */
export function mergedProfileOf(
  ncp: NamespacedCloudProfile,
  state: ClusterState,
): { parent: CloudProfile; merged: CloudProfileSpec } | undefined {
  if (ncp.spec.parent.kind !== 'CloudProfile') return undefined;
  const parent = state.cloudProfile(ncp.spec.parent.name);
  return parent ? { parent, merged: mergeNamespacedProfile(parent.spec, ncp.spec) } : undefined;
}

/** The profile a Shoot resolves its versions from (merged for a NamespacedCloudProfile). */
export function profileSpecOf(shoot: Shoot, state: ClusterState): CloudProfileSpec | undefined {
  const ref = effectiveProfileRef(shoot);
  if (!ref) return undefined;
  if (ref.kind === 'CloudProfile') return state.cloudProfile(ref.name)?.spec;
  const ncp = state.namespacedCloudProfile(ref.namespace, ref.name);
  return ncp ? mergedProfileOf(ncp, state)?.merged : undefined;
}

// Each context is one object literal, then its optional fields assigned: spreading a base object
// and optional parts into a literal cost about 4 us per review on Node 20 and made the context a
// slow (dictionary-mode) object that every rule then read from.
function buildContext(request: PolicyRequest, object: PolicedObject | undefined, opts: EvaluateOptions): RuleContext {
  const { operation } = request;
  const { now, config, state } = opts;
  const lifecycleGate = config.featureGates.VersionClassificationLifecycle;
  switch (request.kind) {
    case 'CloudProfile': {
      const ctx: CloudProfileContext = {
        kind: 'CloudProfile',
        operation,
        request,
        now,
        config,
        lifecycleGate,
        state,
        prepared: new Prepared(),
      };
      if (object) ctx.object = object as CloudProfile;
      if (request.oldObject) ctx.oldObject = request.oldObject as CloudProfile;
      return ctx;
    }
    case 'NamespacedCloudProfile': {
      const ncp = object as NamespacedCloudProfile | undefined;
      const old = request.oldObject as NamespacedCloudProfile | undefined;
      const current = ncp ? mergedProfileOf(ncp, state) : undefined;
      const previous = old ? mergedProfileOf(old, state) : undefined;
      const parent = current?.parent ?? previous?.parent;
      const ctx: NamespacedCloudProfileContext = {
        kind: 'NamespacedCloudProfile',
        operation,
        request,
        now,
        config,
        lifecycleGate,
        state,
        prepared: new Prepared(),
      };
      if (ncp) ctx.object = ncp;
      if (old) ctx.oldObject = old;
      if (parent) ctx.parent = parent;
      if (current) ctx.merged = current.merged;
      if (previous) ctx.oldMerged = previous.merged;
      return ctx;
    }
    case 'Shoot': {
      const shoot = object as Shoot | undefined;
      const profile = shoot ? profileSpecOf(shoot, state) : undefined;
      const ctx: ShootContext = {
        kind: 'Shoot',
        operation,
        request,
        now,
        config,
        lifecycleGate,
        state,
        prepared: new Prepared(),
      };
      if (shoot) ctx.object = shoot;
      if (request.oldObject) ctx.oldObject = request.oldObject as Shoot;
      if (profile) {
        ctx.profile = profile;
        // A CloudProfile's spec is the state's own object; a merged one is new in every review.
        ctx.entries =
          effectiveProfileRef(shoot!)?.kind === 'CloudProfile' ? stateProfileEntries(profile) : profileEntries(profile);
      }
      return ctx;
    }
  }
}
