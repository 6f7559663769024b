// The forecast at admission (rule FORECAST and its warnings): what it adds to evaluate() of a
// profile UPDATE on the generated fleet of bench/fleet.js (10,000 Shoots over three profiles), as
// the same review judged with `forecast.warn: false` and FORECAST off, alternated in one run.
// Issue 28 asks for under 1 ms per review. Not part of `npm test` or `npm run bench`.
//
//   npm run build && node bench/forecast-admission.js [SHOOTS]
import { evaluate } from '../dist/policy/evaluate.js';
import { defaultConfig } from '../dist/config.js';
import { staticState } from '../dist/cluster/static-state.js';
import { fleet, NOW, PROFILES, stamp } from './fleet.js';

const SHOOTS = Number(process.argv[2] ?? 10_000);
const state = staticState(fleet(SHOOTS));
const aws = PROFILES[0];

const withSpec = (spec) => ({ ...aws, spec: { ...aws.spec, ...spec } });
const k8s = aws.spec.kubernetes.versions;
const images = aws.spec.machineImages;
/** The shapes of UPDATE an operator makes, each touching what the forecast reads. */
const SHAPES = {
  'deprecate a supported 1.33 patch': withSpec({
    kubernetes: {
      versions: k8s.map((v) =>
        v.version === '1.33.4' ? { ...v, classification: 'deprecated', expirationDate: stamp(60) } : v,
      ),
    },
  }),
  'add a deprecated 1.34 patch (gardener#13647)': withSpec({
    kubernetes: { versions: [...k8s, { version: '1.34.9', classification: 'deprecated', expirationDate: stamp(200) }] },
  }),
  'bring a 1.30 expiry forward': withSpec({
    kubernetes: { versions: k8s.map((v) => (v.version === '1.30.2' ? { ...v, expirationDate: stamp(3) } : v)) },
  }),
  'add a gardenlinux version': withSpec({
    machineImages: images.map((i) =>
      i.name === 'gardenlinux'
        ? {
            ...i,
            versions: [...i.versions, { ...i.versions.at(-1), version: '1877.4.0', classification: 'deprecated' }],
          }
        : i,
    ),
  }),
};

const on = defaultConfig();
const off = defaultConfig();
off.forecast.warn = false;
off.rules.FORECAST.enabled = false;

const request = (object) => ({
  operation: 'UPDATE',
  kind: 'CloudProfile',
  name: 'aws',
  object,
  oldObject: aws,
  dryRun: false,
});
const timeOf = (req, config, rounds) => {
  const start = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) evaluate(req, { now: NOW, config, state });
  return Number(process.hrtime.bigint() - start) / 1e6 / rounds;
};

console.log(
  `forecast at admission, ${SHOOTS} Shoots over 3 profiles (${state.shootsUsing({ kind: 'CloudProfile', name: 'aws' }).length} on aws)`,
);
for (const [name, object] of Object.entries(SHAPES)) {
  const req = request(object);
  const said = evaluate(req, { now: NOW, config: on, state }).allWarnings.filter((w) =>
    /^(maintenance would move|forced update will fail for|forced update moves within)/.test(w),
  );
  for (let i = 0; i < 20; i++) {
    timeOf(req, on, 1);
    timeOf(req, off, 1);
  }
  const withIt = [];
  const without = [];
  for (let i = 0; i < 15; i++) {
    withIt.push(timeOf(req, on, 5));
    without.push(timeOf(req, off, 5));
  }
  const med = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const [a, b] = [med(withIt), med(without)];
  console.log(
    `  ${name}: ${a.toFixed(3)} ms with the forecast, ${b.toFixed(3)} ms without: +${(a - b).toFixed(3)} ms (×${(a / b).toFixed(2)}); ${said.length} forecast warnings`,
  );
  for (const w of said.slice(0, 2)) console.log(`    ${w.slice(0, 160)}`);
}
