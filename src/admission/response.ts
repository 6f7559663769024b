// Response builders named after the decision (controller-runtime's Allowed/Denied/Patched/
// Errored), and the envelope that echoes the request's apiVersion, kind and uid.
import { ERRORS, reasonFor } from './errors.js';
import { encodePatch, type PatchOperation } from './patch.js';
import type { AdmissionResponse, AdmissionReviewRequest, AdmissionReviewResponse } from './review.js';

const withWarnings = (warnings: readonly string[]) => (warnings.length > 0 ? { warnings: [...warnings] } : {});

export function allowed(uid: string, warnings: readonly string[] = []): AdmissionResponse {
  return { uid, allowed: true, ...withWarnings(warnings) };
}

/** A policy denial: code 403 and a message listing every violation. */
export function denied(uid: string, message: string, warnings: readonly string[] = []): AdmissionResponse {
  const { status, reason } = ERRORS.POLICY_DENIED;
  return { uid, allowed: false, status: { code: status, reason, message }, ...withWarnings(warnings) };
}

/** Allowed with a JSON Patch; without operations it is a plain `allowed`. */
export function patched(
  uid: string,
  ops: readonly PatchOperation[],
  warnings: readonly string[] = [],
): AdmissionResponse {
  if (ops.length === 0) return allowed(uid, warnings);
  return { uid, allowed: true, patchType: 'JSONPatch', patch: encodePatch(ops), ...withWarnings(warnings) };
}

/** Refused because the request could not be judged (malformed request: 400, failure: 500). */
export function errored(uid: string, code: number, message: string): AdmissionResponse {
  return { uid, allowed: false, status: { code, reason: reasonFor(code), message } };
}

export function reviewResponse(review: AdmissionReviewRequest, response: AdmissionResponse): AdmissionReviewResponse {
  return { apiVersion: review.apiVersion, kind: review.kind, response };
}

/**
 * The audit annotations every answer carries: kube-apiserver writes them into the request's audit
 * event as `<webhook name>/<key>` (for example `validate.version-policy.gardener.cloud/decision`),
 * so the audit log keeps every decision, including the plain allowed ones the webhook's own log
 * writes only at debug level. Keys are valid qualified-name parts (at most 63 characters of
 * [A-Za-z0-9-_.]); values are strings.
 * - `decision`: allowed, denied (a policy or schema denial, 403) or error (400, 415, 500)
 * - `rules`: the rule IDs (or SCHEMA) that denied, comma-separated; only on a denial
 * - `patched`: "true" when the answer carries a JSON Patch, else "false"
 * - `warnings`: how many warnings the answer carries
 */
export function auditAnnotations(response: AdmissionResponse, rules: readonly string[]): Record<string, string> {
  const code = response.status?.code ?? 200;
  const decision = response.allowed ? 'allowed' : code === ERRORS.POLICY_DENIED.status ? 'denied' : 'error';
  return {
    decision,
    ...(rules.length > 0 && !response.allowed ? { rules: rules.join(',') } : {}),
    patched: response.patch ? 'true' : 'false',
    warnings: String(response.warnings?.length ?? 0),
  };
}
