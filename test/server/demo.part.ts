// The README's demo: the demo state and the review that removes a Kubernetes version in use. The
// fixtures must agree with each other (the review's oldObject is the stored profile, the removed
// version has users), and the webhook must answer the review exactly as evaluate() decides.
import { readFile } from 'node:fs/promises';
import t from '../helpers/parts.js';
import { loadStaticState } from '../../src/cluster/static-state.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { formatDenial, formatViolation } from '../../src/policy/decision.js';
import type { CloudProfile } from '../../src/api/types.js';
import { config, NOW } from '../helpers/objects.js';
import { startServer, type ReviewReply } from '../helpers/server.js';

const STATE = new URL('../fixtures/demo-state.yaml', import.meta.url).pathname;
const REVIEW = new URL('../fixtures/review-remove-version-in-use.json', import.meta.url).pathname;

interface DemoReview {
  request: {
    uid: string;
    operation: 'UPDATE';
    object: CloudProfile;
    oldObject: CloudProfile;
    userInfo: { username: string };
  };
}

const load = async () => ({
  state: await loadStaticState([STATE]),
  review: JSON.parse(await readFile(REVIEW, 'utf8')) as DemoReview,
});

t.test('the demo state is a profile, an NCP extending it and Shoots on both', async (t) => {
  const { state } = await load();
  t.same([state.count('CloudProfile'), state.count('NamespacedCloudProfile'), state.count('Shoot')], [1, 1, 4]);
  t.equal(
    state.shootsUsing({ kind: 'NamespacedCloudProfile', namespace: 'garden-dev', name: 'aws-extended' }).length,
    1,
  );
});

t.test('the review removes exactly one Kubernetes version, in use by a control plane and a worker pool', async (t) => {
  const { state, review } = await load();
  t.same(review.request.oldObject, state.cloudProfile('aws'), 'oldObject is the stored profile');
  const before = review.request.oldObject.spec.kubernetes.versions.map((v) => v.version);
  const after = new Set(review.request.object.spec.kubernetes.versions.map((v) => v.version));
  t.same(
    before.filter((v) => !after.has(v)),
    ['1.31.7'],
  );
  const users = state
    .kubernetesVersionUsers({ kind: 'CloudProfile', name: 'aws' }, '1.31.7')
    .map((u) => `${u.shoot.metadata.namespace}/${u.shoot.metadata.name}:${u.via}`);
  t.same(users.sort(), ['garden-dev/dev-cluster:control-plane', 'garden-prod/payments:worker-kubernetes']);
});

t.test('the demo profile itself passes every rule: re-applying it unchanged is allowed', async (t) => {
  const { state, review } = await load();
  const aws = review.request.oldObject;
  const d = evaluate(
    {
      operation: 'UPDATE',
      kind: 'CloudProfile',
      name: 'aws',
      object: structuredClone(aws),
      oldObject: aws,
      dryRun: false,
    },
    { now: NOW, config: config(), state },
  );
  t.same(d.violations.map(formatViolation), []);
});

t.test('posted to the webhook, the review is answered as evaluate() decides', async (t) => {
  const { state, review } = await load();
  const s = await startServer({ state, config: {} });
  t.teardown(s.close);
  const { object, oldObject } = review.request;
  const decision = evaluate(
    {
      operation: 'UPDATE',
      kind: 'CloudProfile',
      name: 'aws',
      object: structuredClone(object),
      oldObject,
      dryRun: false,
    },
    { now: NOW, config: config(), state },
  );
  const r = (await s.post('/validate', review)).json<ReviewReply>().response;
  t.equal(r.uid, review.request.uid);
  t.equal(r.allowed, decision.allowed);
  if (decision.allowed) {
    t.notOk(r.status, 'allowed: no status');
  } else {
    t.equal(r.status?.code, 403);
    t.equal(r.status?.message, formatDenial(decision.violations));
  }
  const inUse = decision.violations.filter((v) => v.rule === 'IN-USE');
  if (inUse.length > 0) {
    // Once IN-USE lands, the README's promise: the denial names both users of 1.31.7.
    t.match(r.status?.message, /\[IN-USE\]/);
    t.match(r.status?.message, /1\.31\.7/);
    t.match(r.status?.message, /garden-dev\/dev-cluster/);
    t.match(r.status?.message, /garden-prod\/payments/);
  }
});
