// Connection hygiene against a real HTTPS server on port 0, with short configured timeouts: slow
// handshakes, slow headers, slow bodies and idle connections are closed within their timeout plus
// the check interval, and connections past the cap are refused. The clients below would go on for
// 20 s if nothing stopped them; the bounds asserted are generous (a loaded machine), but far below.
import net from 'node:net';
import tls, { type TLSSocket } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { defaultConfig, resolveConfig } from '../../src/config.js';
import { buildProbeServer, urlOf } from '../../src/server/app.js';
import { createLogger } from '../../src/server/logging.js';
import { cloudProfile } from '../helpers/objects.js';
import { review, startServer, type TestServer } from '../helpers/server.js';

const SLACK_MS = 2500;
const LIMITS = { headersTimeoutSeconds: 0.4, requestTimeoutSeconds: 0.8, connectionCheckIntervalSeconds: 0.1, tlsHandshakeTimeoutSeconds: 0.4, keepAliveTimeoutSeconds: 0.3 };

interface Closed {
  ms: number;
  /** What the server sent before closing. */
  received: string;
}

/** A TLS connection to the server, handshake done. */
function connect(s: TestServer): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: s.port, ca: s.authority.ca.certPem, servername: 'localhost' }, () => resolve(socket));
    socket.once('error', reject);
    // A connection dropped at the cap may close without an error (a no-op once connected).
    socket.once('close', () => reject(new Error('closed during the handshake')));
  });
}

