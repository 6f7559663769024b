// POST /validate and /mutate end to end: real HTTPS server, real AdmissionReview JSON.
import jsonpatch from 'fast-json-patch';
import t from '../helpers/parts.js';
import { staticState } from '../../src/cluster/static-state.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { fieldPath, forbidden } from '../../src/api/field.js';
import { defineRule, type RuleContext } from '../../src/policy/rule.js';
import { textWarning } from '../../src/policy/warning.js';
import { cloudProfile, config, NOW, shoot } from '../helpers/objects.js';
import { review, startServer, type ReviewReply } from '../helpers/server.js';

// Test-only rules and warning checks, passed through EvaluateOptions.rules and .warningChecks (the
// seams evaluate() offers for narrowing them): they force a denial, a warning or an exception
// deterministically, whatever the real rules say.
const ALL = ['CloudProfile', 'NamespacedCloudProfile', 'Shoot'] as const;
const EVERY_OPERATION = ['CREATE', 'UPDATE', 'DELETE'] as const;
const forcedDenial = defineRule({
  id: 'IN-USE',
  kinds: ['CloudProfile'],
  operations: EVERY_OPERATION,
  summary: 'test',
  check: () => [
    forbidden(
      fieldPath('spec', 'kubernetes', 'versions').index(1),
      'unable to delete Kubernetes version "1.30.1" from CloudProfile "aws" - version is still in use by shoot \'garden-dev/foo\'',
    ),
    forbidden(fieldPath('spec', 'kubernetes', 'versions').index(2), 'second violation of the same rule'),
  ],
});
const forcedSecondRule = defineRule({
  id: 'PAST-EXPIRATION',
  kinds: ['CloudProfile'],
  operations: EVERY_OPERATION,
  summary: 'test',
  check: () => [
    forbidden(
      fieldPath('spec', 'kubernetes', 'versions').index(0).child('expirationDate'),
      'expiration date for version "1.29.0" is in the past',
    ),
  ],
});
const denialWarning = (ctx: RuleContext) =>
  ctx.kind === 'CloudProfile' ? [textWarning('a warning that travels with the denial')] : [];
const throwing = defineRule({
  id: 'SUPPORTED-PER-MINOR',
  kinds: ALL,
  operations: EVERY_OPERATION,
  summary: 'test',
  check: () => {
    throw new TypeError('rule blew up');
  },
});
const oneWarning = () => [textWarning('version "1.31.0" is deprecated and has no expiration date')];

