// Bad input never crashes the server and never gets an "allowed". Whenever the uid can be read,
// the answer is an AdmissionReview (HTTP 200, allowed: false, status.code and a message that
// kube-apiserver shows); without a readable uid, a plain 4xx with a JSON body.
import https from 'node:https';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import t, { type Test } from '../helpers/parts.js';
import { MAX_NESTING_DEPTH, MAX_UID_LENGTH } from '../../src/admission/limits.js';
import { cloudProfile } from '../helpers/objects.js';
import { request, review, startServer, type Reply, type ReviewReply, type TestServer } from '../helpers/server.js';

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

const reviewText = (uid: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ ...review({ operation: 'CREATE', object: cloudProfile({ name: 'aws' }), uid }), ...extra });

/** Sends bytes with exactly these headers (none added: no Content-Type unless given). */
function send(body: Buffer | string, headers: Record<string, string>): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port: s.port,
        method: 'POST',
        path: '/validate',
        ca: s.authority.ca.certPem,
        agent: false,
        headers: { 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: <T>() => JSON.parse(text) as T,
            fingerprint256: '',
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The answer is an AdmissionReview refusing `uid` with `code`; returns its message. */
function refusedReview(t: Test, res: Reply, uid: string, code: number, apiVersion = 'admission.k8s.io/v1'): string {
  t.equal(res.status, 200, 'HTTP 200: the verdict is in the review');
  const r = res.json<ReviewReply>();
  t.same({ apiVersion: r.apiVersion, kind: r.kind }, { apiVersion, kind: 'AdmissionReview' });
  t.equal(r.response.uid, uid, 'the uid is echoed');
  t.equal(r.response.allowed, false, 'never allowed');
  t.equal(r.response.status?.code, code);
  t.type(r.response.status?.message, 'string');
  return r.response.status?.message ?? '';
}

/** The answer is a plain HTTP error with a JSON body; returns it. */
function plainError(t: Test, res: Reply, status: number): ErrorBody {
  t.equal(res.status, status);
  const body = res.json<ErrorBody>();
  t.equal(body.statusCode, status);
  t.notOk('response' in body, 'not an AdmissionReview');
  return body;
}

t.test('another content type is refused with 415 in an AdmissionReview when the uid can be read', async (t) => {
  const types = [
    'text/plain',
    'application/xml',
    'application/x-www-form-urlencoded',
    'application/yaml',
    'application/json; charset=latin1',
    'application/json-patch+json',
    'not a media type',
    ';;;',
  ];
  for (const type of types) {
    const message = refusedReview(t, await send(reviewText(`u-${type}`), { 'content-type': type }), `u-${type}`, 415);
    t.match(message, /content type .* is not supported; send application\/json/, type);
  }
  t.match(
    refusedReview(t, await send(reviewText('u-none'), {}), 'u-none', 415),
    /content type "none"/,
    'no Content-Type at all',
  );
  const garbage = plainError(t, await send('<xml/>', { 'content-type': 'application/xml' }), 415);
  t.match(garbage, { code: 'VP_ERR_MEDIA_TYPE', message: /application\/xml/ }, 'no uid to read: a plain 415');
  const long = plainError(t, await send('x', { 'content-type': `text/${'x'.repeat(5000)}` }), 415);
  t.ok(long.message.length < 400, 'a long header is not echoed whole');
});

t.test('application/json in any case, with a UTF-8 charset or none, is judged', async (t) => {
  for (const type of [
    'application/json; charset=utf-8',
    'Application/JSON',
    'application/json;charset="UTF-8"',
    'application/json; foo=bar',
  ]) {
    const res = await send(reviewText('ok'), { 'content-type': type });
    t.equal(res.status, 200, type);
    t.same(
      res.json<ReviewReply>().response,
      { uid: 'ok', allowed: true, auditAnnotations: { decision: 'allowed', patched: 'false', warnings: '0' } },
      type,
    );
  }
});

t.test('an encoded body is refused with 415, read only to find its uid', async (t) => {
  const text = reviewText('u-enc');
  const encodings: Array<[string, Buffer]> = [
    ['gzip', gzipSync(text)],
    ['x-gzip', gzipSync(text)],
    ['deflate', deflateSync(text)],
    ['br', brotliCompressSync(text)],
    ['GZIP', gzipSync(text)],
    ['gzip, br', brotliCompressSync(gzipSync(text))],
  ];
  for (const [encoding, body] of encodings) {
    const message = refusedReview(
      t,
      await send(body, { 'content-type': 'application/json', 'content-encoding': encoding }),
      'u-enc',
      415,
    );
    t.match(message, /content encoding .* is not supported; send the AdmissionReview unencoded/, encoding);
  }
  t.match(
    plainError(t, await send(text, { 'content-type': 'application/json', 'content-encoding': 'compress' }), 415),
    { code: 'VP_ERR_CONTENT_ENCODING' },
    'an unknown coding: no uid',
  );
  t.match(
    plainError(t, await send('not gzip', { 'content-type': 'application/json', 'content-encoding': 'gzip' }), 415),
    { code: 'VP_ERR_CONTENT_ENCODING' },
    'bad gzip: no uid',
  );
  // 8 MiB of spaces before the review: compresses to a few KiB, decodes past the body limit.
  const bomb = gzipSync(Buffer.concat([Buffer.alloc(8 * 1024 * 1024, 0x20), Buffer.from(text)]));
  t.ok(bomb.length < 100_000);
  t.match(
    plainError(t, await send(bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' }), 415),
    { code: 'VP_ERR_CONTENT_ENCODING' },
    'decoding stops at the body limit',
  );
  const plain = await send(text, { 'content-type': 'application/json', 'content-encoding': 'identity' });
  t.same(
    plain.json<ReviewReply>().response,
    { uid: 'u-enc', allowed: true, auditAnnotations: { decision: 'allowed', patched: 'false', warnings: '0' } },
    'identity is no encoding',
  );
});

t.test('bytes that are not UTF-8 are refused with 400, with the uid when it is intact', async (t) => {
  const text = reviewText('u-bytes');
  const at = text.indexOf('"aws"') + 2;
  const bad = Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0xff, 0xfe]), Buffer.from(text.slice(at))]);
  t.match(refusedReview(t, await send(bad, { 'content-type': 'application/json' }), 'u-bytes', 400), /not valid UTF-8/);
  const inUid = Buffer.from(text.replace('u-bytes', 'u-\u0000bytes'));
  inUid[inUid.indexOf(0x00)] = 0xc3; // a lead byte without its continuation, inside the uid
  t.match(
    plainError(t, await send(inUid, { 'content-type': 'application/json' }), 400),
    { code: 'VP_ERR_BODY_NOT_UTF8' },
    'a uid with a bad byte is not echoed',
  );
});

