// AdmissionReview admission.k8s.io/v1: the types this webhook reads and writes, and the two
// schemas (compiled once, at load) that check a body before anything trusts it.
//
// The uid decides whether we can answer at all: without a readable `request.uid` there is no
// AdmissionReview response kube-apiserver would accept, so such a body gets a plain HTTP 400.
// Everything else wrong (a wrong apiVersion or kind, a malformed request) is answered inside an
// AdmissionReview with the uid echoed and allowed: false.
import { Ajv, type ErrorObject } from 'ajv';
import { pointerToField } from '../api/parse.js';
import { MAX_UID_LENGTH } from './limits.js';

export const REVIEW_API_VERSION = 'admission.k8s.io/v1';
/** The older version, which we refuse; an answer to it is written in it, so kube-apiserver can read the reason. */
export const REVIEW_API_VERSION_V1BETA1 = 'admission.k8s.io/v1beta1';
export const REVIEW_KIND = 'AdmissionReview';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  operation: string;
  name?: string;
  namespace?: string;
  subResource?: string;
  /** `null` on DELETE. */
  object?: unknown;
  oldObject?: unknown;
  dryRun?: boolean;
  userInfo?: { username?: string; [key: string]: unknown };
  [key: string]: unknown;
}

export interface AdmissionReviewRequest {
  apiVersion: string;
  kind: string;
  request: AdmissionRequest;
}

export interface AdmissionStatus {
  code: number;
  reason?: string;
  message?: string;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: AdmissionStatus;
  patchType?: 'JSONPatch';
  /** base64 of the JSON Patch document. */
  patch?: string;
  warnings?: string[];
  /** Written by kube-apiserver into its audit event, each key prefixed with the webhook's name. */
  auditAnnotations?: Record<string, string>;
}

export interface AdmissionReviewResponse {
  apiVersion: string;
  kind: string;
  response: AdmissionResponse;
}

/** What an answer needs from a review that cannot be judged: its uid, and the apiVersion to answer in. */
export interface ReviewIdentity {
  uid: string;
  apiVersion: string;
}

const str = { type: 'string' } as const;

const envelopeSchema = {
  type: 'object',
  required: ['apiVersion', 'kind', 'request'],
  properties: {
    apiVersion: { const: REVIEW_API_VERSION },
    kind: { const: REVIEW_KIND },
    request: {
      type: 'object',
      required: ['uid'],
      properties: { uid: { type: 'string', minLength: 1, maxLength: MAX_UID_LENGTH } },
    },
  },
} as const;

const requestSchema = {
  type: 'object',
  required: ['kind', 'operation'],
  properties: {
    kind: {
      type: 'object',
      required: ['group', 'version', 'kind'],
      properties: { group: str, version: str, kind: { type: 'string', minLength: 1 } },
    },
    operation: { type: 'string', minLength: 1 },
    name: str,
    namespace: str,
    subResource: str,
    dryRun: { type: 'boolean' },
    userInfo: { type: 'object', properties: { username: str } },
  },
} as const;

const ajv = new Ajv({ allErrors: true, strict: true });
const validateEnvelope = ajv.compile(envelopeSchema);
const validateRequest = ajv.compile(requestSchema);

export type DecodedReview =
  | { ok: true; review: AdmissionReviewRequest; problems: string[] }
  | { ok: false; message: string; identity?: ReviewIdentity };

function describe(e: ErrorObject, prefix: string): string {
  const at = [prefix, pointerToField(e.instancePath)].filter(Boolean).join('.');
  if (e.keyword === 'required') {
    const missing = String((e.params as { missingProperty: string }).missingProperty);
    return `${at ? `${at}.` : ''}${missing} is missing`;
  }
  if (e.keyword === 'const') {
    return `${at} must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}`;
  }
  return `${at || 'body'} ${e.message ?? 'is invalid'}`;
}

function describeAll(errors: readonly ErrorObject[] | null | undefined, prefix: string): string[] {
  return [...new Set((errors ?? []).map((e) => describe(e, prefix)))];
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The uid and answer version of a parsed body, when it has a uid we may echo (a string of 1 to 256 characters). */
export function identityOf(body: unknown): ReviewIdentity | undefined {
  if (!isRecord(body) || !isRecord(body.request)) return undefined;
  const uid = body.request.uid;
  if (typeof uid !== 'string' || uid.length === 0 || uid.length > MAX_UID_LENGTH) return undefined;
  return { uid, apiVersion: answerVersion(body.apiVersion) };
}

/** v1 unless the body asked in v1beta1: kube-apiserver reads an answer only in the version it sent. */
export function answerVersion(sent: unknown): string {
  return sent === REVIEW_API_VERSION_V1BETA1 ? REVIEW_API_VERSION_V1BETA1 : REVIEW_API_VERSION;
}

/**
 * Checks a parsed body. `ok: false` means no review we can judge: with an `identity`, it is
 * answered in an AdmissionReview (allowed: false, code 400); without one, with a plain HTTP 400.
 * `ok: true` with `problems` means the request is malformed past its uid: answer it the same way.
 */
export function decodeReview(body: unknown): DecodedReview {
  if (!isRecord(body)) {
    return {
      ok: false,
      message: `expected an ${REVIEW_API_VERSION} ${REVIEW_KIND} object, got ${body === null ? 'null' : Array.isArray(body) ? 'an array' : typeof body}`,
    };
  }
  if (!validateEnvelope(body)) {
    const identity = identityOf(body);
    const problems = describeAll(validateEnvelope.errors, '').join('; ');
    if (identity)
      return {
        ok: false,
        message: `this webhook reads ${REVIEW_API_VERSION} ${REVIEW_KIND}s only: ${problems}`,
        identity,
      };
    return { ok: false, message: `not an answerable ${REVIEW_API_VERSION} ${REVIEW_KIND}: ${problems}` };
  }
  const review = body;
  const problems = validateRequest(review.request) ? [] : describeAll(validateRequest.errors, 'request');
  return { ok: true, review, problems };
}
