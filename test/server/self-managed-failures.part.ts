// The self-managed source when its peers are missing or changed behind its back: it keeps serving,
// says why it is not ready, and recovers on its own. Real server, fake API server.
import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import t from '../helpers/parts.js';
import { DATA_KEYS, encodeState, fingerprint, signedBy, splitBundle } from '../../src/server/tls/self-managed-state.js';
import { createCertificateAuthority, issueCertificate } from '../../src/server/tls/self-signed.js';
import { FakeApiServer } from '../helpers/fake-apiserver.js';
import {
  CONFIGURATION,
  NAMESPACE,
  SECRET,
  SERVICE,
  emptySecret,
  installCluster,
  publishedBundle,
  selfManagedConfig,
  startReplica,
  webhookConfiguration,
} from '../helpers/self-managed.js';
import { until } from '../helpers/until.js';

/** GET /readyz → [status, body], and the certificate served. */
function readyz(port: number): Promise<{ status: number; body: string; leaf: string }> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false, agent: false }, (res) => {
        const leaf = (res.socket as TLSSocket).getPeerX509Certificate()?.toString() ?? '';
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, leaf }));
      })
      .on('error', reject);
  });
}

const caInSecret = (fake: FakeApiServer) =>
  Buffer.from(
    ((fake.objects.get('Secret', NAMESPACE, SECRET)?.data ?? {}) as Record<string, string>)[DATA_KEYS.caCert] ?? '',
    'base64',
  ).toString();

t.test(
  'without its Secret the server serves, is not ready, says why, and recovers when the Secret appears',
  async (t) => {
    const fake = await FakeApiServer.start();
    t.teardown(() => fake.close());
    fake.objects.put(webhookConfiguration('ValidatingWebhookConfiguration'));
    fake.objects.put(webhookConfiguration('MutatingWebhookConfiguration'));
    const replica = await startReplica(selfManagedConfig(fake, {}));
    t.teardown(() => replica.close());
    const before = await readyz(replica.port);
    t.equal(before.status, 503);
    t.match(
      before.body,
      `Secret ${NAMESPACE}/${SECRET} not found: the chart creates it (empty), and the server may only read and update it, not create it`,
    );
    t.notOk(
      fake.requests.some((r) => r.method === 'POST'),
      'it does not try to create it',
    );
    t.equal(
      publishedBundle(fake, 'ValidatingWebhookConfiguration'),
      '',
      'nothing is published without a Secret to keep the CA in',
    );

    installCluster(fake);
    const after = await until(
      'ready',
      async () => {
        const r = await readyz(replica.port);
        return r.status === 200 && r;
      },
      60_000,
      50,
    );
    t.ok(signedBy(after.leaf, caInSecret(fake)), 'serves the certificate kept in the Secret');
    t.ok(replica.logs.some((l) => l.msg === 'certificate source recovered'));
  },
);

