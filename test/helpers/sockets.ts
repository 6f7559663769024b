// Raw client connections for the connection-hygiene tests: the bytes a client sends, and when the
// server closes its side, are the test's to control.
import type net from 'node:net';
import tls, { type TLSSocket } from 'node:tls';
import type { TestServer } from './server.js';

export interface Closed {
  ms: number;
  /** What the server sent before closing. */
  received: string;
}

/** A TLS connection to the server, handshake done. */
export function connect(s: TestServer): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect(
      { host: '127.0.0.1', port: s.port, ca: s.authority.ca.certPem, servername: 'localhost' },
      () => resolve(socket),
    );
    socket.once('error', reject);
    // A connection dropped at the cap may close without an error (a no-op once connected).
    socket.once('close', () => reject(new Error('closed during the handshake')));
  });
}

/** Resolves when the server closes `socket`; `trickle` keeps writing one piece every 100 ms meanwhile. */
export function closedAfter(socket: net.Socket, trickle?: () => string): Promise<Closed> {
  const started = Date.now();
  let received = '';
  socket.on('data', (d: Buffer) => (received += d.toString()));
  socket.on('error', () => undefined);
  const timer = trickle ? setInterval(() => socket.writable && socket.write(trickle()), 100) : undefined;
  return new Promise((resolve) => {
    socket.once('close', () => {
      clearInterval(timer);
      resolve({ ms: Date.now() - started, received });
    });
  });
}

/** Sends GET /healthz on a kept-alive `socket` (after `prefix`, if any) and resolves with its answer. */
export function healthz(socket: TLSSocket, prefix = ''): Promise<string> {
  let received = '';
  return new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      received += d.toString();
      if (!received.endsWith('ok')) return;
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve(received);
    };
    const onClose = () => reject(new Error('closed before its answer'));
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.write(`${prefix}GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  });
}

/** A TLS connection that has been answered once on keep-alive and now sits idle. */
export async function idleKeepAlive(s: TestServer): Promise<TLSSocket> {
  const socket = await connect(s);
  socket.on('error', () => undefined);
  await healthz(socket);
  return socket;
}

/** A connection counter of `server` ('webhook' or 'probes'), summed over its other labels (or those given). */
export async function counted(
  s: TestServer,
  metric: 'droppedConnections' | 'evictedConnections' | 'slowBodyConnections',
  server: string,
  labels: Record<string, string> = {},
): Promise<number> {
  let n = 0;
  for (const v of (await s.server.metrics[metric].get()).values) {
    const l = v.labels as Record<string, unknown>;
    if (l.server === server && Object.entries(labels).every(([k, want]) => l[k] === want)) n += v.value;
  }
  return n;
}
