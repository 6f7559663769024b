// POST /validate and POST /mutate: transport only. Every body arrives as raw bytes, whatever its
// type (one content-type parser for all, within the body limit); the admission layer decodes and
// judges; this file answers, counts and logs.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import {
  contentCodings,
  decodeBody,
  decodeBodyIncrementally,
  decodeEncodedBody,
  INCREMENTAL_BODY_BYTES,
  type BodyHeaders,
  type DecodedBody,
} from '../admission/body.js';
import type { AdmissionContext, AdmissionOutcome, Webhook } from '../admission/handler.js';
import { admit, refused } from '../admission/handler.js';
import { webhookError } from '../admission/errors.js';
import { bounded } from '../admission/limits.js';
import { reviewResponse } from '../admission/response.js';
import type { AdmissionRequest, AdmissionReviewResponse } from '../admission/review.js';
import type { Config } from '../config.js';
import type { ForecastAnswer } from '../policy/warnings/forecast.js';
import { REVIEW_KIND } from '../admission/review.js';
import type { MappedRequest } from '../admission/request.js';
import type { BodyWorker } from './body-worker.js';
import { admissionLogger, loggable, boxedNumber, type AdmissionLine } from './logging.js';
import type { WebhookMetrics } from './metrics.js';
import { kindLabel, operationLabel } from './metrics.js';

export const WEBHOOKS: readonly Webhook[] = ['validate', 'mutate'];

/** The debug log's list of every warning: enough to read what a review was told, never a huge line. */
export const MAX_LOGGED_WARNINGS = 50;
const MAX_LOGGED_WARNING_LENGTH = 512;

export interface AdmissionRouteOptions {
  metrics: WebhookMetrics;
  /** The root logger (fastify's own, as pino); the admission line is written through `admissionLogger` of it. */
  logger: Logger;
  /** The AdmissionContext for a request arriving now. */
  context: () => AdmissionContext;
  /** The most bytes an encoded body may decode to while we look for its uid (the body limit). */
  bodyLimit: number;
  /** Decodes and maps big bodies off the event loop; without it they are parsed here, in pieces. */
  bodyWorker?: BodyWorker;
  /** Makes a review's forecast off the event loop, from its bytes; without it, the forecast runs in the review. */
  forecaster?: ReviewForecaster;
}

/** The server's worker, as the routes use it (workers/landscape.ts). */
export interface ReviewForecaster {
  reviewForecast(input: {
    body: Uint8Array;
    contentType: string | undefined;
    now: number;
    config: Config;
  }): Promise<ForecastAnswer>;
}

/** A decoded body; one the body worker decoded carries its request mapped already. */
type ReadBody = (Extract<DecodedBody, { ok: true }> & { mapped?: MappedRequest }) | Extract<DecodedBody, { ok: false }>;

/** What the handler leaves on the request for the onResponse hook: the outcome and the labels. */
interface ReviewRecord {
  outcome: AdmissionOutcome;
  /** The request's identity, the admission line's first fields. */
  identity: Identity;
  /** Metric labels, already bounded. */
  kind: string;
  operation: string;
  /** The coded error of a review refused before judging. */
  error?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the handler for the onResponse hook (metrics, the log line); null until then. */
    admission: ReviewRecord | null;
    /** Content-Type and Content-Encoding as the client sent them (onRequest keeps them); null off the admission routes. */
    bodyHeaders: BodyHeaders | null;
    /** The body's bytes, for the forecast worker, which decodes them again; null until read. */
    bodyBytes: Buffer | null;
  }
}

/** The identifying fields of a request, for the log line; never the object. Each is bounded; fields past the uid may be missing or of any type. */
interface Identity {
  reqId: string;
  webhook: Webhook;
  uid: string;
  kind?: string | undefined;
  namespace?: string | undefined;
  name?: string | undefined;
  operation?: string | undefined;
  user?: string | undefined;
  dryRun?: boolean;
}

