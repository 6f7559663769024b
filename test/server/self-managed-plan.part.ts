// The self-managed source's decision, step by step on a virtual clock: what the Secret should hold
// next. Keys and certificates are real (made now, dated on the virtual clock); nothing is faked.
import { X509Certificate } from 'node:crypto';
import t from '../helpers/parts.js';
import type { AuthorityState, Mint, PlanContext, PlanTimes } from '../../src/server/tls/self-managed-state.js';
import {
  DATA_KEYS,
  bundlePem,
  decodeState,
  encodeState,
  fingerprint,
  isSettled,
  plan,
  settle,
  signedBy,
  splitBundle,
} from '../../src/server/tls/self-managed-state.js';
import {
  createCertificateAuthority,
  issueCertificate,
  loadAuthority,
  type CertificatePair,
} from '../../src/server/tls/self-signed.js';

const H = 3_600_000;
const T0 = Date.parse('2026-09-01T00:00:00Z');
const HOSTS = ['webhook', 'webhook.ns', 'webhook.ns.svc', 'webhook.ns.svc.cluster.local'];
const TIMES: PlanTimes = {
  caValidityMs: 100 * H,
  caRenewBeforeMs: 30 * H,
  servingValidityMs: 20 * H,
  servingRenewBeforeMs: 5 * H,
  overlapMs: 10 * H,
  dnsNames: HOSTS,
};

function minter(times: PlanTimes, hosts = times.dnsNames): Mint & { made: { authorities: number; serving: number } } {
  const made = { authorities: 0, serving: 0 };
  return {
    made,
    async authority(now) {
      made.authorities++;
      const ca = await createCertificateAuthority(`test CA ${made.authorities}`, 0, {
        validityMs: times.caValidityMs,
        now,
      });
      return { certPem: ca.certPem, keyPem: ca.keyPem };
    },
    async serving(ca, now, cap) {
      made.serving++;
      return issueCertificate(await loadAuthority(ca), {
        hosts,
        validityMs: times.servingValidityMs,
        now,
        notAfterCap: cap,
      });
    },
  };
}

const empty = (): AuthorityState => ({ bundle: [], settled: {} });
const notAfterOf = (pem: string) => Date.parse(new X509Certificate(pem).validTo);
const fps = (pems: string[]) => pems.map(fingerprint);

function ctx(now: number, mint: Mint, published: string[] = [], times = TIMES): PlanContext {
  return { now, times, published, mint };
}

/** What the source does after a successful publish: new CAs settle `delay` later. */
function published(s: AuthorityState, at: number, delay = 1 * H): AuthorityState {
  const next = { ...s, settled: { ...s.settled } };
  settle(next, at + delay);
  return next;
}

t.test(
  'an empty Secret and nothing published: a CA and a serving certificate it signs; a second plan changes nothing',
  async (t) => {
    const mint = minter(TIMES);
    const { state, changes } = await plan(empty(), ctx(T0, mint));
    t.ok(changes.length > 0);
    t.ok(state.active && state.serving);
    t.same(fps(state.bundle), fps([state.active!.certPem]), 'the bundle is the CA');
    t.ok(signedBy(state.serving!.certPem, state.active!.certPem));
    t.equal(new X509Certificate(state.serving!.certPem).subjectAltName, HOSTS.map((h) => `DNS:${h}`).join(', '));
    t.equal(notAfterOf(state.serving!.certPem), T0 + TIMES.servingValidityMs);
    t.equal(notAfterOf(state.active!.certPem), T0 + TIMES.caValidityMs);
    t.same(state.settled, {}, 'nothing is settled before it is published');
    const again = await plan(state, ctx(T0 + H, mint));
    t.same(again.changes, []);
    t.same(mint.made, { authorities: 1, serving: 1 });
  },
);

t.test('takeover: CAs already published stay in the bundle, settled; the new CA is not', async (t) => {
  const legacy = await createCertificateAuthority('old chart CA', 0, { validityMs: 1000 * H, now: T0 - 500 * H });
  const expired = await createCertificateAuthority('expired CA', 0, { validityMs: H, now: T0 - 10 * H });
  const { state } = await plan(empty(), ctx(T0, minter(TIMES), [legacy.certPem, expired.certPem]));
  t.same(
    fps(state.bundle),
    fps([state.active!.certPem, legacy.certPem]),
    'the new CA first, then the live legacy CA; the expired one is gone',
  );
  t.ok(isSettled(state, legacy.certPem, T0), 'the legacy CA is trusted now');
  t.notOk(isSettled(state, state.active!.certPem, T0), 'the new CA waits for its publication');
  t.equal(state.activeSince, T0);
});

