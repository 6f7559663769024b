// AdmissionReview admission.k8s.io/v1: the types this webhook reads and writes, and the two
// schemas (compiled once, at load) that check a body before anything trusts it.
//
// The envelope check decides whether we can answer at all: without `request.uid` there is no
// AdmissionReview response kube-apiserver would accept, so such a body gets HTTP 400. Everything
// past the envelope is answered inside an AdmissionReview with the uid echoed.
import { Ajv, type ErrorObject } from 'ajv';
import { pointerToField } from '../policy/parse.js';

export const REVIEW_API_VERSION = 'admission.k8s.io/v1';
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
}

export interface AdmissionReviewResponse {
  apiVersion: string;
  kind: string;
  response: AdmissionResponse;
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
      properties: { uid: { type: 'string', minLength: 1 } },
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
  | { ok: false; message: string };

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

/**
 * Checks a parsed body. `ok: false` means no answerable review (HTTP 400). `ok: true` with
 * `problems` means the request is malformed past its uid: answer it, allowed: false, code 400.
 */
export function decodeReview(body: unknown): DecodedReview {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, message: `expected an ${REVIEW_API_VERSION} ${REVIEW_KIND} object, got ${body === null ? 'null' : Array.isArray(body) ? 'an array' : typeof body}` };
  }
  if (!validateEnvelope(body)) {
    return { ok: false, message: `not an answerable ${REVIEW_API_VERSION} ${REVIEW_KIND}: ${describeAll(validateEnvelope.errors, '').join('; ')}` };
  }
  const review = body;
  const problems = validateRequest(review.request) ? [] : describeAll(validateRequest.errors, 'request');
  return { ok: true, review, problems };
}