t.test('prototype keys anywhere are refused with 400; the same words as data are not', async (t) => {
  const base = review({ operation: 'CREATE', object: cloudProfile({ name: 'aws' }), uid: 'u-proto' });
  const text = JSON.stringify(base);
  const poisoned = [
    text.replace('{"apiVersion"', '{"__proto__":{"allowed":true},"apiVersion"'),
    text.replace('"metadata":{', '"metadata":{"__proto__":{"x":1},'),
    text.replace('"regions":[{', '"regions":[{"__proto__":null,'),
    text.replace('"metadata":{', '"metadata":{"\\u005f_proto__":{"x":1},'),
    text.replace('"metadata":{', '"metadata":{"constructor":{"prototype":{"x":1}},'),
    text.replace('"metadata":{', '"metadata":{"constructor":{"\\u0070rototype":{}},'),
  ];
  for (const body of poisoned) {
    t.match(
      refusedReview(t, await send(body, { 'content-type': 'application/json' }), 'u-proto', 400),
      /request body has a "(__proto__|constructor\.prototype)" key; such keys are refused/,
    );
  }
  const innocent = review({
    operation: 'CREATE',
    object: cloudProfile({
      name: 'aws',
      annotations: { constructor: '__proto__', prototype: 'constructor.prototype' },
    }),
    uid: 'u-fine',
  });
  const res = await send(JSON.stringify(innocent), { 'content-type': 'application/json' });
  t.same(
    res.json<ReviewReply>().response,
    { uid: 'u-fine', allowed: true, auditAnnotations: { decision: 'allowed', patched: 'false', warnings: '0' } },
    'the words as keys of their own or values are data',
  );
  t.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'allowed'), false, 'nothing was polluted');
  t.equal(({} as Record<string, unknown>).x, undefined);
});

