// TLS: the 1.2 floor, and client certificates required when a client CA is configured.
import https from 'node:https';
import t from 'tap';
import { cloudProfile } from '../helpers/objects.js';
import { authority, request, review, startServer } from '../helpers/server.js';

const body = JSON.stringify(review({ operation: 'CREATE', object: cloudProfile() }));

t.test('TLS 1.2 is accepted and anything older refused', async (t) => {
  const s = await startServer();
  t.teardown(s.close);
  const tls12 = await request(s.port, 'POST', '/validate', body, { ca: s.authority.ca.certPem });
  t.equal(tls12.status, 200);
  const err = await new Promise<Error | undefined>((resolve) => {
    https
      .get({ host: '127.0.0.1', port: s.port, path: '/healthz', ca: s.authority.ca.certPem, agent: false, maxVersion: 'TLSv1.1', minVersion: 'TLSv1' }, () => resolve(undefined))
      .on('error', resolve);
  });
  // Refused by our floor (and by OpenSSL's own defaults); the pinned-1.2 client below shows the floor is not higher.
  t.ok(err, 'a TLS 1.1 client cannot connect');
  const pinned12 = await new Promise<number>((resolve, reject) => {
    https.get({ host: '127.0.0.1', port: s.port, path: '/healthz', ca: s.authority.ca.certPem, agent: false, maxVersion: 'TLSv1.2' }, (res) => resolve(res.statusCode ?? 0)).on('error', reject);
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
  const foreign = await request(s.port, 'POST', '/validate', body, { ca: s.authority.ca.certPem, cert: await stranger.issue(['intruder'], true) }).then(
    () => undefined,
    (e: Error) => e,
  );
  t.ok(foreign, 'a certificate from another CA: refused');
});
