// The connection cap, what may be closed to make room at it, and the minimum body rate (issue 34).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { ms, type ConnectionLimits } from './connections.js';

/** One open connection as the gate sees it. */
interface Tracked {
  /** The peer's address and port. */
  readonly key: string;
  /** The TCP socket, as accepted. */
  readonly raw: Socket;
  readonly acceptedAt: number;
  /** The socket HTTP reads from (the TLS socket on the webhook port), once a request came. */
  http?: Socket;
  /** Requests received on it and not yet answered. */
  pending: number;
  /** Requests answered on it. */
  answered: number;
  /** When its last answer finished (performance.now()). */
  idleSince: number;
  /** `http.bytesRead` then: more since means the next request is arriving. */
  bytesAtIdle: number;
  /** The last request, while its body is still arriving. */
  body?: { req: IncomingMessage; bytesAt: number; startedAt: number };
}

export interface GateEvents {
  /** A new connection was closed at once: at the cap, with nothing that may be closed for it. */
  dropped(): void;
  /** A connection was closed to make room: `unused` (no request answered yet) or `idle`. */
  evicted(state: 'unused' | 'idle', idleMs: number): void;
  /** A request body arrived slower than the minimum rate; its connection was closed. */
  slowBody(received: number, elapsedMs: number): void;
}

/**
 * At the cap, a new connection takes the place of one that nobody is relying on, or is refused:
 * 1. an unused connection (still in its TLS handshake, or no request answered and none being
 *    received past its headers): the one accepted first;
 * 2. else an answered connection idle for at least `evictIdleAfterSeconds`: the longest-idle;
 * 3. else none: the new connection is closed at once.
 * Never one with a request on the wire: headers received and not yet answered, or bytes of a next
 * request arrived. A connection answered within `evictIdleAfterSeconds` is kept too: its client is
 * likely to send on it any moment, and HTTP/1.1 cannot announce a close, so a request written into
 * the close fails (Go's transport and client-go never retry a POST whose bytes were written). So
 * kube-apiserver's kept-alive connections survive a flood of new ones, and a new client is refused
 * only while every slot is in use or recently was.
 *
 * A body must arrive at `minBodyBytesPerSecond` on average, after `bodyGraceSeconds` free:
 * otherwise a request with complete headers and a stalled body held its slot until the request
 * timeout. The clock stops while the event loop is late, as then the server was not reading.
 *
 * Connections are keyed by the peer's address and port, which the TLS socket shares with the
 * TCP socket under it.
 */
export class ConnectionGate {
  private readonly open = new Map<string, Tracked>();
  private readonly cap: number;
  private readonly evictIdleAfterMs: number;
  private readonly minBodyRate: number;
  private readonly bodyGraceMs: number;
  /** Event-loop lateness seen by the body check, summed: time the server was not reading. */
  private lagMs = 0;

  constructor(
    server: Server,
    limits: ConnectionLimits,
    private readonly events: GateEvents,
  ) {
    this.cap = limits.maxConnections;
    this.evictIdleAfterMs = ms(limits.evictIdleAfterSeconds);
    this.minBodyRate = limits.minBodyBytesPerSecond;
    this.bodyGraceMs = ms(limits.bodyGraceSeconds);
    server.on('connection', (socket: Socket) => this.admit(socket));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.started(req, res));
    const every = ms(limits.connectionCheckIntervalSeconds);
    let timer: NodeJS.Timeout | undefined;
    server.on('listening', () => {
      let last = performance.now();
      timer = setInterval(() => {
        const now = performance.now();
        this.lagMs += Math.max(0, now - last - every);
        last = now;
        this.checkBodies(now);
      }, every).unref();
    });
    server.on('close', () => clearInterval(timer));
  }

  /** Connections open now. */
  get size(): number {
    return this.open.size;
  }

  /** Connections open now with no request on the wire. */
  get idle(): number {
    let n = 0;
    for (const c of this.open.values()) if (!onTheWire(c)) n++;
    return n;
  }

  /**
   * Closes every connection with no request on the wire that has been idle for at least
   * `minIdleMs`, counted from its last answer or from `since` (a performance.now() instant),
   * whichever is later; returns how many stay open. Used while draining: a request that arrives
   * first is answered with `Connection: close`.
   */
  closeIdle(minIdleMs = 0, since = 0): number {
    const now = performance.now();
    for (const c of this.open.values()) {
      if (!onTheWire(c) && now - Math.max(c.idleSince, since) >= minIdleMs) this.close(c);
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
    const now = performance.now();
    if (this.open.size >= this.cap) {
      const victim = this.victim(now);
      if (!victim) {
        socket.destroy();
        this.events.dropped();
        return;
      }
      this.events.evicted(victim.answered === 0 ? 'unused' : 'idle', now - victim.idleSince);
      this.close(victim);
    }
    const tracked: Tracked = {
      key,
      raw: socket,
      acceptedAt: now,
      pending: 0,
      answered: 0,
      idleSince: now,
      bytesAtIdle: 0,
    };
    this.open.set(key, tracked);
    socket.once('close', () => {
      if (this.open.get(key) === tracked) this.open.delete(key);
    });
  }

  private started(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    const key = keyOf(socket);
    const tracked = key === undefined ? undefined : this.open.get(key);
    if (!tracked) return;
    tracked.http = socket;
    tracked.pending++;
    if (!req.complete) tracked.body = { req, bytesAt: socket.bytesRead, startedAt: performance.now() - this.lagMs };
    // 'close' fires whether the answer finished or the client went away.
    res.once('close', () => {
      tracked.pending--;
      tracked.answered++;
      tracked.idleSince = performance.now();
      tracked.bytesAtIdle = socket.bytesRead;
    });
  }

  /** What a new connection may replace at the cap, if anything (see the class comment). */
  private victim(now: number): Tracked | undefined {
    let unused: Tracked | undefined;
    let idle: Tracked | undefined;
    for (const c of this.open.values()) {
      if (onTheWire(c)) continue;
      if (c.answered === 0) {
        if (!unused || c.acceptedAt < unused.acceptedAt) unused = c;
      } else if (now - c.idleSince >= this.evictIdleAfterMs && (!idle || c.idleSince < idle.idleSince)) idle = c;
    }
    return unused ?? idle;
  }

  /** Closes each connection whose request body is behind the minimum rate. */
  private checkBodies(now: number): void {
    const clock = now - this.lagMs;
    for (const c of this.open.values()) {
      const body = c.body;
      if (!body) continue;
      if (body.req.complete || body.req.destroyed) {
        c.body = undefined;
        continue;
      }
      const elapsed = clock - body.startedAt;
      const received = c.http!.bytesRead - body.bytesAt;
      if (received < (this.minBodyRate * (elapsed - this.bodyGraceMs)) / 1000) {
        this.events.slowBody(received, elapsed);
        this.close(c);
      }
    }
  }

  private close(c: Tracked): void {
    // Out of the count at once: the socket's 'close' comes a tick later.
    this.open.delete(c.key);
    (c.http ?? c.raw).destroy();
  }
}

/** A request is on the wire: received and not answered, its body still arriving, or a next one begun. */
function onTheWire(c: Tracked): boolean {
  return (
    c.pending > 0 ||
    (c.body !== undefined && !c.body.req.complete) ||
    (c.http !== undefined && c.http.bytesRead > c.bytesAtIdle)
  );
}

function keyOf(socket: Socket): string | undefined {
  const { remoteAddress, remotePort } = socket;
  return remoteAddress === undefined || remotePort === undefined ? undefined : `${remoteAddress}:${remotePort}`;
}