t.test(
  'a wrong apiVersion or kind with a uid is refused with 400, answered in a version kube-apiserver reads',
  async (t) => {
    const beta = await send(reviewText('u-beta', { apiVersion: 'admission.k8s.io/v1beta1' }), {
      'content-type': 'application/json',
    });
    t.match(
      refusedReview(t, beta, 'u-beta', 400, 'admission.k8s.io/v1beta1'),
      /reads admission\.k8s\.io\/v1 AdmissionReviews only: apiVersion must be "admission\.k8s\.io\/v1"/,
    );
    const other = await send(reviewText('u-other', { apiVersion: 'example.com/v9' }), {
      'content-type': 'application/json',
    });
    t.match(refusedReview(t, other, 'u-other', 400), /apiVersion must be/);
    const kind = await send(reviewText('u-kind', { kind: 'ConversionReview' }), { 'content-type': 'application/json' });
    t.match(refusedReview(t, kind, 'u-kind', 400), /kind must be "AdmissionReview"/);
    const missing = JSON.parse(reviewText('u-missing')) as Record<string, unknown>;
    delete missing.apiVersion;
    t.match(
      refusedReview(t, await send(JSON.stringify(missing), { 'content-type': 'application/json' }), 'u-missing', 400),
      /apiVersion is missing/,
    );
  },
);

t.test('a uid is echoed up to 256 characters; a longer one gets a plain 400', async (t) => {
  const max = 'u'.repeat(MAX_UID_LENGTH);
  const ok = await send(reviewText(max), { 'content-type': 'application/json' });
  t.equal(ok.json<ReviewReply>().response.uid, max);
  const long = 'u'.repeat(1024 * 1024);
  const res = await send(reviewText(long), { 'content-type': 'application/json' });
  const body = plainError(t, res, 400);
  t.match(body.message, /request\.uid must NOT have more than 256 characters/);
  t.ok(res.text.length < 1000, 'the answer does not carry the uid');
  const wrongType = await send(reviewText(long), { 'content-type': 'text/plain' });
  t.ok(wrongType.text.length < 1000, 'nor when the body is refused for another reason');
  t.ok(JSON.stringify(s.logs).length < 100_000, 'nor does the log');
});

t.test('JSON nested deeper than the limit is refused with 400 before it is parsed', async (t) => {
  const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const text = reviewText('u-deep');
  const withDepth = (depth: number) => text.replace('"metadata":{', `"deep":${nested(depth)},"metadata":{`);
  // The envelope, request and object are three levels.
  const deep = await send(withDepth(MAX_NESTING_DEPTH), { 'content-type': 'application/json' });
  t.match(refusedReview(t, deep, 'u-deep', 400), new RegExp(`deeper than ${MAX_NESTING_DEPTH} levels`));
  const within = await send(withDepth(MAX_NESTING_DEPTH - 3), { 'content-type': 'application/json' });
  t.equal(within.json<ReviewReply>().response.status?.code, undefined, 'at the limit the body is judged');
  const arrays = '['.repeat(3 * 1024 * 1024);
  // What the refusal costs is bench/review-cost.js's to measure; here only that it is the depth one.
  t.match(
    plainError(t, await send(arrays, { 'content-type': 'application/json' }), 400),
    { code: 'VP_ERR_BODY_TOO_DEEP' },
    '3 MiB of [ is refused as too deep',
  );
  const inString = text.replace('"name":"aws"', `"name":"aws${'['.repeat(5000)}"`);
  t.equal(
    (await send(inString, { 'content-type': 'application/json' })).json<ReviewReply>().response.uid,
    'u-deep',
    'brackets inside strings do not count',
  );
});

t.test("a body that is not JSON gets 400: in an AdmissionReview when kube-apiserver's uid opens it", async (t) => {
  const text = reviewText('u-cut');
  const cut = text.slice(0, text.length - 20);
  t.match(refusedReview(t, await send(cut, { 'content-type': 'application/json' }), 'u-cut', 400), /not valid JSON/);
  const beta = JSON.stringify({
    kind: 'AdmissionReview',
    apiVersion: 'admission.k8s.io/v1beta1',
    request: { uid: 'u-b', kind: {} },
  });
  refusedReview(
    t,
    await send(beta.slice(0, -3), { 'content-type': 'application/json' }),
    'u-b',
    400,
    'admission.k8s.io/v1beta1',
  );
  const nestedUid = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', x: { request: { uid: 'not-this' } } });
  t.match(
    plainError(t, await send(nestedUid.slice(0, -2), { 'content-type': 'application/json' }), 400),
    { code: 'VP_ERR_BODY_NOT_JSON' },
    "a uid below the top level is not the review's",
  );
  const quoted = JSON.stringify({ apiVersion: 'x', note: '"request":{"uid":"not-this"}' });
  t.match(
    plainError(t, await send(quoted.slice(0, -2), { 'content-type': 'application/json' }), 400),
    { code: 'VP_ERR_BODY_NOT_JSON' },
    'nor one inside a string',
  );

  const res = await s.post('/validate', undefined, { raw: '{"apiVersion": "admission.k8s.io/v1", ' });
  t.match(plainError(t, res, 400), { code: 'VP_ERR_BODY_NOT_JSON', message: /not valid JSON/ });
  t.match(plainError(t, await s.post('/validate', undefined, { raw: '' }), 400), { code: 'VP_ERR_BODY_EMPTY' });
  t.match(plainError(t, await send('', {}), 400), { code: 'VP_ERR_BODY_EMPTY' }, 'no body and no Content-Type');
});