t.test('a garbled Secret is a takeover: its readable CAs and the published ones stay trusted', async (t) => {
  const mint = minter(TIMES);
  const { state: good } = await plan(empty(), ctx(T0, mint));
  const data = encodeState(good);
  data[DATA_KEYS.caKey] = Buffer.from('not a key').toString('base64');
  const { state, changes } = await plan(decodeState(data), ctx(T0 + H, mint, [good.active!.certPem]));
  t.match(changes[0], /unusable/);
  t.not(fingerprint(state.active!.certPem), fingerprint(good.active!.certPem), 'a new CA');
  t.ok(
    state.bundle.some((pem) => fingerprint(pem) === fingerprint(good.active!.certPem)),
    'the old CA is still trusted',
  );
  t.ok(isSettled(state, good.active!.certPem, T0 + H), 'and may keep being served while the new one settles');
});

t.test('the serving certificate renews within servingRenewBefore of its end, under the same CA', async (t) => {
  const mint = minter(TIMES);
  const { state: s0 } = await plan(empty(), ctx(T0, mint));
  const before = await plan(s0, ctx(T0 + 14 * H, mint));
  t.same(before.changes, [], '6 h left: not yet');
  const due = await plan(s0, ctx(T0 + 15 * H, mint));
  t.match(due.changes, [/due for renewal/]);
  t.equal(fingerprint(due.state.active!.certPem), fingerprint(s0.active!.certPem), 'same CA');
  t.same(due.state.bundle, s0.bundle, 'the bundle, and so the caBundle, is unchanged');
  t.ok(signedBy(due.state.serving!.certPem, s0.active!.certPem));
  t.equal(notAfterOf(due.state.serving!.certPem), T0 + 35 * H);
});

t.test('a serving certificate for other names, a foreign signer or a mismatched key is replaced', async (t) => {
  const mint = minter(TIMES);
  const { state: s0 } = await plan(empty(), ctx(T0, mint));
  const otherNames = await minter(TIMES, ['elsewhere.svc']).serving(s0.active!, T0, Infinity);
  const stranger = await createCertificateAuthority('stranger', 0, { validityMs: 100 * H, now: T0 });
  const foreign = await issueCertificate(stranger, { hosts: HOSTS, validityMs: 20 * H, now: T0 });
  const cases: [string, CertificatePair, RegExp][] = [
    ['other names', otherNames, /other hosts/],
    ['a foreign signer', foreign, /not signed by the active CA/],
    ['a mismatched key', { certPem: s0.serving!.certPem, keyPem: foreign.keyPem }, /key does not match/],
  ];
  for (const [what, serving, why] of cases) {
    const { changes, state } = await plan({ ...s0, serving }, ctx(T0 + H, mint));
    t.match(changes, [why], what);
    t.ok(signedBy(state.serving!.certPem, s0.active!.certPem), `${what}: reissued by the active CA`);
  }
});

t.test('a CA rotation: publish beside, switch once settled, retire after the overlap', async (t) => {
  const mint = minter(TIMES);
  let s = published((await plan(empty(), ctx(T0, mint))).state, T0, 0);
  const a = s.active!.certPem;

  const start = T0 + 70 * H; // 30 h left on A: renewal is due
  let p = await plan(s, ctx(start, mint));
  t.match(p.changes, [/CA is due for renewal/, /serving certificate is due/]);
  const b = p.state.next!.certPem;
  t.same(fps(p.state.bundle), fps([a, b]), 'phase 1: both CAs are published');
  t.equal(fingerprint(p.state.active!.certPem), fingerprint(a), 'A still signs');
  t.ok(signedBy(p.state.serving!.certPem, a));
  t.equal(notAfterOf(p.state.serving!.certPem), start + 20 * H, 'a full serving validity still fits into A');
  s = published(p.state, start + 0.1 * H); // B settles at start + 1.1 h

  p = await plan(s, ctx(start + H, mint));
  t.same(p.changes, [], 'not settled yet: nothing switches');

  const sw = start + 1.2 * H;
  p = await plan(s, ctx(sw, mint));
  t.match(p.changes, [/signs from now on/, /not signed by the active CA/]);
  t.equal(fingerprint(p.state.active!.certPem), fingerprint(b), 'phase 2: B signs');
  t.notOk(p.state.next);
  t.ok(signedBy(p.state.serving!.certPem, b));
  t.same(fps(p.state.bundle), fps([b, a]), 'A is still trusted');
  t.equal(p.state.activeSince, sw);
  s = p.state;

  p = await plan(s, ctx(sw + 10 * H - 1000, mint));
  t.same(p.changes, [], 'A stays until the overlap has passed');
  p = await plan(s, ctx(sw + 10 * H, mint));
  t.match(p.changes, [/1 retired or expired CA/]);
  t.same(fps(p.state.bundle), fps([b]), 'phase 3: only B');
  t.same(Object.keys(p.state.settled), fps([b]), 'settled times of dropped CAs go too');
});

