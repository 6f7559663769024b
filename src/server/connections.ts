// Connection hygiene, the same on the webhook port and the probe port: every connection either
// finishes its handshake, its headers and its body within a bound, or is closed; idle ones are
// closed after the keep-alive timeout; and there are never more than `maxConnections` at once. At
// the cap, the longest-idle connection makes room for the new one (ConnectionGate).
// (fastify 5 sets only requestTimeout (0 = off), keepAliveTimeout (72 s) and the socket idle
// timeout (0 = off) itself; Node leaves headers at 60 s, checked every 30 s, and TLS handshakes
// at 120 s. So a client trickling a body 1 byte a second was kept for up to a minute.)
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Config } from '../config.js';

export type ConnectionLimits = Pick<
  Config['server'],
  | 'maxConnections'
  | 'tlsHandshakeTimeoutSeconds'
  | 'headersTimeoutSeconds'
  | 'requestTimeoutSeconds'
  | 'keepAliveTimeoutSeconds'
  | 'connectionCheckIntervalSeconds'
>;

const ms = (seconds: number) => Math.max(1, Math.round(seconds * 1000));

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

/** One open connection as the gate sees it. */
interface Tracked {
  /** The peer's address and port. */
  readonly key: string;
  /** The TCP socket, as accepted. */
  readonly raw: Socket;
  /** The socket HTTP reads from (the TLS socket on the webhook port), once a request came. */
  http?: Socket;
  /** Requests received on it and not yet answered. */
  busy: number;
  /** When it last became idle: accepted, or its last answer finished (performance.now()). */
  idleSince: number;
}

export interface GateEvents {
  /** A new connection was closed at once: the cap was reached and every open one was busy. */
  dropped(): void;
  /** An idle connection was closed to make room for a new one. */
  evicted(idleMs: number): void;
}

/**
 * The connection cap, and what is idle. Node's own `maxConnections` closes the newest connection at
 * the cap, so 1,000 clients that each send one request and then idle for the keep-alive timeout
 * held every slot, and every new connection, kube-apiserver's included, was reset. Here a new
 * connection at the cap closes the longest-idle one instead: one that is not in the middle of a
 * request (between answers, or never having sent one: a slow handshake or trickled headers). A
 * client that uses its connection stays; one that holds a slot without using it loses it first.
 * Only when every open connection is busy with a request is the new one refused. Closing an idle
 * HTTP/1.1 connection is what its keep-alive timeout does anyway: the client reconnects (Go's
 * transport, and kube-apiserver's webhook client, retry a request on a connection closed idle).
 *
 * Connections are keyed by the peer's address and port, which the TLS socket shares with the
 * TCP socket under it.
 */
export class ConnectionGate {
  private readonly open = new Map<string, Tracked>();

  constructor(
    server: Server,
    private readonly cap: number,
    private readonly events: GateEvents,
  ) {
    server.on('connection', (socket: Socket) => this.admit(socket));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.started(req.socket, res));
  }

  /** Connections open now. */
  get size(): number {
    return this.open.size;
  }

  /** Connections open now that are between requests. */
  get idle(): number {
    let n = 0;
    for (const c of this.open.values()) if (c.busy === 0) n++;
    return n;
  }

  /**
   * Closes every connection that is between requests and has been idle for at least `minIdleMs`,
   * counted from its last answer or from `since` (a performance.now() instant), whichever is
   * later; returns how many stay open. Used while draining: a request that arrives first is
   * answered with `Connection: close`.
   */
  closeIdle(minIdleMs = 0, since = 0): number {
    const now = performance.now();
    for (const c of this.open.values()) {
      if (c.busy === 0 && now - Math.max(c.idleSince, since) >= minIdleMs) this.close(c);
    }
    return this.open.size;
  }

  /** Closes every connection, busy or not (the grace period is over). */
  closeAll(): void {
    for (const c of this.open.values()) this.close(c);
  }

  private admit(socket: Socket): void {
    const key = keyOf(socket);
    if (key === undefined) return;
    if (this.open.size >= this.cap) {
      const victim = this.longestIdle();
      if (!victim) {
        socket.destroy();
        this.events.dropped();
        return;
      }
      this.events.evicted(performance.now() - victim.idleSince);
      this.close(victim);
    }
    const tracked: Tracked = { key, raw: socket, busy: 0, idleSince: performance.now() };
    this.open.set(key, tracked);
    socket.once('close', () => {
      if (this.open.get(key) === tracked) this.open.delete(key);
    });
  }

  private started(socket: Socket, res: ServerResponse): void {
    const key = keyOf(socket);
    const tracked = key === undefined ? undefined : this.open.get(key);
    if (!tracked) return;
    tracked.http = socket;
    tracked.busy++;
    // 'close' fires whether the answer finished or the client went away.
    res.once('close', () => {
      tracked.busy--;
      tracked.idleSince = performance.now();
    });
  }

  private longestIdle(): Tracked | undefined {
    let oldest: Tracked | undefined;
    for (const c of this.open.values()) {
      if (c.busy === 0 && (!oldest || c.idleSince < oldest.idleSince)) oldest = c;
    }
    return oldest;
  }

  private close(c: Tracked): void {
    // Out of the count at once: the socket's 'close' comes a tick later.
    this.open.delete(c.key);
    (c.http ?? c.raw).destroy();
  }
}

function keyOf(socket: Socket): string | undefined {
  const { remoteAddress, remotePort } = socket;
  return remoteAddress === undefined || remotePort === undefined ? undefined : `${remoteAddress}:${remotePort}`;
}
