// The real server in the self-managed mode (HTTPS on port 0, `startWebhook` as `serve` runs it)
// against the fake API server, with durations of seconds: a serving-certificate rotation under the
// same CA, then a full CA rotation, while two kube-apiserver stand-ins call it without pause. One
// trusts exactly the caBundle published now, the other the one published 500 ms ago (an informer
// that lags, within the 1 s propagationDelay). Then the Secret is wiped under it. Not one call may fail.
import { X509Certificate } from 'node:crypto';
import t from '../helpers/parts.js';
import { DATA_KEYS, fingerprint, signedBy, splitBundle } from '../../src/server/tls/self-managed-state.js';
import { FakeApiServer } from '../helpers/fake-apiserver.js';
import {
  ApiserverClient,
  NAMESPACE,
  SECRET,
  installCluster,
  publishedBundle,
  ready,
  selfManagedConfig,
  startReplica,
} from '../helpers/self-managed.js';
import { until } from '../helpers/until.js';

// Certificates stay valid for a minute but are due for renewal after a second or so: the rotations
// happen quickly, yet a starved event loop (a loaded CI machine) cannot make one expire. Relations
// the options enforce hold: 59 < 60, 118.5 < 120, 60 <= 118.5, 1 < 118.5, 0.1 < 59. Timeline from
// the first CA (t = 0): serving renewals every ~1 s under it, CA renewal starts at 1.5 s, the new CA
// settles and signs at ~2.5 s, the first one leaves the bundle at ~3.5 s.
const DURATIONS = {
  servingValidity: '60s',
  servingRenewBefore: '59s',
  caValidity: '120s',
  caRenewBefore: '118500ms',
  propagationDelay: '1s',
  overlap: '1s',
};

function secretData(fake: FakeApiServer): Record<string, string> {
  return (fake.objects.get('Secret', NAMESPACE, SECRET)?.data ?? {}) as Record<string, string>;
}
const decoded = (data: Record<string, string>, key: string) => Buffer.from(data[key] ?? '', 'base64').toString('utf8');

async function expiryGauge(metricsText: string, certificate: string): Promise<number | undefined> {
  const line = metricsText
    .split('\n')
    .find((l) => l.startsWith(`version_policy_certificate_expiry_timestamp_seconds{certificate="${certificate}"}`));
  return line ? Number(line.split(' ').at(-1)) : undefined;
}