// What the admission log line names of a request (admission/review.ts identityOf is the uid and
// answer version): one literal, in the line's field order; an undefined field is left out of the
// line (an empty name or namespace too).
function logIdentityOf(reqId: string, webhook: Webhook, req: AdmissionRequest): Identity {
  const meta = metadataOf(req.object) ?? metadataOf(req.oldObject);
  return {
    reqId,
    webhook,
    uid: req.uid,
    kind: loggable(req.kind?.kind),
    namespace: loggable(req.namespace) || undefined,
    name: loggable(req.name) || loggable(meta?.name) || undefined,
    operation: loggable(req.operation),
    user: loggable(req.userInfo?.username),
    dryRun: req.dryRun === true,
  };
}

function metadataOf(o: unknown): Record<string, unknown> | undefined {
  if (o === null || typeof o !== 'object') return undefined;
  const meta = (o as { metadata?: unknown }).metadata;
  return meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>) : undefined;
}

const loggedWarnings = (warnings: readonly string[]): string[] =>
  warnings.slice(0, MAX_LOGGED_WARNINGS).map((w) => bounded(w, MAX_LOGGED_WARNING_LENGTH));

const headerValue = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(', ') : v);

const NO_BODY: ReadBody = { ok: false, error: webhookError('BODY_EMPTY') };

