// `version-policy remove-webhooks` (the chart's pre-delete hook) against the fake API server: there
// is no kube-apiserver here, and the fake's webhook-configuration store answers GET and DELETE the
// way the real one does (Status bodies, 404 when gone). Exit codes and output through the built
// CLI; the retry paths in-process, where each case costs milliseconds instead of a Node start.
import { Readable } from 'node:stream';
import t, { type Test } from '../helpers/parts.js';
import { UsageError } from '../../src/cli/errors.js';
import { buildProgram } from '../../src/cli/main.js';
import { removeWebhookConfigurations, removeWebhooks, type RemovalTarget } from '../../src/cli/remove-webhooks.js';
import { connectionFrom } from '../../src/cluster/api-client.js';
import { loadKubeConfig } from '../../src/cluster/kubeconfig.js';
import { FakeApiServer } from '../helpers/fake-apiserver.js';
import { runCli, tempDir, writeFiles } from '../helpers/run-cli.js';

const NAME = 'version-policy';
const VALIDATING = 'ValidatingWebhookConfiguration';
const MUTATING = 'MutatingWebhookConfiguration';

async function fake(t: Test): Promise<FakeApiServer> {
  const api = await FakeApiServer.start();
  t.teardown(() => api.close());
  return api;
}

const BOTH: RemovalTarget[] = [
  { resource: 'validatingwebhookconfigurations', name: NAME },
  { resource: 'mutatingwebhookconfigurations', name: NAME },
];

/** The command's work in-process, with short pauses between tries. */
const remove = (api: FakeApiServer, targets = BOTH, attempts = 5) =>
  removeWebhookConfigurations(connectionFrom(loadKubeConfig(api.kubeconfigPath)), targets, {
    attempts,
    backoffSeconds: 0.02,
  });

const args = (api: FakeApiServer, ...more: string[]) => [
  'remove-webhooks',
  '--validating',
  NAME,
  '--mutating',
  NAME,
  '--kubeconfig',
  api.kubeconfigPath,
  '--backoff-seconds',
  '0.02',
  ...more,
];
const webhookRequests = (api: FakeApiServer) =>
  api.requests
    .filter((r) => r.path.startsWith('/apis/admissionregistration.k8s.io/'))
    .map((r) => `${r.method} ${r.path.split('/').slice(-2).join('/')}`);

t.test('deletes both configurations, checks they are gone, and exits 0', async (t) => {
  const api = await fake(t);
  api.webhookConfigurations.add(VALIDATING, NAME);
  api.webhookConfigurations.add(MUTATING, NAME);
  api.webhookConfigurations.add(VALIDATING, 'someone-else');
  const run = await runCli(args(api));
  t.equal(run.code, 0, run.stderr);
  t.same(run.stdout.split('\n').filter(Boolean).sort(), [
    `mutatingwebhookconfiguration ${NAME}: deleted`,
    `validatingwebhookconfiguration ${NAME}: deleted`,
  ]);
  t.notOk(api.webhookConfigurations.has(VALIDATING, NAME));
  t.notOk(api.webhookConfigurations.has(MUTATING, NAME));
  t.ok(api.webhookConfigurations.has(VALIDATING, 'someone-else'), 'nothing else is touched');
  t.same(webhookRequests(api).sort(), [
    `DELETE mutatingwebhookconfigurations/${NAME}`,
    `DELETE validatingwebhookconfigurations/${NAME}`,
    `GET mutatingwebhookconfigurations/${NAME}`,
    `GET validatingwebhookconfigurations/${NAME}`,
  ]);
});

t.test('a configuration that is already gone (404) counts as done', async (t) => {
  const api = await fake(t);
  api.webhookConfigurations.add(MUTATING, NAME);
  t.same(await remove(api), [
    { removed: true, text: `validatingwebhookconfiguration ${NAME}: already gone` },
    { removed: true, text: `mutatingwebhookconfiguration ${NAME}: deleted` },
  ]);
});

