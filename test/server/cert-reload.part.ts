// Certificate rotation without a restart: files replaced under a running server while a client
// keeps sending; no request fails and a new handshake sees the new certificate.
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import t from '../helpers/parts.js';
import { resolveConfig } from '../../src/config.js';
import { createLogger } from '../../src/server/logging.js';
import { startWebhook } from '../../src/server/run.js';
import { issueCertificate } from '../../src/server/tls/self-signed.js';
import { cloudProfile } from '../helpers/objects.js';
import {
  authority,
  request,
  review,
  startServer,
  writeCertFiles,
  type ReviewReply,
  type TestServer,
} from '../helpers/server.js';

const fingerprintOf = (pem: string) => new X509Certificate(pem).fingerprint256;

async function reloads(s: TestServer, result: 'success' | 'failure'): Promise<number> {
  const m = await s.server.metrics.certificateReloads.get();
  return m.values.find((v) => v.labels.result === result)?.value ?? 0;
}

/** Polls `check` until it holds; false after `ms`, generous (test/helpers/until.ts says why). */
async function eventually(check: () => Promise<boolean> | boolean, ms = 60_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await sleep(25);
  }
  return false;
}

t.test('rotation under load: no request fails, a new handshake sees the new certificate', async (t) => {
  const s = await startServer();
  t.teardown(s.close);
  const next = await authority('rotated CA');
  const pair = await next.issue();
  const oldPrint = s.source.current().fingerprint256;
  const cas = [s.authority.ca.certPem, next.ca.certPem];

  const seen = new Set<string>();
  const failures: string[] = [];
  let sent = 0;
  let running = true;
  const client = (async () => {
    while (running) {
      const uid = `u-${sent++}`;
      try {
        const res = await request(
          s.port,
          'POST',
          '/validate',
          JSON.stringify(review({ operation: 'CREATE', object: cloudProfile(), uid })),
          { ca: cas },
        );
        const r = res.json<ReviewReply>().response;
        if (res.status !== 200 || r.uid !== uid || !r.allowed) failures.push(`${uid}: ${res.status} ${res.text}`);
        seen.add(res.fingerprint256);
      } catch (err) {
        failures.push(`${uid}: ${(err as Error).message}`);
      }
    }
  })();

  await eventually(() => sent > 5);
  // Half a rotation: the new certificate next to the old key. The pair check refuses it, and the
  // server keeps handshaking with the last good pair.
  await writeFile(s.certFile, pair.certPem);
  t.ok(await eventually(async () => (await reloads(s, 'failure')) === 1), 'the mismatched pair is reported once');
  const during = sent;
  await eventually(() => sent > during + 5);
  t.equal(s.source.current().fingerprint256, oldPrint, 'still serving the old pair');

  await writeFile(s.keyFile, pair.keyPem);
  const newPrint = fingerprintOf(pair.certPem);
  t.ok(await eventually(() => seen.has(newPrint)), 'a new handshake presents the new certificate');
  const after = sent;
  await eventually(() => sent > after + 5);
  running = false;
  await client;

  t.same(failures, [], `none of ${sent} requests failed`);
  t.ok(seen.has(oldPrint), 'requests before the swap saw the old certificate');
  t.equal(await reloads(s, 'success'), 1);
  t.ok(
    s.logs.some((l) => l.msg === 'serving certificate reloaded' && l.fingerprint256 === newPrint),
    'the reload is logged',
  );
});

t.test('without file events, polling picks up an atomically replaced pair', async (t) => {
  const s = await startServer({ watch: false, pollIntervalMs: 100 });
  t.teardown(s.close);
  const pair = await s.authority.issue();
  // The way a Secret volume or cert-manager's csi driver swaps files: write aside, then rename.
  await writeFile(join(s.dir, 'tls.key.new'), pair.keyPem);
  await writeFile(join(s.dir, 'tls.crt.new'), pair.certPem);
  await rename(join(s.dir, 'tls.key.new'), s.keyFile);
  await rename(join(s.dir, 'tls.crt.new'), s.certFile);
  const want = fingerprintOf(pair.certPem);
  t.ok(await eventually(async () => (await s.get('/healthz')).fingerprint256 === want), 'the polled pair is served');
});

t.test('a truncated certificate file is ignored and reported once, however often it is polled', async (t) => {
  const s = await startServer({ watch: false, pollIntervalMs: 50 });
  t.teardown(s.close);
  const before = s.source.current().fingerprint256;
  const pair = await s.authority.issue();
  // Written aside and renamed: an in-place write can be polled while still empty, which is a second,
  // different broken file.
  await writeFile(join(s.dir, 'tls.crt.new'), pair.certPem.slice(0, pair.certPem.length / 2));
  await rename(join(s.dir, 'tls.crt.new'), s.certFile);
  t.ok(await eventually(async () => (await reloads(s, 'failure')) === 1));
  await sleep(300);
  t.equal(await reloads(s, 'failure'), 1, 'a broken file is one failure, not one per poll');
  const res = await s.get('/healthz');
  t.equal(res.status, 200);
  t.equal(res.fingerprint256, before, 'the last good pair keeps serving');
  t.ok(s.logs.some((l) => l.level === 'warn' && /keeping the last good pair/.test(l.msg)));
});

t.test(
  'version_policy_certificate_expiry_timestamp_seconds follows the served certificate files (serve, file source)',
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'vp-expiry-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const auth = await authority();
    const first = await auth.issue();
    const { certFile, keyFile } = await writeCertFiles(dir, first);
    const config = resolveConfig({
      server: { host: '127.0.0.1', port: 0, probePort: 0, certReloadIntervalSeconds: 0.1, tls: { certFile, keyFile } },
      cluster: { enabled: false },
    });
    const running = await startWebhook({
      config,
      stateFiles: [],
      withoutClusterState: true,
      logger: createLogger('silent'),
      devCertDir: dir,
    });
    t.teardown(() => running.stop(1000));
    const port = Number(new URL(running.url).port);
    const gauge = async (): Promise<Record<string, number>> => {
      const text = (await request(port, 'GET', '/metrics', undefined, { ca: auth.ca.certPem })).text;
      return Object.fromEntries<number>(
        [...text.matchAll(/^version_policy_certificate_expiry_timestamp_seconds\{certificate="(\w+)"\} (\S+)$/gm)].map(
          (m) => [m[1]!, Number(m[2])] as const,
        ),
      );
    };
    const notAfter = (pem: string) => Date.parse(new X509Certificate(pem).validTo) / 1000;
    t.same(
      await gauge(),
      { serving: notAfter(first.certPem) },
      'the served certificate, and no CA series: files do not say which CA signed them',
    );

    const second = await issueCertificate(auth.ca, { hosts: ['localhost', '127.0.0.1'], validityMs: 7_200_000 });
    await writeFile(join(dir, 'tls.key.new'), second.keyPem);
    await writeFile(join(dir, 'tls.crt.new'), second.certPem);
    await rename(join(dir, 'tls.key.new'), keyFile);
    await rename(join(dir, 'tls.crt.new'), certFile);
    t.ok(
      await eventually(async () => (await gauge()).serving === notAfter(second.certPem)),
      'a reload moves it to the new certificate',
    );
    t.not(notAfter(second.certPem), notAfter(first.certPem));
  },
);