t.test('serving and CA rotation in-process under load, then a wiped Secret: zero failed calls', async (t) => {
  const fake = await FakeApiServer.start();
  t.teardown(() => fake.close());
  installCluster(fake);
  const replica = await startReplica(selfManagedConfig(fake, DURATIONS));
  t.teardown(() => replica.close());
  await until('the replica is ready', () => ready(replica.port), 60_000, 20);
  const t0 = Date.now();

  const firstCA = decoded(secretData(fake), DATA_KEYS.caCert);
  t.same(
    splitBundle(publishedBundle(fake, 'ValidatingWebhookConfiguration')).map(fingerprint),
    [fingerprint(firstCA)],
    'a fresh install publishes the one CA',
  );
  t.equal(
    publishedBundle(fake, 'MutatingWebhookConfiguration'),
    publishedBundle(fake, 'ValidatingWebhookConfiguration'),
    'both configurations hold the same bundle',
  );

  const clients = [new ApiserverClient(fake, 0), new ApiserverClient(fake, 500)];
  const readiness: boolean[] = [];
  let probing = true;
  const probe = (async () => {
    while (probing) {
      readiness.push(await ready(replica.port));
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  for (const c of clients) {
    c.add({ name: 'replica', port: replica.port });
    await c.start();
  }
  const leaves = () => new Set(clients.flatMap((c) => c.results.map((r) => r.leaf)));
  const newCA = await until(
    'a new CA that signs, and the first CA gone from both configurations',
    () => {
      const ca = decoded(secretData(fake), DATA_KEYS.caCert);
      const gone = (['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'] as const).every(
        (k) => !splitBundle(publishedBundle(fake, k)).some((pem) => fingerprint(pem) === fingerprint(firstCA)),
      );
      return fingerprint(ca) !== fingerprint(firstCA) && gone && [...leaves()].some((leaf) => signedBy(leaf, ca)) && ca;
    },
    60_000,
    20,
  );
  t.comment(`rotation done ${Date.now() - t0} ms after ready`);
  // A few more calls on the new CA alone.
  const sent = clients.map((c) => c.count);
  await until('more calls after the rotation', () => clients.every((c, i) => c.count > sent[i]! + 10), 60_000, 10);

  // The Secret loses its data (what `helm upgrade --force` does: it replaces the object with the
  // chart's empty one). The replica takes over: a new CA beside the published ones, and it keeps
  // serving its current certificate until the new CA has settled.
  const caPemsBeforeWipe = fake.objects.writes.flatMap((w) =>
    w.object?.kind === 'Secret' ? [decoded(w.object.data as Record<string, string>, DATA_KEYS.caCert)] : [],
  );
  const beforeWipe = new Set(caPemsBeforeWipe.map(fingerprint));
  const wipedAt = Date.now();
  fake.objects.put({ ...fake.objects.get('Secret', NAMESPACE, SECRET)!, data: {} });
  const taken = await until(
    'a CA made after the wipe signs what is served',
    () => {
      const ca = decoded(secretData(fake), DATA_KEYS.caCert);
      return (
        !beforeWipe.has(fingerprint(ca)) &&
        clients.every((c) => c.results.some((r) => r.at > wipedAt && signedBy(r.leaf, ca))) &&
        ca
      );
    },
    60_000,
    20,
  );
  t.ok(taken, 'taken over');
  const afterWipe = clients.flatMap((c) => c.results).filter((r) => r.at > wipedAt);
  t.ok(
    afterWipe.some((r) => caPemsBeforeWipe.some((ca) => signedBy(r.leaf, ca))),
    'right after the wipe, the certificate from before it was still served (the new CA had not settled)',
  );
  t.ok(
    replica.logs.some(
      (l) =>
        l.msg === 'certificate Secret updated' &&
        (l.changes as string[]).some((c) => /no CA yet: a new CA, keeping the published CAs trusted/.test(c)),
    ),
    'the takeover is logged',
  );
  probing = false;
  await Promise.all([...clients.map((c) => c.stop()), probe]);

  const all = clients.flatMap((c) => c.results);
  t.same(
    clients.flatMap((c) => c.failures),
    [],
    `no call failed (${all.length} answered)`,
  );
  t.ok(all.length >= 20, `a steady load (${all.length} calls)`);
  const underFirst = [...leaves()].filter((leaf) => signedBy(leaf, firstCA));
  const underNew = [...leaves()].filter((leaf) => signedBy(leaf, newCA));
  t.ok(
    underFirst.length >= 2,
    `the serving certificate rotated under the first CA (${underFirst.length} certificates served)`,
  );
  t.ok(underNew.length >= 1, 'then a certificate from the new CA was served');
  const everCA = fake.objects.writes.flatMap((w) =>
    w.object?.kind === 'Secret' ? [decoded(w.object.data as Record<string, string>, DATA_KEYS.caCert)] : [],
  );
  t.same(
    [...leaves()].filter((leaf) => !everCA.some((ca) => signedBy(leaf, ca))),
    [],
    'only certificates from CAs in the Secret were served (no placeholder)',
  );
  t.ok(
    readiness.every((r) => r),
    `ready throughout the rotation (${readiness.length} probes)`,
  );

  // The expiry gauges follow what is served.
  const res = await fetchMetrics(replica.port);
  const served = new X509Certificate(clients[0]!.results.at(-1)!.leaf);
  const serving = await expiryGauge(res, 'serving');
  t.ok(
    serving !== undefined && Math.abs(serving - Date.parse(served.validTo) / 1000) <= 5,
    'version_policy_certificate_expiry_timestamp_seconds{certificate="serving"} is the served certificate’s notAfter (give or take the renewals since)',
  );
  t.equal(
    await expiryGauge(res, 'ca'),
    Date.parse(new X509Certificate(decoded(secretData(fake), DATA_KEYS.caCert)).validTo) / 1000,
    '…{certificate="ca"} is the signing CA’s',
  );
  t.ok(
    replica.logs.some(
      (l) => l.msg === 'certificate Secret updated' && (l.changes as string[]).some((c) => /signs from now on/.test(c)),
    ),
    'the switch is logged',
  );
});

async function fetchMetrics(port: number): Promise<string> {
  const https = await import('node:https');
  return new Promise((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port, path: '/metrics', rejectUnauthorized: false, agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(text));
      })
      .on('error', reject);
  });
}
