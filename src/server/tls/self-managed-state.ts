// What the self-managed Secret holds, and the one decision every replica makes from it: what the
// Secret should hold next. Pure except for minting keys (injected), so each step of a rotation is a
// table test.
//
// A CA rotation is two-phase, so that kube-apiserver never meets a certificate it does not trust:
//   1. the new CA ("next") joins the bundle beside the current one; serving is unchanged;
//   2. once the bundle with it has been published for propagationDelay ("settled"), it becomes the
//      active CA and signs the serving certificate; the old CA stays in the bundle ("retired");
//   3. a retired CA leaves the bundle once the active CA has served for the overlap.
// A CA found in the webhook configurations at takeover (the old chart mode's, or a CA of ours after
// the Secret was wiped) is treated like a retired one.
import { X509Certificate, createHash, createPrivateKey } from 'node:crypto';
import type { CertificatePair } from './self-signed.js';

/** The Secret's data keys. Other keys in the Secret are left alone. */
export const DATA_KEYS = {
  caCert: 'ca.crt',
  caKey: 'ca.key',
  nextCert: 'next-ca.crt',
  nextKey: 'next-ca.key',
  cert: 'tls.crt',
  key: 'tls.key',
  bundle: 'ca-bundle.crt',
  rotation: 'rotation.json',
} as const;

export interface AuthorityState {
  /** The CA that signs the serving certificate. */
  active?: CertificatePair;
  /** A CA published beside the active one, not signing yet. */
  next?: CertificatePair;
  serving?: CertificatePair;
  /** Every CA kube-apiserver must trust now, one PEM each, the active one first. */
  bundle: string[];
  /** When the active CA started to sign (epoch ms). */
  activeSince?: number;
  /** CA fingerprint → epoch ms from which kube-apiserver can be relied on to trust that CA. */
  settled: Record<string, number>;
}

export interface PlanTimes {
  caValidityMs: number;
  caRenewBeforeMs: number;
  servingValidityMs: number;
  servingRenewBeforeMs: number;
  overlapMs: number;
  dnsNames: string[];
}

export interface Mint {
  authority(now: number): Promise<CertificatePair>;
  serving(ca: CertificatePair, now: number, notAfterCap: number): Promise<CertificatePair>;
}

export interface PlanContext {
  now: number;
  times: PlanTimes;
  /** The CAs in the webhook configurations now, PEM: what kube-apiserver trusts. */
  published: readonly string[];
  mint: Mint;
}

export interface Plan {
  state: AuthorityState;
  /** Why the Secret must change, one line per step; empty when it need not. */
  changes: string[];
}

// --- certificates ----------------------------------------------------------------------------

const parsed = new Map<string, X509Certificate | null>();

/** A PEM certificate parsed once (the same few PEMs are read on every poll); null if it does not parse. */
export function certificate(pem: string): X509Certificate | null {
  let cert = parsed.get(pem);
  if (cert === undefined) {
    try {
      cert = new X509Certificate(pem);
    } catch {
      cert = null;
    }
    // Bounded: a poll sees a handful of PEMs, and a rotation replaces them all.
    if (parsed.size >= 64) parsed.clear();
    parsed.set(pem, cert);
  }
  return cert;
}

/** The certificates in a PEM bundle, each in canonical form; blocks that do not parse are skipped. */
export function splitBundle(text: string): string[] {
  const out: string[] = [];
  for (const block of text.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? []) {
    const cert = certificate(`${block}\n`);
    if (cert) out.push(cert.toString());
  }
  return out;
}

export function fingerprint(pem: string): string {
  return certificate(pem)?.fingerprint256 ?? createHash('sha256').update(pem).digest('hex');
}

const same = (a: string, b: string | undefined) => b !== undefined && fingerprint(a) === fingerprint(b);

/** The PEM text node prints for a certificate, so equal certificates are equal strings. */
const canonical = (pair: CertificatePair): CertificatePair => ({
  certPem: certificate(pair.certPem)?.toString() ?? pair.certPem,
  keyPem: pair.keyPem,
});

export const bundlePem = (s: AuthorityState): string => s.bundle.join('');

const notAfter = (cert: X509Certificate): number => Date.parse(cert.validTo);

function usableAuthority(pair: CertificatePair | undefined, now: number): boolean {
  const cert = pair && certificate(pair.certPem);
  if (!pair || !cert || !cert.ca || notAfter(cert) <= now) return false;
  try {
    return cert.checkPrivateKey(createPrivateKey(pair.keyPem));
  } catch {
    return false;
  }
}

/** Does `ca` (PEM) sign `leaf` (PEM)? */
export function signedBy(leaf: string, ca: string): boolean {
  const l = certificate(leaf);
  const c = certificate(ca);
  return Boolean(l && c && l.checkIssued(c) && l.verify(c.publicKey));
}

