// One JSON line per admission with the request's identity and the verdict; objects never logged.
import t from 'tap';
import type { Rule } from '../../src/policy/rule.js';
import { createLogger } from '../../src/server/logging.js';
import { cloudProfile, shoot } from '../helpers/objects.js';
import { logSink, review, startServer, type LogRecord } from '../helpers/server.js';

const MARKER = 'marker-5d41402abc4b2a76';

// Test-only rule through EvaluateOptions.rules, so a denial is logged whatever rules have landed.
const denyShoots: Rule = {
  id: 'SHOOT-NO-DOWNGRADE',
  appliesTo: (ctx) => ctx.kind === 'Shoot',
  check: () => [{ rule: 'SHOOT-NO-DOWNGRADE', field: 'spec.kubernetes.version', message: 'from "1.31.0" to "1.30.0"' }],
};

t.test('each admission is one info line with uid, kind, namespace, name, operation, user, dryRun, verdict, rules and duration', async (t) => {
  const s = await startServer({ rules: [denyShoots] });
  t.teardown(s.close);
  const profile = cloudProfile({ name: 'aws', annotations: { note: MARKER } });
  const sh = shoot({ name: 'dev', namespace: 'garden-dev' });
  sh.metadata.labels = { secret: MARKER };
  await s.post('/validate', review({ operation: 'CREATE', object: profile, uid: 'u-cp', user: 'alice@example.com', dryRun: true }));
  await s.post('/validate', review({ operation: 'UPDATE', object: sh, oldObject: sh, uid: 'u-shoot', user: 'bob' }));

  const admissions = s.logs.filter((l) => l.msg === 'admission');
  t.equal(admissions.length, 2, 'one line per admission');
  t.equal(s.logs.filter((l) => l.level === 'info' && l.msg !== 'admission' && l.uid !== undefined).length, 0, 'no other per-request info lines');
  const [cp, sl] = admissions as [LogRecord, LogRecord];
  t.match(cp, { level: 'info', webhook: 'validate', uid: 'u-cp', kind: 'CloudProfile', name: 'aws', operation: 'CREATE', user: 'alice@example.com', dryRun: true, allowed: true, code: 200, rules: [] });
  t.notOk('namespace' in cp, 'cluster-scoped: no namespace');
  t.type(cp.durationMs, 'number');
  t.match(sl, { uid: 'u-shoot', kind: 'Shoot', namespace: 'garden-dev', name: 'dev', operation: 'UPDATE', user: 'bob', dryRun: false, allowed: false, code: 403, rules: ['SHOOT-NO-DOWNGRADE'] });
  t.notOk(JSON.stringify(s.logs).includes(MARKER), 'no part of an object reaches the log');
});

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
