// The chart's matchConditions, evaluated for real: rendered by the real helm binary, then run by a
// CEL interpreter (@bufbuild/cel, which is tested against the cel-spec conformance suite) on
// AdmissionReview requests bound the way the API server binds them: `object`, `oldObject` and
// `request`, with JSON objects as maps, so a field read without has() is an error as it is there.
// There is no kube-apiserver here: Kubernetes' runtime cost accounting is not reproduced (the cost
// argument is in docs/operations/scope.md), and the matching rule (any false skips the webhook;
// an error with none false applies failurePolicy) is restated in `decide` below.
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isCelError, run, type CelInput } from '@bufbuild/cel';
import t from '../helpers/parts.js';
import { render, renderError, type WebhookConfiguration } from '../helpers/helm.js';
import { tempDir } from '../helpers/run-cli.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** The parts of a Shoot these cases change. */
interface ShootJson {
  metadata: { annotations: Record<string, string>; labels: Record<string, string>; finalizers?: string[] };
  spec: {
    kubernetes: { version: string };
    cloudProfile?: { kind: string; name: string };
    cloudProfileName?: string;
    maintenance: { timeWindow: { begin: string } };
    provider: { workers?: WorkerJson[] };
  };
  status: { hibernated: boolean };
}
interface WorkerJson {
  name: string;
  maximum?: number;
  kubernetes?: { version: string };
  machine: { type: string; image?: { name: string; version: string } };
}
type Review = {
  request: Record<string, Json> & { object: Json; oldObject: Json; userInfo: { username?: string; groups?: string[] } };
};
type Condition = { name: string; expression: string };

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')) as Review;
const SHOOT_UPDATE = fixture('review-shoot-update.json');
const PROFILE_UPDATE = fixture('review-remove-version-in-use.json');

/** JSON as CEL sees a Kubernetes object: objects are maps, integers are ints. */
function toCel(v: Json): CelInput {
  if (Array.isArray(v)) return v.map(toCel);
  if (v !== null && typeof v === 'object') return new Map(Object.entries(v).map(([k, x]) => [k, toCel(x)]));
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  return v;
}

type Outcome = 'call' | 'skip' | { error: string[] };

/** What the API server does with one webhook's conditions for one request. */
function decide(conditions: readonly Condition[], review: Review): Outcome {
  const { object, oldObject, ...request } = review.request;
  const bindings = { object: toCel(object), oldObject: toCel(oldObject), request: toCel(request) };
  const errors: string[] = [];
  for (const c of conditions) {
    const result = run(c.expression, bindings);
    if (isCelError(result)) errors.push(`${c.name}: ${result.message}`);
    else if (typeof result !== 'boolean') errors.push(`${c.name}: not a bool`);
    else if (!result) return 'skip';
  }
  return errors.length > 0 ? { error: errors } : 'call';
}

/** A copy of the fixture's request with `change` applied to the new object (and `request` fields). */
function shootUpdate(change: (shoot: ShootJson, request: Review['request']) => void): Review {
  const review = structuredClone(SHOOT_UPDATE);
  change(review.request.object as unknown as ShootJson, review.request);
  return review;
}

const workers = (s: ShootJson) => s.spec.provider.workers!;
const worker = (s: ShootJson, i: number) => workers(s)[i]!;

const asUser = (username: string, groups: string[]) => (_: unknown, req: Review['request']) =>
  void (req.userInfo = { username, groups });

const conditionsOf = (config: WebhookConfiguration) => config.webhooks[0]!.matchConditions ?? [];
const defaults = render().then((r) => ({
  validate: conditionsOf(r.one<WebhookConfiguration>('ValidatingWebhookConfiguration')),
  mutate: conditionsOf(r.one<WebhookConfiguration>('MutatingWebhookConfiguration')),
}));

