// Bytes → review, without a server: the media type and coding rules, the nesting scan, and which
// refusals keep a uid. (test/server/bad-input.part.ts sends the same classes over HTTPS.)
import { gzipSync } from 'node:zlib';
import t from '../helpers/parts.js';
import {
  contentCodings,
  decodeBody,
  decodeEncodedBody,
  isJsonMediaType,
  nestsDeeperThan,
  type DecodedBody,
} from '../../src/admission/body.js';
import { MAX_NESTING_DEPTH } from '../../src/admission/limits.js';
import { cloudProfile } from '../helpers/objects.js';
import { review } from '../helpers/server.js';

const JSON_HEADERS = { contentType: 'application/json', contentEncoding: undefined };
const text = (uid = 'u') => JSON.stringify(review({ operation: 'CREATE', object: cloudProfile(), uid }));
const decode = (body: string | Buffer, headers = JSON_HEADERS): DecodedBody => decodeBody(Buffer.from(body), headers);
const code = (d: DecodedBody) => (d.ok ? 'ok' : d.error.code.replace('VP_ERR_', ''));
const uid = (d: DecodedBody) => (d.ok ? d.review.request.uid : d.identity?.uid);

t.test('the JSON media type: any case, UTF-8 or no charset', async (t) => {
  for (const yes of [
    'application/json',
    'APPLICATION/JSON',
    ' application/json ; charset=UTF-8',
    'application/json;charset="utf8"',
    'application/json; q=1',
  ])
    t.ok(isJsonMediaType(yes), yes);
  for (const no of [
    undefined,
    '',
    'text/json',
    'application/jsonx',
    'application/json; charset=iso-8859-1',
    'application/merge-patch+json',
    '*/*',
  ])
    t.notOk(isJsonMediaType(no), String(no));
});

t.test('content codings: listed in the order applied, identity is none', async (t) => {
  t.same(contentCodings(undefined), []);
  t.same(contentCodings('identity'), []);
  t.same(contentCodings(' GZip , br '), ['gzip', 'br']);
  t.same(contentCodings(','), []);
});

t.test('nesting depth: counted outside strings, whatever the brackets', async (t) => {
  const objects = (n: number) => `${'{"a":'.repeat(n)}0${'}'.repeat(n)}`;
  t.equal(nestsDeeperThan(objects(10), 10), false);
  t.equal(nestsDeeperThan(objects(11), 10), true);
  t.equal(nestsDeeperThan(`[${'[]'.repeat(5000)}]`, 10), false, 'many brackets, shallow');
  t.equal(nestsDeeperThan(`["${'['.repeat(5000)}"]`, 10), false, 'brackets inside a string');
  t.equal(nestsDeeperThan(`["\\"${'['.repeat(50)}"]`, 10), false, 'an escaped quote does not end the string');
  t.equal(nestsDeeperThan(`["\\\\"${'['.repeat(50)}`, 10), true, 'an escaped backslash does');
  t.equal(nestsDeeperThan(`["${'['.repeat(50)}`, 10), false, 'an unclosed string runs to the end');
});

t.test('each refusal, and whether its uid can be read', async (t) => {
  const rows: Array<[string, string | Buffer, string, string | undefined]> = [
    ['a valid review', text('a'), 'ok', 'a'],
    ['empty', '', 'BODY_EMPTY', undefined],
    ['whitespace', '   ', 'BODY_NOT_JSON', undefined],
    ['truncated after the uid', text('b').slice(0, -5), 'BODY_NOT_JSON', 'b'],
    ['truncated before the uid', text('c').slice(0, 40), 'BODY_NOT_JSON', undefined],
    ['a uid with an escape', text('d\\"e').slice(0, -5), 'BODY_NOT_JSON', 'd\\"e'],
    [
      'a uid with a bad escape',
      text('f').replace('"uid":"f"', '"uid":"f\\x"').slice(0, -5),
      'BODY_NOT_JSON',
      undefined,
    ],
    [
      'too deep',
      text('g').replace(
        '"metadata":{',
        `"x":${'['.repeat(MAX_NESTING_DEPTH)}${']'.repeat(MAX_NESTING_DEPTH)},"metadata":{`,
      ),
      'BODY_TOO_DEEP',
      'g',
    ],
    ['a prototype key', text('h').replace('"metadata":{', '"metadata":{"__proto__":{},'), 'PROTOTYPE_KEY', 'h'],
    ['a prototype key, no uid', '{"__proto__":{}}', 'PROTOTYPE_KEY', undefined],
    ['v1beta1', text('i').replace('admission.k8s.io/v1', 'admission.k8s.io/v1beta1'), 'REVIEW_INVALID', 'i'],
    ['no uid', '{"request":{}}', 'REVIEW_INVALID', undefined],
  ];
  for (const [what, body, expected, expectedUid] of rows) {
    const d = decode(body);
    t.equal(code(d), expected, what);
    t.equal(uid(d), expectedUid, `${what}: uid`);
  }
  const beta = decode(text('j').replace('admission.k8s.io/v1', 'admission.k8s.io/v1beta1').slice(0, -3));
  t.match(
    beta,
    { ok: false, identity: { uid: 'j', apiVersion: 'admission.k8s.io/v1beta1' } },
    'a scanned v1beta1 review is answered in v1beta1',
  );
});

