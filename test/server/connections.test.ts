// Connection hygiene against a real HTTPS server on port 0, with short configured timeouts: slow
// handshakes, slow headers, slow bodies and idle connections are closed by the server, and at the
// cap the longest-idle connection makes room for a new one (a new one is refused only when every
// open one is busy). The clients below go on until the server closes them, so a close is the
// timeout's doing; how soon is the bench's business, not a unit test's (a hang meets tap's timeout).
import net from 'node:net';
import tls, { type TLSSocket } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { defaultConfig, resolveConfig } from '../../src/config.js';
import { buildProbeServer, urlOf } from '../../src/server/app.js';
import { createLogger } from '../../src/server/logging.js';
import { cloudProfile } from '../helpers/objects.js';
import { review, startServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

// The handshake bound is the loosest: the clients below complete a hundred handshakes at once on a
// loaded machine, and one cut short by the bound fails the test for the wrong reason.
const LIMITS = {
  headersTimeoutSeconds: 0.4,
  requestTimeoutSeconds: 0.8,
  connectionCheckIntervalSeconds: 0.1,
  tlsHandshakeTimeoutSeconds: 3,
  keepAliveTimeoutSeconds: 0.3,
};

interface Closed {
  ms: number;
  /** What the server sent before closing. */
  received: string;
}

/** A TLS connection to the server, handshake done. */
function connect(s: TestServer): Promise<TLSSocket> {
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
  t.match(server, {
    maxConnections: 1000,
    tlsHandshakeTimeoutSeconds: 5,
    headersTimeoutSeconds: 10,
    requestTimeoutSeconds: 30,
    keepAliveTimeoutSeconds: 120,
    connectionCheckIntervalSeconds: 1,
  });
  for (const bad of [
    { maxConnections: 0 },
    { maxConnections: 1.5 },
    { headersTimeoutSeconds: 0 },
    { requestTimeoutSeconds: -1 },
    { keepAliveTimeoutSeconds: 'long' },
    { connectionCheckIntervalSeconds: 60 },
    { tlsHandshakeTimeoutSeconds: 600 },
  ]) {
    t.throws(
      () => resolveConfig({ server: bad }),
      { name: 'ConfigError', message: new RegExp(`server\\.${Object.keys(bad)[0]}`) },
      JSON.stringify(bad),
    );
  }
});

t.test('the server applies them, overriding what fastify and Node set', async (t) => {
  const s = await startServer({
    config: {
      server: {
        maxConnections: 7,
        headersTimeoutSeconds: 3,
        requestTimeoutSeconds: 2,
        keepAliveTimeoutSeconds: 9,
        connectionCheckIntervalSeconds: 0.5,
      },
    },
  });
  t.teardown(s.close);
  const server = s.server.app.server as unknown as Record<string, number>;
  t.match(
    server,
    { requestTimeout: 2000, headersTimeout: 2000, keepAliveTimeout: 9000, connectionsCheckingInterval: 500 },
    'a headers timeout past the request timeout is cut to it',
  );
  t.equal(
    server.maxConnections,
    undefined,
    "Node's own cap, which closes the newest connection, is off: the gate keeps the cap",
  );
});

