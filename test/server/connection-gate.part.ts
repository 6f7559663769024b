// The connection cap and the minimum body rate (ConnectionGate), against a real HTTPS server on
// port 0: at the cap, unused connections make room first (oldest first), then answered ones idle
// past server.evictIdleAfterSeconds (longest-idle first); a connection with a request on the wire,
// or answered more recently, is never closed for a new one, which is refused instead. A body
// slower than the minimum rate loses its connection; one above it, and one the server itself was
// too busy to read, do not. Flooding it for real (slow bodies, handshake churn, a kube-apiserver-
// like client): test/faults/connections.faults.ts.
import net from 'node:net';
import type { TLSSocket } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import t from '../helpers/parts.js';
import { defaultConfig } from '../../src/config.js';
import { buildProbeServer, urlOf } from '../../src/server/app.js';
import { createLogger } from '../../src/server/logging.js';
import { cloudProfile } from '../helpers/objects.js';
import { review, startServer, type TestServer } from '../helpers/server.js';
import { closedAfter, connect, counted, healthz, idleKeepAlive } from '../helpers/sockets.js';
import { until } from '../helpers/until.js';

const REVIEW = review({ operation: 'CREATE', object: cloudProfile() });
// Long enough never to fire here: these tests are about the gate, not the timeouts.
const NO_TIMEOUTS = {
  tlsHandshakeTimeoutSeconds: 120,
  headersTimeoutSeconds: 300,
  requestTimeoutSeconds: 300,
  bodyGraceSeconds: 300,
};

/** Headers of a POST whose body (`length` bytes) is still to come, and its first `sent` bytes. */
function partialPost(socket: TLSSocket, length: number, sent = '{'): void {
  socket.on('error', () => undefined);
  socket.write(
    `POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n${sent}`,
  );
}

/** Opens a connection and tells whether the server kept it ('kept') or closed it at once. */
async function newcomer(s: TestServer): Promise<string> {
  const socket = await connect(s).catch((err: Error) => err);
  if (socket instanceof Error) return socket.message;
  // The TLS handshake may finish before the server's close arrives: ask it something.
  return healthz(socket).then(
    () => {
      socket.destroy();
      return 'kept';
    },
    (err: Error) => err.message,
  );
}

const open = (socket: net.Socket) => !socket.destroyed && !socket.readableEnded;

t.test('at the cap, unused connections make room first, the oldest first; answered ones stay', async (t) => {
  const s = await startServer({
    config: { server: { maxConnections: 4, evictIdleAfterSeconds: 3600, ...NO_TIMEOUTS } },
  });
  t.teardown(s.close);
  const inUse = await idleKeepAlive(s);
  // A TCP connection that never starts its handshake, then two TLS ones that never send a request.
  const handshaking = await new Promise<net.Socket>((resolve) => {
    const socket = net.connect(s.port, '127.0.0.1', () => resolve(socket));
  });
  await until('the handshaking one counted', () => s.server.connections.size === 2);
  const unused = [handshaking, await connect(s), await connect(s)];
  const closed = unused.map((socket) => closedAfter(socket));

  // Each new client is answered and stays connected, so the next one arrives at the cap too.
  const newcomers: TLSSocket[] = [];
  for (let i = 0; i < 3; i++) {
    newcomers.push(await idleKeepAlive(s));
    await closed[i];
    t.pass(`new client ${i + 1} answered; it took the place of unused connection ${i + 1}, the oldest left`);
    t.ok(unused.slice(i + 1).every(open), 'the younger unused ones stay');
  }
  t.not(await newcomer(s), 'kept', 'with four answered connections open, a fifth is refused');
  t.match(await healthz(inUse), /^HTTP\/1\.1 200 /, 'the first kept-alive connection was never closed, and answers');
  t.ok(newcomers.every(open));
  t.equal(await counted(s, 'evictedConnections', 'webhook', { state: 'unused' }), 3);
  t.equal(await counted(s, 'evictedConnections', 'webhook', { state: 'idle' }), 0);
  t.equal(await counted(s, 'droppedConnections', 'webhook'), 1);
  for (const socket of [inUse, ...newcomers]) socket.destroy();
});