function dnsNamesOf(cert: X509Certificate): string {
  return (cert.subjectAltName ?? '')
    .split(', ')
    .filter((n) => n.startsWith('DNS:'))
    .map((n) => n.slice(4))
    .sort()
    .join(',');
}

/** Why the serving pair must be reissued, or undefined if it may stay. */
function servingProblem(s: AuthorityState, ctx: PlanContext): string | undefined {
  const { serving, active } = s;
  if (!serving || !active) return 'no serving certificate';
  const leaf = certificate(serving.certPem);
  if (!leaf) return 'the serving certificate does not parse';
  try {
    if (!leaf.checkPrivateKey(createPrivateKey(serving.keyPem))) return 'the serving key does not match';
  } catch {
    return 'the serving key does not parse';
  }
  if (!signedBy(serving.certPem, active.certPem)) return 'the serving certificate is not signed by the active CA';
  if (dnsNamesOf(leaf) !== [...ctx.times.dnsNames].sort().join(',')) return 'the serving certificate names other hosts';
  const end = notAfter(leaf);
  if (ctx.now < end - ctx.times.servingRenewBeforeMs) return undefined;
  // Renew only to something that lasts longer (X.509 counts whole seconds): a certificate cut short
  // by its CA's end would otherwise be renewed on every poll until the CA rotates.
  const renewed = Math.min(
    ctx.now + ctx.times.servingValidityMs,
    notAfter(certificate(active.certPem) as X509Certificate),
  );
  return renewed > end + 1000 || ctx.now >= end ? 'the serving certificate is due for renewal' : undefined;
}

// --- the plan --------------------------------------------------------------------------------

/** What the Secret should hold at `ctx.now`; `changes` is empty when it already does. */
export async function plan(current: AuthorityState, ctx: PlanContext): Promise<Plan> {
  const { now, times, mint } = ctx;
  const s: AuthorityState = { ...current, bundle: [...current.bundle], settled: { ...current.settled } };
  const changes: string[] = [];

  if (!usableAuthority(s.active, now)) {
    takeOver(s, canonical(await mint.authority(now)), ctx);
    changes.push(
      current.active
        ? 'the stored CA is unusable or expired: a new CA, keeping the published CAs trusted'
        : 'no CA yet: a new CA, keeping the published CAs trusted',
    );
  }
  const active = () => s.active as CertificatePair;
  const activeEnd = () => notAfter(certificate(active().certPem) as X509Certificate);

  if (s.next && !usableAuthority(s.next, now)) {
    s.bundle = s.bundle.filter((pem) => !same(pem, s.next?.certPem));
    delete s.next;
    changes.push('the next CA is unusable: dropped');
  }
  if (!s.next && now >= activeEnd() - times.caRenewBeforeMs) {
    s.next = canonical(await mint.authority(now));
    s.bundle.push(s.next.certPem);
    changes.push('the CA is due for renewal: a new CA joins the bundle');
  }
  if (s.next && isSettled(s, s.next.certPem, now)) {
    s.active = s.next;
    delete s.next;
    s.activeSince = now;
    s.bundle = [
      ...s.bundle.filter((pem) => same(pem, active().certPem)),
      ...s.bundle.filter((pem) => !same(pem, active().certPem)),
    ];
    changes.push('the new CA is trusted everywhere: it signs from now on');
  }
  const kept = s.bundle.filter(
    (pem) => same(pem, active().certPem) || same(pem, s.next?.certPem) || !retired(s, pem, now, times.overlapMs),
  );
  if (kept.length !== s.bundle.length) {
    changes.push(`${s.bundle.length - kept.length} retired or expired CA(s) leave the bundle`);
    s.bundle = kept;
  }
  const why = servingProblem(s, ctx);
  if (why) {
    s.serving = canonical(await mint.serving(active(), now, activeEnd()));
    changes.push(`${why}: a new serving certificate`);
  }
  const members = new Set(s.bundle.map(fingerprint));
  for (const fp of Object.keys(s.settled)) if (!members.has(fp)) delete s.settled[fp];
  return { state: s, changes };
}

/** A new active CA; the published CAs (and the stored bundle) stay trusted as retired ones. */
function takeOver(s: AuthorityState, ca: CertificatePair, ctx: PlanContext): void {
  const live = (pem: string) => {
    const cert = certificate(pem);
    return cert !== null && notAfter(cert) > ctx.now;
  };
  const published = ctx.published.filter(live);
  const previous = new Set(published.map(fingerprint));
  const seen = new Set<string>();
  const retired = [...published, ...s.bundle.filter(live)].filter((pem) => {
    const fp = fingerprint(pem);
    return !seen.has(fp) && seen.add(fp);
  });
  s.active = ca;
  delete s.next;
  delete s.serving;
  s.bundle = [ca.certPem, ...retired];
  s.activeSince = ctx.now;
  // What kube-apiserver trusts now has been published for as long as it matters; the rest waits for
  // its publication like any new CA.
  s.settled = Object.fromEntries(
    retired.filter((pem) => previous.has(fingerprint(pem))).map((pem) => [fingerprint(pem), ctx.now]),
  );
}

