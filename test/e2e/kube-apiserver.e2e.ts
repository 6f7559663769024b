// The webhook behind the real kube-apiserver: etcd, kube-apiserver and kubectl built from their
// pinned Go modules, the chart's own webhook configurations, RBAC and config, and
// `version-policy serve` with informers. Each scenario asserts what kubectl printed and what the
// API server stored. Run by `npm run test:e2e` (test/e2e/run.sh); one scenario alone:
// `npm run test:e2e -- --grep "dry run"`.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { docExamples, webhookNames, type Example } from '../helpers/doc-examples.js';
import { NOW_ISO } from '../helpers/objects.js';
import { binDir, httpsCall, waitFor } from './lib/control-plane.js';
import { Kubectl, run } from './lib/kubectl.js';
import { objectsOf, PROBE_PROFILE, startSuite, type Suite } from './lib/suite.js';
import { CLI, NAMESPACE, renderChart, type K8sObject, type WebhookProcess } from './lib/webhook.js';
import { CLEAN_ENV } from '../helpers/run-cli.js';

const FROZEN_CLOCK = fileURLToPath(new URL('./lib/frozen-clock.mjs', import.meta.url));
const frozenAt = (iso: string) => ({ NODE_OPTIONS: `--import=${FROZEN_CLOCK}`, E2E_FROZEN_NOW: iso });

const suite: Suite = await startSuite();
t.teardown(() => suite.close());
const { admin, exempt, cp } = suite;
const names = await webhookNames();

/** Every line of a denial kubectl printed for a write the webhook refused, joined. */
const printed = (stderr: string) => stderr.replace(/\r/g, '');

const profile = (name: string, versions: unknown[], extra: Record<string, unknown> = {}): K8sObject => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'CloudProfile',
  metadata: { name },
  spec: {
    type: 'aws',
    kubernetes: { versions },
    machineImages: [
      {
        name: 'gardenlinux',
        updateStrategy: 'major',
        versions: [
          { version: '1592.1.0', classification: 'supported', cri: [{ name: 'containerd' }], architectures: ['amd64'] },
        ],
      },
    ],
    regions: [{ name: 'eu-west-1' }],
    ...extra,
  },
});

const shoot = (namespace: string, name: string, profileName: string, version: string): K8sObject => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Shoot',
  metadata: { name, namespace },
  spec: {
    cloudProfile: { kind: 'CloudProfile', name: profileName },
    kubernetes: { version },
    provider: {
      type: 'aws',
      workers: [{ name: 'pool-1', machine: { type: 'm5.large', image: { name: 'gardenlinux', version: '1592.1.0' } } }],
    },
    region: 'eu-west-1',
  },
});

const KINDS = ['CloudProfile', 'NamespacedCloudProfile', 'Shoot'];
const namespace = (name: string) =>
  admin.ok(['apply', '-f', '-'], `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${name}}\n`);

