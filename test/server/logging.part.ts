// One JSON line per admission with the request's identity and the verdict; objects never logged.
import t from '../helpers/parts.js';
import { fieldPath, forbidden } from '../../src/api/field.js';
import { defineRule, type RuleContext } from '../../src/policy/rule.js';
import { textWarning } from '../../src/policy/warning.js';
import { MAX_LOGGED_WARNINGS } from '../../src/server/admission-routes.js';
import { admissionLogger, createLogger, boxedNumber } from '../../src/server/logging.js';
import { cloudProfile, shoot } from '../helpers/objects.js';
import { logSink, review, startServer, type LogRecord } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const MARKER = 'marker-5d41402abc4b2a76';

// Test-only rule through EvaluateOptions.rules, so a denial is logged whatever rules have landed.
const denyShoots = defineRule({
  id: 'SHOOT-NO-DOWNGRADE',
  kinds: ['Shoot'],
  operations: ['CREATE', 'UPDATE', 'DELETE'],
  summary: 'test',
  check: () => [forbidden(fieldPath('spec', 'kubernetes', 'version'), 'from "1.31.0" to "1.30.0"')],
});

t.test(
  'each admission is one line with uid, kind, namespace, name, operation, user, dryRun, verdict, rules and duration',
  async (t) => {
    const s = await startServer({ rules: [denyShoots], logLevel: 'debug' });
    t.teardown(s.close);
    const profile = cloudProfile({ name: 'aws', annotations: { note: MARKER } });
    const sh = shoot({ name: 'dev', namespace: 'garden-dev' });
    sh.metadata.labels = { secret: MARKER };
    await s.post(
      '/validate',
      review({ operation: 'CREATE', object: profile, uid: 'u-cp', user: 'alice@example.com', dryRun: true }),
    );
    await s.post('/validate', review({ operation: 'UPDATE', object: sh, oldObject: sh, uid: 'u-shoot', user: 'bob' }));

    const admissions = s.logs.filter((l) => l.msg === 'admission');
    t.equal(admissions.length, 2, 'one line per admission');
    t.equal(s.logs.filter((l) => l.msg !== 'admission' && l.uid !== undefined).length, 0, 'no other per-request lines');
    const [cp, sl] = admissions as [LogRecord, LogRecord];
    t.match(cp, {
      level: 'debug',
      webhook: 'validate',
      uid: 'u-cp',
      kind: 'CloudProfile',
      name: 'aws',
      operation: 'CREATE',
      user: 'alice@example.com',
      dryRun: true,
      allowed: true,
      code: 200,
      rules: [],
    });
    t.notOk('namespace' in cp, 'cluster-scoped: no namespace');
    t.type(cp.durationMs, 'number');
    t.match(sl, {
      level: 'info',
      uid: 'u-shoot',
      kind: 'Shoot',
      namespace: 'garden-dev',
      name: 'dev',
      operation: 'UPDATE',
      user: 'bob',
      dryRun: false,
      allowed: false,
      code: 403,
      rules: ['SHOOT-NO-DOWNGRADE'],
    });
    t.notOk(JSON.stringify(s.logs).includes(MARKER), 'no part of an object reaches the log');
  },
);

t.test(
  'the level says what to act on: denials, errors, patches and warnings at info, a plain allowed review at debug; metrics count all',
  async (t) => {
    const warnOnCreate = (ctx: RuleContext) => (ctx.operation === 'CREATE' ? [textWarning('a warning')] : []);
    const throwing = defineRule({
      id: 'IN-USE',
      kinds: ['CloudProfile', 'NamespacedCloudProfile', 'Shoot'],
      operations: ['DELETE'],
      summary: 'test',
      check: () => {
        throw new Error('boom');
      },
    });
    const s = await startServer({
      rules: [denyShoots, throwing],
      warningChecks: [warnOnCreate],
      config: { defaulting: { lifecycle: { enabled: true } } },
    });
    t.teardown(s.close);
    const profile = cloudProfile({ name: 'aws' });
    const sh = shoot({ name: 'dev', namespace: 'garden-dev' });
    const sent = {
      plain: review({ operation: 'UPDATE', object: profile, oldObject: profile, uid: 'u-plain' }),
      warned: review({ operation: 'CREATE', object: profile, uid: 'u-warned' }),
      denied: review({ operation: 'UPDATE', object: sh, oldObject: sh, uid: 'u-denied' }),
      errored: review({ operation: 'DELETE', oldObject: profile, uid: 'u-errored' }),
      patched: review({
        operation: 'UPDATE',
        object: cloudProfile({ name: 'aws', kubernetes: ['1.31.0', '1.32.0'] }),
        oldObject: profile,
        uid: 'u-patched',
      }),
    };
    const answers: Record<string, Record<string, unknown>> = {};
    for (const [what, body] of Object.entries(sent))
      answers[what] = (await s.post(what === 'patched' ? '/mutate' : '/validate', body)).json<{
        response: Record<string, unknown>;
      }>().response;
    t.ok(answers.patched?.patch, 'the patched review carries a patch');
    await until('four admission lines', () => s.logs.filter((l) => l.msg === 'admission').length >= 4);
    const levels = Object.fromEntries(
      s.logs.filter((l) => l.msg === 'admission').map((l): [string, string] => [String(l.uid), l.level]),
    );
    t.same(
      levels,
      { 'u-warned': 'info', 'u-denied': 'info', 'u-errored': 'info', 'u-patched': 'info' },
      'no line for the plain allowed review at info level',
    );
    const requests = await s.server.metrics.requests.get();
    t.equal(
      requests.values.reduce((sum, v) => sum + v.value, 0),
      5,
      'every review counted',
    );
  },
);

