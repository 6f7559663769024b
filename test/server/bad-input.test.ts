// Bad input never crashes the server and never gets a silent "allowed": every class of broken
// body is answered with its status and a message that says what is wrong.
import https from 'node:https';
import t from 'tap';
import { cloudProfile } from '../helpers/objects.js';
import { review, startServer, type ReviewReply, type TestServer } from '../helpers/server.js';

interface ErrorBody {
  statusCode: number;
  code: string;
  message: string;
}

let s: TestServer;
t.before(async () => {
  s = await startServer();
});
t.teardown(() => s.close());

t.test('a body that is not JSON gets 400', async (t) => {
  const res = await s.post('/validate', undefined, { raw: '{"apiVersion": "admission.k8s.io/v1", ' });
  t.equal(res.status, 400);
  t.match(res.json<ErrorBody>(), { statusCode: 400, code: 'VP_ERR_BODY_NOT_JSON', message: /not valid JSON/ });
  const empty = await s.post('/validate', undefined, { raw: '' });
  t.equal(empty.status, 400);
  t.match(empty.json<ErrorBody>(), { code: 'VP_ERR_BODY_EMPTY' });
  const poisoned = await s.post('/validate', undefined, { raw: '{"__proto__": {"allowed": true}}' });
  t.equal(poisoned.status, 400, 'prototype poisoning is refused, not parsed');
});

t.test('a content type other than JSON gets 415', async (t) => {
  const body = JSON.stringify(review({ operation: 'CREATE', object: cloudProfile() }));
  for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'application/yaml']) {
    const res = await s.post('/validate', undefined, { raw: body, headers: { 'content-type': type } });
    t.equal(res.status, 415, type);
    t.match(res.json<ErrorBody>(), { code: 'VP_ERR_MEDIA_TYPE', message: new RegExp(type.replace('/', '\\/')) });
  }
  const charset = await s.post('/validate', undefined, { raw: body, headers: { 'content-type': 'application/json; charset=utf-8' } });
  t.equal(charset.status, 200, 'application/json with a charset is JSON');
});

t.test('a body over 7 MiB gets 413, whether announced or streamed', async (t) => {
  const big = Buffer.alloc(7 * 1024 * 1024 + 1, 0x20);
  const announced = await s.post('/validate', undefined, { raw: big });
  t.equal(announced.status, 413);
  t.match(announced.json<ErrorBody>(), { code: 'VP_ERR_BODY_TOO_LARGE', message: /7340032 bytes/ });

  const streamed = await new Promise<number>((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port: s.port, method: 'POST', path: '/validate', ca: s.authority.ca.certPem, agent: false, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < 8) {
        sent++;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  }).catch((err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? 413 : Promise.reject(err)));
  t.equal(streamed, 413);
  t.equal(s.server.app.server.listening, true);
});

t.test('a review without request or uid gets 400 saying what is missing', async (t) => {
  const noRequest = await s.post('/validate', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' });
  t.equal(noRequest.status, 400);
  t.match(noRequest.json<ErrorBody>(), { code: 'VP_ERR_REVIEW_INVALID', message: /request is missing/ });

  const body = review({ operation: 'CREATE', object: cloudProfile() });
  delete body.request.uid;
  const noUid = await s.post('/validate', body);
  t.equal(noUid.status, 400);
  t.match(noUid.json<ErrorBody>().message, /request\.uid is missing/);

  body.request.uid = '';
  t.match((await s.post('/validate', body)).json<ErrorBody>().message, /request\.uid must NOT have fewer than 1 characters/);

  const v1beta1 = { ...review({ operation: 'CREATE', object: cloudProfile() }), apiVersion: 'admission.k8s.io/v1beta1' };
  const old = await s.post('/validate', v1beta1);
  t.equal(old.status, 400);
  t.match(old.json<ErrorBody>().message, /apiVersion must be "admission\.k8s\.io\/v1"/);

  for (const raw of ['[]', 'null', '"AdmissionReview"', '42']) {
    const res = await s.post('/validate', undefined, { raw });
    t.equal(res.status, 400, raw);
  }
});

t.test('a review with a uid but a malformed request is answered, refused with code 400 and the uid kept', async (t) => {
  const body = review({ operation: 'CREATE', object: cloudProfile(), uid: 'u-1' });
  delete body.request.kind;
  body.request.operation = 7;
  body.request.dryRun = 'yes';
  const res = await s.post('/mutate', body);
  t.equal(res.status, 200);
  const r = res.json<ReviewReply>().response;
  t.equal(r.uid, 'u-1');
  t.equal(r.allowed, false);
  t.equal(r.status?.code, 400);
  t.match(r.status?.message, /request\.kind is missing/);
  t.match(r.status?.message, /request\.operation must be string/);
  t.match(r.status?.message, /request\.dryRun must be boolean/);
});

t.test('unknown routes and methods get 404, and the server still answers afterwards', async (t) => {
  t.equal((await s.get('/validate')).status, 404);
  t.equal((await s.post('/nope', {})).status, 404);
  const ok = await s.post('/validate', review({ operation: 'CREATE', object: cloudProfile(), uid: 'still-here' }));
  t.equal(ok.json<ReviewReply>().response.uid, 'still-here');
  t.equal((await s.get('/healthz')).text, 'ok');
});