const far = new Date(Date.now() + 365 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');

// The webhook the operator runs: the real clock, the chart's config, informers on the real API.
const live = await suite.serve({
  name: 'live',
  tls: 'files',
  config: { logLevel: 'debug', cluster: { maxStaleSeconds: 10 } },
});
await suite.use(live);

t.test('the chart RBAC is enough for the informers and no more', async (t) => {
  t.ok(await live.ready(), 'the webhook synced its informers with the chart ServiceAccount token');
  const as = (verb: string, resource: string, ns?: string) =>
    admin.run([
      'auth',
      'can-i',
      verb,
      resource,
      `--as=system:serviceaccount:gardener-version-policy:version-policy`,
      ...(ns ? ['-n', ns] : ['--all-namespaces']),
    ]);
  for (const r of [
    'shoots.core.gardener.cloud',
    'cloudprofiles.core.gardener.cloud',
    'namespacedcloudprofiles.core.gardener.cloud',
  ]) {
    for (const verb of ['list', 'watch']) t.equal((await as(verb, r)).stdout.trim(), 'yes', `${verb} ${r}`);
    for (const verb of ['create', 'update', 'delete'])
      t.equal((await as(verb, r)).stdout.trim(), 'no', `no ${verb} on ${r}`);
  }
  t.equal((await as('list', 'secrets')).stdout.trim(), 'no', 'no secrets across namespaces');
});

t.test(
  "ciReader: the chart's CI identity exports the state and fails an in-use removal, and can do nothing else",
  async (t) => {
    const reader = (await renderChart(['ciReader.enabled=true'])).objects.filter(
      (o) => o.metadata.name === 'version-policy-ci',
    );
    t.same(reader.map((o) => o.kind).sort(), ['ClusterRole', 'ClusterRoleBinding', 'ServiceAccount']);
    const applied = await admin.apply(reader);
    t.equal(applied.code, 0, `applied\n${applied.stderr}`);

    // The kubeconfig exactly as docs/cluster-state.md makes it.
    const kc = join(cp.dir, 'ci.kubeconfig');
    const ca = join(cp.dir, 'garden-ca.crt');
    await writeFile(ca, cp.caPem);
    const token = (await admin.ok(['-n', NAMESPACE, 'create', 'token', 'version-policy-ci', '--duration=1h'])).trim();
    for (const args of [
      ['set-cluster', 'garden', `--server=${cp.server}`, `--certificate-authority=${ca}`, '--embed-certs'],
      ['set-credentials', 'ci', `--token=${token}`],
      ['set-context', 'ci', '--cluster=garden', '--user=ci'],
      ['use-context', 'ci'],
    ])
      t.equal(
        (await run(join(binDir(), 'kubectl'), ['config', ...args, `--kubeconfig=${kc}`])).code,
        0,
        `kubectl config ${args[0]}`,
      );

    const ci = new Kubectl(kc);
    const can = async (verb: string, resource: string) =>
      (await ci.run(['auth', 'can-i', verb, resource, '--all-namespaces'])).stdout.trim();
    for (const r of [
      'shoots.core.gardener.cloud',
      'cloudprofiles.core.gardener.cloud',
      'namespacedcloudprofiles.core.gardener.cloud',
    ]) {
      for (const verb of ['get', 'list']) t.equal(await can(verb, r), 'yes', `${verb} ${r}`);
      for (const verb of ['watch', 'create', 'update', 'patch', 'delete'])
        t.equal(await can(verb, r), 'no', `no ${verb} on ${r}`);
    }
    t.equal(await can('list', 'secrets'), 'no', 'no Secrets');

    await suite.reset();
    await suite.seed([
      profile('ci-fleet', [
        { version: '1.31.2', classification: 'supported' },
        { version: '1.30.5', classification: 'deprecated', expirationDate: far },
      ]),
      shoot('garden-ci', 'uses-130', 'ci-fleet', '1.30.5'),
    ]);
    const cli = (args: string[]) => run(process.execPath, [CLI, ...args], { env: { ...CLEAN_ENV, KUBECONFIG: kc } });
    const exported = await cli(['state', 'export', '--cluster']);
    t.equal(exported.code, 0, `state export --cluster with the CI kubeconfig\n${exported.stderr}`);
    t.match(exported.stdout, /name: uses-130/, 'the snapshot holds the Shoot');
    t.notMatch(exported.stdout, /managedFields|resourceVersion|uid:/, "and none of the server's bookkeeping");
    const landscape = join(cp.dir, 'landscape.yaml');
    const change = join(cp.dir, 'ci-fleet.yaml');
    await writeFile(landscape, exported.stdout);
    await writeFile(change, JSON.stringify(profile('ci-fleet', [{ version: '1.31.2', classification: 'supported' }])));
    for (const source of [['--state', landscape], ['--cluster']]) {
      const res = await cli(['check', ...source, '--require-state', change]);
      t.equal(
        res.code,
        1,
        `check ${source[0]} denies the removal of the version the Shoot runs\n${res.stdout}${res.stderr}`,
      );
      t.match(res.stdout, /\[IN-USE\].*shoot 'garden-ci\/uses-130'/, 'naming the Shoot');
    }
    await admin.ok(['delete', 'shoot', 'uses-130', '-n', 'garden-ci', '--wait=true']);
    const freed = await cli(['check', '--cluster', '--require-state', change]);
    t.equal(freed.code, 0, `once the Shoot is gone the same change passes\n${freed.stdout}${freed.stderr}`);
  },
);

t.test('docs/rules.md and docs/defaulting.md, applied with kubectl', async (t) => {
  const { examples } = await docExamples();
  const off = await suite.serve({ name: 'docs-gate-off', tls: 'files', env: frozenAt(NOW_ISO) });
  const on = await suite.serve({
    name: 'docs-gate-on',
    tls: 'files',
    env: frozenAt(NOW_ISO),
    config: { featureGates: { VersionClassificationLifecycle: true } },
  });
  // The examples that name forecast.deny get a webhook configured so, started once.
  const denying = new Map<string, Promise<WebhookProcess>>();
  const webhookFor = (ex: Example) => {
    if (!ex.attrs.deny) return Promise.resolve(ex.attrs.gate === 'on' ? on : off);
    let w = denying.get(ex.attrs.deny);
    if (!w)
      denying.set(
        ex.attrs.deny,
        (w = suite.serve({
          name: `docs-deny-${ex.attrs.deny}`,
          tls: 'files',
          env: frozenAt(NOW_ISO),
          config: { forecast: { deny: ex.attrs.deny.split(',') } },
        })),
      );
    return w;
  };
  let current: WebhookProcess | undefined;
  const using = async (w: WebhookProcess) => {
    if (current !== w) await suite.use(w);
    current = w;
  };
  t.teardown(() => suite.use(live));

  /** Seeds the state (and the stored object) as the exempt user, and waits until `w` has cached it. */
  const prepare = async (w: WebhookProcess, state: K8sObject[]) => {
    await suite.reset();
    await suite.seed(state);
    const count = (kind: string) => state.filter((o) => o.kind === kind).length;
    await suite.cached(w, {
      CloudProfile: count('CloudProfile'),
      NamespacedCloudProfile: count('NamespacedCloudProfile'),
      Shoot: count('Shoot'),
    });
  };
  const resourceOf = (o: K8sObject) => `${o.kind.toLowerCase()}s.core.gardener.cloud`;
  const stored = (o: K8sObject) => admin.get<K8sObject>(resourceOf(o), o.metadata.name, o.metadata.namespace);
  const write = (ex: Example, o: K8sObject, extra: string[] = []) =>
    ex.attrs.operation === 'DELETE'
      ? admin.run([
          'delete',
          resourceOf(o),
          o.metadata.name,
          ...(o.metadata.namespace ? ['-n', o.metadata.namespace] : []),
          ...extra,
        ])
      : admin.apply([o], extra);

  for (const ex of examples.filter((e) => e.blocks.denied !== undefined)) {
    t.test(`${ex.id} (${ex.page})`, async (t) => {
      const w = await webhookFor(ex);
      await using(w);
      const state = objectsOf(ex.blocks.state);
      const old = objectsOf(ex.blocks.old);
      const denied = objectsOf(ex.blocks.denied)[0]!;
      const message = ex.blocks.message!;
      await prepare(w, [...state, ...old]);
      const before = old[0] ? await stored(old[0]) : undefined;

      const dry = await write(ex, denied, ['--dry-run=server']);
      t.not(dry.code, 0, 'the dry run fails');
      t.ok(printed(dry.stderr).includes(message), `--dry-run=server prints the documented message\n${dry.stderr}`);

      const res = await write(ex, denied);
      t.not(res.code, 0, 'kubectl fails');
      t.ok(printed(res.stderr).includes(message), `kubectl prints the documented message\n${res.stderr}`);
      t.match(res.stderr, /Error from server \(Forbidden\)/, 'as a Forbidden error');
      const after = await stored(denied);
      if (before === undefined) t.equal(after, undefined, 'nothing is stored');
      else t.same(after?.spec, before.spec, 'the stored object is unchanged');

      if (ex.blocks['fixed-state'] !== undefined) {
        await prepare(w, [...objectsOf(ex.blocks['fixed-state']), ...old]);
        const fixed = await write(ex, denied);
        t.equal(fixed.code, 0, `in the fixed state the same write passes\n${fixed.stderr}`);
      } else if (ex.blocks.fixed !== undefined) {
        const fixed = await write(ex, objectsOf(ex.blocks.fixed)[0]!);
        t.equal(fixed.code, 0, `the fix applies\n${fixed.stderr}`);
      }
    });
  }

  for (const ex of examples.filter((e) => e.blocks.sent !== undefined)) {
    t.test(`${ex.id} (${ex.page}) stores the defaults`, async (t) => {
      const w = await webhookFor(ex);
      await using(w);
      await prepare(w, objectsOf(ex.blocks.state));
      const sent = objectsOf(ex.blocks.sent)[0]!;
      const res = await admin.apply([sent]);
      t.equal(res.code, 0, `applied\n${res.stderr}`);
      const got = await stored(sent);
      t.same(got?.spec, objectsOf(ex.blocks.stored)[0]!.spec, 'kubectl get shows the spec the page shows as stored');
    });
  }
});

t.test('every rule ID with a documented denial was applied for real', async (t) => {
  const { examples } = await docExamples();
  const denied = new Set(examples.filter((e) => e.blocks.denied !== undefined).map((e) => e.rule));
  const mutating = new Set(examples.filter((e) => e.blocks.sent !== undefined).map((e) => e.rule));
  const { RULE_IDS } = await import('../../src/policy/rules/index.js');
  for (const id of RULE_IDS)
    t.ok(denied.has(id) || mutating.has(id), `${id} has a denial or a stored default in the docs, applied above`);
});

t.test('dry run: an allowed change stores nothing, and the webhook saw dryRun', async (t) => {
  await suite.reset();
  const p = profile('dry', [{ version: '1.31.2' }, { version: '1.30.5' }]);
  const res = await admin.apply([p], ['--dry-run=server']);
  t.equal(res.code, 0, res.stderr);
  t.equal(await admin.get('cloudprofiles.core.gardener.cloud', 'dry'), undefined, 'nothing stored');
  const lines = (await readFile(live.proc.logFile, 'utf8')).split('\n').filter((l) => l.includes('"name":"dry"'));
  t.ok(lines.length >= 2, 'both webhooks logged the review');
  t.ok(
    lines.every((l) => l.includes('"dryRun":true')),
    'each with dryRun: true',
  );
});

t.test('the mutating path: defaults are in the stored object', async (t) => {
  await suite.reset();
  // Product defaults (gate off): a plain version gets a legacy classification, an image Gardener's defaults.
  const p = profile('defaults', [{ version: '1.31.2' }], {
    machineImages: [{ name: 'gardenlinux', versions: [{ version: '1592.1.0' }] }],
  });
  const res = await admin.apply([p]);
  t.equal(res.code, 0, res.stderr);
  const got = await admin.get<{
    spec: { kubernetes: { versions: Record<string, unknown>[] }; machineImages: Record<string, unknown>[] };
  }>('cloudprofiles.core.gardener.cloud', 'defaults');
  t.equal(
    got?.spec.kubernetes.versions[0]?.classification,
    'supported',
    'the newest patch of a maintained minor is supported',
  );
  t.equal(got?.spec.machineImages[0]?.updateStrategy, 'major', "Gardener's updateStrategy default");
  t.same(
    (got?.spec.machineImages[0]?.versions as Record<string, unknown>[])[0]?.cri,
    [{ name: 'containerd' }],
    "Gardener's CRI default",
  );
});

t.test('warnings: kubectl prints each one, as far as the API server lets them through', async (t) => {
  await suite.reset();
  // A deprecated version without an expiry warns once per list: 59 in the Kubernetes list and one in
  // each of 14 images make 15 warnings, past the webhook's cap of 10 (the last one counts the rest).
  const versions = [
    { version: '1.31.60', classification: 'supported' },
    ...Array.from({ length: 59 }, (_, i) => ({ version: `1.31.${i}`, classification: 'deprecated' })),
  ];
  const image = (i: number) => ({
    name: `image-with-a-long-name-to-fill-the-warning-${i}`,
    updateStrategy: 'major',
    versions: [
      { version: '2.0.0', classification: 'supported', cri: [{ name: 'containerd' }], architectures: ['amd64'] },
      { version: '1.0.0', classification: 'deprecated', cri: [{ name: 'containerd' }], architectures: ['amd64'] },
    ],
  });
  const p = profile('warned', versions, { machineImages: Array.from({ length: 14 }, (_, i) => image(i)) });
  const res = await admin.apply([p]);
  t.equal(res.code, 0, res.stderr);
  const shown = res.stderr.split('\n').filter((l) => l.startsWith('Warning: '));
  t.ok(shown.length > 0, 'kubectl prints Warning: lines');
  // The same review, posted directly: what the webhook answered.
  const direct = (
    await httpsCall(`${live.base}/validate`, {
      ca: cp.caPem,
      method: 'POST',
      body: JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: {
          uid: 'warn',
          kind: { group: 'core.gardener.cloud', version: 'v1beta1', kind: 'CloudProfile' },
          resource: { group: 'core.gardener.cloud', version: 'v1beta1', resource: 'cloudprofiles' },
          operation: 'CREATE',
          object: p,
          userInfo: { username: 'admin' },
        },
      }),
    })
  ).body;
  const answered = (JSON.parse(direct) as { response: { warnings?: string[] } }).response.warnings ?? [];
  t.ok(answered.length > 0, 'the webhook warns');
  for (const w of answered)
    t.ok(
      shown.some((l) => l === `Warning: ${w}`),
      `kubectl shows: ${w.slice(0, 80)}…`,
    );
  t.equal(
    shown.length,
    answered.length,
    'kubectl printed as many as the webhook answered: kube-apiserver dropped none',
  );
  t.ok(answered.length >= 10, `the webhook's cap was reached (${answered.length} warnings)`);
  t.comment(
    `warnings: the webhook answered ${answered.length} (${answered.join('').length} characters, longest ${Math.max(...answered.map((w) => w.length))}), kubectl printed ${shown.length}, each unchanged`,
  );
});