/** Resolves when the server closes `socket`; `trickle` keeps writing one piece every 100 ms meanwhile. */
function closedAfter(socket: net.Socket, trickle?: () => string): Promise<Closed> {
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

t.test('the connection settings have safe defaults and are validated', async (t) => {
  const { server } = defaultConfig();
  t.match(server, { maxConnections: 1000, tlsHandshakeTimeoutSeconds: 5, headersTimeoutSeconds: 10, requestTimeoutSeconds: 30, keepAliveTimeoutSeconds: 120, connectionCheckIntervalSeconds: 1 });
  for (const bad of [{ maxConnections: 0 }, { maxConnections: 1.5 }, { headersTimeoutSeconds: 0 }, { requestTimeoutSeconds: -1 }, { keepAliveTimeoutSeconds: 'long' }, { connectionCheckIntervalSeconds: 60 }, { tlsHandshakeTimeoutSeconds: 600 }]) {
    t.throws(() => resolveConfig({ server: bad }), { name: 'ConfigError', message: new RegExp(`server\\.${Object.keys(bad)[0]}`) }, JSON.stringify(bad));
  }
});

t.test('the server applies them, overriding what fastify and Node set', async (t) => {
  const s = await startServer({ config: { server: { maxConnections: 7, headersTimeoutSeconds: 3, requestTimeoutSeconds: 2, keepAliveTimeoutSeconds: 9, connectionCheckIntervalSeconds: 0.5 } } });
  t.teardown(s.close);
  const server = s.server.app.server as unknown as Record<string, number>;
  t.match(server, { maxConnections: 7, requestTimeout: 2000, headersTimeout: 2000, keepAliveTimeout: 9000, connectionsCheckingInterval: 500 }, 'a headers timeout past the request timeout is cut to it');
});

t.test('slow handshakes, slow headers, slow bodies and idle connections are closed within their timeouts', async (t) => {
  const s = await startServer({ config: { server: LIMITS } });
  t.teardown(s.close);

  // TCP only: a ClientHello never comes.
  const raw = net.connect(s.port, '127.0.0.1');
  const handshake = closedAfter(raw);

  const idle = closedAfter(await connect(s));

  const headers = await connect(s);
  headers.write('POST /validate HTTP/1.1\r\nHost: localhost\r\n');
  let n = 0;
  const slowHeaders = closedAfter(headers, () => `X-Slow-${n++}: 1\r\n`);

  const body = JSON.stringify(review({ operation: 'CREATE', object: cloudProfile() }));
  const bodySocket = await connect(s);
  bodySocket.write(`POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
  let at = 0;
  const slowBody = closedAfter(bodySocket, () => body[at++] ?? ' ');

  // 100 slow-header connections at once are all reaped as well.
  const many = Promise.all(
    Array.from({ length: 100 }, async (_, i) => {
      const socket = await connect(s);
      socket.write(`GET /healthz HTTP/1.1\r\nX-Client: ${i}\r\n`);
      return closedAfter(socket, () => 'X-More: 1\r\n');
    }),
  );

  const [h, i, sh, sb] = await Promise.all([handshake, idle, slowHeaders, slowBody]);
  t.ok(h.ms < 400 + SLACK_MS, `TLS handshake timeout 0.4 s: closed after ${h.ms} ms`);
  t.ok(i.ms < 400 + 100 + SLACK_MS, `an idle new connection: closed after ${i.ms} ms (headers timeout)`);
  t.ok(sh.ms < 400 + 100 + SLACK_MS, `slow headers: closed after ${sh.ms} ms`);
  // Node answers 408, then closes; a client still writing may see a reset before the answer.
  t.match(sh.received, /^(HTTP\/1\.1 408 [\s\S]*)?$/, 'answered 408, or reset');
  t.ok(sb.ms < 800 + 100 + SLACK_MS, `slow body: closed after ${sb.ms} ms`);
  t.match(sb.received, /^(HTTP\/1\.1 408 [\s\S]*)?$/, 'answered 408, or reset');
  t.ok(at < body.length, 'the body never finished');
  const slowest = Math.max(...(await many).map((c) => c.ms));
  t.ok(slowest < 400 + 100 + SLACK_MS, `100 slow-header connections: the last closed after ${slowest} ms`);

  // The server is unharmed.
  t.equal((await s.post('/validate', JSON.parse(body))).status, 200);
});

t.test('a kept-alive connection is closed once idle past the keep-alive timeout', async (t) => {
  const s = await startServer({ config: { server: LIMITS } });
  t.teardown(s.close);
  const socket = await connect(s);
  socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
  const closed = await closedAfter(socket);
  t.match(closed.received, /^HTTP\/1\.1 200 [\s\S]*keep-alive/i, 'answered, then kept alive');
  // Node adds its keepAliveTimeoutBuffer (1 s) to what it tells the client.
  t.ok(closed.ms < 300 + 1000 + SLACK_MS, `closed after ${closed.ms} ms`);
});

t.test('connections past the cap are refused at once; the ones inside it are served', async (t) => {
  const s = await startServer({ config: { server: { maxConnections: 3 } } });
  t.teardown(s.close);
  const open = [await connect(s), await connect(s), await connect(s)];
  const refused = await connect(s).then(
    (socket) => closedAfter(socket).then(() => 'closed'),
    (err: NodeJS.ErrnoException) => err.code ?? err.message,
  );
  t.ok(refused, `the fourth is refused (${refused})`);
  const dropped = await s.server.metrics.droppedConnections.get();
  t.same(
    dropped.values.map((v) => [v.labels.server, v.value]),
    [['webhook', 1]],
    'counted',
  );

  const [first] = open;
  first!.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
  t.match((await closedAfter(first!)).received, /^HTTP\/1\.1 200 /, 'a connection inside the cap is served');
  // Once one has closed, a new connection fits again (the server counts it closed a moment later).
  let again: TLSSocket | undefined;
  for (let i = 0; i < 50 && !again; i++) again = await connect(s).catch(() => sleep(20).then(() => undefined));
  t.ok(again, 'a new connection is accepted once there is room');
  for (const socket of [...open, again]) socket?.destroy();
});

t.test('the probe port has the same limits', async (t) => {
  const s = await startServer();
  t.teardown(s.close);
  const limits = { ...defaultConfig().server, ...LIMITS, maxConnections: 2 };
  const probes = buildProbeServer({ readiness: s.server.readiness, metrics: s.server.metrics, logger: createLogger('silent'), limits });
  await probes.listen({ host: '127.0.0.1', port: 0 });
  t.teardown(() => probes.close());
  const port = Number(new URL(urlOf('http', probes)).port);
  const plain = () =>
    new Promise<net.Socket>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
      socket.once('error', reject);
    });
  const a = await plain();
  const slow = closedAfter(a, () => 'X-Slow: 1\r\n');
  a.write('GET /healthz HTTP/1.1\r\n');
  const b = await plain();
  const c = await plain();
  const third = await closedAfter(c);
  t.equal(third.received, '', 'the third connection is closed unanswered');
  t.ok((await slow).ms < 400 + 100 + SLACK_MS, 'slow headers are reaped on the probe port too');
  b.destroy();
  const dropped = await s.server.metrics.droppedConnections.get();
  t.equal(dropped.values.find((v) => v.labels.server === 'probes')?.value, 1);
});
