// POST /validate and POST /mutate: transport only. Bodies arrive through fastify's own body limit
// and JSON parser; the admission layer decodes and judges; this file answers, counts and logs.
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AdmissionContext, AdmissionOutcome, Webhook } from '../admission/handler.js';
import { admit } from '../admission/handler.js';
import { webhookError } from '../admission/errors.js';
import { reviewResponse } from '../admission/response.js';
import type { AdmissionRequest, AdmissionReviewResponse } from '../admission/review.js';
import { decodeReview } from '../admission/review.js';
import type { WebhookMetrics } from './metrics.js';
import { kindLabel, operationLabel } from './metrics.js';

export const WEBHOOKS: readonly Webhook[] = ['validate', 'mutate'];

export interface AdmissionRouteOptions {
  metrics: WebhookMetrics;
  /** The AdmissionContext for a request arriving now. */
  context: () => AdmissionContext;
}

interface Judged {
  outcome: AdmissionOutcome;
  log: FastifyBaseLogger;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the handler for the onResponse hook (metrics, the log line); null until then. */
    admission: Judged | null;
  }
}

/** The identifying fields of a request, for the log line; never the object. Fields past the uid may be missing (a malformed request is logged too). */
function bindings(webhook: Webhook, req: AdmissionRequest): Record<string, unknown> {
  const meta = metadataOf(req.object) ?? metadataOf(req.oldObject);
  const name = req.name || (typeof meta?.name === 'string' ? meta.name : undefined);
  return {
    webhook,
    uid: req.uid,
    kind: req.kind?.kind,
    ...(req.namespace ? { namespace: req.namespace } : {}),
    ...(name ? { name } : {}),
    operation: req.operation,
    user: req.userInfo?.username,
    dryRun: req.dryRun === true,
  };
}

function metadataOf(o: unknown): Record<string, unknown> | undefined {
  if (o === null || typeof o !== 'object') return undefined;
  const meta = (o as { metadata?: unknown }).metadata;
  return meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>) : undefined;
}

export function registerAdmissionRoutes(app: FastifyInstance, opts: AdmissionRouteOptions): void {
  const { metrics } = opts;
  // The verdict travels to onResponse on the request itself. (A WeakMap keyed on the request did
  // the same, but V8's young-generation GC keeps WeakMap values alive, so every request's
  // objects were copied and promoted instead of dying young.)
  app.decorateRequest('admission', null);

  for (const webhook of WEBHOOKS) {
    app.post(`/${webhook}`, {
      onRequest: (req, reply, done) => {
        metrics.inFlight.inc({ webhook });
        // 'close' fires whether the response finished or the client went away.
        reply.raw.once('close', () => metrics.inFlight.dec({ webhook }));
        done();
      },
      handler: (req: FastifyRequest): AdmissionReviewResponse => {
        const decoded = decodeReview(req.body);
        if (!decoded.ok) throw req.body === undefined ? webhookError('BODY_EMPTY') : webhookError('REVIEW_INVALID', decoded.message);
        const { review } = decoded;
        // The same fields as a child of req.log (fastify's reqId, then ours), but made from the
        // root logger: a child of a per-request logger makes V8 turn that logger into a prototype
        // on every request, which cost more than a sixth of the throughput on small reviews.
        const log = app.log.child({ reqId: req.id, ...bindings(webhook, review.request) });
        const outcome = admit(webhook, review.request, decoded.problems, opts.context());
        if (outcome.error !== undefined) log.error({ err: outcome.error }, 'exception while judging; refused with code 500');
        req.admission = { outcome, log };
        return reviewResponse(review, outcome.response);
      },
      onResponse: (req: FastifyRequest, reply: FastifyReply, done) => {
        const entry = req.admission;
        if (!entry) {
          // No review was answered: the error handler has logged why.
          metrics.requests.inc({ webhook, code: String(reply.statusCode) });
          return done();
        }
        const { outcome, log } = entry;
        const body = req.body as { request: AdmissionRequest };
        const response = outcome.response;
        const code = response.status?.code ?? 200;
        metrics.requests.inc({ webhook, code: String(code) });
        metrics.duration.observe(
          { webhook, kind: kindLabel(body.request.kind?.kind), operation: operationLabel(body.request.operation), allowed: String(response.allowed) },
          reply.elapsedTime / 1000,
        );
        for (const rule of outcome.rules) metrics.denials.inc({ rule });
        log.info(
          {
            allowed: response.allowed,
            code,
            rules: outcome.rules,
            ...(response.patch ? { patched: true } : {}),
            ...(response.warnings ? { warnings: response.warnings.length } : {}),
            durationMs: Math.round(reply.elapsedTime * 1000) / 1000,
          },
          'admission',
        );
        done();
      },
    });
  }
}
