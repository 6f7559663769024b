// Where `serve` writes its dev certificate. The fallback for an unwritable working directory is
// run for real as the image's non-root user in test/image/production-install.e2e.ts (as root,
// as these tests may run, permission bits do not refuse a write).
import { X509Certificate } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from '../helpers/parts.js';
import { DEV_CERT_DIR_ENV, writeDevCertificates } from '../../src/server/tls/dev-certificates.js';
import { tempDir } from '../helpers/run-cli.js';

t.test('the given directory when it can be written', async (t) => {
  const dir = join(await tempDir(t), '.dev-certs');
  const files = await writeDevCertificates(dir, {});
  t.same(files, { caFile: join(dir, 'ca.crt'), certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') });
  const leaf = new X509Certificate(await readFile(files.certFile));
  t.ok(
    leaf.verify(new X509Certificate(await readFile(files.caFile)).publicKey),
    'the CA signed the serving certificate',
  );
});

t.test(`${DEV_CERT_DIR_ENV} names the directory instead`, async (t) => {
  const base = await tempDir(t);
  const files = await writeDevCertificates(join(base, 'unused'), { [DEV_CERT_DIR_ENV]: join(base, 'mounted') });
  t.equal(files.caFile, join(base, 'mounted', 'ca.crt'));
});

t.test('a failure that is not a permission problem is reported, not worked around', async (t) => {
  const base = await tempDir(t);
  await writeFile(join(base, 'a-file'), '');
  await t.rejects(writeDevCertificates(join(base, 'a-file', 'certs'), {}), { code: 'ENOTDIR' });
});
