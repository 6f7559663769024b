// Connection hygiene, the same on the webhook port and the probe port: every connection either
// finishes its handshake, its headers and its body within a bound, or is closed; a body arrives at
// a minimum rate; idle ones are closed after the keep-alive timeout; and there are never more than
// `maxConnections` at once, a new one taking the place of an unused or long-idle one
// (ConnectionGate, in connection-gate.ts).
// (fastify 5 sets only requestTimeout (0 = off), keepAliveTimeout (72 s) and the socket idle
// timeout (0 = off) itself; Node leaves headers at 60 s, checked every 30 s, and TLS handshakes
// at 120 s. So a client trickling a body 1 byte a second was kept for up to a minute.)
import type { Server } from 'node:net';
import type { Config } from '../config.js';

export type ConnectionLimits = Pick<
  Config['server'],
  | 'maxConnections'
  | 'tlsHandshakeTimeoutSeconds'
  | 'headersTimeoutSeconds'
  | 'requestTimeoutSeconds'
  | 'keepAliveTimeoutSeconds'
  | 'connectionCheckIntervalSeconds'
  | 'evictIdleAfterSeconds'
  | 'minBodyBytesPerSecond'
  | 'bodyGraceSeconds'
>;

/** Seconds as whole milliseconds, at least 1. */
export const ms = (seconds: number) => Math.max(1, Math.round(seconds * 1000));

/**
 * TLS 1.2 suites: Mozilla's "intermediate" list without DHE (which would need dhparams): ECDHE
 * key exchange with an AEAD cipher only, so no CBC, no ARIA, no CAMELLIA, whatever OpenSSL's
 * HIGH would add. The TLS 1.3 suites must be named too: a list without them turns TLS 1.3 off.
 */
export const TLS_CIPHERS = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

/** Options for `https.createServer` (through fastify's `https`) beyond the secure context. */
export function tlsServerOptions(limits: ConnectionLimits): { handshakeTimeout: number } {
  return { handshakeTimeout: ms(limits.tlsHandshakeTimeoutSeconds) };
}

/**
 * Sets the timeouts on an HTTP(S) server, before it listens (Node starts the checking interval
 * when listening begins). Overrides what fastify set. The cap is ConnectionGate's.
 */
export function applyConnectionLimits(server: Server & HttpTimeouts, limits: ConnectionLimits): void {
  const requestTimeout = ms(limits.requestTimeoutSeconds);
  server.requestTimeout = requestTimeout;
  // A headers timeout past the request timeout would never fire first.
  server.headersTimeout = Math.min(ms(limits.headersTimeoutSeconds), requestTimeout);
  server.keepAliveTimeout = ms(limits.keepAliveTimeoutSeconds);
  server.connectionsCheckingInterval = ms(limits.connectionCheckIntervalSeconds);
}

export interface HttpTimeouts {
  requestTimeout: number;
  headersTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
}
