// server.tls.selfManaged: defaults, the relations between the durations, the namespace default,
// and the refusal to mix it with certificate files.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from '../helpers/parts.js';
import { resolveConfig } from '../../src/config.js';
import { SERVICE_ACCOUNT_DIR } from '../../src/cluster/service-account.js';
import { createLogger } from '../../src/server/logging.js';
import { startWebhook } from '../../src/server/run.js';
import { podNamespace, selfManagedOptions } from '../../src/server/tls/self-managed-options.js';

const H = 3_600_000;
const sm = (over: Record<string, unknown> = {}) =>
  resolveConfig({ server: { tls: { selfManaged: { enabled: true, namespace: 'garden', ...over } } } }).server.tls
    .selfManaged;

t.test('the defaults, in milliseconds, and the DNS names of the Service', async (t) => {
  const o = selfManagedOptions(sm(), 10);
  t.match(o, {
    namespace: 'garden',
    secretName: 'version-policy-certs',
    validatingWebhookConfiguration: 'version-policy',
    mutatingWebhookConfiguration: 'version-policy',
    caValidityMs: 8760 * H,
    caRenewBeforeMs: 2160 * H,
    servingValidityMs: 2160 * H,
    servingRenewBeforeMs: 720 * H,
    propagationDelayMs: 60_000,
    overlapMs: 24 * H,
    pollIntervalMs: 10_000,
  });
  t.same(o.dnsNames, [
    'version-policy',
    'version-policy.garden',
    'version-policy.garden.svc',
    'version-policy.garden.svc.cluster.local',
  ]);
});

t.test('durations that would break a rotation are refused, each with its reason', async (t) => {
  const cases: [string, Record<string, unknown>, number, RegExp][] = [
    [
      'renewing the serving certificate no sooner than it is made',
      { servingRenewBefore: '2160h' },
      10,
      /servingRenewBefore must be shorter than servingValidity, or every poll renews/,
    ],
    [
      'renewing the CA no sooner than it is made',
      { caRenewBefore: '8760h' },
      10,
      /caRenewBefore must be shorter than caValidity/,
    ],
    [
      'serving certificates that outlive the CA rotation start',
      { servingValidity: '2200h' },
      10,
      /servingValidity must not exceed caRenewBefore/,
    ],
    [
      'a propagation delay the CA cannot wait out',
      { propagationDelay: '2160h' },
      10,
      /propagationDelay must be shorter than caRenewBefore/,
    ],
    [
      'polling less often than the renewal window',
      {},
      720 * 3600,
      /certReloadIntervalSeconds must be shorter than servingRenewBefore/,
    ],
  ];
  for (const [what, over, poll, message] of cases) t.throws(() => selfManagedOptions(sm(over), poll), message, what);
  t.doesNotThrow(() => selfManagedOptions(sm(), 10), 'the defaults pass');
  t.doesNotThrow(
    () =>
      selfManagedOptions(
        sm({
          servingValidity: '3s',
          servingRenewBefore: '2s',
          caValidity: '6s',
          caRenewBefore: '4.5s',
          propagationDelay: '1s',
          overlap: '1s',
        }),
        0.1,
      ),
    'seconds for tests are fine',
  );
});

t.test('the schema refuses what is not a name or a Go duration', async (t) => {
  t.throws(() => sm({ secretName: 'Certs_1' }), /secretName: "Certs_1" is not a Kubernetes name/);
  t.throws(() => sm({ overlap: '1d' }), /overlap: "1d" is not a duration/);
  t.throws(() => sm({ caValidty: '1h' }), /unknown key "caValidty" \(did you mean "caValidity"\?\)/);
  t.equal(
    sm({ validatingWebhookConfiguration: '' }).validatingWebhookConfiguration,
    '',
    'an empty name: no configuration of that kind',
  );
});

t.test("an empty namespace is the pod's own, read from the service-account mount", async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'vp-pod-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  t.equal(podNamespace(root), undefined);
  t.throws(
    () => selfManagedOptions(sm({ namespace: '' }), 10, () => podNamespace(root)),
    /namespace is empty and there is no service-account namespace/,
  );
  await mkdir(join(root, SERVICE_ACCOUNT_DIR), { recursive: true });
  await writeFile(join(root, SERVICE_ACCOUNT_DIR, 'namespace'), 'garden-vp\n');
  t.equal(selfManagedOptions(sm({ namespace: '' }), 10, () => podNamespace(root)).namespace, 'garden-vp');
});

t.test('selfManaged and certificate files exclude each other', async (t) => {
  const config = resolveConfig({
    server: {
      port: 0,
      probePort: 0,
      tls: { certFile: 'tls.crt', keyFile: 'tls.key', selfManaged: { enabled: true, namespace: 'garden' } },
    },
    cluster: { enabled: false },
  });
  await t.rejects(
    startWebhook({
      config,
      stateFiles: [],
      withoutClusterState: true,
      logger: createLogger('silent'),
      devCertDir: tmpdir(),
    }),
    /selfManaged\.enabled excludes certFile, keyFile and clientCAFile/,
  );
});