function retired(s: AuthorityState, pem: string, now: number, overlapMs: number): boolean {
  const cert = certificate(pem);
  if (!cert || notAfter(cert) <= now) return true;
  const activeSettled = s.active ? s.settled[fingerprint(s.active.certPem)] : undefined;
  if (activeSettled === undefined || activeSettled > now) return false;
  return now >= Math.max(activeSettled, s.activeSince ?? 0) + overlapMs;
}

export function isSettled(s: AuthorityState, pem: string, now: number): boolean {
  const at = s.settled[fingerprint(pem)];
  return at !== undefined && at <= now;
}

/** Marks every bundle member without a time as settled at `at`; false if there was none. */
export function settle(s: AuthorityState, at: number): boolean {
  let changed = false;
  for (const pem of s.bundle) {
    const fp = fingerprint(pem);
    if (s.settled[fp] === undefined) {
      s.settled[fp] = at;
      changed = true;
    }
  }
  return changed;
}

// --- the Secret's data -------------------------------------------------------------------------

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const unb64 = (text: string | undefined) =>
  text === undefined ? undefined : Buffer.from(text, 'base64').toString('utf8');

function pairOf(data: Record<string, string>, cert: string, key: string): CertificatePair | undefined {
  const certPem = unb64(data[cert]);
  const keyPem = unb64(data[key]);
  return certPem && keyPem ? { certPem, keyPem } : undefined;
}

/** Reads the state from a Secret's `data`; what is missing or garbled is left out for the plan to replace. */
export function decodeState(data: Record<string, string> | undefined): AuthorityState {
  const d = data ?? {};
  const s: AuthorityState = { bundle: splitBundle(unb64(d[DATA_KEYS.bundle]) ?? ''), settled: {} };
  const active = pairOf(d, DATA_KEYS.caCert, DATA_KEYS.caKey);
  const next = pairOf(d, DATA_KEYS.nextCert, DATA_KEYS.nextKey);
  const serving = pairOf(d, DATA_KEYS.cert, DATA_KEYS.key);
  if (active) s.active = active;
  if (next) s.next = next;
  if (serving) s.serving = serving;
  try {
    const rotation = JSON.parse(unb64(d[DATA_KEYS.rotation]) ?? '{}') as { activeSince?: unknown; settled?: unknown };
    const since = typeof rotation.activeSince === 'string' ? Date.parse(rotation.activeSince) : NaN;
    if (Number.isFinite(since)) s.activeSince = since;
    if (rotation.settled && typeof rotation.settled === 'object') {
      for (const [fp, at] of Object.entries(rotation.settled as Record<string, unknown>)) {
        const t = typeof at === 'string' ? Date.parse(at) : NaN;
        if (Number.isFinite(t)) s.settled[fp] = t;
      }
    }
  } catch {
    // A garbled rotation.json only loses times: unsettled CAs wait for their publication again.
  }
  // The active and next CAs are always trusted, whatever a hand-edited bundle says.
  for (const pair of [s.next, s.active]) {
    const pem = pair && certificate(pair.certPem)?.toString();
    if (pem && !s.bundle.some((m) => same(m, pem))) s.bundle.unshift(pem);
  }
  return s;
}

/** The Secret's data for `s`, merged over the keys that are not ours. */
export function encodeState(s: AuthorityState, others: Record<string, string> = {}): Record<string, string> {
  const data: Record<string, string> = Object.fromEntries(
    Object.entries(others).filter(([k]) => !(Object.values(DATA_KEYS) as string[]).includes(k)),
  );
  const put = (key: string, text: string | undefined) => {
    if (text !== undefined) data[key] = b64(text);
  };
  put(DATA_KEYS.caCert, s.active?.certPem);
  put(DATA_KEYS.caKey, s.active?.keyPem);
  put(DATA_KEYS.nextCert, s.next?.certPem);
  put(DATA_KEYS.nextKey, s.next?.keyPem);
  put(DATA_KEYS.cert, s.serving?.certPem);
  put(DATA_KEYS.key, s.serving?.keyPem);
  put(DATA_KEYS.bundle, bundlePem(s));
  const iso = (ms: number) => new Date(ms).toISOString();
  put(
    DATA_KEYS.rotation,
    JSON.stringify({
      ...(s.activeSince !== undefined ? { activeSince: iso(s.activeSince) } : {}),
      settled: Object.fromEntries(Object.entries(s.settled).map(([fp, at]) => [fp, iso(at)])),
    }),
  );
  return data;
}