t.test('after a takeover the overlap counts from when the new CA settled, not from when it was made', async (t) => {
  const legacy = await createCertificateAuthority('old chart CA', 0, { validityMs: 1000 * H, now: T0 - 500 * H });
  const mint = minter(TIMES);
  const s = (await plan(empty(), ctx(T0, mint, [legacy.certPem]))).state;
  const unsettled = await plan(s, ctx(T0 + 50 * H, mint, [legacy.certPem]));
  t.ok(
    unsettled.state.bundle.some((pem) => fingerprint(pem) === fingerprint(legacy.certPem)),
    'never published: the legacy CA stays however long it takes',
  );
  const settledAt = T0 + 2 * H;
  const s2 = published(s, settledAt - H);
  t.equal((await plan(s2, ctx(settledAt + 10 * H - 1000, mint))).state.bundle.length, 2);
  t.equal((await plan(s2, ctx(settledAt + 10 * H, mint))).state.bundle.length, 1);
});

t.test('a serving certificate cut short by its CA is not renewed on every plan', async (t) => {
  // caRenewBefore shorter than servingValidity (the options refuse this; the plan must still not spin).
  const times = { ...TIMES, caRenewBeforeMs: 4 * H, caValidityMs: 30 * H };
  const mint = minter(times);
  const { state } = await plan(empty(), ctx(T0, mint, [], times));
  const late = published(state, T0, 0);
  const first = await plan(late, ctx(T0 + 20 * H, mint, [], times));
  t.equal(notAfterOf(first.state.serving!.certPem), T0 + 30 * H, 'capped at the CA’s end');
  const count = mint.made.serving;
  const second = await plan(first.state, ctx(T0 + 21 * H, mint, [], times));
  t.equal(mint.made.serving, count, 'no new serving certificate: it would not last longer');
  t.notMatch(second.changes.join(), /serving/);
});

t.test('an unusable next CA is dropped and made again', async (t) => {
  const mint = minter(TIMES);
  const s = (await plan(empty(), ctx(T0, mint))).state;
  const start = T0 + 70 * H;
  const p = await plan(s, ctx(start, mint));
  const broken: AuthorityState = { ...p.state, next: { certPem: p.state.next!.certPem, keyPem: s.active!.keyPem } };
  const again = await plan(broken, ctx(start + 1000, mint));
  t.match(again.changes, [/next CA is unusable/, /due for renewal: a new CA/]);
  t.equal(again.state.bundle.length, 2, 'one next CA, not two');
  t.not(fingerprint(again.state.next!.certPem), fingerprint(p.state.next!.certPem));
});

t.test('the Secret data round-trips, and keys that are not ours are kept', async (t) => {
  const mint = minter(TIMES);
  const s = published((await plan(empty(), ctx(T0, mint))).state, T0);
  const foreign = { 'owner-note': Buffer.from('hello').toString('base64') };
  const data = encodeState(s, { ...foreign, [DATA_KEYS.nextCert]: 'c3RhbGU=' });
  t.equal(data['owner-note'], foreign['owner-note']);
  t.notOk(data[DATA_KEYS.nextCert], 'a key of ours that the state no longer has is removed');
  const back = decodeState(data);
  t.same(back, s);
  t.same(splitBundle(Buffer.from(data[DATA_KEYS.bundle]!, 'base64').toString()), s.bundle);
  t.equal(bundlePem(back), bundlePem(s));
});

t.test('decodeState keeps the active and next CAs in the bundle, whatever a hand-edited bundle says', async (t) => {
  const mint = minter(TIMES);
  const s = (await plan(empty(), ctx(T0, mint))).state;
  const data = encodeState(s);
  data[DATA_KEYS.bundle] = Buffer.from('garbage').toString('base64');
  data[DATA_KEYS.rotation] = Buffer.from('{not json').toString('base64');
  const back = decodeState(data);
  t.same(fps(back.bundle), fps([s.active!.certPem]));
  t.same(back.settled, {});
  t.same(decodeState(undefined), empty());
});
