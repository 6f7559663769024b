import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import type { Test } from 'tap';
import { ROOT } from '../helpers/helm.js';

const run = promisify(execFile);
const GENERATE = join(ROOT, 'certs/generate.sh');

async function generate(t: Test, args: string[] = [], dir?: string): Promise<string> {
  const out = dir ?? (await mkdtemp(join(tmpdir(), 'vp-certs-')));
  if (!dir) t.teardown(() => rm(out, { recursive: true, force: true }));
  await run(GENERATE, ['-o', out, ...args], { timeout: 120_000 }); // a hang detector: openssl on a loaded machine
  return out;
}

const read = (dir: string, file: string) => readFile(join(dir, file), 'utf8');

/** GET / over TLS on 127.0.0.1, verifying the certificate for `servername` against `ca`. */
function get(port: number, servername: string, ca?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    https
      .get(
        {
          host: '127.0.0.1',
          port,
          path: '/',
          ca,
          servername: servername === '127.0.0.1' ? undefined : servername,
          timeout: 60_000,
        },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve(body));
        },
      )
      .on('error', reject);
  });
}

t.test(
  'a client that trusts the generated CA reaches a server using the certificate, as localhost and as 127.0.0.1',
  async (t) => {
    const dir = await generate(t);
    const server = https.createServer(
      { cert: await read(dir, 'tls.crt'), key: await read(dir, 'tls.key'), minVersion: 'TLSv1.2' },
      (_req, res) => res.end('ok'),
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    t.teardown(() => server.close());
    const { port } = server.address() as AddressInfo;
    const ca = await read(dir, 'ca.crt');
    t.equal(await get(port, 'localhost', ca), 'ok', 'verified as localhost');
    t.equal(await get(port, '127.0.0.1', ca), 'ok', 'verified as 127.0.0.1');
    await t.rejects(
      get(port, 'localhost'),
      /self.signed|unable to verify|certificate/i,
      'a client without the CA refuses it',
    );
    await t.rejects(
      get(port, 'evil.example', ca),
      /altnames|does not match|Hostname/i,
      'a name outside the SANs is refused',
    );
  },
);

t.test('the defaults cover localhost, 127.0.0.1 and the Service names; keys are private', async (t) => {
  const dir = await generate(t, ['-n', 'garden', '-s', 'vp']);
  const leaf = new X509Certificate(await read(dir, 'tls.crt'));
  const ca = new X509Certificate(await read(dir, 'ca.crt'));
  t.equal(
    leaf.subjectAltName,
    'DNS:localhost, IP Address:127.0.0.1, DNS:vp, DNS:vp.garden, DNS:vp.garden.svc, DNS:vp.garden.svc.cluster.local',
  );
  t.ok(ca.ca, 'ca.crt is a CA');
  t.notOk(leaf.ca, 'tls.crt is not');
  t.ok(leaf.verify(ca.publicKey), 'signed by the CA');
  t.match(leaf.keyUsage ?? [], ['1.3.6.1.5.5.7.3.1'], 'for server authentication');
  for (const key of ['ca.key', 'tls.key'])
    t.equal((await stat(join(dir, key))).mode & 0o077, 0, `${key} is readable by its owner only`);
});

t.test('given hosts replace the defaults', async (t) => {
  const dir = await generate(t, ['webhook.example.internal', '10.1.2.3']);
  t.equal(
    new X509Certificate(await read(dir, 'tls.crt')).subjectAltName,
    'DNS:webhook.example.internal, IP Address:10.1.2.3',
  );
});

t.test('re-running renews the serving certificate under the same CA; --new-ca replaces the CA', async (t) => {
  const dir = await generate(t);
  const [ca1, leaf1] = [await read(dir, 'ca.crt'), new X509Certificate(await read(dir, 'tls.crt'))];
  await generate(t, [], dir);
  const [ca2, leaf2] = [await read(dir, 'ca.crt'), new X509Certificate(await read(dir, 'tls.crt'))];
  t.equal(ca2, ca1, 'the CA is kept, so the caBundle stays valid');
  t.not(leaf2.serialNumber, leaf1.serialNumber, 'a new serving certificate');
  t.ok(leaf2.verify(new X509Certificate(ca1).publicKey));
  await generate(t, ['--new-ca'], dir);
  t.not(await read(dir, 'ca.crt'), ca1, 'a new CA');
});

t.test('no private key is tracked by git, and the output directory is ignored', async (t) => {
  const { stdout: tracked } = await run('git', ['ls-files', '--', '*.key', '*-key.pem'], { cwd: ROOT });
  t.equal(tracked, '', 'git tracks no key files');
  // git grep exits 1 when nothing matches: no tracked file holds a PEM private key, whatever its name.
  const pem = await run('git', ['grep', '-lE', '-e', '^-----BEGIN ([A-Z]+ )?PRIVATE KEY-----$'], { cwd: ROOT }).then(
    (r) => r.stdout,
    (err: { code?: number; stdout?: string }) => (err.code === 1 ? '' : `git grep failed: ${String(err.code)}`),
  );
  t.equal(pem, '', 'no tracked file contains a private key');
  const { stdout: ignored } = await run(
    'git',
    ['check-ignore', '--no-index', 'certs/out/tls.key', 'certs/out/ca.key', 'anywhere/else.key'],
    { cwd: ROOT },
  );
  t.same(ignored.trim().split('\n'), ['certs/out/tls.key', 'certs/out/ca.key', 'anywhere/else.key']);
});
