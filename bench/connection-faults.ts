// Issue 34, items 1 and 2: the connection faults (test/faults/connection-attack.ts) against the
// server before the gate's change and after it, alternating in one run. Before: `--before REF`
// (a commit; default 195310e, main before the change) is exported with git archive and built in a
// temporary directory against this tree's node_modules. After: this tree's dist/.
//   npm run bench:connections [-- --before REF --seconds 20]
// Writes bench/results/CONNECTIONS.md, which bench/run.js puts into RESULTS.md.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runScenario, type ScenarioResult } from '../test/faults/connection-attack.js';

const ROOT = new URL('..', import.meta.url).pathname;
const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const BEFORE = arg('before', '195310e');
const SECONDS = Number(arg('seconds', '20'));

const before = mkdtempSync(join(tmpdir(), 'vp-before-'));
const sh = (cmd: string, cwd = ROOT) => execFileSync('sh', ['-c', cmd], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
const beforeSha = sh(`git rev-parse --short ${BEFORE}`).toString().trim();
const afterSha = sh('git rev-parse --short HEAD').toString().trim();
const dirty = sh('git status --porcelain -- src').toString().trim() !== '';
console.log(`building ${beforeSha} in ${before}`);
sh(`git archive ${BEFORE} | tar -x -C ${before}`);
symlinkSync(join(ROOT, 'node_modules'), join(before, 'node_modules'));
sh(`${process.execPath} ${join(ROOT, 'node_modules/typescript/bin/tsc')} -p tsconfig.build.json`, before);

const scenarios = [
  { label: 'Slow bodies: 50 connections, headers sent, body never', kind: 'slow-body' as const },
  {
    label: 'TLS handshake churn: up to 344/s, 100 at once, 8 processes',
    kind: 'churn' as const,
    rate: 344,
    connections: 100,
    processes: 8,
  },
  {
    label: 'TCP churn: up to 1,500/s, 100 at once, no handshake',
    kind: 'tcp-churn' as const,
    rate: 1500,
    connections: 100,
  },
];
const builds = [
  { name: `before (${beforeSha})`, root: before },
  { name: `after (${afterSha}${dirty ? ', uncommitted changes' : ''})`, root: ROOT },
];

const results: { scenario: string; build: string; r: ScenarioResult }[] = [];
try {
  for (const s of scenarios)
    for (const b of builds) {
      console.log(`${s.kind}: ${b.name}`);
      const r = await runScenario({ root: b.root, seconds: SECONDS, ...s });
      results.push({ scenario: s.label, build: b.name, r });
      console.log(JSON.stringify({ ...r.client, failures: r.client.failures.length }), JSON.stringify(r.metrics));
    }
} finally {
  rmSync(before, { recursive: true, force: true });
}

const f0 = (n: number) => Math.round(n).toLocaleString('en');
const counters = (m: Record<string, number>) =>
  [
    ['evicted{state="unused"}', 'unused evicted'],
    ['evicted{state="idle"}', 'idle evicted'],
    ['evicted', 'evicted'],
    ['dropped', 'refused'],
    ['slow_body', 'slow body'],
  ]
    .filter(([k]) => m[k!])
    .map(([k, name]) => `${f0(m[k!]!)} ${name}`)
    .join(', ') || 'none';
const rows = results.map(({ scenario, build, r }) => {
  const reused = r.client.failures.filter((f) => f.reused).length;
  return [
    scenario,
    build,
    `**${r.client.failures.length}** / ${r.client.sent}`,
    String(reused),
    String(r.client.connections),
    `${r.health.failed} / ${r.health.polls}; ${f0(r.health.p99Ms)} / ${f0(r.health.maxMs)} ms`,
    f0(r.cpuMsPerS),
    `${f0(r.attacker.handshakes / r.seconds)}/s`,
    counters(r.metrics),
    `${r.loadavg[0].toFixed(1)} → ${r.loadavg[1].toFixed(1)}`,
  ];
});
const md = [
  '## Connection faults: slow bodies and churn at a cap of 50 (issue 34)',
  '',
  `\`npm run bench:connections\` on ${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores: \`serve\` with the demo state and \`server.maxConnections: 50\`, the build before the change and after it, alternating; ${SECONDS} s of attack each, from attacker processes of their own. The good client behaves like kube-apiserver's: one kept-alive HTTPS connection, a review every 100 ms, a 5 s timeout, no retry (Go's transport and client-go do not retry a POST whose bytes were written). \`/healthz\` is polled on the probe port every 100 ms on a new connection, with the kubelet's 3 s timeout. The server's main-thread CPU is read from \`/proc/<pid>/task/<pid>/schedstat\`. The attack rates are what the attacker reached on the shared machine.`,
  '',
  '| Attack | Server | Good reviews failed / sent | Failed on a kept-alive connection | Client connections opened | `/healthz` failed / polls; p99 / max | Server main-thread CPU (ms/s) | Attack connections | Server counters | Load (1 min) |',
  '|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.join(' | ')} |`),
  '',
];
writeFileSync(new URL('results/CONNECTIONS.md', import.meta.url), md.join('\n'));
console.log(md.join('\n'));