t.test('transient failures are retried', async (t) => {
  const api = await fake(t);
  api.webhookConfigurations.add(VALIDATING, NAME);
  api.webhookConfigurations.add(MUTATING, NAME);
  api.webhookConfigurations.injectStatus([500, 429, 503]);
  t.ok((await remove(api)).every((r) => r.removed));
  t.notOk(
    api.webhookConfigurations.has(VALIDATING, NAME) || api.webhookConfigurations.has(MUTATING, NAME),
    'both deleted in the end',
  );
  t.ok(
    webhookRequests(api).length >= 7,
    `${webhookRequests(api).length} requests: 3 failed, then DELETE and GET of each`,
  );
});

t.test(
  'a configuration that outlives its DELETE (a finalizer) is deleted again until a GET finds it gone',
  async (t) => {
    const api = await fake(t);
    api.webhookConfigurations.add(VALIDATING, NAME, { lingerGets: 2 });
    t.same(await remove(api, BOTH.slice(0, 1)), [
      { removed: true, text: `validatingwebhookconfiguration ${NAME}: deleted` },
    ]);
    t.notOk(api.webhookConfigurations.has(VALIDATING, NAME));
    t.ok(
      webhookRequests(api).filter((r) => r.startsWith('GET')).length >= 2,
      'it looked again after the first GET still found it',
    );
  },
);

t.test(
  'a refusal that does not pass is bounded: exit 1, the configuration named, the other one still removed',
  async (t) => {
    const api = await fake(t);
    api.webhookConfigurations.add(VALIDATING, NAME);
    api.webhookConfigurations.add(MUTATING, 'other');
    // The validating configuration's requests answer 403 more often than the command tries.
    api.webhookConfigurations.injectStatus([403, 403, 403, 403], NAME);
    const run = await runCli([
      'remove-webhooks',
      '--validating',
      NAME,
      '--mutating',
      'other',
      '--kubeconfig',
      api.kubeconfigPath,
      '--backoff-seconds',
      '0.02',
      '--attempts',
      '3',
    ]);
    t.equal(run.code, 1);
    t.match(
      run.stdout,
      `validatingwebhookconfiguration ${NAME}: NOT removed after 3 attempt(s): DELETE answered 403: injected fault`,
    );
    t.match(run.stdout, 'mutatingwebhookconfiguration other: deleted');
    t.match(
      run.stderr,
      /^version-policy: 1 webhook configuration\(s\) left in place; delete them by hand \(docs\/operations\/uninstall\.md\)\n$/,
    );
    t.ok(api.webhookConfigurations.has(VALIDATING, NAME));
    t.notOk(
      api.webhookConfigurations.has(MUTATING, 'other'),
      'one unreachable configuration does not keep the other in place',
    );
    t.equal(webhookRequests(api).filter((r) => r.endsWith(`/${NAME}`)).length, 3, 'exactly --attempts tries');
  },
);

t.test('an API server that cannot be reached fails within the bound', async (t) => {
  const api = await fake(t);
  await api.down();
  // The bound is the attempts, each refused at once; a command that kept trying would meet tap's timeout.
  const results = await remove(api, BOTH, 2);
  t.equal(results.length, 2);
  for (const r of results)
    t.match(r, {
      removed: false,
      text: /NOT removed after 2 attempt\(s\): cannot reach the API server https:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/,
    });
});

t.test(
  'usage errors: no name, a broken kubeconfig, a bad --attempts (main turns each into exit 2 and one line)',
  async (t) => {
    const dir = await tempDir(t);
    const [broken] = await writeFiles(dir, { kubeconfig: 'not: [a kubeconfig' });
    const opts = { attempts: 1, backoffSeconds: 0.02 };
    const run = {
      io: { stdin: Readable.from([]), stdout: process.stdout, stderr: process.stderr, env: {} },
      exitCode: 0,
    };
    await t.rejects(
      removeWebhooks(opts, run),
      new UsageError('remove-webhooks: name at least one of --validating and --mutating'),
    );
    await t.rejects(removeWebhooks({ ...opts, validating: NAME, kubeconfig: broken! }, run), {
      name: 'UsageError',
      message: /^cannot load kubeconfig/,
    });
    const program = buildProgram().configureOutput({ writeErr: () => undefined });
    await t.rejects(
      program.parseAsync(['remove-webhooks', '--validating', NAME, '--attempts', '0'], { from: 'user' }),
      { code: 'commander.invalidArgument', message: /not a positive integer/ },
    );
  },
);