const shootCases: [string, Review, Outcome][] = [
  ['the unchanged fixture (a no-op UPDATE)', SHOOT_UPDATE, 'skip'],
  ['a Kubernetes version change', shootUpdate((s) => (s.spec.kubernetes.version = '1.32.3')), 'call'],
  [
    'an annotation-only change',
    shootUpdate((s) => (s.metadata.annotations['gardener.cloud/operation'] = 'reconcile')),
    'skip',
  ],
  ['a finalizer removal', shootUpdate((s) => (s.metadata.finalizers = [])), 'skip'],
  [
    'a label and a status change',
    shootUpdate((s) => ((s.metadata.labels.team = 'b'), (s.status.hibernated = true))),
    'skip',
  ],
  ['a worker scaled (minimum/maximum)', shootUpdate((s) => (worker(s, 0).maximum = 9)), 'skip'],
  ['the maintenance window moved', shootUpdate((s) => (s.spec.maintenance.timeWindow.begin = '010000+0100')), 'skip'],
  ["a worker's Kubernetes version change", shootUpdate((s) => (worker(s, 1).kubernetes!.version = '1.31.7')), 'call'],
  [
    "a worker's first own Kubernetes version",
    shootUpdate((s) => (worker(s, 0).kubernetes = { version: '1.30.11' })),
    'call',
  ],
  [
    "a worker's machine image version change",
    shootUpdate((s) => (worker(s, 0).machine.image!.version = '1592.10.0')),
    'call',
  ],
  [
    "a worker's machine image name change",
    shootUpdate((s) => (worker(s, 0).machine.image!.name = 'suse-chost')),
    'call',
  ],
  [
    'a worker added',
    shootUpdate((s) =>
      workers(s).push({ name: 'gpu', machine: { type: 'p4d', image: { name: 'gardenlinux', version: '1592.9.0' } } }),
    ),
    'call',
  ],
  ['a worker removed', shootUpdate((s) => workers(s).pop()), 'call'],
  ['a worker renamed', shootUpdate((s) => (worker(s, 1).name = 'batch2')), 'call'],
  ['the profile reference changed', shootUpdate((s) => (s.spec.cloudProfile!.name = 'aws-next')), 'call'],
  [
    'the profile reference moved to a NamespacedCloudProfile',
    shootUpdate((s) => (s.spec.cloudProfile = { kind: 'NamespacedCloudProfile', name: 'aws' })),
    'call',
  ],
  ['the legacy cloudProfileName set', shootUpdate((s) => (s.spec.cloudProfileName = 'aws')), 'call'],
  [
    'gardener-controller-manager updating the version (maintenance)',
    shootUpdate(
      (s, r) => (
        (s.spec.kubernetes.version = '1.31.8'),
        asUser('system:serviceaccount:garden:gardener-controller-manager', [
          'system:serviceaccounts',
          'system:serviceaccounts:garden',
          'system:authenticated',
        ])(s, r)
      ),
    ),
    'skip',
  ],
  [
    'gardener-controller-manager in a gardener-operator garden',
    shootUpdate(
      (s, r) => (
        (s.spec.kubernetes.version = '1.31.8'),
        asUser('system:serviceaccount:kube-system:gardener-controller-manager', [
          'system:serviceaccounts',
          'system:authenticated',
        ])(s, r)
      ),
    ),
    'skip',
  ],
  [
    'a gardenlet annotating the Shoot',
    shootUpdate(
      (s, r) => (
        (s.metadata.annotations.x = 'y'),
        asUser('gardener.cloud:system:seed:aws-eu1', ['gardener.cloud:system:seeds', 'system:authenticated'])(s, r)
      ),
    ),
    'skip',
  ],
  [
    'a gardenlet changing a judged field',
    shootUpdate(
      (s, r) => (
        (s.spec.kubernetes.version = '1.32.0'),
        asUser('gardener.cloud:system:seed:aws-eu1', ['gardener.cloud:system:seeds'])(s, r)
      ),
    ),
    'skip',
  ],
  [
    'a user with no groups at all (the field is omitted)',
    shootUpdate((s, r) => ((s.spec.kubernetes.version = '1.32.0'), (r.userInfo = { username: 'robot' }))),
    'call',
  ],
  ['a Shoot CREATE (no oldObject)', shootUpdate((_, r) => ((r.operation = 'CREATE'), (r.oldObject = null))), 'call'],
  [
    'a workerless Shoot on the legacy cloudProfileName, annotated',
    (() => {
      const review = shootUpdate(() => undefined);
      for (const s of [review.request.object, review.request.oldObject] as unknown as ShootJson[]) {
        delete s.spec.provider.workers;
        delete s.spec.cloudProfile;
        s.spec.cloudProfileName = 'aws';
      }
      (review.request.object as unknown as ShootJson).metadata.annotations.x = 'y';
      return review;
    })(),
    'skip',
  ],
];

for (const [what, review, expected] of shootCases) {
  t.test(`validate, Shoot: ${what} → ${typeof expected === 'string' ? expected : 'error'}`, async (t) => {
    t.same(decide((await defaults).validate, review), expected);
  });
}

