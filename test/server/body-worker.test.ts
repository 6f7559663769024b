// Big bodies are decoded and mapped in a worker thread (src/server/body-worker.ts, issue 34): the
// same answer as when they are parsed on the event loop, and a worker that fails, hangs or is
// flooded costs a 503 for the bodies it held, never the process.
import t, { type Test } from 'tap';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { INCREMENTAL_BODY_BYTES } from '../../src/admission/body.js';
import { toPolicyRequest } from '../../src/admission/request.js';
import type { AdmissionRequest } from '../../src/admission/review.js';
import { STORED_READ } from '../../src/admission/stored.js';
import type { CloudProfile } from '../../src/api/types.js';
import { BodyWorker, DecoderUnavailable } from '../../src/server/body-worker.js';
import { cloudProfile, image, shoot } from '../helpers/objects.js';
import { review, startServer, type ReviewReply, type TestServer } from '../helpers/server.js';

t.setTimeout(600_000);

/** A stored profile that claims far more than can be read whole: `n` plain Kubernetes versions. */
function claimed(n: number): CloudProfile {
  const p = cloudProfile({ name: 'aws', kubernetes: ['1.99.0'], images: [image('gardenlinux', ['1592.1.0'])] });
  p.spec.kubernetes.versions = [
    ...Array.from({ length: n }, (_, i) => ({ version: `1.${Math.floor(i / 100)}.${i % 100}` })),
    { version: '1.99.0' },
  ];
  return p;
}

const next = cloudProfile({ name: 'aws', kubernetes: ['1.99.0'], images: [image('gardenlinux', ['1592.1.0'])] });
const old = claimed(STORED_READ.removedWhole * 10);
const headers = { contentType: 'application/json', contentEncoding: undefined };

t.test('a body past the incremental size is mapped in the worker as on the event loop', async (t) => {
  const body = review({ operation: 'UPDATE', object: next, oldObject: old });
  const bytes = Buffer.from(JSON.stringify(body));
  t.ok(bytes.length > INCREMENTAL_BODY_BYTES, `${bytes.length} bytes`);
  const worker = new BodyWorker({ bodyLimit: 7 * 1024 * 1024 });
  t.teardown(() => worker.stop());
  const { decoded, mapped } = await worker.decode(bytes, headers);
  t.ok(decoded.ok);
  const here = toPolicyRequest(body.request as unknown as AdmissionRequest);
  if (mapped?.outcome !== 'policed' || here.outcome !== 'policed') throw new Error('not policed');
  const removed = mapped.request.stored!.removed!;
  t.equal(removed.count, here.request.stored!.removed!.count);
  t.ok(removed.kubernetes.has('1.0.0') && !removed.kubernetes.has('1.99.0'), 'the removed names, searchable again');
  t.same([...removed.kubernetes.values()], [...here.request.stored!.removed!.kubernetes.values()]);
  t.same(mapped.request.oldObject, here.request.oldObject);
  t.same(mapped.request.object, here.request.object);
  t.equal(worker.restarts, 0);
});

