import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createDevCertificates } from '../../src/server/tls/self-signed.js';

t.test('a client that trusts the dev CA completes a TLS 1.2+ handshake with the serving certificate', async (t) => {
  const { ca, serving } = await createDevCertificates({ hosts: ['localhost', '127.0.0.1'] });
  const server = https.createServer({ cert: serving.certPem, key: serving.keyPem, minVersion: 'TLSv1.2' }, (_req, res) => res.end('ok'));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const port = (server.address() as AddressInfo).port;
  for (const host of ['127.0.0.1', 'localhost']) {
    const body = await new Promise<string>((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', servername: host === '127.0.0.1' ? undefined : host, port, ca: ca.certPem, path: '/' }, (res) => {
          let data = '';
          res.on('data', (c: Buffer) => (data += c.toString()));
          res.on('end', () => resolve(data));
        })
        .on('error', reject);
    });
    t.equal(body, 'ok', `verified as ${host}`);
  }
  const untrusted = await new Promise<Error>((resolve) => {
    https.get({ host: '127.0.0.1', port, path: '/' }, () => resolve(new Error('connected'))).on('error', resolve);
  });
  t.match(untrusted.message, /self.signed|unable to verify|certificate/i, 'a client without the CA refuses the certificate');
});