t.test('a body over 7 MiB gets 413, whether announced or streamed', async (t) => {
  const big = Buffer.alloc(7 * 1024 * 1024 + 1, 0x20);
  const announced = await s.post('/validate', undefined, { raw: big });
  t.match(plainError(t, announced, 413), { code: 'VP_ERR_BODY_TOO_LARGE', message: /7340032 bytes/ });
  const typed = await send(big, { 'content-type': 'text/plain' });
  t.equal(typed.status, 413, 'whatever its type');

  const streamed = await new Promise<number>((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port: s.port,
        method: 'POST',
        path: '/validate',
        ca: s.authority.ca.certPem,
        agent: false,
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      },
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
  }).catch((err: NodeJS.ErrnoException) =>
    err.code === 'ECONNRESET' || err.code === 'EPIPE' ? 413 : Promise.reject(err),
  );
  t.equal(streamed, 413);
  t.equal(s.server.app.server.listening, true);
});

t.test('a review without request or uid gets a plain 400 saying what is missing', async (t) => {
  const noRequest = await s.post('/validate', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' });
  t.match(plainError(t, noRequest, 400), { code: 'VP_ERR_REVIEW_INVALID', message: /request is missing/ });

  const body = review({ operation: 'CREATE', object: cloudProfile() });
  delete body.request.uid;
  t.match(plainError(t, await s.post('/validate', body), 400).message, /request\.uid is missing/);
  body.request.uid = '';
  t.match(
    plainError(t, await s.post('/validate', body), 400).message,
    /request\.uid must NOT have fewer than 1 characters/,
  );
  body.request.uid = 42;
  t.match(plainError(t, await s.post('/validate', body), 400).message, /request\.uid must be string/);

  for (const raw of ['[]', 'null', '"AdmissionReview"', '42', '{"request":[]}', '{"request":{"uid":["x"]}}'])
    plainError(t, await s.post('/validate', undefined, { raw }), 400);
});

t.test('a review with a uid but a malformed request is answered, refused with code 400 and the uid kept', async (t) => {
  const body = review({ operation: 'CREATE', object: cloudProfile(), uid: 'u-1' });
  delete body.request.kind;
  body.request.operation = 7;
  body.request.dryRun = 'yes';
  const message = refusedReview(t, await s.post('/mutate', body), 'u-1', 400);
  t.match(message, /request\.kind is missing/);
  t.match(message, /request\.operation must be string/);
  t.match(message, /request\.dryRun must be boolean/);
});

t.test(
  'unknown routes get 404, other methods on the webhooks 405 with Allow, and the server still answers afterwards',
  async (t) => {
    for (const path of ['/validate', '/mutate']) {
      for (const method of ['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']) {
        const res = await request(s.port, method, path, undefined, { ca: s.authority.ca.certPem });
        t.equal(res.status, 405, `${method} ${path}`);
        t.equal(res.headers.allow, 'POST');
        if (method !== 'HEAD')
          t.match(res.json(), {
            statusCode: 405,
            code: 'VP_ERR_METHOD_NOT_ALLOWED',
            message: `${method} is not allowed on ${path}; send the AdmissionReview with POST`,
          });
      }
    }
    t.equal((await s.post('/nope', {})).status, 404);
    const ok = await s.post('/validate', review({ operation: 'CREATE', object: cloudProfile(), uid: 'still-here' }));
    t.equal(ok.json<ReviewReply>().response.uid, 'still-here');
    t.equal((await s.get('/healthz')).text, 'ok');
  },
);