t.test(
  'the forecast at admission: an update that recreates gardener#13647 is warned about, and denied where forecast.deny says so',
  async (t) => {
    await suite.reset();
    const versions = [
      { version: '1.34.1', classification: 'deprecated', expirationDate: far },
      { version: '1.34.2', classification: 'supported' },
      { version: '1.35.0', classification: 'supported' },
    ];
    const before = profile('withdraw', versions);
    // Deprecating a new, broken patch to withdraw it: Gardener's auto-update still moves Shoots on it.
    const after = profile('withdraw', [
      ...versions,
      { version: '1.34.3', classification: 'deprecated', expirationDate: far },
    ]);
    const state = [before, shoot('garden-trap', 'auto-142', 'withdraw', '1.34.2')];
    await suite.seed(state);
    await suite.cached(live, { CloudProfile: 1, NamespacedCloudProfile: 0, Shoot: 1 });
    const trap =
      /Warning: maintenance would move 1 Shoot onto deprecated Kubernetes version "1\.34\.3" from \d{4}-\d\d-\d\d \(gardener\/gardener#13647\): moves from supported 1\.34\.2 onto deprecated 1\.34\.3; shoot 'garden-trap\/auto-142'/;
    const dry = await admin.apply([after], ['--dry-run=server']);
    t.equal(dry.code, 0, `by default a warning, and the update passes\n${dry.stderr}`);
    t.match(dry.stderr, trap, 'kubectl prints the trap warning, whole');

    const strict = await suite.serve({ name: 'forecast-deny', tls: 'files', config: { forecast: { deny: ['trap'] } } });
    await suite.use(strict);
    t.teardown(() => suite.use(live));
    await suite.cached(strict, { CloudProfile: 1, NamespacedCloudProfile: 0, Shoot: 1 });
    const denied = await admin.apply([after]);
    t.not(denied.code, 0, 'with forecast.deny: [trap] the update is refused');
    t.match(
      denied.stderr,
      /\[FORECAST\].*maintenance would move 1 Shoot onto deprecated Kubernetes version "1\.34\.3".*shoot 'garden-trap\/auto-142'/,
      'naming the rule, the version and the Shoot',
    );
    const stored = await admin.get<K8sObject & { spec: { kubernetes: { versions: Array<{ version: string }> } } }>(
      'cloudprofiles.core.gardener.cloud',
      'withdraw',
    );
    t.same(
      stored?.spec.kubernetes.versions.map((v) => v.version),
      ['1.34.1', '1.34.2', '1.35.0'],
      'nothing stored',
    );
    const other = await admin.apply([
      profile('withdraw', [...versions, { version: '1.36.0', classification: 'preview' }]),
    ]);
    t.equal(other.code, 0, `an update that traps no Shoot passes the strict webhook\n${other.stderr}`);
  },
);

t.test(
  'Shoots through informers: a Shoot created with kubectl holds its version, and frees it when deleted',
  async (t) => {
    await suite.reset();
    const p = profile('fleet', [
      { version: '1.31.2', classification: 'supported' },
      { version: '1.30.5', classification: 'deprecated', expirationDate: far },
    ]);
    t.equal((await admin.apply([p])).code, 0, 'profile applied');
    await namespace('garden-e2e');
    const s = shoot('garden-e2e', 'uses-130', 'fleet', '1.30.5');
    const created = await admin.apply([s]);
    t.equal(created.code, 0, `the Shoot is admitted\n${created.stderr}`);
    const createdAt = Date.now();
    const without = profile('fleet', [{ version: '1.31.2', classification: 'supported' }]);
    // Measured: how soon after the create the removal is denied (the informer's delay).
    const denial = await waitFor(
      'removal denied',
      async () => {
        const r = await admin.apply([without], ['--dry-run=server']);
        return r.code !== 0 ? r : undefined;
      },
      30_000,
      20,
    );
    t.comment(`the Shoot held its version ${Date.now() - createdAt} ms after kubectl create returned`);
    t.match(denial.stderr, /\[IN-USE\].*shoot 'garden-e2e\/uses-130'/, 'the denial names the Shoot');
    await admin.ok(['delete', 'shoot', 'uses-130', '-n', 'garden-e2e']);
    const deletedAt = Date.now();
    await waitFor(
      'removal allowed again',
      async () => (await admin.apply([without], ['--dry-run=server'])).code === 0,
      30_000,
      20,
    );
    t.comment(`the version was free ${Date.now() - deletedAt} ms after kubectl delete returned`);
    t.equal((await admin.apply([without])).code, 0, 'the removal applies');
  },
);

t.test('matchConditions: excluded writes never reach the webhook, included ones always do', async (t) => {
  await suite.reset();
  const total = () => live.sample('version_policy_admission_requests_total');
  const p = profile('mc', [{ version: '1.31.2', classification: 'supported' }]);
  let n = await total();
  t.equal((await exempt.apply([p])).code, 0, 'gardener-controller-manager writes a profile');
  t.equal(await total(), n, 'the exempt user reached no webhook');
  await namespace('garden-mc');
  const s = shoot('garden-mc', 'mc', 'mc', '1.31.2');
  n = await total();
  t.equal((await admin.apply([s])).code, 0, 'a Shoot is created');
  t.equal(await total(), n + 1, 'a Shoot CREATE reaches /validate once');
  n = await total();
  t.equal((await admin.run(['label', 'shoot', 'mc', '-n', 'garden-mc', 'team=e2e'])).code, 0, 'a label on the Shoot');
  t.equal(await total(), n, 'a Shoot UPDATE that changes no judged field is not sent');
  n = await total();
  const upgraded = shoot('garden-mc', 'mc', 'mc', '1.31.2');
  (upgraded.spec as { provider: { workers: { name: string }[] } }).provider.workers.push({
    name: 'pool-2',
    machine: { type: 'm5.large', image: { name: 'gardenlinux', version: '1592.1.0' } },
  } as never);
  t.equal((await admin.apply([upgraded])).code, 0, 'a worker pool added');
  t.equal(await total(), n + 1, 'a Shoot UPDATE that changes the workers is sent');
  n = await total();
  t.equal(
    (
      await admin.apply([
        profile('mc', [
          { version: '1.31.2', classification: 'supported' },
          { version: '1.31.3', classification: 'preview' },
        ]),
      ])
    ).code,
    0,
    'the admin updates the profile',
  );
  t.equal(await total(), n + 2, 'a profile UPDATE reaches /mutate and /validate');
});

t.test('outages: webhook down, back, kube-apiserver restarted, a relist after compaction', async (t) => {
  await suite.reset();
  const bad = PROBE_PROFILE;
  const timeoutSeconds = Number(suite.rendered.mutating.webhooks[0]?.timeoutSeconds);

  t.test('webhook stopped: failurePolicy Fail refuses the write within timeoutSeconds', async (t) => {
    t.teardown(() => suite.use(live));
    const down = await suite.serve({ name: 'outage', tls: 'files' });
    await suite.use(down);
    await down.stop();
    const started = Date.now();
    const res = await admin.apply([profile('while-down', [{ version: '1.31.2', classification: 'supported' }])]);
    const took = Date.now() - started;
    t.not(res.code, 0, 'the write fails');
    t.match(
      res.stderr,
      new RegExp(`failed calling webhook "${names.mutate.replace(/\./g, '\\.')}"`),
      'kubectl names the webhook that could not be called',
    );
    t.equal(await admin.get('cloudprofiles.core.gardener.cloud', 'while-down'), undefined, 'nothing stored');
    t.ok(
      took < (timeoutSeconds + 10) * 1000,
      `answered in ${took} ms (timeoutSeconds ${timeoutSeconds}, plus kubectl's own start)`,
    );
    t.comment(`a write with the webhook down failed after ${took} ms: ${res.stderr.trim().split('\n').pop()}`);

    const back = await suite.serve({ name: 'outage-back', tls: 'files', port: down.port });
    t.teardown(() => back.stop());
    let last = '';
    const judged = await waitFor(
      'judged again',
      async () => {
        const r = await admin.create([bad], ['--dry-run=server']);
        last = r.stderr;
        return r.code !== 0 && r.stderr.includes('[PAST-EXPIRATION]');
      },
      30_000,
      200,
    ).catch(() => false);
    t.ok(judged, `the webhook back on its port: writes are judged again (last answer: ${last})`);
    await suite.use(live);
  });

  t.test('kube-apiserver restarted and etcd compacted: the informers relist and resume', async (t) => {
    await namespace('garden-restart');
    const listsBefore = await live.sample('version_policy_cluster_lists_total', { kind: 'Shoot' });
    // Writes the informers have not seen when they reconnect, then history compacted below them.
    await exempt.apply(Array.from({ length: 5 }, (_, i) => shoot('garden-restart', `old-${i}`, 'nowhere', '1.31.2')));
    await cp.apiserver.stop();
    await exempt.run(['get', 'ns']).catch(() => undefined);
    const downAt = Date.now();
    const readiness: string[] = [];
    // Down longer than cluster.maxStaleSeconds (10 here): readiness must turn false, the age must grow.
    let unready = false;
    // Readiness and the oldest cache's age, sampled together: each must tell the same truth.
    const oldest = async () =>
      Math.max(
        ...(await Promise.all(KINDS.map((kind) => live.sample('version_policy_cluster_state_age_seconds', { kind })))),
      );
    while (Date.now() - downAt < 14_000) {
      const ageBefore = await oldest();
      const ready = await live.ready();
      const ageAfter = await oldest();
      readiness.push(
        `${Math.round((Date.now() - downAt) / 1000)}s:${ready ? 'ready' : 'unready'}:${ageAfter.toFixed(1)}`,
      );
      if (!ready) unready = true;
      if (ready && ageBefore > 10) t.fail(`ready with a state ${ageBefore} s old`);
      if (!ready && ageAfter < 10) t.fail(`unready with a state only ${ageAfter} s old`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    t.ok(unready, `unready once the state was older than maxStaleSeconds (${readiness.join(' ')})`);
    // The control plane cannot compact while kube-apiserver is down without its own client: compact via etcd's gateway.
    const revision = await cp.compactEtcd();
    t.comment(`etcd compacted at revision ${revision}`);
    await cp.restartApiserver();
    await waitFor('ready again', () => live.ready(), 60_000, 200);
    t.pass('ready again after kube-apiserver came back');
    t.ok((await oldest()) < 10, 'the state is fresh');
    const listsAfter = await live.sample('version_policy_cluster_lists_total', { kind: 'Shoot' });
    t.comment(`Shoot LISTs: ${listsBefore} before, ${listsAfter} after the restart`);
    // Resumed: a Shoot created now holds its version.
    const p = profile('resumed', [
      { version: '1.31.2', classification: 'supported' },
      { version: '1.30.5', classification: 'deprecated', expirationDate: far },
    ]);
    const applied = await admin.apply([p]);
    t.equal(applied.code, 0, `profile applied ${applied.stderr}`);
    const after = await admin.apply([shoot('garden-restart', 'after', 'resumed', '1.30.5')]);
    t.equal(after.code, 0, `a Shoot after the restart ${after.stderr}`);
    await waitFor(
      'the new Shoot is seen',
      async () =>
        (
          await admin.apply(
            [profile('resumed', [{ version: '1.31.2', classification: 'supported' }])],
            ['--dry-run=server'],
          )
        ).code !== 0,
      30_000,
      50,
    );
    t.pass('the informers resumed: the new Shoot holds 1.30.5');
  });
});

t.test('the audit log carries every decision', async (t) => {
  await suite.reset();
  const res = await admin.create([PROBE_PROFILE]);
  t.not(res.code, 0, 'denied');
  const events = await waitFor(
    'audit event',
    async () => {
      const lines = (await readFile(cp.auditLog, 'utf8'))
        .split('\n')
        .filter((l) => l.includes('"e2e-probe"') && l.includes('"ResponseComplete"') && !l.includes('"dryRun"'));
      return lines.length > 0 ? lines.map((l) => JSON.parse(l) as { annotations?: Record<string, string> }) : undefined;
    },
    15_000,
    200,
  );
  const annotations = events.at(-1)?.annotations ?? {};
  t.comment(`audit annotations: ${JSON.stringify(annotations)}`);
  const ours = (key: string) => annotations[`${names.mutate}/${key}`];
  t.equal(ours('decision'), 'denied', 'the decision, under the webhook name');
  t.match(ours('rules') ?? '', /PAST-EXPIRATION/, 'the rule IDs that denied');
  t.equal(ours('patched'), 'false', 'whether a patch was made');
  t.equal(ours('warnings'), '0', "the warnings' count");
});

t.test(
  'the chart against the real API server: every rendered object passes kubectl apply --dry-run=server',
  async (t) => {
    const { readdir } = await import('node:fs/promises');
    const { helmTemplate } = await import('./lib/kubectl.js');
    const { CHART, NAMESPACE, RELEASE } = await import('./lib/webhook.js');
    const valuesFiles = [
      undefined,
      ...(await readdir(join(CHART, 'ci'))).filter((f) => f.endsWith('-values.yaml')).sort(),
    ];
    // What this API server serves, as apiVersion/kind (api-resources: NAME [SHORTNAMES] APIVERSION NAMESPACED KIND).
    const served = new Set(
      (await admin.ok(['api-resources', '--no-headers']))
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const cols = l.trim().split(/\s+/);
          return `${cols.at(-3)}/${cols.at(-1)}`;
        }),
    );
    for (const values of valuesFiles) {
      const text = await helmTemplate(CHART, RELEASE, NAMESPACE, [
        '--kube-version',
        '1.36.4',
        ...(values ? ['-f', join(CHART, 'ci', values)] : []),
      ]);
      const objects = objectsOf(text);
      const kinds = new Map(objects.map((o) => [o.kind, served.has(`${o.apiVersion}/${o.kind}`)]));
      const applicable = objects.filter((o) => kinds.get(o.kind));
      const skipped = [...new Set(objects.filter((o) => !kinds.get(o.kind)).map((o) => o.kind))];
      const res = await admin.apply(applicable, ['--dry-run=server']);
      t.equal(
        res.code,
        0,
        `${values ?? 'default values'}: ${applicable.length} objects pass --dry-run=server${skipped.length ? `; skipped, no CRD here: ${skipped.join(', ')}` : ''}\n${res.stderr}`,
      );
    }
  },
);

t.test(
  'self-managed certificates: the webhook writes its caBundle through the API, and a CA rotation keeps every write judged',
  async (t) => {
    // kube-apiserver dials the chart's Service at an endpoint (--enable-aggregator-routing) and checks
    // the certificate against the Service's DNS name, as in a cluster. EndpointSlices refuse loopback
    // addresses, so the endpoint is this machine's own non-loopback address.
    const { networkInterfaces } = await import('node:os');
    const hostIp = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    if (hostIp === undefined) return t.plan(0, 'no non-loopback IPv4 address on this machine for an EndpointSlice');
    const { NAMESPACE, RELEASE } = await import('./lib/webhook.js');
    const { freePort } = await import('./lib/control-plane.js');
    const port = await freePort();
    // Every duration short enough that a CA rotation and several serving renewals happen within a minute.
    const selfManaged = {
      caValidity: '3m',
      caRenewBefore: '2m40s',
      servingValidity: '2m30s',
      servingRenewBefore: '2m10s',
      propagationDelay: '5s',
      overlap: '20s',
    };
    const w = await suite.serve({
      name: 'self-managed',
      tls: 'selfManaged',
      host: '0.0.0.0',
      port,
      waitReady: false,
      config: { server: { certReloadIntervalSeconds: 1, tls: { selfManaged } } },
    });
    t.teardown(async () => {
      await w.stop();
      await suite.use(live);
    });
    const service = suite.rendered.objects.find((o) => o.kind === 'Service')!;
    await admin.ok(['apply', '-f', '-'], JSON.stringify(service));
    const slice = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: `${RELEASE}-e2e`, namespace: NAMESPACE, labels: { 'kubernetes.io/service-name': RELEASE } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [hostIp], conditions: { ready: true } }],
      ports: [{ name: 'https', port, protocol: 'TCP' }],
    };
    await admin.ok(['apply', '-f', '-'], JSON.stringify(slice));
    // The chart's configurations as rendered: service clientConfig, no caBundle; the webhook fills it in.
    const { pointedAt } = await import('./lib/webhook.js');
    t.equal(
      (await admin.apply(pointedAt(suite.rendered, undefined, undefined))).code,
      0,
      'the rendered webhook configurations applied unchanged',
    );
    const caBundle = async () => {
      const cfg = await admin.get<{ webhooks: { clientConfig: { caBundle?: string } }[] }>(
        'validatingwebhookconfigurations',
        RELEASE,
      );
      return cfg?.webhooks[0]?.clientConfig.caBundle ?? '';
    };
    await waitFor('the webhook wrote its caBundle', async () => (await caBundle()).length > 0, 60_000, 200);
    await waitFor('ready', () => w.ready(), 60_000, 200);
    t.pass('the webhook published its CA into both configurations through the API');

    let judged = 0;
    const failures: string[] = [];
    const bundles = new Set<string>();
    const until = Date.now() + 75_000;
    while (Date.now() < until) {
      const r = await admin.create([PROBE_PROFILE], ['--dry-run=server']);
      if (r.code !== 0 && r.stderr.includes(`admission webhook "${names.mutate}" denied the request`)) judged++;
      else failures.push(r.stderr.trim());
      bundles.add(await caBundle());
    }
    const reloads = await w.sample('version_policy_certificate_reloads_total');
    t.comment(
      `${judged} writes judged, ${failures.length} not, ${bundles.size} distinct caBundles, ${reloads} certificate reloads`,
    );
    t.same(failures, [], 'every write was judged through the rotation');
    t.ok(bundles.size >= 2, `the caBundle changed during the run (${bundles.size} distinct)`);
    t.ok(reloads >= 2, `the serving certificate was swapped (${reloads} reloads)`);
  },
);
