// Where a shape's server time goes: `version-policy serve` under --cpu-prof while autocannon loads
// it with one review shape of bench/load.js, then the profile summarised: self time by function
// and by file, and inclusive time of the admission path's stages.
//
//   node bench/profile.js SHAPE [seconds] [--baseline]   (after `npm run build`; SHAPE: a key of load.js)
//
// --baseline profiles the bare Fastify server on the same shape instead: what both servers pay.
//
// The profile covers the server's whole life (start-up included: a 2,000-Shoot state keeps that
// short); the .cpuprofile stays in a temporary directory for Chrome DevTools.
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, scenarios } from './load.js';
import { certificates, startBaseline, startOurs, stop, writeState } from './servers.js';

const baseline = process.argv.includes('--baseline');
const [shape = 'd', seconds = '5'] = process.argv.slice(2).filter((a) => a !== '--baseline');
const { state, reviews } = scenarios();
const sc = reviews[shape];
const certs = await certificates();
// The three profiles and 2,000 of the Shoots.
const stateFile = await writeState(certs.dir, 'state.yaml', state.slice(0, 2003));
const dir = await mkdtemp(join(tmpdir(), 'vp-profile-'));
const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
const ours = baseline ? await startBaseline(certs, { nodeArgs }) : await startOurs(certs, stateFile, { nodeArgs });
let rps;
try {
  const bodyFile = join(certs.dir, 'body.json');
  await writeFile(bodyFile, JSON.stringify(sc.review));
  await client({ mode: 'max', url: ours.url + sc.path, bodyFile, connections: 4, durationS: 2 });
  rps = (await client({ mode: 'max', url: ours.url + sc.path, bodyFile, connections: 4, durationS: Number(seconds) }))
    .rps;
} finally {
  await stop(ours);
}

const file = (await readdir(dir)).find((f) => f.endsWith('.cpuprofile'));
const profile = JSON.parse(await readFile(join(dir, file), 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const selfOf = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
  selfOf.set(id, (selfOf.get(id) ?? 0) + profile.timeDeltas[i]);
  total += profile.timeDeltas[i];
});
const name = (n) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(node_modules|dist)\//, '$1/').replace(/^file:\/\/.*\//, '')}:${n.callFrame.lineNumber + 1}`;
const fileOf = (n) =>
  n.callFrame.url.replace(/^.*\/node_modules\//, 'node_modules/').replace(/^.*\/dist\//, 'dist/') ||
  n.callFrame.functionName;
const self = new Map();
const files = new Map();
const inclusive = new Map();
for (const [id, t] of selfOf) {
  const n = byId.get(id);
  self.set(name(n), (self.get(name(n)) ?? 0) + t);
  files.set(fileOf(n), (files.get(fileOf(n)) ?? 0) + t);
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const k = name(byId.get(cur));
    if (!seen.has(k)) inclusive.set(k, (inclusive.get(k) ?? 0) + t);
    seen.add(k);
  }
}
const top = (m, n, filter = () => true) =>
  [...m]
    .filter(([k]) => filter(k))
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, t]) => `  ${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`)
    .join('\n');
const STAGES =
  /^(parse|decodeBody|admit|evaluate|toPolicyRequest|applyMutatingPath|jsonPatch|encodePatch|onResponse|onRequest|child|LOG|redact|writev|\(garbage collector\)|\(idle\)|serialize) /;
console.log(
  `${baseline ? 'bare baseline, ' : ''}${sc.title}: ${rps.toFixed(0)} req/s under --cpu-prof; ${(total / 1e6).toFixed(1)} s profiled (${file} in ${dir})`,
);
console.log(`Stages (inclusive):\n${top(inclusive, 30, (k) => STAGES.test(k))}`);
console.log(`Self time, top functions:\n${top(self, 15)}`);
console.log(`Self time by file:\n${top(files, 12)}`);