t.test('slow handshakes, slow headers, slow bodies and idle connections are closed by their timeouts', async (t) => {
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
  bodySocket.write(
    `POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
  );
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
  // Awaited below; a connection that fails meanwhile fails the test there, not as an unhandled rejection.
  many.catch(() => undefined);

  const [h, i, sh, sb] = await Promise.all([handshake, idle, slowHeaders, slowBody]);
  t.equal(h.received, '', `TLS handshake timeout 3 s: closed after ${h.ms} ms, nothing sent`);
  t.match(
    i.received,
    /^(HTTP\/1\.1 408 [\s\S]*)?$/,
    `an idle new connection: closed after ${i.ms} ms (headers timeout), answered 408 or nothing`,
  );
  t.pass(`slow headers: closed after ${sh.ms} ms`);
  // Node answers 408, then closes; a client still writing may see a reset before the answer.
  t.match(sh.received, /^(HTTP\/1\.1 408 [\s\S]*)?$/, 'answered 408, or reset');
  t.match(sb.received, /^(HTTP\/1\.1 408 [\s\S]*)?$/, 'answered 408, or reset');
  t.ok(at < body.length, 'the body never finished');
  const reaped = await many;
  t.equal(
    reaped.length,
    100,
    `100 slow-header connections closed, the last after ${Math.max(...reaped.map((c) => c.ms))} ms`,
  );

  // The server is unharmed.
  t.equal((await s.post('/validate', JSON.parse(body))).status, 200);
});

t.test('a kept-alive connection is closed once idle past the keep-alive timeout', async (t) => {
  const s = await startServer({ config: { server: LIMITS } });
  t.teardown(s.close);
  const socket = await connect(s);
  socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
  const closed = await closedAfter(socket);
  t.match(
    closed.received,
    /^HTTP\/1\.1 200 [\s\S]*keep-alive/i,
    `answered, kept alive, then closed by the server after ${closed.ms} ms`,
  );
});

/** A TLS connection that has been answered once on keep-alive and now sits idle. */
async function idleKeepAlive(s: TestServer): Promise<TLSSocket> {
  const socket = await connect(s);
  socket.on('error', () => undefined);
  let received = '';
  await new Promise<void>((resolve, reject) => {
    socket.on('data', (d: Buffer) => {
      received += d.toString();
      if (received.endsWith('ok')) resolve();
    });
    socket.once('close', () => reject(new Error('closed before its answer')));
    socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
  });
  return socket;
}

async function counted(
  s: TestServer,
  metric: 'droppedConnections' | 'evictedConnections',
  server: string,
): Promise<number> {
  return (await s.server.metrics[metric].get()).values.find((v) => v.labels.server === server)?.value ?? 0;
}

// The default cap is 1,000 (asserted above); the gate does the same at any cap, so 200 idle
// connections hold it here: a fifth of the TLS handshakes.
const CAP = 200;

t.test(
  'idle keep-alive connections at the cap cannot starve a new client: the longest-idle makes room, every time',
  async (t) => {
    const s = await startServer({ config: { server: { maxConnections: CAP } } });
    t.teardown(s.close);
    const idle: TLSSocket[] = [];
    for (let batch = 0; batch < CAP / 50; batch++)
      idle.push(...(await Promise.all(Array.from({ length: 50 }, () => idleKeepAlive(s)))));
    t.teardown(() => idle.forEach((socket) => socket.destroy()));
    t.equal(s.server.connections.size, CAP, 'every slot is held by an idle keep-alive connection');
    t.equal(s.server.connections.idle, CAP);

    const body = review({ operation: 'CREATE', object: cloudProfile() });
    const answers: number[] = [];
    for (let i = 0; i < 25; i++) {
      answers.push((await s.post('/validate', body)).status);
      // The attacker takes the freed slot again at once: every new client arrives at the cap.
      await until('the client gone', () => s.server.connections.size === CAP - 1, 5000, 5);
      idle.push(await idleKeepAlive(s));
    }
    t.same(answers, Array(25).fill(200), 'a new client sending a review is answered, every time');
    t.equal(await counted(s, 'evictedConnections', 'webhook'), 25, 'one idle connection closed for each new client');
    t.equal(await counted(s, 'droppedConnections', 'webhook'), 0, 'none refused');
    await until(
      'the evicted closed',
      () => idle.filter((socket) => socket.destroyed || socket.readableEnded).length === 25,
      5000,
      10,
    );
    const closed = idle.flatMap((socket, i) => (socket.destroyed || socket.readableEnded ? [i] : []));
    t.ok(
      closed.every((i) => i < 50),
      'exactly 25 of the longest-idle connections (the first 50 opened) were closed',
    );
  },
);

t.test(
  'at the cap the longest-idle connection goes first; a busy one never does; with all busy the new one is refused',
  async (t) => {
    const s = await startServer({ config: { server: { maxConnections: 3 } } });
    t.teardown(s.close);
    const oldest = closedAfter(await idleKeepAlive(s));
    await sleep(20);
    const younger = await idleKeepAlive(s);
    // A request in flight: headers and part of a body, the rest never sent.
    const busy = await connect(s);
    busy.on('error', () => undefined);
    busy.write(
      'POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
    );
    await sleep(50);

    t.equal(
      (await s.post('/validate', review({ operation: 'CREATE', object: cloudProfile() }))).status,
      200,
      'a new client is answered',
    );
    await oldest;
    t.pass('the longest-idle connection was closed to make room');
    t.notOk(younger.destroyed || busy.destroyed, 'the younger idle one and the busy one stay');

    // Now three busy connections: the cap holds, and a fourth is refused.
    await until('the test client gone', () => s.server.connections.size === 2, 5000, 10);
    const holders = [busy];
    for (const socket of [younger, await connect(s)]) {
      socket.on('error', () => undefined);
      socket.write(
        'POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
      );
      holders.push(socket);
    }
    await sleep(50);
    t.equal(s.server.connections.size, 3);
    const refused = await connect(s).then(
      (socket) => closedAfter(socket).then(() => 'closed'),
      (err: NodeJS.ErrnoException) => err.code ?? err.message,
    );
    t.ok(refused, `a fourth is refused while all three are busy (${refused})`);
    t.equal(await counted(s, 'droppedConnections', 'webhook'), 1, 'counted');
    t.equal(await counted(s, 'evictedConnections', 'webhook'), 1, 'one eviction, for the test client');
    for (const socket of holders) socket.destroy();
  },
);

t.test('the probe port has the same limits and the same gate', async (t) => {
  const s = await startServer();
  t.teardown(s.close);
  const limits = { ...defaultConfig().server, ...LIMITS, maxConnections: 2 };
  const probes = buildProbeServer({
    readiness: s.server.readiness,
    metrics: s.server.metrics,
    logger: createLogger('silent'),
    limits,
  });
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
  const bClosed = closedAfter(b);
  await sleep(20);
  // The cap of two is reached: the third makes room by closing the longest-idle, `a` (its headers
  // never finished, so it is not busy with a request).
  const c = await plain();
  await slow;
  t.pass('the connection trickling headers, idle longest, made room');
  c.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
  t.match((await closedAfter(c)).received, /^HTTP\/1\.1 200 /, 'the new connection is served');
  b.destroy();
  await bClosed;
  t.equal(await counted(s, 'evictedConnections', 'probes'), 1);
});