t.test('an allowed review echoes uid, apiVersion and kind, with no patch and no status code', async (t) => {
  const s = await startServer({ rules: [], warningChecks: [oneWarning] });
  t.teardown(s.close);
  const body = review({ operation: 'CREATE', object: cloudProfile({ name: 'aws' }), uid: 'uid-allowed' });
  const res = await s.post('/validate', body);
  t.equal(res.status, 200);
  t.match(res.headers['content-type'], /application\/json/);
  const r = res.json<ReviewReply>();
  t.same({ apiVersion: r.apiVersion, kind: r.kind }, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' });
  t.same(r.response, {
    uid: 'uid-allowed',
    allowed: true,
    warnings: ['version "1.31.0" is deprecated and has no expiration date'],
    auditAnnotations: { decision: 'allowed', patched: 'false', warnings: '1' },
  });
});

t.test('a denial has code 403 and lists every violation as [RULE-ID] field: message', async (t) => {
  const s = await startServer({ rules: [forcedDenial, forcedSecondRule], warningChecks: [denialWarning] });
  t.teardown(s.close);
  const old = cloudProfile({ name: 'aws', kubernetes: ['1.29.0', '1.30.1', '1.31.0'] });
  const updated = cloudProfile({ name: 'aws', kubernetes: ['1.29.0'] });
  const res = await s.post(
    '/validate',
    review({ operation: 'UPDATE', object: updated, oldObject: old, uid: 'uid-denied' }),
  );
  t.equal(res.status, 200, 'a decision is an HTTP 200; the verdict is in the review');
  const r = res.json<ReviewReply>().response;
  t.equal(r.uid, 'uid-denied');
  t.equal(r.allowed, false);
  t.equal(r.status?.code, 403);
  t.equal(r.status?.reason, 'Forbidden');
  t.equal(
    r.status?.message,
    '3 violations:\n' +
      '[IN-USE] spec.kubernetes.versions[1]: unable to delete Kubernetes version "1.30.1" from CloudProfile "aws" - version is still in use by shoot \'garden-dev/foo\'\n' +
      '[IN-USE] spec.kubernetes.versions[2]: second violation of the same rule\n' +
      '[PAST-EXPIRATION] spec.kubernetes.versions[0].expirationDate: expiration date for version "1.29.0" is in the past',
  );
  t.same(r.warnings, ['a warning that travels with the denial']);
  t.notOk(r.patch, 'a denial carries no patch');
});

t.test('dryRun is judged exactly like a real request', async (t) => {
  const s = await startServer({ rules: [forcedDenial] });
  t.teardown(s.close);
  const object = cloudProfile({ name: 'aws' });
  const real = (await s.post('/validate', review({ operation: 'CREATE', object, uid: 'same' }))).json<ReviewReply>();
  const dry = (
    await s.post('/validate', review({ operation: 'CREATE', object, uid: 'same', dryRun: true }))
  ).json<ReviewReply>();
  t.same(dry, real);
  t.equal(dry.response.allowed, false);
});

t.test('mutate: the patch applied to the original yields the object evaluate() would store', async (t) => {
  // Machine images without updateStrategy, cri and architectures, versions without classification:
  // DEFAULT-GARDENER and DEFAULT-LIFECYCLE both have work, so the answer must carry a patch, and
  // that patch must be exactly the difference between what was sent and Decision.object.
  const profile = cloudProfile({ name: 'aws', kubernetes: ['1.30.4', '1.31.2'] });
  profile.spec.machineImages = [{ name: 'gardenlinux', versions: [{ version: '1592.1.0' }, { version: '1443.3.0' }] }];
  const cfg = { defaulting: { lifecycle: { enabled: true } } };
  const s = await startServer({ config: cfg });
  t.teardown(s.close);
  const decision = evaluate(
    {
      operation: 'CREATE',
      kind: 'CloudProfile',
      name: 'aws',
      object: structuredClone(profile),
      dryRun: false,
      user: 'alice@example.com',
    },
    { now: NOW, config: config(cfg), state: staticState([]) },
  );
  const r = (await s.post('/mutate', review({ operation: 'CREATE', object: profile }))).json<ReviewReply>().response;
  t.equal(decision.allowed, true, 'the profile is valid');
  t.equal(decision.mutated, true, 'the mutating path has work on it');
  t.equal(r.allowed, true);
  t.equal(r.patchType, 'JSONPatch');
  const ops = JSON.parse(Buffer.from(r.patch ?? '', 'base64').toString('utf8')) as jsonpatch.Operation[];
  t.ok(ops.length > 0, 'a mutated object yields operations');
  const applied = jsonpatch.applyPatch(structuredClone(profile), ops, true, false).newDocument;
  t.same(applied, decision.object);
  // And independently of evaluate(): what Gardener's defaults and the lifecycle path write (the test
  // config declares the gate on; safe-defaults.test.ts covers the shipped gate-off default).
  const image = applied.spec.machineImages[0]!;
  t.equal(image.updateStrategy, 'major');
  t.ok(
    image.versions.every((v) => Array.isArray(v.lifecycle) && v.classification === undefined),
    'a lifecycle, no legacy field',
  );
  t.same(r.warnings ?? [], decision.warnings);
});

t.test('mutate: DELETE is allowed without a patch, and an unchanged object gets none', async (t) => {
  const s = await startServer({ config: { defaulting: { gardenerDefaults: false, lifecycle: { enabled: false } } } });
  t.teardown(s.close);
  const del = (
    await s.post('/mutate', review({ operation: 'DELETE', oldObject: cloudProfile({ name: 'aws' }), uid: 'd' }))
  ).json<ReviewReply>();
  t.same(del.response, {
    uid: 'd',
    allowed: true,
    auditAnnotations: { decision: 'allowed', patched: 'false', warnings: '0' },
  });
  const create = (
    await s.post('/mutate', review({ operation: 'CREATE', object: cloudProfile({ name: 'aws' }), uid: 'c' }))
  ).json<ReviewReply>();
  t.same(create.response, {
    uid: 'c',
    allowed: true,
    auditAnnotations: { decision: 'allowed', patched: 'false', warnings: '0' },
  });
});

t.test('a kind we do not police is allowed, with a warning', async (t) => {
  const s = await startServer();
  t.teardown(s.close);
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' }, data: {} };
  const r = (
    await s.post(
      '/validate',
      review({ operation: 'CREATE', object: cm, kind: { group: '', version: 'v1', kind: 'ConfigMap' }, uid: 'cm' }),
    )
  ).json<ReviewReply>();
  t.equal(r.response.allowed, true);
  t.equal(r.response.uid, 'cm');
  t.match(r.response.warnings, [/does not police core\/v1 ConfigMap/]);
  const seed = (
    await s.post(
      '/validate',
      review({
        operation: 'CREATE',
        object: { kind: 'Seed' },
        kind: { group: 'core.gardener.cloud', version: 'v1beta1', kind: 'Seed' },
      }),
    )
  ).json<ReviewReply>();
  t.match(seed.response, { allowed: true, warnings: [/Seed/] });
});

t.test('an operation we do not judge (CONNECT) is allowed, with a warning', async (t) => {
  const s = await startServer({ rules: [forcedDenial] });
  t.teardown(s.close);
  const r = (
    await s.post('/validate', review({ operation: 'CONNECT', object: cloudProfile(), uid: 'conn' }))
  ).json<ReviewReply>();
  t.match(r.response, { uid: 'conn', allowed: true, warnings: [/CONNECT/] });
});

t.test('a policed object that fails its schema is denied, with the field named', async (t) => {
  const s = await startServer();
  t.teardown(s.close);
  const bad = cloudProfile({ name: 'aws' }) as unknown as { spec: { kubernetes: { versions: unknown } } };
  bad.spec.kubernetes.versions = '1.31.0';
  const r = (await s.post('/validate', review({ operation: 'CREATE', object: bad, uid: 'bad' }))).json<ReviewReply>()
    .response;
  t.equal(r.allowed, false);
  t.equal(r.uid, 'bad');
  t.equal(r.status?.code, 403);
  t.equal(r.status?.message, '[SCHEMA] spec.kubernetes.versions: must be array');

  const badOld = shoot() as unknown as { spec: { kubernetes: { version: unknown } } };
  badOld.spec.kubernetes.version = 131;
  const upd = (
    await s.post('/validate', review({ operation: 'UPDATE', object: shoot(), oldObject: badOld }))
  ).json<ReviewReply>().response;
  t.match(upd, {
    allowed: false,
    status: { code: 403, message: '[SCHEMA] oldObject.spec.kubernetes.version: must be string' },
  });

  const noObject = (
    await s.post(
      '/mutate',
      review({ operation: 'CREATE', kind: { group: 'core.gardener.cloud', version: 'v1beta1', kind: 'CloudProfile' } }),
    )
  ).json<ReviewReply>().response;
  t.match(noObject, { allowed: false, status: { code: 403, message: /\[SCHEMA\] request\.object: required/ } });

  const wrongVersion = cloudProfile({ name: 'aws' }) as unknown as { apiVersion: string };
  wrongVersion.apiVersion = 'core.gardener.cloud/v1';
  const v1 = (await s.post('/validate', review({ operation: 'CREATE', object: wrongVersion }))).json<ReviewReply>()
    .response;
  t.match(
    v1,
    { allowed: false, status: { message: /apiVersion: must be "core.gardener.cloud\/v1beta1"/ } },
    'a version we cannot read is never waved through',
  );
});

t.test('an exception inside a rule refuses with code 500, keeps the uid, and logs the stack', async (t) => {
  const s = await startServer({ rules: [throwing] });
  t.teardown(s.close);
  const res = await s.post(
    '/validate',
    review({ operation: 'CREATE', object: cloudProfile({ name: 'aws' }), uid: 'uid-boom' }),
  );
  t.equal(res.status, 200);
  const r = res.json<ReviewReply>().response;
  t.equal(r.uid, 'uid-boom');
  t.equal(r.allowed, false);
  t.equal(r.status?.code, 500);
  t.match(r.status?.message, /rule blew up/);
  const line = s.logs.find((l) => l.level === 'error');
  t.ok(line, 'an error line');
  t.equal(line?.uid, 'uid-boom');
  t.match((line?.err as { stack?: string } | undefined)?.stack, /TypeError: rule blew up\n\s+at /);
  const after = await s.post('/validate', review({ operation: 'CREATE', object: cloudProfile(), uid: 'next' }));
  t.equal(after.json<ReviewReply>().response.uid, 'next', 'the server keeps serving');
});

t.test(
  'every answer carries auditAnnotations for kube-apiserver: decision, the rules that denied, patched, warnings',
  async (t) => {
    const s = await startServer({ rules: [forcedDenial], warningChecks: [oneWarning] });
    t.teardown(s.close);
    const denied = (
      await s.post('/validate', review({ operation: 'CREATE', object: cloudProfile({ name: 'aws' }) }))
    ).json<ReviewReply>().response;
    const allowedShoot = (
      await s.post('/validate', review({ operation: 'CREATE', object: shoot() }))
    ).json<ReviewReply>().response;
    const malformed = (
      await s.post('/validate', review({ operation: 'CREATE', object: { kind: 'CloudProfile' } }))
    ).json<ReviewReply>().response;
    const bad = review({ operation: 'CREATE', object: cloudProfile() });
    bad.request.operation = 7;
    const refused = (await s.post('/validate', bad)).json<ReviewReply>().response;
    t.same(denied.auditAnnotations, { decision: 'denied', rules: 'IN-USE', patched: 'false', warnings: '1' });
    t.same(allowedShoot.auditAnnotations, { decision: 'allowed', patched: 'false', warnings: '1' });
    t.same(malformed.auditAnnotations, { decision: 'denied', rules: 'SCHEMA', patched: 'false', warnings: '0' });
    t.same(refused.auditAnnotations, { decision: 'error', patched: 'false', warnings: '0' });

    const patching = await startServer({ productDefaults: true });
    t.teardown(patching.close);
    const old = cloudProfile({ name: 'aws' });
    const patched = (
      await patching.post(
        '/mutate',
        review({
          operation: 'UPDATE',
          oldObject: old,
          object: cloudProfile({ name: 'aws', kubernetes: ['1.31.0', '1.32.0'] }),
        }),
      )
    ).json<ReviewReply>().response;
    t.ok(patched.patch, 'a patch');
    t.match(patched.auditAnnotations, { decision: 'allowed', patched: 'true' });

    // kube-apiserver refuses the response unless `<webhook name>/<key>` is a qualified name and the values are strings.
    const qualifiedName = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
    for (const r of [denied, allowedShoot, malformed, refused, patched]) {
      for (const [key, value] of Object.entries(r.auditAnnotations ?? {})) {
        t.ok(qualifiedName.test(key) && key.length <= 63, `${key}: a valid name part`);
        t.type(value, 'string');
        t.ok(
          `validate.version-policy.gardener.cloud/${key}`.length <= 316,
          'with the webhook name as prefix, a valid key',
        );
      }
    }
  },
);