t.test('the media type is judged after the body, so its uid is kept', async (t) => {
  const d = decode(text('k'), { contentType: 'text/plain', contentEncoding: undefined });
  t.match(d, { ok: false, error: { code: 'VP_ERR_MEDIA_TYPE', statusCode: 415 }, identity: { uid: 'k' } });
  t.match(decode('nope', { contentType: 'text/plain', contentEncoding: undefined }), {
    ok: false,
    error: { statusCode: 415 },
  });
  t.notOk(
    (decode('nope', { contentType: 'text/plain', contentEncoding: undefined }) as { identity?: unknown }).identity,
  );
});

t.test('an encoded body is always refused; decoding is bounded by the limit', async (t) => {
  const headers = { contentType: 'application/json', contentEncoding: 'gzip' };
  t.match(await decodeEncodedBody(gzipSync(text('l')), headers, 1 << 20), {
    ok: false,
    error: { statusCode: 415 },
    identity: { uid: 'l' },
  });
  const over = await decodeEncodedBody(gzipSync(text('m')), headers, 100);
  t.match(over, { ok: false, error: { statusCode: 415 } });
  t.notOk((over as { identity?: unknown }).identity, 'past the limit the uid is not read');
  t.notOk(
    (
      (await decodeEncodedBody(gzipSync(text('n')), { ...headers, contentEncoding: 'gzip, gzip, gzip' }, 1 << 20)) as {
        identity?: unknown;
      }
    ).identity,
    'three layers are not unwrapped',
  );
});

t.test(
  'a body with more brackets than the nesting limit: one walk of the parsed value, the same answers',
  async (t) => {
    // Shallow filler past MAX_NESTING_DEPTH brackets sends a body down the walk; without it, the
    // same body takes the text searches. Both must answer alike, at the depth limit's edge too.
    const filler = `"filler":[${'{},'.repeat(MAX_NESTING_DEPTH + 200)}{}],`;
    const withTop = (body: string, field: string) => `{${field}${body.slice(1)}`;
    const nested = (n: number) => `"y":${'['.repeat(n)}${']'.repeat(n)},`;
    const proto = (body: string, key: string) => body.replace('"metadata":{', `"metadata":{${key},`);
    const cases: Array<[string, string, string]> = [
      ['valid', text('v'), 'ok'],
      // The review object is depth 1, so an array nested n deep inside it reaches depth n + 1.
      ['at the limit', withTop(text('l'), nested(MAX_NESTING_DEPTH - 1)), 'ok'],
      ['one past the limit', withTop(text('p'), nested(MAX_NESTING_DEPTH)), 'BODY_TOO_DEEP'],
      ['too deep and broken', withTop(text('b'), nested(MAX_NESTING_DEPTH)).slice(0, -4), 'BODY_TOO_DEEP'],
      ['a __proto__ key', proto(text('q'), '"__proto__":{}'), 'PROTOTYPE_KEY'],
      ['an escaped __proto__ key', proto(text('e'), '"\\u005f_proto__":{}'), 'PROTOTYPE_KEY'],
      ['a constructor.prototype', proto(text('c'), '"constructor":{"prototype":{}}'), 'PROTOTYPE_KEY'],
      ['a constructor without prototype', proto(text('n'), '"constructor":{"name":"x"},"prototype":1'), 'ok'],
      ['both kinds', proto(text('k'), '"x":{"__proto__":1},"constructor":{"prototype":{}}'), 'PROTOTYPE_KEY'],
    ];
    for (const [what, body, expected] of cases) {
      const few = decode(body);
      const many = decode(withTop(body, filler));
      t.equal(code(few), expected, `${what}: few brackets`);
      t.equal(code(many), expected, `${what}: many brackets`);
      t.equal(uid(many), uid(few), `${what}: the same uid`);
      if (!few.ok && !many.ok) t.equal(many.error.message, few.error.message, `${what}: the same message`);
    }
    const both = decode(withTop(proto(text('k'), '"x":{"__proto__":1},"constructor":{"prototype":{}}'), filler));
    t.match(
      !both.ok && both.error.message,
      /"__proto__"/,
      'the unescaped __proto__ is named first, as the text search does',
    );
  },
);
