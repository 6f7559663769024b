import { X509Certificate, createPrivateKey } from 'node:crypto';
import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import t from '../helpers/parts.js';
import {
  createCertificateAuthority,
  createDevCertificates,
  issueCertificate,
  loadAuthority,
} from '../../src/server/tls/self-signed.js';

t.test('a client that trusts the dev CA completes a TLS 1.2+ handshake with the serving certificate', async (t) => {
  const { ca, serving } = await createDevCertificates({ hosts: ['localhost', '127.0.0.1'] });
  const server = https.createServer(
    { cert: serving.certPem, key: serving.keyPem, minVersion: 'TLSv1.2' },
    (_req, res) => res.end('ok'),
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const port = (server.address() as AddressInfo).port;
  for (const host of ['127.0.0.1', 'localhost']) {
    const body = await new Promise<string>((resolve, reject) => {
      https
        .get(
          { host: '127.0.0.1', servername: host === '127.0.0.1' ? undefined : host, port, ca: ca.certPem, path: '/' },
          (res) => {
            let data = '';
            res.on('data', (c: Buffer) => (data += c.toString()));
            res.on('end', () => resolve(data));
          },
        )
        .on('error', reject);
    });
    t.equal(body, 'ok', `verified as ${host}`);
  }
  const untrusted = await new Promise<Error>((resolve) => {
    https.get({ host: '127.0.0.1', port, path: '/' }, () => resolve(new Error('connected'))).on('error', resolve);
  });
  t.match(
    untrusted.message,
    /self.signed|unable to verify|certificate/i,
    'a client without the CA refuses the certificate',
  );
});

t.test('validity in milliseconds: notBefore lies min(1 h, validity) back, notAfter never passes the cap', async (t) => {
  const now = Date.parse('2026-09-01T12:00:00Z');
  const ca = await createCertificateAuthority('ms CA', 0, { validityMs: 10 * 3_600_000, now });
  const caCert = new X509Certificate(ca.certPem);
  t.equal(Date.parse(caCert.validFrom), now - 3_600_000, 'an hour back, for verifiers whose clock lags');
  t.equal(Date.parse(caCert.validTo), now + 10 * 3_600_000);
  const short = await issueCertificate(ca, { hosts: ['a.svc'], validityMs: 30_000, now });
  const leaf = new X509Certificate(short.certPem);
  t.equal(Date.parse(leaf.validFrom), now - 30_000, 'a validity shorter than an hour is backdated by itself');
  t.equal(Date.parse(leaf.validTo), now + 30_000);
  const capped = new X509Certificate(
    (
      await issueCertificate(ca, {
        hosts: ['a.svc'],
        validityMs: 100 * 3_600_000,
        now,
        notAfterCap: Date.parse(caCert.validTo),
      })
    ).certPem,
  );
  t.equal(capped.validTo, caCert.validTo, 'cut at the CA’s end');
});

t.test('a CA loaded from its stored PEMs signs certificates that verify against it', async (t) => {
  const ca = await createCertificateAuthority('stored CA', 1);
  const loaded = await loadAuthority({ certPem: ca.certPem, keyPem: ca.keyPem });
  const pair = await issueCertificate(loaded, { hosts: ['version-policy.garden.svc'], days: 1 });
  const leaf = new X509Certificate(pair.certPem);
  t.ok(leaf.checkIssued(new X509Certificate(ca.certPem)));
  t.ok(leaf.verify(new X509Certificate(ca.certPem).publicKey), 'signed with the stored key');
  t.ok(leaf.checkPrivateKey(createPrivateKey(pair.keyPem)));
  t.equal(leaf.subjectAltName, 'DNS:version-policy.garden.svc');
  await t.rejects(loadAuthority({ certPem: ca.certPem, keyPem: 'not a key' }), 'a garbled key is refused');
});
