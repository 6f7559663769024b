// Where the serving certificate comes from. The server does not care which source it is: it takes
// the current pair at start and applies every change with setSecureContext (cert-manager's
// "certificate source" idea). Two sources: files (cert-manager, a provided Secret, dev certificates
// written to files), and the self-managed CA kept in a Secret through the API.
import { X509Certificate, createHash, createPrivateKey } from 'node:crypto';
import { createSecureContext } from 'node:tls';

/** TLS 1.2 is the floor kube-apiserver and every supported client speak. */
export const MIN_TLS_VERSION = 'TLSv1.2';

export interface TlsMaterial {
  cert: string;
  key: string;
  /** PEM bundle of CAs that client certificates must chain to; requiring one turns on mTLS. */
  clientCA?: string;
  /** SHA-256 of the serving certificate (DER), as a handshake reports it. */
  fingerprint256: string;
  notAfter: string;
  /** The signing CA's notAfter, when the source knows its CA (self-managed). */
  caNotAfter?: string;
  /** Content hash of every file, to tell a real change from a touch. */
  digest: string;
}

export interface CertificateSource {
  /** The last good pair; a source exists only once it has one. */
  current(): TlsMaterial;
  /** Called with each new good pair. */
  onChange(listener: (material: TlsMaterial) => void): void;
  /** Called when changed files could not be used; the last good pair stays. */
  onError(listener: (error: Error) => void): void;
  /** Why kube-apiserver cannot be relied on to trust what is served yet; undefined when it can (or the source cannot tell). */
  notReadyReason?(): string | undefined;
  close(): Promise<void>;
}

export class CertificateError extends Error {
  override name = 'CertificateError';
}

/**
 * Checks a certificate/key pair (and optional client CA) the way a handshake would use it. A pair
 * caught mid-rotation (new certificate, old key) or a truncated file fails here, before it can
 * replace a working context.
 */
export function checkMaterial(cert: string, key: string, clientCA?: string): TlsMaterial {
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(cert);
  } catch (err) {
    throw new CertificateError(`serving certificate is not a PEM certificate: ${(err as Error).message}`);
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch (err) {
    throw new CertificateError(`serving key is not a PEM private key: ${(err as Error).message}`);
  }
  if (!leaf.checkPrivateKey(privateKey))
    throw new CertificateError('serving certificate and key do not belong together');
  if (clientCA !== undefined) {
    try {
      new X509Certificate(clientCA);
    } catch (err) {
      throw new CertificateError(`client CA is not a PEM certificate: ${(err as Error).message}`);
    }
  }
  try {
    createSecureContext(secureContextOptions({ cert, key, ...(clientCA !== undefined ? { clientCA } : {}) }));
  } catch (err) {
    throw new CertificateError(`TLS rejects the certificate files: ${(err as Error).message}`);
  }
  const digest = materialDigest(cert, key, clientCA);
  return {
    cert,
    key,
    ...(clientCA !== undefined ? { clientCA } : {}),
    fingerprint256: leaf.fingerprint256,
    notAfter: new Date(leaf.validTo).toISOString(),
    digest,
  };
}

/** Content hash of the files, to tell a real change from a touch. */
export function materialDigest(cert: string, key: string, clientCA?: string): string {
  return createHash('sha256')
    .update(cert)
    .update('\0')
    .update(key)
    .update('\0')
    .update(clientCA ?? '')
    .digest('hex');
}

/** The secure-context options for a pair; setSecureContext replaces all of them, so they are built in one place. */
export function secureContextOptions(m: { cert: string; key: string; clientCA?: string }) {
  return {
    cert: m.cert,
    key: m.key,
    ...(m.clientCA !== undefined ? { ca: m.clientCA } : {}),
    minVersion: MIN_TLS_VERSION,
  } as const;
}
