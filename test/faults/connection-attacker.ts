// The hostile side of the connection fault runs, in a process of its own so that its CPU is not
// the server's or the good client's. Started by connection-attack.ts with one JSON argument; on
// the message 'stop' it closes everything and sends back what it counted.
//   slow-body: `connections` TLS connections, each sending a request's headers and the first
//     byte of a 1 MB body, then nothing (issue 34's openssl repro); reopened when closed.
//   churn: full TLS handshakes at `rate` per second, at most `connections` at once; each
//     connection holds its slot, sending nothing, until the server closes it.
import net from 'node:net';
import tls from 'node:tls';

export interface AttackOptions {
  port: number;
  kind: 'slow-body' | 'churn' | 'tcp-churn';
  connections: number;
  /** churn: new connections per second. */
  rate?: number;
}

export interface AttackCounts {
  /** Connections whose TLS handshake finished. */
  handshakes: number;
  /** Connections closed before their handshake finished (refused at the cap, or cut short). */
  refused: number;
  /** Connections the server closed after their handshake. */
  closedByServer: number;
}

const opts = JSON.parse(process.argv[2]!) as AttackOptions;
const counts: AttackCounts = { handshakes: 0, refused: 0, closedByServer: 0 };
const open = new Set<net.Socket>();
let stopping = false;

/** A TCP connection that never starts its handshake, held until the server closes it. */
function tcpAttempt(): Promise<void> {
  return new Promise((resolve) => {
    let connected = false;
    const socket = net.connect(opts.port, '127.0.0.1', () => {
      connected = true;
      counts.handshakes++;
    });
    open.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      open.delete(socket);
      if (!stopping) {
        if (connected) counts.closedByServer++;
        else counts.refused++;
      }
      resolve();
    });
  });
}

function attempt(): Promise<void> {
  return new Promise((resolve) => {
    let secure = false;
    const socket = tls.connect({ host: '127.0.0.1', port: opts.port, rejectUnauthorized: false }, () => {
      secure = true;
      counts.handshakes++;
      if (opts.kind === 'slow-body')
        socket.write(
          'POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{',
        );
    });
    open.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      open.delete(socket);
      if (!stopping) {
        if (secure) counts.closedByServer++;
        else counts.refused++;
      }
      resolve();
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function slowBodies(): Promise<void> {
  await Promise.all(
    Array.from({ length: opts.connections }, async () => {
      // A refused connection is tried again after a pause, not in a tight loop.
      while (!stopping) {
        await attempt();
        await sleep(20);
      }
    }),
  );
}

async function churn(): Promise<void> {
  const rate = opts.rate ?? 300;
  const t0 = performance.now();
  let started = 0;
  while (!stopping) {
    const due = Math.floor(((performance.now() - t0) / 1000) * rate);
    while (started < due && open.size < opts.connections && !stopping) {
      started++;
      void (opts.kind === 'tcp-churn' ? tcpAttempt() : attempt());
    }
    // Behind schedule with every connection open: what was not started is not owed later.
    if (open.size >= opts.connections) started = Math.max(started, due);
    await sleep(5);
  }
}

process.on('message', (msg) => {
  if (msg !== 'stop') return;
  stopping = true;
  for (const socket of open) socket.destroy();
  process.send!(counts, () => process.exit(0));
});
process.send!('ready');
void (opts.kind === 'slow-body' ? slowBodies() : churn());