t.test(
  'an answered connection makes room only once idle for evictIdleAfterSeconds; until then a new one is refused',
  async (t) => {
    await t.test('answered within it: kept, and the newcomer refused', async (t) => {
      const s = await startServer({ config: { server: { maxConnections: 2, evictIdleAfterSeconds: 3600 } } });
      t.teardown(s.close);
      const [a, b] = [await idleKeepAlive(s), await idleKeepAlive(s)];
      t.not(await newcomer(s), 'kept', 'the new connection is refused');
      t.equal(await counted(s, 'droppedConnections', 'webhook'), 1, 'counted as dropped');
      t.match(await healthz(a), /^HTTP\/1\.1 200 /, 'both kept-alive connections still answer');
      t.match(await healthz(b), /^HTTP\/1\.1 200 /);
      a.destroy();
      b.destroy();
    });

    await t.test('idle past it: the longest-idle makes room', async (t) => {
      const s = await startServer({ config: { server: { maxConnections: 2, evictIdleAfterSeconds: 0.2 } } });
      t.teardown(s.close);
      const a = await idleKeepAlive(s);
      const b = await idleKeepAlive(s);
      const aClosed = closedAfter(a);
      await sleep(300);
      t.equal(await newcomer(s), 'kept', 'the new connection is served');
      await aClosed;
      t.pass('the longest-idle connection made room');
      t.match(await healthz(b), /^HTTP\/1\.1 200 /, 'the other stays');
      t.equal(await counted(s, 'evictedConnections', 'webhook', { state: 'idle' }), 1);
      t.equal(await counted(s, 'droppedConnections', 'webhook'), 0);
      b.destroy();
    });
  },
);

t.test('a connection with a request on the wire is never closed to make room', async (t) => {
  // Every answered connection is past evictIdleAfterSeconds at once: only "on the wire" protects.
  const s = await startServer({
    config: { server: { maxConnections: 3, evictIdleAfterSeconds: 0.001, ...NO_TIMEOUTS } },
  });
  t.teardown(s.close);
  // Answered, then the first bytes of its next request (its headers unfinished).
  const nextRequest = await idleKeepAlive(s);
  nextRequest.write('GET /healthz HTTP/1.1\r\n');
  // Headers complete, body still arriving: before its first answer, and after one.
  const firstBody = await connect(s);
  partialPost(firstBody, 100);
  const laterBody = await idleKeepAlive(s);
  partialPost(laterBody, 100);
  await until('both bodies under way', () => s.server.connections.idle === 0 && s.server.connections.size === 3);
  await sleep(50);

  t.not(await newcomer(s), 'kept', 'the new connection is refused');
  t.equal(await counted(s, 'droppedConnections', 'webhook'), 1);
  t.equal(await counted(s, 'evictedConnections', 'webhook'), 0, 'none closed for it');
  t.ok([nextRequest, firstBody, laterBody].every(open), 'all three stay');

  // The requests on the wire are then answered.
  let text = '';
  nextRequest.on('data', (d: Buffer) => (text += d.toString()));
  nextRequest.write('Host: localhost\r\n\r\n');
  await until('its answer', () => text.endsWith('ok') || nextRequest.destroyed);
  t.match(text, /^HTTP\/1\.1 200 /, 'the unfinished request, finished, is answered');
  for (const socket of [nextRequest, firstBody, laterBody]) socket.destroy();
});

t.test(
  'idle keep-alive connections at the cap cannot starve new clients: the longest-idle makes room, every time',
  async (t) => {
    // The default cap is 1,000; the gate does the same at any cap, so 200 idle connections hold it
    // here: a fifth of the TLS handshakes.
    const CAP = 200;
    const s = await startServer({ config: { server: { maxConnections: CAP, evictIdleAfterSeconds: 0.2 } } });
    t.teardown(s.close);
    const idle: TLSSocket[] = [];
    for (let batch = 0; batch < CAP / 50; batch++)
      idle.push(...(await Promise.all(Array.from({ length: 50 }, () => idleKeepAlive(s)))));
    t.teardown(() => idle.forEach((socket) => socket.destroy()));
    t.equal(s.server.connections.size, CAP, 'every slot is held by an idle keep-alive connection');
    t.equal(s.server.connections.idle, CAP);
    await sleep(300);

    const answers: number[] = [];
    for (let i = 0; i < 25; i++) {
      answers.push((await s.post('/validate', REVIEW)).status);
      // The attacker takes the freed slot again at once: every new client arrives at the cap.
      await until('the client gone', () => s.server.connections.size === CAP - 1, 60_000, 5);
      idle.push(await idleKeepAlive(s));
    }
    t.same(answers, Array(25).fill(200), 'a new client sending a review is answered, every time');
    t.equal(await counted(s, 'evictedConnections', 'webhook', { state: 'idle' }), 25, 'one closed for each new client');
    t.equal(await counted(s, 'droppedConnections', 'webhook'), 0, 'none refused');
    await until('the evicted closed', () => idle.filter((socket) => !open(socket)).length === 25, 60_000, 10);
    const closed = idle.flatMap((socket, i) => (open(socket) ? [] : [i]));
    t.ok(
      closed.every((i) => i < 50),
      'exactly 25 of the longest-idle connections (the first 50 opened) were closed',
    );
  },
);

