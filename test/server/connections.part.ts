// Connection hygiene against a real HTTPS server on port 0, with short configured timeouts: slow
// handshakes, slow headers, slow bodies and idle connections are closed by the server (the cap
// and the minimum body rate: connection-gate.test.ts). The clients below go on until the server
// closes them, so a close is the timeout's doing; how soon is the bench's business, not a unit
// test's (a hang meets tap's timeout).
import net from 'node:net';
import t from '../helpers/parts.js';
import { defaultConfig, resolveConfig } from '../../src/config.js';
import { cloudProfile } from '../helpers/objects.js';
import { review, startServer } from '../helpers/server.js';
import { closedAfter, connect } from '../helpers/sockets.js';

// The handshake bound is the loosest: the clients below complete a hundred handshakes at once on a
// loaded machine, and one cut short by the bound fails the test for the wrong reason.
const LIMITS = {
  headersTimeoutSeconds: 0.4,
  requestTimeoutSeconds: 0.8,
  connectionCheckIntervalSeconds: 0.1,
  tlsHandshakeTimeoutSeconds: 3,
  keepAliveTimeoutSeconds: 0.3,
};

t.test('the connection settings have safe defaults and are validated', async (t) => {
  const { server } = defaultConfig();
  t.match(server, {
    maxConnections: 1000,
    tlsHandshakeTimeoutSeconds: 5,
    headersTimeoutSeconds: 10,
    requestTimeoutSeconds: 30,
    keepAliveTimeoutSeconds: 120,
    connectionCheckIntervalSeconds: 1,
    evictIdleAfterSeconds: 10,
    minBodyBytesPerSecond: 65536,
    bodyGraceSeconds: 5,
  });
  for (const bad of [
    { maxConnections: 0 },
    { maxConnections: 1.5 },
    { headersTimeoutSeconds: 0 },
    { requestTimeoutSeconds: -1 },
    { keepAliveTimeoutSeconds: 'long' },
    { connectionCheckIntervalSeconds: 60 },
    { tlsHandshakeTimeoutSeconds: 600 },
    { evictIdleAfterSeconds: 0 },
    { evictIdleAfterSeconds: 7200 },
    { minBodyBytesPerSecond: 0 },
    { minBodyBytesPerSecond: 100.5 },
    { bodyGraceSeconds: 0 },
    { bodyGraceSeconds: 301 },
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
