// Two replicas of the real server (two `startWebhook` instances in one process) take over from the
// old chart mode: the webhook configurations hold the old CA, a pod of the old version still serves a
// certificate from it, the Secret is empty, and the replicas race to fill it (one write is forced to
// lose with 409). Calls go to every ready endpoint throughout; not one may fail.
import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import t from '../helpers/parts.js';
import { DATA_KEYS, fingerprint, signedBy, splitBundle } from '../../src/server/tls/self-managed-state.js';
import { createCertificateAuthority, issueCertificate } from '../../src/server/tls/self-signed.js';
import { FakeApiServer } from '../helpers/fake-apiserver.js';
import {
  ApiserverClient,
  NAMESPACE,
  SECRET,
  SERVICE,
  installCluster,
  publishedBundle,
  selfManagedConfig,
  startReplica,
  type ConfigKind,
} from '../helpers/self-managed.js';
import { until } from '../helpers/until.js';

const KINDS: ConfigKind[] = ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'];
const bundleOf = (config: unknown) =>
  splitBundle(
    Buffer.from(
      (config as { webhooks: { clientConfig: { caBundle?: string } }[] }).webhooks[0]!.clientConfig.caBundle ?? '',
      'base64',
    ).toString('utf8'),
  ).map(fingerprint);
const decoded = (data: unknown, key: string) =>
  Buffer.from((data as Record<string, string> | undefined)?.[key] ?? '', 'base64').toString('utf8');

/**
 * A pod of the previous chart version: it serves the certificate the old selfSigned mode generated
 * and answers every review "allowed" (only its certificate matters here; the webhook logic is the
 * real server's, tested elsewhere).
 */
async function oldPod(cert: { certPem: string; keyPem: string }) {
  const server = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const uid = (JSON.parse(body) as { request: { uid: string } }).request.uid;
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: { uid, allowed: true },
        }),
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

t.test('two replicas take over from the old chart mode, converge on one Secret, and no call fails', async (t) => {
  const fake = await FakeApiServer.start();
  t.teardown(() => fake.close());
  const legacyCA = await createCertificateAuthority('version-policy CA (old chart)', 3650);
  const hosts = [SERVICE, `${SERVICE}.${NAMESPACE}`, `${SERVICE}.${NAMESPACE}.svc`];
  const old = await oldPod(await issueCertificate(legacyCA, { hosts, days: 3650 }));
  t.teardown(old.close);
  installCluster(fake, legacyCA.certPem);
  fake.objects.conflictNextWrites(1);

  // The old pod shares this process with the replicas; loading the Kubernetes client blocks the event
  // loop for seconds on a busy machine, which a real pod in its own process would not feel. Load it first.
  await import('../../src/server/tls/self-managed-source.js');
  const clients = [new ApiserverClient(fake, 0), new ApiserverClient(fake, 500)];
  for (const c of clients) {
    c.add({ name: 'old', port: old.port, alwaysReady: true });
    await c.start();
  }
  // propagationDelay 1 s: a replica is ready 1 s after the bundle with its CA is published. The old
  // pod goes as soon as the endpoints show both replicas ready (the rollout), well within the 3 s
  // overlap that keeps its CA trusted.
  const config = selfManagedConfig(fake, { propagationDelay: '1s', overlap: '3s' });
  const replicas = await Promise.all([startReplica(config), startReplica(config)]);
  t.teardown(() => Promise.all(replicas.map((r) => r.close())));
  replicas.forEach((r, i) => clients.forEach((c) => c.add({ name: `replica-${i}`, port: r.port })));
  await until(
    'both replicas ready',
    () => clients.every((c) => c.isReady('replica-0') && c.isReady('replica-1')),
    60_000,
    10,
  );
  clients.forEach((c) => c.remove('old'));
  const oldCalls = clients.flatMap((c) => c.results).filter((r) => r.endpoint === 'old').length;
  const sent = clients.map((c) => c.count);
  await until('more calls on the replicas alone', () => clients.every((c, i) => c.count > sent[i]! + 10), 60_000, 10);
  await Promise.all(clients.map((c) => c.stop()));

  const results = clients.flatMap((c) => c.results);
  t.same(
    clients.flatMap((c) => c.failures),
    [],
    `no call failed (${results.length} answered)`,
  );
  t.ok(oldCalls > 0, `the old pod answered while the replicas were not ready (${oldCalls} calls)`);

  const secret = fake.objects.get('Secret', NAMESPACE, SECRET)!;
  const ca = decoded(secret.data, DATA_KEYS.caCert);
  for (const k of KINDS) {
    const bundles = fake.objects.writes
      .filter((w) => w.status === 200 && w.path.endsWith(`/${k.toLowerCase()}s/version-policy`))
      .map((w) => bundleOf(w.object));
    t.same(
      bundles[0],
      [fingerprint(ca), fingerprint(legacyCA.certPem)],
      `${k}: first the new CA was published beside the old one`,
    );
  }
  await until(
    'the old CA leaves both configurations',
    () => KINDS.every((k) => splitBundle(publishedBundle(fake, k)).length === 1),
    60_000,
    20,
  );
  for (const k of KINDS)
    t.same(
      splitBundle(publishedBundle(fake, k)).map(fingerprint),
      [fingerprint(ca)],
      `${k}: only the new CA in the end`,
    );

  const secretWrites = fake.objects.writes.filter((w) => w.path.endsWith(`/secrets/${SECRET}`));
  t.ok(
    secretWrites.some((w) => w.status === 409),
    'a write lost with 409 Conflict',
  );
  const writtenCAs = new Set(
    secretWrites.filter((w) => w.status === 200).map((w) => fingerprint(decoded(w.object?.data, DATA_KEYS.caCert))),
  );
  t.same(
    [...writtenCAs],
    [fingerprint(ca)],
    'every successful write carries the same CA: the loser adopted the winner’s',
  );
  const served = new Map<string, Set<string>>();
  for (const r of results.filter((x) => x.endpoint !== 'old'))
    served.set(r.endpoint, (served.get(r.endpoint) ?? new Set()).add(fingerprint(r.leaf)));
  t.same([...served.keys()].sort(), ['replica-0', 'replica-1'], 'both replicas answered');
  t.same(
    [...served.values()].map((s) => [...s]),
    [[fingerprint(decoded(secret.data, DATA_KEYS.cert))], [fingerprint(decoded(secret.data, DATA_KEYS.cert))]],
    'both serve the one pair the Secret holds',
  );
  t.ok(signedBy(decoded(secret.data, DATA_KEYS.cert), ca));
  t.ok(
    replicas.some((r) => r.logs.some((l) => /another replica wrote the certificate Secret first/.test(l.msg))),
    'the loser says it adopted the winner’s write',
  );
});
