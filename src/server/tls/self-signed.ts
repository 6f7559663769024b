// A self-managed certificate authority: a CA and a serving certificate signed by it, made with
// WebCrypto (ECDSA P-256). Used for the dev default of `serve` and by tests; production
// certificates come from files (cert-manager, Helm, or certs/generate.sh).
// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata API.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface CertificatePair {
  certPem: string;
  keyPem: string;
}

export interface DevCertificates {
  ca: CertificatePair;
  serving: CertificatePair;
}

export interface IssueOptions {
  /** DNS names and IP addresses the serving certificate is valid for. */
  hosts?: string[];
  /** Validity in days (default 365). */
  days?: number;
  /** Common name of the CA (default "version-policy dev CA"). */
  caName?: string;
  /** Also allow client authentication (for mTLS tests). */
  clientAuth?: boolean;
}

async function keyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString('hex').replace(/^[89a-f]/, '1');
}

export async function createCertificateAuthority(name = 'version-policy dev CA', days = 365): Promise<CertificatePair & { keys: CryptoKeyPair; cert: x509.X509Certificate }> {
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const notBefore = new Date(Date.now() - 60_000);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${name}`,
    notBefore,
    notAfter: new Date(notBefore.getTime() + days * 86_400_000),
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await keyPem(keys.privateKey), keys, cert };
}

/** Issues a leaf certificate signed by `ca` for `hosts`. */
export async function issueCertificate(
  ca: { keys: CryptoKeyPair; cert: x509.X509Certificate },
  opts: IssueOptions = {},
): Promise<CertificatePair> {
  const hosts = opts.hosts ?? ['localhost', '127.0.0.1'];
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const notBefore = new Date(Date.now() - 60_000);
  const usages = [x509.ExtendedKeyUsage.serverAuth, ...(opts.clientAuth ? [x509.ExtendedKeyUsage.clientAuth] : [])];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${hosts[0] ?? 'localhost'}`,
    issuer: ca.cert.subject,
    notBefore,
    notAfter: new Date(notBefore.getTime() + (opts.days ?? 365) * 86_400_000),
    signingKey: ca.keys.privateKey,
    publicKey: keys.publicKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension(usages),
      new x509.SubjectAlternativeNameExtension(hosts.map((h) => (isIP(h) ? { type: 'ip', value: h } : { type: 'dns', value: h }))),
      await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await keyPem(keys.privateKey) };
}

/** A fresh CA and a serving certificate for `hosts`. */
export async function createDevCertificates(opts: IssueOptions = {}): Promise<DevCertificates> {
  const ca = await createCertificateAuthority(opts.caName, opts.days);
  const serving = await issueCertificate(ca, opts);
  return { ca: { certPem: ca.certPem, keyPem: ca.keyPem }, serving };
}
