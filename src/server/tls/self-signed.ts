// A certificate authority of our own: a CA and serving certificates signed by it, made with
// WebCrypto (ECDSA P-256). Used for the dev default of `serve`, by the self-managed source (which
// stores them in a Secret and rotates them) and by tests.
// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata API.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;

/**
 * notBefore lies this far in the past (or the whole validity, if shorter): a verifier whose clock
 * runs behind ours (kube-apiserver on another node) must not see a new certificate as "not yet
 * valid". An hour covers any clock that NTP keeps in step.
 */
const BACKDATE_MS = 3_600_000;

export interface CertificatePair {
  certPem: string;
  keyPem: string;
}

export interface DevCertificates {
  ca: CertificatePair;
  serving: CertificatePair;
}

/** A CA that can sign: its certificate and its key pair. */
export interface SigningAuthority {
  keys: CryptoKeyPair;
  cert: x509.X509Certificate;
}

export interface IssueOptions {
  /** DNS names and IP addresses the serving certificate is valid for. */
  hosts?: string[];
  /** Validity in days (default 365); `validityMs` wins. */
  days?: number;
  /** Validity in milliseconds from `now`. */
  validityMs?: number;
  /** Epoch ms the validity counts from (default Date.now()). */
  now?: number;
  /** The certificate never outlives this instant (its CA's notAfter). */
  notAfterCap?: number;
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
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');
}

/** notBefore/notAfter for a certificate valid `validityMs` from `now`, never past `cap`. */
function validity(now: number, validityMs: number, cap = Infinity): { notBefore: Date; notAfter: Date } {
  return {
    notBefore: new Date(now - Math.min(BACKDATE_MS, validityMs)),
    notAfter: new Date(Math.min(now + validityMs, cap)),
  };
}

export async function createCertificateAuthority(
  name = 'version-policy dev CA',
  days = 365,
  opts: { validityMs?: number; now?: number } = {},
): Promise<CertificatePair & SigningAuthority> {
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${name}`,
    ...validity(opts.now ?? Date.now(), opts.validityMs ?? days * DAY_MS),
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

/** A stored CA (certificate and PKCS#8 key, PEM) made ready to sign again. */
export async function loadAuthority(pair: CertificatePair): Promise<SigningAuthority> {
  const cert = new x509.X509Certificate(pair.certPem);
  const privateKey = await webcrypto.subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(pair.keyPem), ALG, true, [
    'sign',
  ]);
  const publicKey = await cert.publicKey.export(ALG, ['verify']);
  return { cert, keys: { privateKey, publicKey } };
}

/** Issues a leaf certificate signed by `ca` for `hosts`. */
export async function issueCertificate(ca: SigningAuthority, opts: IssueOptions = {}): Promise<CertificatePair> {
  const hosts = opts.hosts ?? ['localhost', '127.0.0.1'];
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const usages = [x509.ExtendedKeyUsage.serverAuth, ...(opts.clientAuth ? [x509.ExtendedKeyUsage.clientAuth] : [])];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${hosts[0] ?? 'localhost'}`,
    issuer: ca.cert.subject,
    ...validity(opts.now ?? Date.now(), opts.validityMs ?? (opts.days ?? 365) * DAY_MS, opts.notAfterCap),
    signingKey: ca.keys.privateKey,
    publicKey: keys.publicKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension(usages),
      new x509.SubjectAlternativeNameExtension(
        hosts.map((h) => (isIP(h) ? { type: 'ip', value: h } : { type: 'dns', value: h })),
      ),
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
