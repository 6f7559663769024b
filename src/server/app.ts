// The webhook's HTTPS server: `buildServer()` wires transport (fastify, TLS and its reload,
// connection limits), protocol (admission routes), probes, metrics and the event-loop watchdog.
// Everything it needs is injected (config, state, certificates, logger, clock), so tests run the
// real thing on port 0.
import type { TLSSocket } from 'node:tls';
import type { Server as TlsServer } from 'node:tls';
import { Server as NetServerClass, type AddressInfo, type Server as NetServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from 'pino';
import type { ClusterState } from '../api/cluster-state.js';
import { defaultConfig, type Config } from '../config.js';
import { WebhookError, webhookError } from '../admission/errors.js';
import type { RuleId } from '../policy/decision.js';
import type { Rule } from '../policy/rule.js';
import type { WarningCheck } from '../policy/warnings/index.js';
import { registerAdmissionRoutes, type ReviewForecaster } from './admission-routes.js';
import { BodyWorker } from './body-worker.js';
import {
  applyConnectionLimits,
  TLS_CIPHERS,
  tlsServerOptions,
  type ConnectionLimits,
  type HttpTimeouts,
} from './connections.js';
import { ConnectionGate } from './connection-gate.js';
import { watchEventLoop, type EventLoopWatchdog } from './event-loop.js';
import { loggable } from './logging.js';
import { isPagePath, pagesElsewhere, type ProfilePagesOptions, registerProfilePages, registerRootPage } from './ui.js';
import type { WebhookMetrics } from './metrics.js';
import { createMetrics } from './metrics.js';
import { Readiness, registerProbes } from './probes.js';
import type { CertificateSource, TlsMaterial } from './tls/certificate-source.js';
import { secureContextOptions } from './tls/certificate-source.js';

/** The secure context for a pair, with our cipher list: also what a certificate reload applies. */
function contextOptions(m: TlsMaterial) {
  return { ...secureContextOptions(m), ciphers: TLS_CIPHERS };
}

export interface ServerOptions {
  config: Config;
  state: ClusterState;
  certificates: CertificateSource;
  logger: Logger;
  /** The policy clock (epoch ms); time rules judge against it. */
  now?: () => number;
  metrics?: WebhookMetrics;
  /** The rules evaluate() runs (EvaluateOptions.rules); the full registry unless a test narrows it. */
  rules?: readonly Rule<RuleId>[];
  /** The warning checks evaluate() runs (EvaluateOptions.warningChecks); all unless a test narrows them. */
  warningChecks?: readonly WarningCheck[];
  /**
   * Serve GET /metrics on the webhook port. Default: only when there is no probe port
   * (`server.probePort` 0); with one, the probe port serves it and the TLS port does not.
   */
  serveMetrics?: boolean;
  /** The fleet forecast the /profiles index counts from, when the pages are on this port. */
  fleetForecast?: ProfilePagesOptions['fleetForecast'];
  /** Makes the reviews' forecasts off the event loop (the landscape worker); without it they run in the review. */
  forecaster?: ReviewForecaster;
  /** How often the event-loop watchdog records its window's maximum (ms); tests shorten it. */
  eventLoopWindowMs?: number;
  /** False: big bodies are parsed on the event loop in pieces, not in the body worker (tests compare the two). */
  bodyWorker?: false;
}

export interface WebhookServer {
  readonly app: FastifyInstance;
  readonly readiness: Readiness;
  readonly metrics: WebhookMetrics;
  /** The open connections on the webhook port: the cap, and which are idle. */
  readonly connections: ConnectionGate;
  /** Listens on `config.server.host:port`; resolves to the https URL. */
  listen(): Promise<string>;
  /**
   * Readiness turns false at once; the server keeps answering (and accepting) for `delayMs`, then
   * the listener closes, every request that has arrived is answered with `Connection: close`, and
   * idle connections are closed (see `drain`). Connections still open `graceMs` after the close
   * are cut. Resolves once the server is closed.
   */
  shutdown(graceMs: number, delayMs?: number): Promise<{ drained: boolean }>;
}

export function buildServer(opts: ServerOptions): WebhookServer {
  const { config, logger } = opts;
  const metrics = opts.metrics ?? createMetrics();
  const readiness = new Readiness(opts.state);
  const now = opts.now ?? Date.now;
  const material = opts.certificates.current();
  const mtls = material.clientCA !== undefined;

  // Typed as fastify's logger so the instance keeps fastify's default logger type parameter.
  const fastifyLogger: FastifyBaseLogger = logger;
  const app = Fastify({
    https: {
      ...contextOptions(material),
      ...tlsServerOptions(config.server),
      requestCert: mtls,
      rejectUnauthorized: mtls,
    },
    loggerInstance: fastifyLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.server.bodyLimitBytes,
    // During a drain, kube-apiserver may still send on a kept-alive connection: answer it (with
    // Connection: close) rather than 503, which failurePolicy Fail would turn into a rejection.
    return503OnClosing: false,
  });
  const connections = limitConnections(app, config.server, metrics, 'webhook', logger);

  const server = app.server as unknown as TlsServer;
  opts.certificates.onChange((m) => {
    try {
      server.setSecureContext(contextOptions(m));
      metrics.certificateReloads.inc({ result: 'success' });
      logger.info({ fingerprint256: m.fingerprint256, notAfter: m.notAfter }, 'serving certificate reloaded');
    } catch (err) {
      metrics.certificateReloads.inc({ result: 'failure' });
      logger.warn({ err }, 'serving certificate rejected; keeping the last good one');
    }
  });
  opts.certificates.onError((err) => {
    metrics.certificateReloads.inc({ result: 'failure' });
    logger.warn({ err: { message: err.message } }, 'serving certificate files unusable; keeping the last good pair');
  });
  server.on('tlsClientError', (err: Error, socket: TLSSocket) => {
    logger.debug({ err: { message: err.message }, remote: socket.remoteAddress }, 'TLS handshake failed');
  });

  app.addHook('onSend', (_req, reply, payload, done) => {
    if (readiness.shuttingDown) reply.header('connection', 'close');
    done(null, payload);
  });
  app.setErrorHandler((err: FastifyError, req, reply) => answerError(err, req, reply, config.server.bodyLimitBytes));
  const pagesHere = config.server.ui.enabled && config.server.probePort === 0;
  app.setNotFoundHandler((req, reply) =>
    answerError(notFound(req, pagesHere ? undefined : config.server), req, reply, config.server.bodyLimitBytes),
  );

  const bodyWorker =
    opts.bodyWorker === false ? undefined : new BodyWorker({ bodyLimit: config.server.bodyLimitBytes, logger });
  registerAdmissionRoutes(app, {
    metrics,
    logger,
    bodyLimit: config.server.bodyLimitBytes,
    ...(opts.forecaster ? { forecaster: opts.forecaster } : {}),
    ...(bodyWorker ? { bodyWorker } : {}),
    context: () => ({
      now: now(),
      config,
      state: opts.state,
      ...(opts.rules ? { rules: opts.rules } : {}),
      ...(opts.warningChecks ? { warningChecks: opts.warningChecks } : {}),
    }),
  });
  registerProbes(app, readiness);
  const serveMetrics = opts.serveMetrics ?? config.server.probePort === 0;
  if (serveMetrics) registerMetricsRoute(app, metrics);
  // The timeline pages go on the probe port when there is one (buildProbeServer), else here.
  if (pagesHere) {
    registerProfilePages(app, {
      state: opts.state,
      now,
      ...(opts.fleetForecast ? { fleetForecast: opts.fleetForecast } : {}),
    });
    registerRootPage(app, { pages: true, metrics: serveMetrics, probes: true });
  }

  let watchdog: EventLoopWatchdog | undefined;
  app.addHook('onClose', async () => {
    watchdog?.stop();
    await bodyWorker?.stop();
  });

  return {
    app,
    readiness,
    metrics,
    connections,
    async listen() {
      await app.listen({ host: config.server.host, port: config.server.port });
      watchdog ??= watchEventLoop(metrics.eventLoopMaxDelay, logger, opts.eventLoopWindowMs);
      readiness.tlsLoaded = true;
      return urlOf('https', app);
    },
    shutdown: (graceMs, delayMs = 0) => drain(app, readiness, connections, { graceMs, delayMs }, logger),
  };
}

/**
 * Plain-HTTP /healthz, /readyz and /metrics, for kubelet and Prometheus when the webhook port
 * requires client certificates, and the /profiles pages when they are on. `limits`: the
 * operator's `server` config (defaults otherwise).
 */
export function buildProbeServer(opts: {
  readiness: Readiness;
  metrics: WebhookMetrics;
  logger: Logger;
  limits?: ConnectionLimits;
  pages?: ProfilePagesOptions;
}): FastifyInstance {
  const fastifyLogger: FastifyBaseLogger = opts.logger;
  // forceCloseConnections: a browser on the /profiles pages keeps connections open (idle or
  // preconnected), which would hold the stop until the grace period ends.
  const app = Fastify({
    loggerInstance: fastifyLogger,
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: true,
  });
  limitConnections(app, opts.limits ?? defaultConfig().server, opts.metrics, 'probes', opts.logger);
  // Nothing here takes a body: refuse one before it arrives, and close, so that no slow body holds
  // a slot the kubelet's next probe needs (fastify would wait for it, on a route or a 404).
  app.addHook('onRequest', async (req, reply) => {
    const { 'content-length': length, 'transfer-encoding': chunked } = req.headers;
    if ((length === undefined || length === '0') && chunked === undefined) return;
    reply.header('connection', 'close');
    return answerError(webhookError('BODY_TOO_LARGE', 0), req, reply, 0);
  });
  registerProbes(app, opts.readiness);
  registerMetricsRoute(app, opts.metrics);
  if (opts.pages) registerProfilePages(app, opts.pages);
  registerRootPage(app, { pages: opts.pages !== undefined, metrics: true, probes: true });
  // The pages are here or nowhere: without them, a 404 under /profiles says how to turn them on.
  const off = opts.pages ? undefined : { ui: { enabled: false }, probePort: 0 };
  app.setNotFoundHandler((req, reply) => answerError(notFound(req, off), req, reply, 0));
  return app;
}

/** A 404; under /profiles on a server without the pages, it says where they are or how to turn them on. */
function notFound(req: FastifyRequest, noPages: Parameters<typeof pagesElsewhere>[0] | undefined): WebhookError {
  const err = webhookError('NOT_FOUND', req.method, req.url);
  return noPages && isPagePath(req.url)
    ? new WebhookError('NOT_FOUND', `${err.message}: ${pagesElsewhere(noPages)}`)
    : err;
}

function limitConnections(
  app: FastifyInstance,
  limits: ConnectionLimits,
  metrics: WebhookMetrics,
  name: 'webhook' | 'probes',
  logger: Logger,
): ConnectionGate {
  const server = app.server as unknown as NetServer & HttpTimeouts;
  applyConnectionLimits(server, limits);
  const maxConnections = limits.maxConnections;
  return new ConnectionGate(server, limits, {
    dropped: () => {
      metrics.droppedConnections.inc({ server: name });
      logger.debug(
        { server: name, maxConnections },
        'connection refused at the cap: every open one has a request on the wire or was answered recently',
      );
    },
    evicted: (state, idleMs) => {
      metrics.evictedConnections.inc({ server: name, state });
      logger.debug(
        { server: name, maxConnections, state, idleMs: Math.round(idleMs) },
        `${state} connection closed to make room for a new one`,
      );
    },
    slowBody: (received, elapsedMs) => {
      metrics.slowBodyConnections.inc({ server: name });
      logger.debug(
        {
          server: name,
          received,
          elapsedMs: Math.round(elapsedMs),
          minBodyBytesPerSecond: limits.minBodyBytesPerSecond,
        },
        'connection closed: request body slower than the minimum rate',
      );
    },
  });
}

export function registerMetricsRoute(app: FastifyInstance, metrics: WebhookMetrics): void {
  app.get('/metrics', async (_req, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
}

export function urlOf(scheme: 'http' | 'https', app: FastifyInstance): string {
  const addr = app.server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return `${scheme}://${host}:${addr.port}`;
}

/** Maps every failure before a review is answered to a coded error: fastify's own (body limit, media type, JSON) included. */
function toWebhookError(err: FastifyError, req: FastifyRequest, bodyLimit: number): WebhookError {
  if (err instanceof WebhookError) return err;
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return webhookError('BODY_NOT_JSON');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return webhookError('BODY_EMPTY');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return webhookError('BODY_TOO_LARGE', bodyLimit);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return webhookError('MEDIA_TYPE', req.headers['content-type'] ?? 'none');
  }
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
    return Object.assign(webhookError('REVIEW_INVALID', err.message), { statusCode: err.statusCode });
  }
  return webhookError('INTERNAL', err.message);
}

function answerError(
  err: FastifyError | WebhookError,
  req: FastifyRequest,
  reply: FastifyReply,
  bodyLimit: number,
): FastifyReply {
  const coded = toWebhookError(err, req, bodyLimit);
  const fields = { code: coded.code, status: coded.statusCode, method: loggable(req.method), url: loggable(req.url) };
  if (coded.statusCode >= 500) req.log.error({ ...fields, err }, coded.message);
  else req.log.warn(fields, coded.message);
  return reply
    .code(coded.statusCode)
    .send({ statusCode: coded.statusCode, code: coded.code, error: coded.reason, message: coded.message });
}

/**
 * How long a kept-alive connection may stay idle once the drain has begun. A request sent on it
 * meanwhile is answered with `Connection: close`; after it, the connection is closed. Closing an
 * idle connection at the moment its client sends on it resets that request (HTTP/1.1 has no way to
 * announce the close), which is what Node's `server.close()` did to every idle connection at once.
 * A second covers any client that is sending: kube-apiserver reuses a connection within
 * milliseconds under load, and one idle longer is most likely not about to be used.
 */
export const DRAIN_IDLE_CLOSE_MS = 1000;

/** How often the drain looks for connections that have gone idle. */
const DRAIN_POLL_MS = 25;

/**
 * Until endpoints and kube-proxy have dropped the pod, callers still open connections to it: during
 * `delayMs` it answers them (unready, and each answer says Connection: close, so kept-alive callers
 * reconnect to a pod that stays), and only then stops accepting. Then every request that has
 * arrived is answered, with `Connection: close`; idle connections are closed once idle for
 * DRAIN_IDLE_CLOSE_MS since the signal, never while a request is on them. What is still open
 * `graceMs` after the listener closed is cut.
 */
async function drain(
  app: FastifyInstance,
  readiness: Readiness,
  connections: ConnectionGate,
  { graceMs, delayMs }: { graceMs: number; delayMs: number },
  logger: Logger,
): Promise<{ drained: boolean }> {
  readiness.shuttingDown = true;
  const signalled = performance.now();
  if (delayMs > 0) await sleep(delayMs);
  // Stop accepting. net.Server's close, not http.Server's: that one closes every idle connection at
  // once, resetting a request its client is sending on one.
  const server = app.server as unknown as NetServer;
  const listenerClosed = new Promise<void>((resolve) => closeListener(server, () => resolve()));
  logger.info(
    { open: connections.size, idle: connections.idle },
    'no new connections: answering every request that has arrived, with Connection: close',
  );
  const deadline = performance.now() + graceMs;
  let drained = true;
  while (connections.closeIdle(DRAIN_IDLE_CLOSE_MS, signalled) > 0) {
    if (performance.now() >= deadline) {
      logger.warn({ graceMs, open: connections.size }, 'grace period over; closing the connections still open');
      connections.closeAll();
      drained = false;
      break;
    }
    await sleep(DRAIN_POLL_MS);
  }
  await listenerClosed;
  await app.close();
  return { drained };
}

/** net.Server's close on an http(s) server: stops accepting, leaves the open connections alone. */
function closeListener(server: NetServer, done: () => void): void {
  NetServerClass.prototype.close.call(server, done);
}
