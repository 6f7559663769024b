// What the webhook costs a real write: profile UPDATEs and Shoot CREATEs through the real
// kube-apiserver (test/e2e's control plane), with the chart's webhook configurations registered
// and with them removed, in alternating rounds of one run. Reports the write latency with and
// without as a ratio, and kube-apiserver's own
// apiserver_admission_webhook_admission_duration_seconds (p50 and p99 per webhook), the figure
// Kyverno and Gatekeeper publish. Needs the binaries: E2E_BIN=$(test/e2e/build-binaries.sh).
//   npm run bench:apiserver [-- --rounds 6 --writes 100]
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { httpsCall } from '../test/e2e/lib/control-plane.js';
import { startSuite } from '../test/e2e/lib/suite.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const ROUNDS = arg('rounds', 6);
const WRITES = arg('writes', 100);

const loadBefore = loadavg()[0]!;
const out: string[] = [];
const print = (line: string) => {
  out.push(line);
  console.log(line);
};
const suite = await startSuite();
try {
  const { cp, admin } = suite;
  const webhook = await suite.serve({ name: 'bench', tls: 'files', config: { logLevel: 'warn' } });
  await suite.use(webhook);
  await admin.ok(['apply', '-f', '-'], 'apiVersion: v1\nkind: Namespace\nmetadata: {name: garden-bench}\n');

  const api = (method: string, path: string, body?: unknown) =>
    httpsCall(`${cp.server}${path}`, {
      ca: cp.caPem,
      token: cp.adminToken,
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  // A profile of realistic size: 40 Kubernetes versions, 4 images of 20 versions.
  // Per minor, the newest patch supported and the rest deprecated with an expiry (as the policy wants).
  const versions = (n: number, minor0: number) =>
    Array.from({ length: n }, (_, i) => ({
      version: `1.${minor0 + Math.floor(i / 8)}.${i % 8}`,
      ...(i % 8 === 7
        ? { classification: 'supported' }
        : { classification: 'deprecated', expirationDate: '2099-01-01T00:00:00Z' }),
    }));
  const profileSpec = (extra: boolean) => ({
    type: 'aws',
    kubernetes: {
      versions: [...versions(40, 26), ...(extra ? [{ version: '1.40.0', classification: 'preview' }] : [])],
    },
    machineImages: Array.from({ length: 4 }, (_, m) => ({
      name: `image-${m}`,
      updateStrategy: 'major',
      versions: Array.from({ length: 20 }, (_, i) => ({
        version: `${m + 1}.${i}.0`,
        ...(i === 19
          ? { classification: 'supported' }
          : { classification: 'deprecated', expirationDate: '2099-01-01T00:00:00Z' }),
        cri: [{ name: 'containerd' }],
        architectures: ['amd64'],
      })),
    })),
    regions: [{ name: 'eu-west-1' }],
  });
  const created = await api('POST', '/apis/core.gardener.cloud/v1beta1/cloudprofiles', {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'CloudProfile',
    metadata: { name: 'bench' },
    spec: profileSpec(false),
  });
  if (created.status !== 201) throw new Error(`profile create: ${created.status} ${created.body}`);
  let toggle = false;
  let shootN = 0;
  const profileUpdate = async () => {
    const cur = JSON.parse((await api('GET', '/apis/core.gardener.cloud/v1beta1/cloudprofiles/bench')).body) as {
      metadata: Record<string, unknown>;
    };
    toggle = !toggle;
    const t0 = process.hrtime.bigint();
    const res = await api('PUT', '/apis/core.gardener.cloud/v1beta1/cloudprofiles/bench', {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'CloudProfile',
      metadata: cur.metadata,
      spec: profileSpec(toggle),
    });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (res.status !== 200) throw new Error(`profile update: ${res.status} ${res.body}`);
    return ms;
  };
  const shootCreate = async () => {
    const body = {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      metadata: { name: `s-${shootN++}`, namespace: 'garden-bench' },
      spec: {
        cloudProfile: { kind: 'CloudProfile', name: 'bench' },
        kubernetes: { version: '1.30.7' },
        provider: {
          type: 'aws',
          workers: [{ name: 'w', machine: { type: 'm5', image: { name: 'image-0', version: '1.19.0' } } }],
        },
        region: 'eu-west-1',
      },
    };
    const t0 = process.hrtime.bigint();
    const res = await api('POST', '/apis/core.gardener.cloud/v1beta1/namespaces/garden-bench/shoots', body);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (res.status !== 201) throw new Error(`shoot create: ${res.status} ${res.body}`);
    return ms;
  };

  const registered = async (on: boolean) => {
    if (on) await suite.use(webhook);
    else {
      await admin.ok([
        'delete',
        'validatingwebhookconfiguration,mutatingwebhookconfiguration',
        'version-policy',
        '--ignore-not-found',
      ]);
      // Wait until kube-apiserver stops calling: a probe that the webhook would deny passes.
      for (;;) {
        const r = await admin.run(
          ['create', '--dry-run=server', '-f', '-'],
          'apiVersion: core.gardener.cloud/v1beta1\nkind: CloudProfile\nmetadata: {name: probe}\nspec: {type: aws, kubernetes: {versions: [{version: 1.31.2, classification: deprecated, expirationDate: "2000-01-01T00:00:00Z"}]}}\n',
        );
        if (r.code === 0) break;
        await new Promise((res) => setTimeout(res, 200));
      }
    }
  };
  const samples = {
    with: { profile: [] as number[], shoot: [] as number[] },
    without: { profile: [] as number[], shoot: [] as number[] },
  };
  for (let i = 0; i < 20; i++) await profileUpdate(); // warm-up: connections, caches, JIT
  for (let r = 0; r < ROUNDS; r++) {
    const order: ('with' | 'without')[] = r % 2 === 0 ? ['with', 'without'] : ['without', 'with'];
    for (const mode of order) {
      await registered(mode === 'with');
      for (let i = 0; i < WRITES; i++) samples[mode].profile.push(await profileUpdate());
      for (let i = 0; i < WRITES; i++) samples[mode].shoot.push(await shootCreate());
    }
  }

  const q = (xs: number[], p: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  };
  print('## What the webhook costs a real write');
  print('');
  print(
    `\`npm run bench:apiserver\`: the real kube-apiserver ${process.env.E2E_BIN?.match(/kube-(v[\d.]+)/)?.[1] ?? ''} of the end-to-end suite, the chart's webhook configurations registered and removed in ${ROUNDS} alternating rounds of ${WRITES} writes each, over HTTPS from one client; load average ${loadBefore.toFixed(2)} → ${loadavg()[0]!.toFixed(2)}.`,
  );
  print('');
  print('| Write | p50 without | p50 with | Ratio p50 | p99 without | p99 with | Ratio p99 |');
  print('|---|---|---|---|---|---|---|');
  for (const kind of ['profile', 'shoot'] as const) {
    const a = samples.without[kind];
    const b = samples.with[kind];
    print(
      `| ${kind === 'profile' ? 'CloudProfile UPDATE (120 versions)' : 'Shoot CREATE'} | ${q(a, 0.5).toFixed(2)} ms | ${q(b, 0.5).toFixed(2)} ms | ${(q(b, 0.5) / q(a, 0.5)).toFixed(2)} | ${q(a, 0.99).toFixed(2)} ms | ${q(b, 0.99).toFixed(2)} ms | ${(q(b, 0.99) / q(a, 0.99)).toFixed(2)} |`,
    );
  }

  // kube-apiserver's own histogram of each webhook call (admit = mutating, validating), from /metrics.
  const metrics = (await api('GET', '/metrics')).body;
  const buckets = new Map<string, { le: number; count: number }[]>();
  for (const line of metrics.split('\n')) {
    if (!line.startsWith('apiserver_admission_webhook_admission_duration_seconds_bucket{')) continue;
    const name = /name="([^"]+)"/.exec(line)?.[1] ?? '';
    const op = /operation="([^"]+)"/.exec(line)?.[1] ?? '';
    const le = /le="([^"]+)"/.exec(line)?.[1] ?? '';
    const key = `${name} ${op}`;
    const count = Number(line.slice(line.lastIndexOf(' ') + 1));
    const list = buckets.get(key) ?? [];
    const bound = le === '+Inf' ? Infinity : Number(le);
    const same = list.find((b) => b.le === bound);
    if (same) same.count += count;
    else list.push({ le: bound, count });
    buckets.set(key, list);
  }
  // As Prometheus' histogram_quantile: linear within the bucket that holds the rank.
  const hq = (list: { le: number; count: number }[], p: number) => {
    const sorted = [...list].sort((a, b) => a.le - b.le);
    const rank = p * (sorted.at(-1)?.count ?? 0);
    let prev = { le: 0, count: 0 };
    for (const b of sorted) {
      if (b.count >= rank)
        return b.le === Infinity
          ? prev.le
          : prev.le + ((b.le - prev.le) * (rank - prev.count)) / Math.max(1, b.count - prev.count);
      prev = b;
    }
    return NaN;
  };
  print('');
  print(
    "kube-apiserver's own `apiserver_admission_webhook_admission_duration_seconds`, interpolated in its buckets as `histogram_quantile` does:",
  );
  print('');
  print('| Webhook | Operation | Calls | p50 | p99 |');
  print('|---|---|---|---|---|');
  for (const [key, list] of [...buckets].sort()) {
    const [name, op] = key.split(' ');
    const total = Math.max(...list.map((b) => b.count));
    print(
      `| ${name} | ${op} | ${total} | ${(hq(list, 0.5) * 1000).toFixed(2)} ms | ${(hq(list, 0.99) * 1000).toFixed(2)} ms |`,
    );
  }
  // Kept with the recorded runs; bench/run.js puts it into RESULTS.md.
  writeFileSync(new URL('results/APISERVER.md', import.meta.url), `${out.join('\n')}\n`);
} finally {
  await suite.close();
}
