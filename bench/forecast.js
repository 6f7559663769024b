// The fleet forecast's cost (after `npm run build`): 10,000 Shoots over three profiles, 180 days,
// the forecast alone (median of 5; issue 28 asks for under 2 s), then reading the same fleet from
// a state file, and `version-policy forecast` end to end. Not part of `npm test` or `npm run bench`.
//
//   node bench/forecast.js [SHOOTS]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadStaticState, staticState } from '../dist/cluster/static-state.js';
import { forecastFleet } from '../dist/policy/forecast/index.js';

const NOW = Date.parse('2026-09-01T00:00:00Z');
const SHOOTS = Number(process.argv[2] ?? 10_000);
const stamp = (days) => new Date(NOW + days * 86_400_000).toISOString().replace('.000Z', 'Z');

// A fixed-seed generator: every run forecasts the same fleet.
let seed = 28;
const rand = (n) => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed % n;
};

/** Kubernetes 1.28–1.34, six patches each, older minors expiring through the horizon; three images, one per strategy. */
function profile(name, shift) {
  const kubernetes = [];
  for (let minor = 28; minor <= 34; minor++) {
    for (let patch = 0; patch < 6; patch++) {
      const old = minor < 32;
      kubernetes.push({ version: `1.${minor}.${patch}`, classification: patch === 5 && minor === 34 ? 'preview' : patch < 4 || old ? 'deprecated' : 'supported', ...(old || patch < 3 ? { expirationDate: stamp((minor - 28) * 30 + patch * 7 + shift) } : {}) });
    }
  }
  const image = (imageName, updateStrategy, majors, extra = {}) => ({
    name: imageName,
    updateStrategy,
    versions: majors.flatMap((major, mi) =>
      [0, 1, 2, 3].map((minor) => ({
        version: `${major}.${minor}.0`,
        classification: minor === 3 ? 'supported' : 'deprecated',
        ...(minor < 3 || mi === 0 ? { expirationDate: stamp(mi * 60 + minor * 20 + shift) } : {}),
        cri: [{ name: 'containerd' }],
        architectures: ['amd64', 'arm64'],
        ...extra,
      })),
    ),
  });
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'CloudProfile',
    metadata: { name },
    spec: {
      type: name,
      kubernetes: { versions: kubernetes },
      machineImages: [image('gardenlinux', 'major', [1443, 1592, 1877]), image('ubuntu', 'minor', [20, 22, 24]), image('suse', 'patch', [15, 16])],
      machineTypes: [{ name: 'm5.large', architecture: 'amd64' }, { name: 'm6g.large', architecture: 'arm64' }],
    },
  };
}

const PROFILES = [profile('aws', 0), profile('gcp', 11), profile('azure', 23)];
const IMAGES = [['gardenlinux', [1443, 1592, 1877]], ['ubuntu', [20, 22, 24]], ['suse', [15, 16]]];

function shoot(i) {
  const minor = 28 + rand(7);
  const version = `1.${minor}.${rand(5)}`;
  const pool = (p) => {
    const [imageName, majors] = IMAGES[rand(IMAGES.length)];
    return {
      name: `pool-${p}`,
      machine: { type: rand(4) === 0 ? 'm6g.large' : 'm5.large', image: { name: imageName, version: `${majors[rand(majors.length)]}.${rand(4)}.0` } },
      ...(p === 1 && rand(3) === 0 ? { kubernetes: { version: `1.${Math.max(28, minor - rand(2))}.${rand(5)}` } } : {}),
    };
  };
  const hour = String(rand(23)).padStart(2, '0');
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: { name: `s${i}`, namespace: `garden-p${i % 200}` },
    spec: {
      cloudProfile: { kind: 'CloudProfile', name: PROFILES[i % 3].metadata.name },
      kubernetes: { version },
      provider: { type: 'x', workers: [pool(0), pool(1)] },
      maintenance: {
        timeWindow: { begin: `${hour}0000+0000`, end: `${hour}3000+0100`.replace(/^(\d\d)3000\+0100$/, (_, h) => `${String((Number(h) + 1) % 24).padStart(2, '0')}0000+0000`) },
        ...(rand(4) === 0 ? { autoUpdate: { kubernetesVersion: false, machineImageVersion: false } } : {}),
      },
    },
  };
}

const objects = [...PROFILES, ...Array.from({ length: SHOOTS }, (_, i) => shoot(i))];
const state = staticState(objects);

const times = [];
let result;
for (let round = 0; round < 5; round++) {
  const start = process.hrtime.bigint();
  result = forecastFleet(state, NOW, 180);
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
}
times.sort((a, b) => a - b);
const events = result.shoots.reduce((n, s) => n + s.events.length, 0);
const failures = result.shoots.reduce((n, s) => n + s.events.filter((e) => e.failure).length, 0);
const traps = result.shoots.reduce((n, s) => n + s.events.filter((e) => e.trap).length, 0);
console.log(`forecast, ${SHOOTS} Shoots over 3 profiles, 180 days: ${events} events (${failures} failures, ${traps} traps)`);
console.log(`  forecastFleet: median ${times[2].toFixed(0)} ms (min ${times[0].toFixed(0)}, max ${times[4].toFixed(0)})`);

// End to end: the CLI on a JSON state file, as an operator runs it, and the part of it that reads
// the state (the YAML composer, shared with check and explain), to show where its time goes.
const dir = mkdtempSync(join(tmpdir(), 'forecast-bench-'));
try {
  const file = join(dir, 'state.json');
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
  let start = process.hrtime.bigint();
  await loadStaticState([file]);
  const loadMs = Number(process.hrtime.bigint() - start) / 1e6;
  const cli = new URL('../dist/cli/main.js', import.meta.url).pathname;
  start = process.hrtime.bigint();
  execFileSync(process.execPath, [cli, 'forecast', '--state', file, '--now', stamp(0), '--output', 'json'], { maxBuffer: 1024 * 1024 * 1024 });
  const cliMs = Number(process.hrtime.bigint() - start) / 1e6;
  console.log(`  loadStaticState of the same fleet as one JSON file: ${loadMs.toFixed(0)} ms`);
  console.log(`  version-policy forecast --output json on that file, end to end: ${cliMs.toFixed(0)} ms`);
  console.log(times[2] < 2000 ? '  the forecast is under the 2 s of issue 28' : '  the forecast is OVER the 2 s of issue 28');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
