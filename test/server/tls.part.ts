// TLS: the 1.2 floor, TLS 1.2 limited to AEAD suites (also after a certificate reload), and client
// certificates required when a client CA is configured.
import https from 'node:https';
import tls from 'node:tls';
import t, { type Test } from '../helpers/parts.js';
import { cloudProfile } from '../helpers/objects.js';
import { authority, request, review, startServer, writeCertFiles, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const body = JSON.stringify(review({ operation: 'CREATE', object: cloudProfile() }));

t.test('TLS 1.2 is accepted and anything older refused', async (t) => {
  const s = await startServer();
  t.teardown(s.close);
  const tls12 = await request(s.port, 'POST', '/validate', body, { ca: s.authority.ca.certPem });
  t.equal(tls12.status, 200);
  const err = await new Promise<Error | undefined>((resolve) => {
    https
      .get(
        {
          host: '127.0.0.1',
          port: s.port,
          path: '/healthz',
          ca: s.authority.ca.certPem,
          agent: false,
          maxVersion: 'TLSv1.1',
          minVersion: 'TLSv1',
        },
        () => resolve(undefined),
      )
      .on('error', resolve);
  });
  // Refused by our floor (and by OpenSSL's own defaults); the pinned-1.2 client below shows the floor is not higher.
  t.ok(err, 'a TLS 1.1 client cannot connect');
  const pinned12 = await new Promise<number>((resolve, reject) => {
    https
      .get(
        {
          host: '127.0.0.1',
          port: s.port,
          path: '/healthz',
          ca: s.authority.ca.certPem,
          agent: false,
          maxVersion: 'TLSv1.2',
        },
        (res) => resolve(res.statusCode ?? 0),
      )
      .on('error', reject);
  });
  t.equal(pinned12, 200, 'a client limited to TLS 1.2 connects');
});

t.test('with a client CA, client certificates are required (mTLS)', async (t) => {
  const s = await startServer({ mtls: true });
  t.teardown(s.close);
  const ok = await s.post('/validate', JSON.parse(body));
  t.equal(ok.status, 200, 'a certificate from the client CA is accepted');

  const anonymous = await request(s.port, 'POST', '/validate', body, { ca: s.authority.ca.certPem }).then(
    () => undefined,
    (e: Error) => e,
  );
  t.ok(anonymous, 'no client certificate: refused');

  const stranger = await authority('untrusted client CA');
  const foreign = await request(s.port, 'POST', '/validate', body, {
    ca: s.authority.ca.certPem,
    cert: await stranger.issue(['intruder'], true),
  }).then(
    () => undefined,
    (e: Error) => e,
  );
  t.ok(foreign, 'a certificate from another CA: refused');
});

/** The suite and protocol a client offering only `ciphers` (at `version`) gets, or the error. */
function handshake(
  s: TestServer,
  version: tls.SecureVersion,
  ciphers?: string,
): Promise<{ ok: boolean; cipher?: string; protocol?: string | null; fingerprint256?: string }> {
  return new Promise((resolve) => {
    const socket = tls.connect(
      {
        host: '127.0.0.1',
        port: s.port,
        ca: s.authority.ca.certPem,
        servername: 'localhost',
        minVersion: version,
        maxVersion: version,
        ...(ciphers ? { ciphers } : {}),
      },
      () => {
        resolve({
          ok: true,
          cipher: socket.getCipher().name,
          protocol: socket.getProtocol(),
          fingerprint256: socket.getPeerCertificate().fingerprint256,
        });
        socket.destroy();
      },
    );
    socket.on('error', () => resolve({ ok: false }));
  });
}

const REFUSED_TLS12 = {
  'CBC with SHA-2': 'ECDHE-ECDSA-AES128-SHA256:ECDHE-ECDSA-AES256-SHA384',
  'CBC with SHA-1': 'ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA',
  'ARIA-GCM': 'ECDHE-ECDSA-ARIA128-GCM-SHA256:ECDHE-ECDSA-ARIA256-GCM-SHA384',
};
const ACCEPTED_TLS12 = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
];

async function checkSuites(t: Test, s: TestServer): Promise<void> {
  for (const [what, ciphers] of Object.entries(REFUSED_TLS12))
    t.equal((await handshake(s, 'TLSv1.2', ciphers)).ok, false, `a TLS 1.2 client offering only ${what} is refused`);
  for (const cipher of ACCEPTED_TLS12)
    t.match(await handshake(s, 'TLSv1.2', cipher), { ok: true, cipher, protocol: 'TLSv1.2' }, `${cipher} is accepted`);
  t.match(await handshake(s, 'TLSv1.3'), { ok: true, protocol: 'TLSv1.3' }, 'TLS 1.3 stays on');
}

t.test(
  'TLS 1.2 offers only ECDHE with AES-GCM or CHACHA20-POLY1305 (Mozilla intermediate), also after a certificate reload',
  async (t) => {
    const s = await startServer({ pollIntervalMs: 50, watch: false });
    t.teardown(s.close);
    const before = await handshake(s, 'TLSv1.3');
    await checkSuites(t, s);
    await writeCertFiles(s.dir, await s.authority.issue());
    await until(
      'the new certificate is served',
      async () => (await handshake(s, 'TLSv1.3')).fingerprint256 !== before.fingerprint256,
      60_000,
      50,
    );
    await checkSuites(t, s);
  },
);
