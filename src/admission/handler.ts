// The admission handler: one AdmissionRequest in, one AdmissionResponse out, plus what the log
// line and the metrics need. No HTTP here (the server owns transport); no I/O (evaluate is pure).
import type { ClusterState } from '../api/cluster-state.js';
import type { Config } from '../config.js';
import { beginEvaluation } from '../policy/evaluate.js';
import type { ForecastAnswer } from '../policy/warnings/forecast.js';
import type { FieldError } from '../api/parse.js';
import type { Decision, RuleId } from '../policy/decision.js';
import { formatDenial } from '../policy/decision.js';
import type { Rule } from '../policy/rule.js';
import type { WarningCheck } from '../policy/warnings/index.js';
import { ERRORS, type WebhookError } from './errors.js';
import type { MappedRequest } from './request.js';
import { toPolicyRequest } from './request.js';
import { allowed, auditAnnotations, denied, errored, patched } from './response.js';
import type { AdmissionRequest, AdmissionResponse } from './review.js';

export type Webhook = 'validate' | 'mutate';

/** The label a schema failure carries where a rule ID would be (messages, logs, metrics). */
export const SCHEMA_CHECK = 'SCHEMA';

export interface AdmissionContext {
  /** Epoch ms: the instant time rules judge against. */
  now: number;
  config: Config;
  state: ClusterState;
  /** The rules evaluate() runs; the rule list unless a test narrows it. */
  rules?: readonly Rule<RuleId>[];
  /** The warning checks evaluate() runs; all unless a test narrows them. */
  warningChecks?: readonly WarningCheck[];
  /**
   * The review's maintenance forecast, made elsewhere (the server's worker thread, on the same
   * bytes, state and instant); without it, a review that reads the forecast computes it here.
   * Never rejects: an answer it cannot give is `unavailable`.
   */
  forecast?: () => Promise<ForecastAnswer>;
  /** The request as toPolicyRequest maps it, when that ran already (the server's body worker). */
  mapped?: MappedRequest;
}

export interface AdmissionOutcome {
  response: AdmissionResponse;
  /** Rule IDs (or SCHEMA) behind a denial, unique, in the order reported. */
  rules: string[];
  /** Every warning in full, beyond what fits the answer, for the debug log: read from the decision only when asked for. */
  judged: Pick<Decision, 'allWarnings'>;
  /** An exception thrown while judging; the response is then `errored` with code 500. */
  error?: unknown;
}

const NO_WARNINGS: Pick<Decision, 'allWarnings'> = { allWarnings: [] };

/** A review that cannot be judged (bad body, envelope or encoding), refused with the error's status. */
export function refused(uid: string, error: WebhookError): AdmissionOutcome {
  return audited({ response: errored(uid, error.statusCode, error.message), rules: [], judged: NO_WARNINGS });
}

/** The outcome with its response's audit annotations: every answer carries them. */
function audited(outcome: AdmissionOutcome): AdmissionOutcome {
  outcome.response.auditAnnotations = auditAnnotations(outcome.response, outcome.rules);
  return outcome;
}

/** Formats a schema failure the way a denial lists violations. */
export function formatFieldError(e: FieldError): string {
  return e.field ? `[${SCHEMA_CHECK}] ${e.field}: ${e.message}` : `[${SCHEMA_CHECK}] ${e.message}`;
}

/**
 * Judges one request. `problems` are what the request schema found wrong past the uid; such a
 * request is refused with 400 and never evaluated. A promise only when the review waits for its
 * forecast (`ctx.forecast`).
 */
export function admit(
  webhook: Webhook,
  req: AdmissionRequest,
  problems: readonly string[],
  ctx: AdmissionContext & { forecast?: undefined },
): AdmissionOutcome;
export function admit(
  webhook: Webhook,
  req: AdmissionRequest,
  problems: readonly string[],
  ctx: AdmissionContext,
): AdmissionOutcome | Promise<AdmissionOutcome>;
export function admit(
  webhook: Webhook,
  req: AdmissionRequest,
  problems: readonly string[],
  ctx: AdmissionContext,
): AdmissionOutcome | Promise<AdmissionOutcome> {
  const outcome = judge(webhook, req, problems, ctx);
  return outcome instanceof Promise ? outcome.then(audited) : audited(outcome);
}

function judge(
  webhook: Webhook,
  req: AdmissionRequest,
  problems: readonly string[],
  ctx: AdmissionContext,
): AdmissionOutcome | Promise<AdmissionOutcome> {
  const uid = req.uid;
  if (problems.length > 0)
    return {
      response: errored(uid, ERRORS.REQUEST_INVALID.status, ERRORS.REQUEST_INVALID.message(problems)),
      rules: [],
      judged: NO_WARNINGS,
    };

  const mapped: MappedRequest = ctx.mapped ?? toPolicyRequest(req);
  if (mapped.outcome === 'unpoliced')
    return { response: allowed(uid, [mapped.warning]), rules: [], judged: { allWarnings: [mapped.warning] } };
  if (mapped.outcome === 'malformed') {
    return {
      response: denied(uid, ERRORS.OBJECT_INVALID.message(mapped.errors.map(formatFieldError).join('; '))),
      rules: [SCHEMA_CHECK],
      judged: NO_WARNINGS,
    };
  }
  // Deletions are validated, never mutated: nothing to default on an object that goes away.
  if (webhook === 'mutate' && mapped.request.operation === 'DELETE')
    return { response: allowed(uid), rules: [], judged: NO_WARNINGS };

  try {
    const evaluation = beginEvaluation(mapped.request, {
      now: ctx.now,
      config: ctx.config,
      state: ctx.state,
      ...(ctx.rules ? { rules: ctx.rules } : {}),
      ...(ctx.warningChecks ? { warningChecks: ctx.warningChecks } : {}),
    });
    if (ctx.forecast && evaluation.wantsForecast)
      return ctx.forecast().then(
        (forecast) => answer(webhook, uid, evaluation.finish(forecast)),
        (error: unknown) => failed(uid, error),
      );
    return answer(webhook, uid, evaluation.finish());
  } catch (error) {
    return failed(uid, error);
  }
}

function failed(uid: string, error: unknown): AdmissionOutcome {
  const detail = error instanceof Error ? error.message : String(error);
  return {
    response: errored(uid, ERRORS.EVALUATION_FAILED.status, ERRORS.EVALUATION_FAILED.message(detail)),
    rules: [],
    judged: NO_WARNINGS,
    error,
  };
}

function answer(webhook: Webhook, uid: string, decision: Decision): AdmissionOutcome {
  if (!decision.allowed) {
    const rules = [...new Set(decision.violations.map((v) => v.rule))];
    const message = ERRORS.POLICY_DENIED.message(formatDenial(decision.violations));
    return judged(denied(uid, message, decision.warnings), rules, decision);
  }
  if (webhook === 'validate' || !decision.patch) return judged(allowed(uid, decision.warnings), [], decision);
  return judged(patched(uid, decision.patch, decision.warnings), [], decision);
}

function judged(response: AdmissionResponse, rules: string[], decision: Decision): AdmissionOutcome {
  return { response, rules, judged: decision };
}
