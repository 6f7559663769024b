// The dev default of `serve`: with no certificate files configured, a fresh self-signed CA and a
// serving certificate for localhost/127.0.0.1 are written to a predictable directory, so a new
// user can point `curl --cacert` at the CA. They are served through the same file source (and
// reload path) as production certificates.
// Where: $VERSION_POLICY_DEV_CERT_DIR if set, else the directory `serve` passes (.dev-certs in the
// working directory). A container runs as a non-root user in a read-only /app: when that default
// cannot be written, a fresh directory under the OS temp dir is used instead, and the log says where.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Relative to the working directory; git-ignored. */
export const DEV_CERT_DIR = '.dev-certs';
/** Names the directory explicitly (e.g. a mounted volume in `docker run`); it must be writable. */
export const DEV_CERT_DIR_ENV = 'VERSION_POLICY_DEV_CERT_DIR';
export const DEV_HOSTS = ['localhost', '127.0.0.1', '::1'];

/** Permission errors that mean "this directory is not ours to write", not a fault. */
const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS']);

export interface DevCertificateFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
}

export async function writeDevCertificates(
  defaultDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<DevCertificateFiles> {
  // The X.509 library loads only when a dev certificate is made, not when files are configured.
  const { createDevCertificates } = await import('./self-signed.js');
  const pair = await createDevCertificates({ hosts: DEV_HOSTS, caName: 'version-policy dev CA' });
  const explicit = env[DEV_CERT_DIR_ENV];
  if (explicit) return writeInto(resolve(explicit), pair);
  try {
    return await writeInto(defaultDir, pair);
  } catch (err) {
    if (!NOT_WRITABLE.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
    return writeInto(await mkdtemp(join(tmpdir(), 'version-policy-dev-certs-')), pair);
  }
}

async function writeInto(
  dir: string,
  { ca, serving }: { ca: { certPem: string }; serving: { certPem: string; keyPem: string } },
): Promise<DevCertificateFiles> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const files = { caFile: join(dir, 'ca.crt'), certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') };
  // The CA's private key is never written: nothing else is ever signed with it.
  await writeFile(files.caFile, ca.certPem);
  await writeFile(files.keyFile, serving.keyPem, { mode: 0o600 });
  await writeFile(files.certFile, serving.certPem);
  return files;
}
