// The audit of what is stored: every profile and Shoot judged at one instant by the same rules as
// admission (evaluate() with the rule list narrowed to the rules that judge an object on its own),
// plus the forecast's findings per Shoot. Pure: the state and the instant come in, findings go out,
// one object at a time so that a caller can pause between them (the writer does).
import type { ClusterState } from '../api/cluster-state.js';
import type { CloudProfileSpec, Kind, PolicedObject, Shoot } from '../api/types.js';
import { effectiveProfileRef, profileRefKey } from '../api/types.js';
import { componentText, type ForecastEvent, forecastShoot } from '../gardener/forecast/index.js';
import { formatInstant } from '../gardener/versions.js';
import { formatViolation, type RuleId } from '../policy/decision.js';
import { evaluate, profileSpecOf } from '../policy/evaluate.js';
import type { PolicyConfig } from '../policy/policy-config.js';
import type { PolicyRequest, Rule } from '../policy/rule.js';
import { RULES } from '../policy/rules/index.js';

export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info';

/**
 * The rules the audit runs, with the severity of their findings. Only rules that judge an object
 * on its own: PAST-EXPIRATION, IN-USE, FORECAST and SHOOT-NO-DOWNGRADE judge a change, not a state.
 * A structural finding is high (Gardener itself would refuse the object), a lifecycle one medium.
 */
export const AUDIT_RULES = {
  'K8S-VERSIONS': 'high',
  'MACHINE-IMAGES': 'high',
  CLASSIFICATION: 'high',
  'NCP-OVERRIDES': 'high',
  'LIFECYCLE-ORDER': 'medium',
  'LATEST-NO-EXPIRY': 'medium',
  'SUPPORTED-PER-MINOR': 'medium',
  'BASTION-IMAGE': 'medium',
  'SHOOT-VERSION-AVAILABLE': 'high',
  'SHOOT-NO-MINOR-SKIP': 'high',
} as const satisfies Partial<Record<RuleId, Severity>>;

export type AuditRuleId = keyof typeof AUDIT_RULES;

/** The policy name of the forecast's findings; its rules are the kinds below. */
export const FORECAST_POLICY = 'FORECAST';
export type ForecastFindingKind = 'forced-update' | 'failure' | 'trap';
const FORECAST_SEVERITY: Record<ForecastFindingKind, Severity> = {
  failure: 'high',
  'forced-update': 'medium',
  trap: 'medium',
};

/** The rule list the audit runs: the admission rules themselves, in their order. */
const AUDIT_RULE_LIST = RULES.filter((r) => r.id in AUDIT_RULES) as readonly Rule<RuleId>[];

export interface AuditSettings {
  /** A forced update is reported when its window starts within this many days. */
  forcedWithinDays: number;
  /** Predicted failures and traps are reported when they fall within this many days. */
  horizonDays: number;
}

export interface AuditOptions {
  /** The instant everything is judged at, epoch ms. */
  now: number;
  config: PolicyConfig;
  settings: AuditSettings;
}

export interface Subject {
  kind: Kind;
  namespace?: string;
  name: string;
  uid?: string;
}

export interface Finding {
  /** A rule ID of the rule book, or FORECAST. */
  policy: AuditRuleId | typeof FORECAST_POLICY;
  /** For a rule: the field path; for the forecast: what it predicts. */
  rule: string;
  /** `fail` for a rule the stored object breaks; `warn` for a prediction of the forecast. */
  result: 'fail' | 'warn';
  severity: Severity;
  /** The rule's denial line, as the webhook would give it; the forecast's step in words. */
  message: string;
  subject: Subject;
  /** Extra facts as strings: the field, the window and the cause of a forecast finding. */
  properties: Record<string, string>;
}

const DAY_MS = 86_400_000;

/**
 * The audit, one stored object per step: first the profiles, then the Shoots, each with its
 * findings (often none). Deleting objects are skipped: Gardener no longer maintains them. The
 * order of the state's iteration does not matter; reports sort (openreports.ts).
 */