t.test('redact drops objects and bodies passed to the logger by mistake, at every level', async (t) => {
  const lines: LogRecord[] = [];
  const log = createLogger('trace', logSink(lines));
  const object = { metadata: { annotations: { a: MARKER } } };
  log.info({ object, oldObject: object }, 'direct');
  log.debug({ request: { object, oldObject: object, uid: 'kept' } }, 'nested');
  log.child({ body: object }).warn('bound');
  t.equal(lines.length, 3);
  t.notOk(JSON.stringify(lines).includes(MARKER));
  t.match(lines[1], { request: { uid: 'kept' } });
});

t.test('request strings in the log line are cut at 256 characters; the line stays short', async (t) => {
  const s = await startServer({ logLevel: 'debug' });
  t.teardown(s.close);
  const long = 'x'.repeat(100_000);
  const body = review({ operation: 'CREATE', object: cloudProfile({ name: 'aws' }), uid: 'u-long', user: long });
  body.request.name = long;
  body.request.namespace = long;
  await s.post('/validate', body);
  // onResponse logs after the answer is sent: wait for the line rather than race it.
  const line = await until('the admission line', () => s.logs.find((l) => l.uid === 'u-long'));
  t.match(line, { user: /^x{256}…\(99744 more\)$/, name: /^x{256}…/, namespace: /^x{256}…/ });
  t.ok(JSON.stringify(line).length < 2000, 'one short line');
  await s.post('/validate', undefined, { raw: 'x', headers: { 'content-type': 'text/plain' } });
  await s.get(`/${long.slice(0, 10_000)}`);
  await until('both error lines', () => s.logs.filter((l) => l.level === 'warn').length >= 2);
  t.ok(Math.max(...s.logs.map((l) => JSON.stringify(l).length)) < 2000, 'no line is long, whatever the request');
});

t.test('a review refused for its body is logged as a warning with the error code', async (t) => {
  const s = await startServer();
  t.teardown(s.close);
  const body = JSON.stringify(review({ operation: 'CREATE', object: cloudProfile(), uid: 'u-typed' }));
  await s.post('/validate', undefined, { raw: body, headers: { 'content-type': 'text/yaml' } });
  t.match(await until('the admission line', () => s.logs.find((l) => l.msg === 'admission')), {
    level: 'warn',
    uid: 'u-typed',
    webhook: 'validate',
    allowed: false,
    code: 415,
    error: 'VP_ERR_MEDIA_TYPE',
  });
});

t.test('at debug level the admission line carries every warning, bounded', async (t) => {
  const many = Array.from({ length: 80 }, (_, i) => `warning ${i} ${'w'.repeat(i === 0 ? 2000 : 10)}`);
  const warns = () => many.map(textWarning);
  const info = await startServer({ rules: [], warningChecks: [warns] });
  t.teardown(info.close);
  await info.post('/validate', review({ operation: 'CREATE', object: cloudProfile(), uid: 'u-info' }));
  const infoLine = await until('the admission line', () => info.logs.find((l) => l.uid === 'u-info'));
  t.type(infoLine?.warnings, 'number');
  t.notOk(infoLine && 'allWarnings' in infoLine, 'not at info level');

  const debug = await startServer({ rules: [], warningChecks: [warns], logLevel: 'debug' });
  t.teardown(debug.close);
  await debug.post('/validate', review({ operation: 'CREATE', object: cloudProfile(), uid: 'u-debug' }));
  const line = await until('the admission line', () =>
    debug.logs.find((l) => l.uid === 'u-debug' && l.msg === 'admission'),
  );
  const listed = line?.allWarnings as string[];
  t.equal(listed.length, MAX_LOGGED_WARNINGS);
  t.equal(line?.allWarningsOmitted, 80 - MAX_LOGGED_WARNINGS);
  t.match(listed[0], /^warning 0 w{500}/);
  t.ok(listed[0]!.length < 600, 'each warning is cut');
  t.equal(listed[1], many[1]);
});

t.test('a fraction from boxedNumber is written as the very text a plain number is', async (t) => {
  const texts: string[] = [];
  const log = admissionLogger(createLogger('info', { write: (line: string) => void texts.push(line) }));
  const values = [
    0,
    1,
    -2.5,
    0.541,
    1.218,
    12.3456789,
    1e-7,
    123456789.125,
    1e21,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    NaN,
    Infinity,
  ];
  for (const v of values) {
    log.info({ v }, 'plain');
    log.info({ v: boxedNumber(v) }, 'wrapped');
  }
  const field = (line: string | undefined) => /"v":([^,}]*)/.exec(line ?? '')?.[1];
  values.forEach((v, i) => {
    const plain = field(texts[2 * i]);
    t.ok(plain !== undefined, `the plain ${v} is written`);
    t.equal(field(texts[2 * i + 1]), plain, `${v}: ${plain}`);
  });
  t.equal((JSON.parse(texts[7] ?? '') as { v: unknown }).v, 0.541, 'a JSON number, not a string');
});