t.test('a request body must arrive at the minimum rate', async (t) => {
  const limits = {
    minBodyBytesPerSecond: 2000,
    bodyGraceSeconds: 0.2,
    connectionCheckIntervalSeconds: 0.05,
    headersTimeoutSeconds: 300,
    requestTimeoutSeconds: 300,
  };
  const s = await startServer({ config: { server: limits } });
  t.teardown(s.close);

  await t.test('a stalled body: the connection is closed, without waiting for the request timeout', async (t) => {
    const socket = await connect(s);
    partialPost(socket, 1000);
    const closed = await closedAfter(socket);
    t.equal(closed.received, '', `closed after ${closed.ms} ms, nothing sent`);
    t.equal(await counted(s, 'slowBodyConnections', 'webhook'), 1, 'counted');
  });

  // Padded to 16 KB, sent in 400-byte pieces every 20 ms: ten times the minimum rate, for about
  // 0.8 s, four grace periods.
  const body = JSON.stringify(REVIEW).replace(/}$/, `${' '.repeat(16_000)}}`);
  await t.test('a body well above it, for many grace periods: answered', async (t) => {
    const socket = await connect(s);
    partialPost(socket, Buffer.byteLength(body), '');
    let at = 0;
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString()));
    const closed = closedAfter(socket);
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        socket.write(body.slice(at, (at += 400)));
        if (at >= body.length) {
          clearInterval(timer);
          resolve();
        }
      }, 20);
    });
    await until('its answer', () => text.includes('"response"') || socket.destroyed);
    t.match(text, /^HTTP\/1\.1 200 [\s\S]*"response"/, 'answered');
    t.equal(await counted(s, 'slowBodyConnections', 'webhook'), 1, 'not counted');
    socket.destroy();
    await closed;
  });

  await t.test("a body the server did not read while its event loop was blocked: not the client's fault", async (t) => {
    const s = await startServer({ config: { server: { ...limits, bodyGraceSeconds: 0.5 } } });
    t.teardown(s.close);
    const socket = await connect(s);
    partialPost(socket, Buffer.byteLength(body), body.slice(0, 100));
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString()));
    await until('its headers received', () => s.server.connections.size === 1 && s.server.connections.idle === 0);
    // The loop blocked for four grace periods, then the body check runs before the rest is sent:
    // by the clock, 100 bytes in 2 s; the server was not reading for all but a few ms of it.
    const blockedUntil = performance.now() + 2000;
    while (performance.now() < blockedUntil) continue;
    await sleep(100);
    t.ok(open(socket), 'kept');
    socket.write(body.slice(100));
    await until('its answer', () => text.includes('"response"') || socket.destroyed);
    t.match(text, /^HTTP\/1\.1 200 [\s\S]*"response"/, 'answered');
    t.equal(await counted(s, 'slowBodyConnections', 'webhook'), 0, 'not counted');
    socket.destroy();
  });
});

t.test('the probe port has the same gate', async (t) => {
  const s = await startServer();
  t.teardown(s.close);
  const limits = { ...defaultConfig().server, maxConnections: 2 };
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
  // The cap of two is reached: the third takes the place of the oldest unused one, `a` (its
  // headers never finished, so it has had no request answered).
  const c = await plain();
  await slow;
  t.pass('the connection trickling headers, the oldest unused, made room');
  c.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
  t.match((await closedAfter(c)).received, /^HTTP\/1\.1 200 /, 'the new connection is served');
  b.destroy();
  await bClosed;
  t.equal(await counted(s, 'evictedConnections', 'probes', { state: 'unused' }), 1);
});

t.test('the probe port takes no body: a request declaring one is refused at once, and closed', async (t) => {
  const s = await startServer();
  t.teardown(s.close);
  const probes = buildProbeServer({
    readiness: s.server.readiness,
    metrics: s.server.metrics,
    logger: createLogger('silent'),
    limits: defaultConfig().server,
  });
  await probes.listen({ host: '127.0.0.1', port: 0 });
  t.teardown(() => probes.close());
  const port = Number(new URL(urlOf('http', probes)).port);
  const ask = async (head: string) => {
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const c = net.connect(port, '127.0.0.1', () => resolve(c));
      c.once('error', reject);
    });
    const closed = closedAfter(socket);
    socket.write(head);
    return (await closed).received;
  };
  for (const [what, header] of [
    ['a declared length', 'Content-Length: 1000000'],
    ['a chunked body', 'Transfer-Encoding: chunked'],
  ]) {
    // The body never comes: only the refusal and the close end this.
    const got = await ask(`POST /healthz HTTP/1.1\r\nHost: localhost\r\n${header}\r\n\r\n`);
    t.match(got, /^HTTP\/1\.1 413 /, `${what}: 413`);
    t.match(got, /connection: close/i, `${what}: the connection is closed`);
  }
  t.match(
    await ask('GET /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'),
    /^HTTP\/1\.1 200 /,
    'an empty body is no body: answered',
  );
});
