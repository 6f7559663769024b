// The dev default of `serve`: with no certificate files configured, a fresh self-signed CA and a
// serving certificate for localhost/127.0.0.1 are written to a predictable directory, so a new
// user can point `curl --cacert` at the CA. They are served through the same file source (and
// reload path) as production certificates.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Relative to the working directory; git-ignored. */
export const DEV_CERT_DIR = '.dev-certs';
export const DEV_HOSTS = ['localhost', '127.0.0.1', '::1'];

export interface DevCertificateFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
}

export async function writeDevCertificates(dir: string): Promise<DevCertificateFiles> {
  // The X.509 library loads only when a dev certificate is made, not when files are configured.
  const { createDevCertificates } = await import('./self-signed.js');
  const { ca, serving } = await createDevCertificates({ hosts: DEV_HOSTS, caName: 'version-policy dev CA' });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const files = { caFile: join(dir, 'ca.crt'), certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') };
  // The CA's private key is never written: nothing else is ever signed with it.
  await writeFile(files.caFile, ca.certPem);
  await writeFile(files.keyFile, serving.keyPem, { mode: 0o600 });
  await writeFile(files.certFile, serving.certPem);
  return files;
}