export function* auditSteps(state: ClusterState, opts: AuditOptions): Generator<Finding[]> {
  if (!state.synced) throw new Error(`cannot audit: ${state.notReadyReason ?? 'the cluster state is not synced'}`);
  for (const profile of state.allProfiles()) {
    if (profile.metadata.deletionTimestamp) continue;
    yield ruleFindings(profile, state, opts);
  }
  const specs = new Map<string, CloudProfileSpec | undefined>();
  for (const shoot of state.allShoots()) {
    if (shoot.metadata.deletionTimestamp) continue;
    const out = ruleFindings(shoot, state, opts);
    const ref = effectiveProfileRef(shoot);
    if (ref) {
      // One merged spec per NamespacedCloudProfile and audit, as the fleet forecast keeps it.
      const key = profileRefKey(ref);
      if (!specs.has(key)) specs.set(key, profileSpecOf(shoot, state));
      const spec = specs.get(key);
      if (spec) for (const f of forecastFindings(shoot, spec, opts)) out.push(f);
    }
    yield out;
  }
}

/** The whole audit in one piece: for tests and the CLI, never on the server's event loop. */
export function audit(state: ClusterState, opts: AuditOptions): Finding[] {
  const out: Finding[] = [];
  for (const step of auditSteps(state, opts)) for (const f of step) out.push(f);
  return out;
}

/** The audit rules over one stored object, judged as if it were created now without the mutating path. */
export function ruleFindings(object: PolicedObject, state: ClusterState, opts: AuditOptions): Finding[] {
  const request: PolicyRequest = {
    operation: 'CREATE',
    kind: object.kind,
    name: object.metadata.name,
    ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
    object,
    dryRun: true,
  };
  const decision = evaluate(request, {
    now: opts.now,
    config: opts.config,
    state,
    rules: AUDIT_RULE_LIST,
    warningChecks: [],
    mutate: false,
  });
  const subject = subjectOf(object);
  return decision.violations.map((v): Finding => ({
    policy: v.rule as AuditRuleId,
    rule: v.field || v.rule,
    result: 'fail',
    severity: AUDIT_RULES[v.rule as AuditRuleId],
    message: formatViolation(v),
    subject,
    properties: v.field ? { field: v.field } : {},
  }));
}

/** The forecast's findings for one Shoot: forced updates soon, and failures and traps within the horizon. */
export function forecastFindings(shoot: Shoot, spec: CloudProfileSpec, opts: AuditOptions): Finding[] {
  const { now, settings } = opts;
  const forcedUntil = now + settings.forcedWithinDays * DAY_MS;
  const until = now + Math.max(settings.horizonDays, settings.forcedWithinDays) * DAY_MS;
  const subject = subjectOf(shoot);
  const out: Finding[] = [];
  for (const e of forecastShoot(shoot, spec, now, until).events) {
    if (e.failure && e.at < now + settings.horizonDays * DAY_MS) out.push(forecastFinding('failure', e, subject));
    else if (e.mode === 'forced' && e.to !== undefined && e.at < forcedUntil)
      out.push(forecastFinding('forced-update', e, subject));
    if (e.trap && e.at < now + settings.horizonDays * DAY_MS) out.push(forecastFinding('trap', e, subject));
  }
  return out;
}

function forecastFinding(kind: ForecastFindingKind, e: ForecastEvent, subject: Subject): Finding {
  const window = `${formatInstant(e.at)} to ${formatInstant(e.windowEnd)}`;
  const what = componentText(e.component);
  const maybe = e.uncertain ? ' (or a window earlier: the run instant decides)' : '';
  const message =
    kind === 'failure'
      ? `${e.mode} update of ${what} from "${e.from ?? ''}" fails in the maintenance window ${window}${maybe}: ${e.failure!.message}`
      : kind === 'trap'
        ? `${what} is caught by ${e.trap!.issue} in the maintenance window ${window}${maybe}: ${e.trap!.detail}`
        : `forced update of ${what} from "${e.from ?? ''}" to "${e.to ?? ''}" in the maintenance window ${window}${maybe}: ${e.reason}`;
  const properties: Record<string, string> = {
    windowStart: formatInstant(e.at),
    windowEnd: formatInstant(e.windowEnd),
    component: what,
    cause: e.trigger,
  };
  if (e.from !== undefined) properties.from = e.from;
  if (e.to !== undefined) properties.to = e.to;
  if (e.failure) properties.failure = e.failure.kind;
  if (e.trap) properties.issue = e.trap.issue;
  return {
    policy: FORECAST_POLICY,
    rule: kind,
    result: 'warn',
    severity: FORECAST_SEVERITY[kind],
    message,
    subject,
    properties,
  };
}

function subjectOf(o: PolicedObject): Subject {
  return {
    kind: o.kind,
    ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
    name: o.metadata.name,
    ...(o.metadata.uid ? { uid: o.metadata.uid } : {}),
  };
}
