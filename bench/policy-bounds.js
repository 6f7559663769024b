// The review shapes of issues 12 and 13, through evaluate() in-process (after `npm run build`):
// a realistic profile whose versions are all plain (60 Kubernetes versions, 8 images × 40), as a
// CREATE and as a label-only UPDATE under the product defaults, with the size of its warnings;
// and N explicitly supported versions of one minor, with the size of the denial.
//
//   node bench/policy-bounds.js [--rounds N]
//
// Standalone: it prints its figures and records nothing (run.js renders RESULTS.md).
import { evaluate } from '../dist/policy/evaluate.js';
import { resolveConfig } from '../dist/config.js';
import { staticState } from '../dist/cluster/static-state.js';
import { formatDenial } from '../dist/policy/rule.js';
import { toPolicyRequest } from '../dist/admission/request.js';
import { alternate, fmt, median, spreadPct, timePerCall } from './stats.js';

const NOW = Date.parse('2026-09-01T00:00:00Z');
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 7;

const image = (name, versions) => ({
  name,
  updateStrategy: 'major',
  versions: versions.map((version) => ({ version, cri: [{ name: 'containerd' }], architectures: ['amd64'] })),
});
const profile = (kubernetes, machineImages) => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'CloudProfile',
  metadata: { name: 'aws' },
  spec: { type: 'aws', kubernetes: { versions: kubernetes }, machineImages, regions: [{ name: 'region-1' }] },
});
const request = (operation, object, oldObject) => ({
  operation,
  kind: 'CloudProfile',
  name: 'aws',
  object,
  ...(oldObject ? { oldObject } : {}),
  dryRun: false,
});

function plainProfile() {
  const kubernetes = [];
  for (let m = 0; m < 10; m++) for (let p = 0; p < 6; p++) kubernetes.push({ version: `1.${25 + m}.${p}` });
  const images = Array.from({ length: 8 }, (_, i) => {
    const versions = [];
    for (let m = 0; m < 10; m++) for (let p = 0; p < 4; p++) versions.push(`${1000 + m}.${p}.0`);
    return image(`image-${i}`, versions);
  });
  return profile(kubernetes, images);
}

const bytes = (ws) => ws.reduce((n, w) => n + Buffer.byteLength(w), 0);
const state = staticState([]);

console.log(
  'Realistic plain profile (60 k8s, 8 × 40 images), product defaults; µs per evaluate(), median of rounds (spread):',
);
const plain = plainProfile();
for (const gate of [false, true]) {
  const config = resolveConfig({ featureGates: { VersionClassificationLifecycle: gate } });
  const reviews = {
    create: () => evaluate(request('CREATE', structuredClone(plain)), { now: NOW, config, state }),
    'label-only update': () => evaluate(request('UPDATE', structuredClone(plain), plain), { now: NOW, config, state }),
  };
  const samples = alternate(reviews, { rounds });
  for (const [name, run] of Object.entries(reviews)) {
    const d = run();
    console.log(
      `  gate ${gate ? 'on ' : 'off'} ${name.padEnd(18)} ${fmt(median(samples[name]))} µs (±${fmt(spreadPct(samples[name]))}%)` +
        `  warnings ${d.warnings.length} (${bytes(d.warnings)} bytes; all ${d.allWarnings.length})  mutated ${d.mutated}`,
    );
  }
}

console.log(
  '\nN versions of one minor, each explicitly supported (SUPPORTED-PER-MINOR), CREATE straight into evaluate():',
);
for (const kind of ['legacy', 'lifecycle']) {
  for (const n of [250, 1_000, 4_000, 10_000]) {
    const versions = Array.from({ length: n }, (_, i) =>
      kind === 'legacy'
        ? { version: `1.30.${i}`, classification: 'supported' }
        : { version: `1.30.${i}`, lifecycle: [{ classification: 'supported' }] },
    );
    const object = profile([{ version: '1.31.0' }, ...versions], [image('gardenlinux', ['1.0.0'])]);
    const gated = resolveConfig({ featureGates: { VersionClassificationLifecycle: kind === 'lifecycle' } });
    const run = () => evaluate(request('CREATE', object), { now: NOW, config: gated, state });
    const d = run();
    const samples = Array.from({ length: rounds }, () => timePerCall(run, 3) / 1000);
    console.log(
      `  ${kind.padEnd(9)} N=${String(n).padEnd(6)} ${fmt(median(samples))} ms  violations ${d.violations.length}  denial ${formatDenial(d.violations).length} characters`,
    );
  }
}

console.log('\nThe same 4,000 through the admission edge (limits, then the schema):');
const over = profile(
  Array.from({ length: 4_000 }, (_, i) => ({ version: `1.30.${i}`, classification: 'supported' })),
  [image('gardenlinux', ['1.0.0'])],
);
const body = JSON.stringify({
  uid: 'u',
  kind: { group: 'core.gardener.cloud', version: 'v1beta1', kind: 'CloudProfile' },
  operation: 'CREATE',
  object: over,
});
const edge = () => toPolicyRequest(JSON.parse(body));
const mapped = edge();
const edgeSamples = Array.from({ length: rounds }, () => timePerCall(edge, 5) / 1000);
console.log(
  `  ${fmt(median(edgeSamples))} ms for JSON.parse and the edge (${Math.round(body.length / 1024)} KiB): ${mapped.outcome}, ${JSON.stringify(mapped.errors ?? [])}`,
);
