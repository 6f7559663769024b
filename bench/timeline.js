// The timeline page's cost (after `npm run build`): the renderer alone against the profile's size
// (it should grow linearly), and a whole /profiles page for a realistic landscape (report + page,
// what the server spends on the event loop per request). Not part of `npm test` or `npm run bench`.
//
//   node bench/timeline.js
import { staticState } from '../dist/cluster/static-state.js';
import { explainProfile } from '../dist/report/profile.js';
import { renderProfilesPage, renderTimelinePage } from '../dist/report/timeline-page.js';
import { resolveWindow } from '../dist/report/window.js';

const NOW = Date.parse('2026-09-01T00:00:00Z');
const WINDOW = resolveWindow(NOW);
const stamp = (days) => new Date(NOW + days * 86_400_000).toISOString().replace('.000Z', 'Z');

function profile(k8sMinors, patches, imageVersions) {
  const kubernetes = [];
  for (let minor = 0; minor < k8sMinors; minor++) {
    for (let patch = 0; patch < patches; patch++) {
      kubernetes.push({
        version: `1.${minor}.${patch}`,
        lifecycle: [
          { classification: 'supported' },
          { classification: 'deprecated', startTime: stamp(patch - 20) },
          { classification: 'expired', startTime: stamp(patch * 3) },
        ],
      });
    }
  }
  const versions = Array.from({ length: imageVersions }, (_, i) => ({
    version: `${1000 + (i % 20)}.${Math.floor(i / 20)}.0`,
    classification: 'deprecated',
    expirationDate: stamp(i % 400),
    cri: [{ name: 'containerd' }],
  }));
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'CloudProfile',
    metadata: { name: 'bench' },
    spec: {
      type: 'x',
      kubernetes: { versions: kubernetes },
      machineImages: [{ name: 'gardenlinux', updateStrategy: 'minor', versions }],
    },
  };
}

function shoots(n, k8sMinors, patches, imageVersions) {
  return Array.from({ length: n }, (_, i) => ({
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: { name: `s${i}`, namespace: `garden-p${i % 50}` },
    spec: {
      cloudProfile: { kind: 'CloudProfile', name: 'bench' },
      kubernetes: { version: `1.${i % k8sMinors}.${i % patches}` },
      maintenance: {
        timeWindow: {
          begin: `${String(i % 24).padStart(2, '0')}0000+0000`,
          end: `${String((i + 1) % 24).padStart(2, '0')}0000+0000`,
        },
      },
      provider: {
        type: 'x',
        workers: [
          {
            name: 'w',
            machine: {
              type: 'm',
              image: { name: 'gardenlinux', version: `${1000 + (i % 20)}.${Math.floor((i % imageVersions) / 20)}.0` },
            },
          },
        ],
      },
    },
  }));
}

/** Median of `rounds` timed runs, after one warm-up. */
function median(rounds, fn) {
  fn();
  const times = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return times.sort((a, b) => a - b)[Math.floor(rounds / 2)];
}

console.log('renderer alone (report built once), by profile size');
console.log('versions    ms      page bytes');
for (const [minors, images] of [
  [20, 0],
  [20, 1000],
  [200, 10_000],
  [2000, 100_000],
]) {
  const p = profile(minors, 50, images);
  const explained = explainProfile(p, staticState([p]), NOW, { until: WINDOW.to });
  let bytes = 0;
  const ms = median(
    5,
    () => (bytes = renderTimelinePage({ profiles: [explained], now: NOW, window: WINDOW, stateKnown: true }).length),
  );
  console.log(`${String(minors * 50 + images).padEnd(10)}  ${ms.toFixed(1).padStart(6)}  ${bytes}`);
}

console.log('\nwhole page (report + render), as GET /profiles/<name> builds it');
console.log('versions  shoots    ms');
for (const [minors, patches, images, n] of [
  [8, 6, 60, 1000],
  [8, 6, 60, 5000],
  [8, 6, 60, 20_000],
  [80, 50, 2000, 1000],
]) {
  const p = profile(minors, patches, images);
  const state = staticState([p, ...shoots(n, minors, patches, images)]);
  const ms = median(5, () => renderProfilesPage([p], state, NOW, WINDOW));
  console.log(`${String(minors * patches + images).padEnd(8)}  ${String(n).padEnd(6)}  ${ms.toFixed(1).padStart(6)}`);
}
