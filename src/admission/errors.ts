// One registry of the webhook's coded errors: code, HTTP status, Kubernetes status reason and
// message template. A body whose uid can be read is answered in an AdmissionReview with the
// status in `status.code` (kube-apiserver shows the message); without a uid, the HTTP status and
// a plain JSON body are all we can send.
import { bounded, MAX_NESTING_DEPTH } from './limits.js';

interface ErrorDefinition<A extends unknown[]> {
  status: number;
  reason: string;
  message: (...args: A) => string;
}

const define = <A extends unknown[]>(
  status: number,
  reason: string,
  message: (...args: A) => string,
): ErrorDefinition<A> => ({
  status,
  reason,
  message,
});

export const ERRORS = {
  BODY_NOT_JSON: define(
    400,
    'BadRequest',
    () => 'request body is not valid JSON; expected an admission.k8s.io/v1 AdmissionReview',
  ),
  BODY_EMPTY: define(400, 'BadRequest', () => 'request body is empty; expected an admission.k8s.io/v1 AdmissionReview'),
  BODY_TOO_LARGE: define(
    413,
    'RequestEntityTooLarge',
    (limit: number) => `request body is larger than the limit of ${limit} bytes`,
  ),
  BODY_NOT_UTF8: define(400, 'BadRequest', () => 'request body is not valid UTF-8'),
  BODY_TOO_DEEP: define(
    400,
    'BadRequest',
    () => `request body nests arrays and objects deeper than ${MAX_NESTING_DEPTH} levels`,
  ),
  PROTOTYPE_KEY: define(400, 'BadRequest', (key: string) => `request body has a ${key} key; such keys are refused`),
  MEDIA_TYPE: define(
    415,
    'UnsupportedMediaType',
    (type: string) => `content type ${JSON.stringify(bounded(type))} is not supported; send application/json`,
  ),
  CONTENT_ENCODING: define(
    415,
    'UnsupportedMediaType',
    (encoding: string) =>
      `content encoding ${JSON.stringify(bounded(encoding))} is not supported; send the AdmissionReview unencoded`,
  ),
  REVIEW_INVALID: define(400, 'BadRequest', (detail: string) => detail),
  REQUEST_INVALID: define(
    400,
    'BadRequest',
    (problems: readonly string[]) => `malformed AdmissionReview request: ${problems.join('; ')}`,
  ),
  OBJECT_INVALID: define(403, 'Forbidden', (listed: string) => listed),
  POLICY_DENIED: define(403, 'Forbidden', (listed: string) => listed),
  EVALUATION_FAILED: define(
    500,
    'InternalError',
    (detail: string) =>
      `internal error while judging the request (the request is refused, retry or report it): ${detail}`,
  ),
  NOT_FOUND: define(
    404,
    'NotFound',
    (method: string, url: string) => `no route for ${bounded(method)} ${bounded(url)}`,
  ),
  METHOD_NOT_ALLOWED: define(
    405,
    'MethodNotAllowed',
    (method: string, url: string) =>
      `${bounded(method)} is not allowed on ${bounded(url)}; send the AdmissionReview with POST`,
  ),
  BODY_UNREAD: define(
    503,
    'ServiceUnavailable',
    (detail: string) => `the request body could not be read now (${detail}); retry`,
  ),
  INTERNAL: define(500, 'InternalError', (detail: string) => `internal error: ${detail}`),
} as const;

export type ErrorName = keyof typeof ERRORS;
type ArgsOf<N extends ErrorName> = Parameters<(typeof ERRORS)[N]['message']>;

export class WebhookError extends Error {
  override name = 'WebhookError';
  readonly code: string;
  readonly statusCode: number;
  readonly reason: string;

  constructor(name: ErrorName, message: string) {
    super(message);
    this.code = `VP_ERR_${name}`;
    this.statusCode = ERRORS[name].status;
    this.reason = ERRORS[name].reason;
  }
}

/** The coded error `name`, with its message filled in. */
export function webhookError<N extends ErrorName>(name: N, ...args: ArgsOf<N>): WebhookError {
  const format = ERRORS[name].message as (...a: ArgsOf<N>) => string;
  return new WebhookError(name, format(...args));
}

/** The Kubernetes status reason for an HTTP-style code. */
export function reasonFor(code: number): string {
  for (const def of Object.values(ERRORS)) if (def.status === code) return def.reason;
  return code < 400 ? '' : 'InternalError';
}