t.test(
  'with the API server down at start: an untrusted placeholder, not ready, then the real certificate',
  async (t) => {
    const fake = await FakeApiServer.start({ down: true });
    t.teardown(() => fake.close());
    installCluster(fake);
    const replica = await startReplica(selfManagedConfig(fake, {}));
    t.teardown(() => replica.close());
    const before = await readyz(replica.port);
    t.equal(before.status, 503);
    t.match(before.body, /have not been read yet \(.*ECONNREFUSED/);
    await fake.up();
    const after = await until(
      'ready',
      async () => {
        const r = await readyz(replica.port);
        return r.status === 200 && r;
      },
      60_000,
      50,
    );
    t.not(fingerprint(after.leaf), fingerprint(before.leaf), 'the placeholder is replaced');
    t.ok(signedBy(after.leaf, caInSecret(fake)));
    t.notOk(signedBy(before.leaf, caInSecret(fake)), 'the placeholder was never trusted');
  },
);

t.test(
  'a webhook configuration that does not exist (deleted in an emergency) is skipped; the other one is served',
  async (t) => {
    const fresh = await FakeApiServer.start();
    t.teardown(() => fresh.close());
    fresh.objects.put(emptySecret());
    fresh.objects.put(webhookConfiguration('ValidatingWebhookConfiguration'));
    const replica = await startReplica(selfManagedConfig(fresh, {}));
    t.teardown(() => replica.close());
    const r = await until(
      'ready',
      async () => {
        const x = await readyz(replica.port);
        return x.status === 200 && x;
      },
      60_000,
      50,
    );
    t.ok(
      splitBundle(publishedBundle(fresh, 'ValidatingWebhookConfiguration')).some((ca) => signedBy(r.leaf, ca)),
      'the validating configuration trusts it',
    );
    t.equal(
      fresh.objects.get('MutatingWebhookConfiguration', undefined, CONFIGURATION),
      undefined,
      'and nothing recreated the mutating one',
    );
  },
);

t.test('a caBundle overwritten behind its back (a helm rollback, a hand edit) is published again', async (t) => {
  const fake = await FakeApiServer.start();
  t.teardown(() => fake.close());
  installCluster(fake);
  const replica = await startReplica(selfManagedConfig(fake, {}));
  t.teardown(() => replica.close());
  await until('published', () => publishedBundle(fake, 'MutatingWebhookConfiguration') !== '', 60_000, 20);
  const ours = publishedBundle(fake, 'MutatingWebhookConfiguration');
  const stranger = await createCertificateAuthority('a stale CA', 1);
  fake.objects.put(webhookConfiguration('MutatingWebhookConfiguration', stranger.certPem));
  await until('published again', () => publishedBundle(fake, 'MutatingWebhookConfiguration') === ours, 60_000, 20);
  t.equal(publishedBundle(fake, 'ValidatingWebhookConfiguration'), ours, 'the other one was left as it was');
  t.equal((await readyz(replica.port)).status, 200);
});

t.test('a pass that drops the served CA from the bundle switches what it serves before it publishes', async (t) => {
  // The state a slow takeover reaches: the new CA settled longer than the overlap ago, while this
  // replica still serves the old one. One pass must both retire the old CA and switch; the
  // smaller bundle may reach kube-apiserver only once the new certificate is served.
  const fake = await FakeApiServer.start();
  t.teardown(() => fake.close());
  installCluster(fake);
  const replica = await startReplica(selfManagedConfig(fake, { propagationDelay: '1s', overlap: '1s' }));
  t.teardown(() => replica.close());
  await until('ready', async () => (await readyz(replica.port)).status === 200, 60_000, 50);
  const oldCA = caInSecret(fake);
  const now = Date.now();
  const next = await createCertificateAuthority('next CA', 1);
  const hosts = [
    SERVICE,
    `${SERVICE}.${NAMESPACE}`,
    `${SERVICE}.${NAMESPACE}.svc`,
    `${SERVICE}.${NAMESPACE}.svc.cluster.local`,
  ];
  const serving = await issueCertificate(next, { hosts, days: 1 });
  const state = {
    active: { certPem: next.certPem, keyPem: next.keyPem },
    serving,
    bundle: [next.certPem, oldCA],
    activeSince: now - 5000,
    settled: { [fingerprint(next.certPem)]: now - 5000, [fingerprint(oldCA)]: now - 10_000 },
  };
  const newLeaf = new X509Certificate(serving.certPem).fingerprint256;
  const shrinking: boolean[] = [];
  fake.objects.onWrite((w) => {
    const entry = (w.object as { webhooks?: { clientConfig?: { caBundle?: string } }[] } | undefined)?.webhooks?.[0];
    if (!entry || w.method !== 'PATCH') return;
    const bundle = splitBundle(Buffer.from(entry.clientConfig?.caBundle ?? '', 'base64').toString());
    if (!bundle.some((ca) => fingerprint(ca) === fingerprint(oldCA))) {
      shrinking.push(
        replica.logs.some((l) => l.msg === 'serving certificate reloaded' && l.fingerprint256 === newLeaf),
      );
    }
  });
  fake.objects.put({ ...emptySecret(), data: encodeState(state) });
  await until('the old CA leaves both configurations', () => shrinking.length === 2, 60_000, 20);
  t.same(shrinking, [true, true], 'each configuration lost the old CA only after the new certificate was served');
});
