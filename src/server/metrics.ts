// Prometheus metrics in the shape the ecosystem uses (controller-runtime's webhook metrics):
// latency by webhook/kind/operation/allowed, requests by code, denials by rule, certificate
// reloads, in-flight requests, the event-loop watchdog, connections refused or evicted at the cap, and the
// process metrics (process-metrics.ts). One Registry per server, so
// tests (and the informers, which add their own) never collide with a global one.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { isPolicedKind } from '../api/parse.js';
import { registerProcessMetrics } from './process-metrics.js';

/** 0.5 ms to 5 s: an in-memory decision takes well under a millisecond; kube-apiserver gives up after 10 s by default. */
export const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** 5 ms to 10 s: a healthy loop stays under 10 ms; 100 ms is the most one review may block it. */
export const EVENT_LOOP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const OPERATIONS = new Set(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);

export interface WebhookMetrics {
  registry: Registry;
  duration: Histogram<'webhook' | 'kind' | 'operation' | 'allowed'>;
  requests: Counter<'webhook' | 'code'>;
  denials: Counter<'rule'>;
  certificateReloads: Counter<'result'>;
  certificateExpiry: Gauge<'certificate'>;
  inFlight: Gauge<'webhook'>;
  droppedConnections: Counter<'server'>;
  evictedConnections: Counter<'server' | 'state'>;
  slowBodyConnections: Counter<'server'>;
  eventLoopMaxDelay: Histogram;
  logLinesDropped: Counter;
  /** Reads `version_policy_log_lines_dropped_total` from the log destination at each scrape. */
  countLogDropsOf(source: { readonly dropped: number }): void;
}

export function createMetrics(registry = new Registry()): WebhookMetrics {
  registerProcessMetrics(registry);
  const registers = [registry];
  let logSource: { readonly dropped: number } | undefined;
  let reportedDrops = 0;
  return {
    registry,
    duration: new Histogram({
      name: 'version_policy_admission_duration_seconds',
      help: 'Time to answer an AdmissionReview, from request headers to response.',
      labelNames: ['webhook', 'kind', 'operation', 'allowed'],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    requests: new Counter({
      name: 'version_policy_admission_requests_total',
      help: 'Admission requests by webhook and code (the AdmissionReview status code, or the HTTP status when no review could be answered).',
      labelNames: ['webhook', 'code'],
      registers,
    }),
    denials: new Counter({
      name: 'version_policy_denials_total',
      help: 'Denied admission requests, once per rule ID (or SCHEMA) that a denial names.',
      labelNames: ['rule'],
      registers,
    }),
    certificateReloads: new Counter({
      name: 'version_policy_certificate_reloads_total',
      help: 'Attempts to load changed serving certificate files; failure keeps the last good pair.',
      labelNames: ['result'],
      registers,
    }),
    certificateExpiry: new Gauge({
      name: 'version_policy_certificate_expiry_timestamp_seconds',
      help: 'When the served certificate ("serving") and, for the self-managed source, its signing CA ("ca") expire, in Unix seconds.',
      labelNames: ['certificate'],
      registers,
    }),
    inFlight: new Gauge({
      name: 'version_policy_admission_in_flight_requests',
      help: 'Admission requests received and not yet answered.',
      labelNames: ['webhook'],
      registers,
    }),
    droppedConnections: new Counter({
      name: 'version_policy_connections_dropped_total',
      help: 'New connections refused because server.maxConnections were open and none could make room: each had a request on the wire or was answered within server.evictIdleAfterSeconds; by server (webhook or probes).',
      labelNames: ['server'],
      registers,
    }),
    evictedConnections: new Counter({
      name: 'version_policy_connections_evicted_total',
      help: 'Connections closed to make room for a new one at server.maxConnections, by server (webhook or probes) and state: unused (no request answered yet; oldest first) or idle (answered, idle past server.evictIdleAfterSeconds; longest-idle first).',
      labelNames: ['server', 'state'],
      registers,
    }),
    slowBodyConnections: new Counter({
      name: 'version_policy_connections_slow_body_total',
      help: 'Connections closed because a request body arrived slower than server.minBodyBytesPerSecond (after server.bodyGraceSeconds), by server (webhook or probes).',
      labelNames: ['server'],
      registers,
    }),
    eventLoopMaxDelay: new Histogram({
      name: 'version_policy_event_loop_max_delay_seconds',
      help: 'The longest event-loop delay in each one-second window: how long, at worst, every request waited on another.',
      buckets: EVENT_LOOP_BUCKETS,
      registers,
    }),
    logLinesDropped: new Counter({
      name: 'version_policy_log_lines_dropped_total',
      help: 'Log lines dropped because stdout did not take them: the bounded log buffer was full, or stdout was gone. Admission never waits for the log.',
      registers,
      collect() {
        const delta = (logSource?.dropped ?? 0) - reportedDrops;
        if (delta > 0) {
          this.inc(delta);
          reportedDrops += delta;
        }
      },
    }),
    countLogDropsOf(source) {
      logSource = source;
    },
  };
}

/** Label values stay bounded whatever a request claims: unknown kinds and operations collapse to "other". */
export function kindLabel(kind: unknown): string {
  return isPolicedKind(kind) ? kind : 'other';
}

export function operationLabel(operation: unknown): string {
  return typeof operation === 'string' && OPERATIONS.has(operation) ? operation : 'other';
}