export function registerAdmissionRoutes(app: FastifyInstance, opts: AdmissionRouteOptions): void {
  const { metrics } = opts;
  const admissionLog = admissionLogger(opts.logger);
  // The verdict travels to onResponse on the request itself: a WeakMap's values outlive the young generation.
  app.decorateRequest('admission', null);
  app.decorateRequest('bodyHeaders', null);
  app.decorateRequest('bodyBytes', null);

  // One parser for every content type: the raw bytes (fastify has already answered 413 past the
  // body limit), so that a uid is read even from a body refused for its type or encoding.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (req, body, done) => {
    const headers = req.bodyHeaders;
    if (headers === null) return done(null, undefined); // not an admission route: no one reads it
    const bytes = body as Buffer;
    if (opts.forecaster) req.bodyBytes = bytes;
    const plain = contentCodings(headers.contentEncoding).length === 0;
    if (plain && bytes.length <= INCREMENTAL_BODY_BYTES) return done(null, decodeBody(bytes, headers));
    // A big body is decoded and mapped in the body worker (issue 34); without one, parsed here in
    // pieces, never blocking the loop for long (issue 13).
    const worker = opts.bodyWorker;
    const read: Promise<ReadBody> = worker
      ? worker.decode(bytes, headers).then(
          ({ decoded, mapped }) => (mapped && decoded.ok ? { ...decoded, mapped } : decoded),
          (err: Error) => ({ ok: false, error: webhookError('BODY_UNREAD', err.message) }),
        )
      : plain
        ? decodeBodyIncrementally(bytes, headers)
        : decodeEncodedBody(bytes, headers, opts.bodyLimit);
    read.then(
      (decoded) => done(null, decoded),
      (err: Error) => done(err, undefined),
    );
  });

  for (const webhook of WEBHOOKS) {
    // Every other method: 405 with Allow (RFC 9110), not the 404 of an unknown path.
    app.route({
      method: ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      url: `/${webhook}`,
      handler: (req, reply) => {
        reply.header('allow', 'POST');
        throw webhookError('METHOD_NOT_ALLOWED', req.method, req.url);
      },
    });
    app.post(`/${webhook}`, {
      onRequest: (req, reply, done) => {
        metrics.inFlight.inc({ webhook });
        // 'close' fires whether the response finished or the client went away.
        reply.raw.once('close', () => metrics.inFlight.dec({ webhook }));
        req.bodyHeaders = {
          contentType: headerValue(req.headers['content-type']),
          contentEncoding: headerValue(req.headers['content-encoding']),
        };
        // fastify refuses a missing or malformed Content-Type before reading the body. With a fixed
        // one it reads every body, and decodeBody judges the type the client sent (kept above).
        req.headers['content-type'] = 'application/octet-stream';
        done();
      },
      handler: (req: FastifyRequest): AdmissionReviewResponse | Promise<AdmissionReviewResponse> => {
        const decoded = (req.body as ReadBody | undefined) ?? NO_BODY;
        if (!decoded.ok) {
          const { identity, error } = decoded;
          if (!identity) throw error;
          req.admission = {
            outcome: refused(identity.uid, error),
            identity: { reqId: req.id, webhook, uid: identity.uid },
            kind: kindLabel(undefined),
            operation: operationLabel(undefined),
            error: error.code,
          };
          return { apiVersion: identity.apiVersion, kind: REVIEW_KIND, response: req.admission.outcome.response };
        }
        const { review } = decoded;
        const request = review.request;
        // fastify's reqId, then ours; no child logger per request, which cost a sixth of the throughput.
        const identity = logIdentityOf(req.id, webhook, request);
        const context = opts.context();
        const { forecaster } = opts;
        const bytes = req.bodyBytes;
        if (forecaster && bytes)
          context.forecast = () =>
            forecaster.reviewForecast({
              body: bytes,
              contentType: req.bodyHeaders?.contentType,
              now: context.now,
              config: context.config,
            });
        const answered = (outcome: AdmissionOutcome): AdmissionReviewResponse => {
          if (outcome.error !== undefined)
            opts.logger.error({ ...identity, err: outcome.error }, 'exception while judging; refused with code 500');
          req.admission = {
            outcome,
            identity,
            kind: kindLabel(request.kind?.kind),
            operation: operationLabel(request.operation),
          };
          return reviewResponse(review, outcome.response);
        };
        if (decoded.mapped) context.mapped = decoded.mapped;
        const outcome = admit(webhook, request, decoded.problems, context);
        return outcome instanceof Promise ? outcome.then(answered) : answered(outcome);
      },
      onResponse: (req: FastifyRequest, reply: FastifyReply, done) => {
        const entry = req.admission;
        if (!entry) {
          // No review was answered: the error handler has logged why.
          metrics.requests.inc({ webhook, code: String(reply.statusCode) });
          return done();
        }
        const { outcome, identity } = entry;
        const response = outcome.response;
        const code = response.status?.code ?? 200;
        metrics.requests.inc({ webhook, code: String(code) });
        metrics.duration.observe(
          { webhook, kind: entry.kind, operation: entry.operation, allowed: String(response.allowed) },
          reply.elapsedTime / 1000,
        );
        for (const rule of outcome.rules) metrics.denials.inc({ rule });
        // The line's level: a review refused for its body or envelope is a warning (kube-apiserver
        // never sends one); a denial, an error, a patch or a warning is info; a plain allowed
        // review is debug. Every decision is in kube-apiserver's audit log (auditAnnotations) and in
        // the metrics above, so at info the log keeps what someone may act on, and a busy
        // landscape's stream of plain allowed reviews costs neither a line nor stdout.
        const level =
          code === 400 || code === 415
            ? 'warn'
            : !response.allowed || code !== 200 || response.patch || response.warnings
              ? 'info'
              : 'debug';
        if (!admissionLog.isLevelEnabled(level)) return done();
        // Every warning, at debug level only: read from the outcome, never built otherwise.
        const all =
          admissionLog.isLevelEnabled('debug') && outcome.judged.allWarnings.length > 0
            ? outcome.judged.allWarnings
            : undefined;
        const line: AdmissionLine = {
          reqId: identity.reqId,
          webhook: identity.webhook,
          uid: identity.uid,
          kind: identity.kind,
          namespace: identity.namespace,
          name: identity.name,
          operation: identity.operation,
          user: identity.user,
          dryRun: identity.dryRun,
          allowed: response.allowed,
          code,
          rules: outcome.rules,
          error: entry.error,
          patched: response.patch ? true : undefined,
          warnings: response.warnings?.length,
          allWarnings: all && loggedWarnings(all),
          allWarningsOmitted: all && all.length > MAX_LOGGED_WARNINGS ? all.length - MAX_LOGGED_WARNINGS : undefined,
          durationMs: boxedNumber(Math.round(reply.elapsedTime * 1000) / 1000),
        };
        admissionLog[level](line, 'admission');
        done();
      },
    });
  }
}