t.test('CloudProfile and NamespacedCloudProfile requests always reach the webhook', async (t) => {
  const { validate, mutate } = await defaults;
  const deletion = structuredClone(PROFILE_UPDATE);
  deletion.request.operation = 'DELETE';
  deletion.request.oldObject = deletion.request.object;
  deletion.request.object = null;
  const annotationOnly = structuredClone(PROFILE_UPDATE);
  annotationOnly.request.object = structuredClone(annotationOnly.request.oldObject);
  const namespaced = structuredClone(PROFILE_UPDATE);
  namespaced.request.resource = {
    group: 'core.gardener.cloud',
    version: 'v1beta1',
    resource: 'namespacedcloudprofiles',
  };
  (namespaced.request.object as { kind: string }).kind = 'NamespacedCloudProfile';
  for (const [what, review] of [
    ['UPDATE', PROFILE_UPDATE],
    ['DELETE (no object)', deletion],
    ['a no-op UPDATE', annotationOnly],
    ['NamespacedCloudProfile UPDATE', namespaced],
  ] as const) {
    t.equal(decide(validate, review), 'call', `validate: ${what}`);
    if (!what.startsWith('DELETE')) t.equal(decide(mutate, review), 'call', `mutate: ${what}`);
  }
  const byController = structuredClone(PROFILE_UPDATE);
  byController.request.userInfo = {
    username: 'system:serviceaccount:garden:gardener-controller-manager',
    groups: ['system:serviceaccounts'],
  };
  t.equal(decide(validate, byController), 'skip', "Gardener's own controllers are exempt everywhere");
  t.equal(decide(mutate, byController), 'skip');
});

t.test(
  'without has() guards a missing field is an error, which failurePolicy Fail turns into a rejected write',
  async (t) => {
    // The interpreter applies CEL's missing-field rule: the guards in the chart are what keep a
    // Shoot on cloudProfileName (no spec.cloudProfile) from erroring.
    const legacy = shootUpdate(() => undefined);
    for (const s of [legacy.request.object, legacy.request.oldObject] as unknown as ShootJson[]) {
      delete s.spec.cloudProfile;
      s.spec.cloudProfileName = 'aws';
    }
    const naive = [{ name: 'naive', expression: 'object.spec.cloudProfile.name != oldObject.spec.cloudProfile.name' }];
    t.match(decide(naive, legacy), { error: [/naive: .*cloudProfile/] });
    t.equal(
      decide((await defaults).validate, legacy),
      'skip',
      "the chart's condition evaluates cleanly on the same request",
    );
  },
);

t.test('every condition is valid CEL that yields a bool on every fixture', async (t) => {
  const { validate, mutate } = await defaults;
  for (const review of [SHOOT_UPDATE, PROFILE_UPDATE, ...shootCases.map(([, r]) => r)]) {
    const { object, oldObject, ...request } = review.request;
    const bindings = { object: toCel(object), oldObject: toCel(oldObject), request: toCel(request) };
    for (const c of [...validate, ...mutate]) t.type(run(c.expression, bindings), 'boolean', c.name);
  }
});

t.test('the operator can turn each of the chart conditions off and add their own', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'values.yaml');
  await writeFile(
    file,
    [
      'webhook:',
      '  exemptUsernames: []',
      '  exemptGroups: [platform-robots]',
      '  skipUnjudgedShootUpdates: false',
      '  matchConditions:',
      '    - name: not-dry-run',
      "      expression: '!request.dryRun'",
      '',
    ].join('\n'),
  );
  const r = await render({ values: [file] });
  const validate = conditionsOf(r.one<WebhookConfiguration>('ValidatingWebhookConfiguration'));
  t.same(
    validate.map((c) => c.name),
    ['exempt-gardener-groups', 'not-dry-run'],
  );
  const annotated = shootUpdate((s) => (s.metadata.annotations.x = 'y'));
  t.equal(decide(validate, annotated), 'call', 'skipUnjudgedShootUpdates false: every Shoot UPDATE is judged');
  t.equal(
    decide(validate, shootUpdate(asUser('system:serviceaccount:garden:gardener-controller-manager', []))),
    'call',
    'no user exempt',
  );
  t.equal(
    decide(validate, shootUpdate(asUser('ci', ['platform-robots']))),
    'skip',
    'the group given instead is exempt',
  );
  t.equal(
    decide(
      validate,
      shootUpdate((_, req) => (req.dryRun = true)),
    ),
    'skip',
    "the operator's own condition applies",
  );
});

t.test('the chart refuses more than 64 conditions and a name used twice', async (t) => {
  const many = Array.from({ length: 62 }, (_, i) => [
    `webhook.matchConditions[${i}].name=c${i}`,
    `webhook.matchConditions[${i}].expression=has(request.uid)`,
  ]).flat();
  t.match(
    await renderError({ set: many }),
    /webhook\.matchConditions: 65 conditions with the chart's own; the API allows 64 per webhook/,
  );
  const fits = await render({ set: many.slice(0, -2) });
  t.equal(
    conditionsOf(fits.one<WebhookConfiguration>('ValidatingWebhookConfiguration')).length,
    64,
    "61 of the operator's and 3 of the chart's fit",
  );
  t.match(
    await renderError({
      set: [
        'webhook.matchConditions[0].name=exempt-gardener-users',
        'webhook.matchConditions[0].expression=has(request.uid)',
      ],
    }),
    /the name "exempt-gardener-users" is used twice/,
  );
});
