// PolicyRequest + ClusterState + Config + now → Decision. Mutate first, then run every enabled
// rule that applies and collect all violations: the user sees everything at once.
import type { ClusterState } from '../cluster/state.js';
import type { Config } from '../config.js';
import { ruleEnabled } from '../config.js';
import { applyMutatingPath } from './defaulting/index.js';
import { mergeNamespacedProfile } from './merge.js';
import type { Decision, PolicyRequest, Rule, RuleContext, Violation } from './rule.js';
import { RULES } from './rules/index.js';
import type { CloudProfile, CloudProfileSpec, NamespacedCloudProfile, PolicedObject, Shoot } from './types.js';
import { effectiveProfileRef } from './types.js';
import { WARNINGS } from './warnings/index.js';

export interface EvaluateOptions {
  /** Epoch milliseconds. */
  now: number;
  config: Config;
  state: ClusterState;
  /** Defaults to the full registry; tests may narrow it. */
  rules?: readonly Rule[];
}

export const NOT_READY_MESSAGE = 'cluster state not ready: the webhook has not finished reading Shoots and profiles from the API server; retry shortly';

export function evaluate(request: PolicyRequest, opts: EvaluateOptions): Decision {
  const mutation = applyMutatingPath(request, opts.now, opts.config);
  const object = mutation?.object ?? request.object;
  const ctx = buildContext(request, object, opts);

  const violations: Violation[] = [];
  const warnings: string[] = [...(mutation?.warnings ?? [])];
  for (const rule of opts.rules ?? RULES) {
    if (!ruleEnabled(opts.config, rule.id) || !rule.appliesTo(ctx)) continue;
    if (!opts.state.synced && rule.needsState?.(ctx)) {
      violations.push({ rule: rule.id, field: '', message: NOT_READY_MESSAGE });
      continue;
    }
    violations.push(...rule.check(ctx));
    if (rule.warnings) warnings.push(...rule.warnings(ctx));
  }
  for (const warn of WARNINGS) warnings.push(...warn(ctx));

  return {
    allowed: violations.length === 0,
    violations,
    warnings,
    ...(object && request.operation !== 'DELETE' ? { object } : {}),
    mutated: mutation?.mutated ?? false,
  };
}

/** The merged spec of a NamespacedCloudProfile, when its parent is in the state. */
export function mergedProfileOf(ncp: NamespacedCloudProfile, state: ClusterState): { parent: CloudProfile; merged: CloudProfileSpec } | undefined {
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

function buildContext(request: PolicyRequest, object: PolicedObject | undefined, opts: EvaluateOptions): RuleContext {
  const base = {
    operation: request.operation,
    request,
    now: opts.now,
    config: opts.config,
    lifecycleGate: opts.config.featureGates.VersionClassificationLifecycle,
    state: opts.state,
  };
  switch (request.kind) {
    case 'CloudProfile':
      return {
        ...base,
        kind: 'CloudProfile',
        ...(object ? { object: object as CloudProfile } : {}),
        ...(request.oldObject ? { oldObject: request.oldObject as CloudProfile } : {}),
      };
    case 'NamespacedCloudProfile': {
      const ncp = object as NamespacedCloudProfile | undefined;
      const old = request.oldObject as NamespacedCloudProfile | undefined;
      const current = ncp ? mergedProfileOf(ncp, opts.state) : undefined;
      const previous = old ? mergedProfileOf(old, opts.state) : undefined;
      const parent = current?.parent ?? previous?.parent;
      return {
        ...base,
        kind: 'NamespacedCloudProfile',
        ...(ncp ? { object: ncp } : {}),
        ...(old ? { oldObject: old } : {}),
        ...(parent ? { parent } : {}),
        ...(current ? { merged: current.merged } : {}),
        ...(previous ? { oldMerged: previous.merged } : {}),
      };
    }
    case 'Shoot': {
      const shoot = object as Shoot | undefined;
      const profile = shoot ? profileSpecOf(shoot, opts.state) : undefined;
      return {
        ...base,
        kind: 'Shoot',
        ...(shoot ? { object: shoot } : {}),
        ...(request.oldObject ? { oldObject: request.oldObject as Shoot } : {}),
        ...(profile ? { profile } : {}),
      };
    }
  }
}
