// Draining: readiness turns false, no new connections, requests in flight are answered, and the
// grace period bounds the wait. (The signal path of `serve` is tested on a child process in
// test/cli/serve.test.ts.)
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { cloudProfile } from '../helpers/objects.js';
import { holdRequest } from '../helpers/partial.js';
import { request, review, startServer, type ReviewReply, type TestServer } from '../helpers/server.js';

async function inFlight(s: TestServer): Promise<number> {
  return (await s.server.metrics.inFlight.get()).values.reduce((sum, v) => sum + v.value, 0);
}

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await sleep(10);
}

t.test('requests in flight when the drain starts are all answered, then the server closes', async (t) => {
  const s = await startServer();
  t.teardown(s.close);
  const agent = new https.Agent({ keepAlive: true });
  t.teardown(() => agent.destroy());
  const uids = ['a', 'b', 'c', 'd'];
  const held = uids.map((uid, i) =>
    holdRequest(s.port, s.authority.ca.certPem, i % 2 ? '/mutate' : '/validate', JSON.stringify(review({ operation: 'CREATE', object: cloudProfile(), uid })), agent),
  );
  await until(async () => (await inFlight(s)) === uids.length);

  const drained = s.server.shutdown(5000);
  t.match(s.server.readiness.reasons(), ['shutting down'], 'readiness turns false at once');
  await sleep(50);
  const refused = await request(s.port, 'GET', '/healthz', undefined, { ca: s.authority.ca.certPem }).then(
    () => undefined,
    (e: NodeJS.ErrnoException) => e.code,
  );
  t.equal(refused, 'ECONNREFUSED', 'no new connections');

  const answers = await Promise.all(held.map((h) => h.finish()));
  for (const [i, a] of answers.entries()) {
    t.equal(a.status, 200);
    t.equal((JSON.parse(a.text) as ReviewReply).response.uid, uids[i]);
    t.equal(a.headers.connection, 'close', 'kept-alive connections are told to go');
  }
  t.same(await drained, { drained: true }, 'closed once the last answer went out, within the grace period');
});

t.test('a request that never completes is cut off when the grace period ends', async (t) => {
  const s = await startServer();
  t.teardown(s.close);
  const stuck = holdRequest(s.port, s.authority.ca.certPem, '/validate', JSON.stringify(review({ operation: 'CREATE', object: cloudProfile() })));
  await until(async () => (await inFlight(s)) === 1);
  t.same(await s.server.shutdown(200), { drained: false });
  t.equal(s.server.app.server.listening, false);
  await t.rejects(stuck.response, { code: 'ECONNRESET' }, 'the connection was cut, not left hanging');
});