t.test('the same answers with the body worker and without it, over HTTPS', async (t) => {
  const state = [
    old,
    shoot({ name: 'on-removed', profile: 'aws', version: '1.20.5' }),
    shoot({ name: 'on-kept', profile: 'aws', version: '1.99.0' }),
  ];
  const servers: TestServer[] = [await startServer({ state }), await startServer({ state, bodyWorker: false })];
  t.teardown(() => Promise.all(servers.map((s) => s.close())));
  const kept = claimed(STORED_READ.removedWhole * 10);
  kept.spec.kubernetes.versions = kept.spec.kubernetes.versions.filter((v) => v.version !== '1.20.5');
  const bodies = {
    'removes a version in use': review({ operation: 'UPDATE', object: next, oldObject: old }),
    'removes none in use': review({ operation: 'UPDATE', object: next, oldObject: kept }),
    'a DELETE': review({ operation: 'DELETE', oldObject: old }),
  };
  const answers: Record<string, ReviewReply['response'][]> = {};
  for (const [name, body] of Object.entries(bodies)) {
    for (const s of servers) {
      const reply = await s.post('/validate', body);
      t.equal(reply.status, 200, `${name}: ${reply.text.slice(0, 200)}`);
      (answers[name] ??= []).push(reply.json<ReviewReply>().response);
    }
    const [worker, loop] = answers[name]!;
    t.same(worker, loop, `${name}: the same answer`);
  }
  t.equal(answers['removes a version in use']![0]!.allowed, false);
  t.match(answers['removes a version in use']![0]!.status?.message, /"1\.20\.5".*on-removed/);
  t.equal(answers['removes none in use']![0]!.allowed, true);
  t.equal(answers['a DELETE']![0]!.allowed, false, 'a profile Shoots use is not deleted');

  const broken = Buffer.concat([Buffer.from(JSON.stringify(bodies['a DELETE'])).subarray(0, -2), Buffer.from(',,}')]);
  const refusals = await Promise.all(
    servers.map((s) =>
      s.post('/validate', undefined, { raw: broken, headers: { 'content-type': 'application/json' } }),
    ),
  );
  t.equal(refusals[0]!.json<ReviewReply>().response.status?.code, 400);
  t.same(
    refusals.map((r) => [r.status, r.text]),
    Array(2).fill([refusals[0]!.status, refusals[0]!.text]),
    'a broken big body is refused alike',
  );
});

/** A worker entry module written at test time: the faults a real worker could show. */
async function faultyEntry(t: Test, source: string): Promise<URL> {
  const dir = await mkdtemp(join(tmpdir(), 'vp-body-worker-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'entry.mjs');
  await writeFile(file, `import { parentPort } from 'node:worker_threads';\n${source}\n`);
  return pathToFileURL(file);
}

const small = Buffer.from('{}');

t.test('a worker that dies refuses the body it held, and the next body gets a new one', async (t) => {
  const entry = await faultyEntry(t, `parentPort.on('message', () => process.exit(3));`);
  const worker = new BodyWorker({ bodyLimit: 1024, entry });
  t.teardown(() => worker.stop());
  await t.rejects(worker.decode(small, headers), { name: 'DecoderUnavailable', message: /exit code 3/ });
  await t.rejects(worker.decode(small, headers), DecoderUnavailable);
  t.equal(worker.restarts, 2, 'replaced each time');
});

t.test(
  'a worker that never answers is replaced at its deadline; past maxWaiting a body is refused at once',
  async (t) => {
    const entry = await faultyEntry(t, `parentPort.postMessage({ ready: true });\nparentPort.on('message', () => {});`);
    const worker = new BodyWorker({ bodyLimit: 1024, entry, maxWaiting: 1, timeoutMs: 200 });
    t.teardown(() => worker.stop());
    const held = worker.decode(small, headers);
    const waiting = worker.decode(small, headers);
    await t.rejects(worker.decode(small, headers), { message: '1 big bodies were already waiting to be decoded' });
    await t.rejects(held, { message: 'the body was not decoded within 200 ms' });
    await t.rejects(waiting, { message: 'the body was not decoded within 200 ms' });
    t.equal(worker.restarts, 2);
  },
);

t.test('stopping refuses what is held and waiting, and every later body', async (t) => {
  const entry = await faultyEntry(t, `parentPort.postMessage({ ready: true });\nparentPort.on('message', () => {});`);
  const worker = new BodyWorker({ bodyLimit: 1024, entry });
  const held = t.rejects(worker.decode(small, headers), { message: 'the webhook is shutting down' });
  const waiting = t.rejects(worker.decode(small, headers), { message: 'the webhook is shutting down' });
  await worker.stop();
  await Promise.all([held, waiting]);
  await t.rejects(worker.decode(small, headers), { message: 'the webhook is shutting down' });
});
