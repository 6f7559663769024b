// The profile rules stay linear: a large profile (60 Kubernetes versions, 8 images x 40 versions,
// legacy and lifecycle entries mixed) is judged on UPDATE in a fraction of a millisecond. The bound
// is loose (CPU time, shared CI machines); an accidental O(n^2) over all versions would blow it.
import t from 'tap';
import { resolveConfig } from '../../../src/config.js';
import { staticState } from '../../../src/cluster/static-state.js';
import type { RuleContext } from '../../../src/policy/rule.js';
import { RULES } from '../../../src/policy/rules/index.js';
import type { ExpirableVersion, MachineImage } from '../../../src/policy/types.js';
import { cloudProfile, hoursFromNow, NOW, request } from '../../helpers/objects.js';

const MINE = new Set(['K8S-VERSIONS', 'MACHINE-IMAGES', 'CLASSIFICATION', 'LIFECYCLE-ORDER', 'LATEST-NO-EXPIRY', 'SUPPORTED-PER-MINOR', 'PAST-EXPIRATION']);

function largeProfile() {
  const kubernetes: ExpirableVersion[] = [];
  for (let minor = 20; minor < 32; minor++) {
    for (let patch = 0; patch < 5; patch++) {
      const version = `1.${minor}.${patch}`;
      if (patch === 4) kubernetes.push({ version, lifecycle: [{ classification: 'supported' }, { classification: 'deprecated', startTime: hoursFromNow(100 + minor) }] });
      else if (patch % 2) kubernetes.push({ version, classification: 'deprecated', expirationDate: hoursFromNow(-500 + patch) });
      else kubernetes.push({ version, lifecycle: [{ classification: 'deprecated' }, { classification: 'expired', startTime: hoursFromNow(-100 - patch) }] });
    }
  }
  const images: MachineImage[] = [];
  for (let i = 0; i < 8; i++) {
    const versions = [];
    for (let minor = 0; minor < 10; minor++) {
      for (let patch = 0; patch < 4; patch++) {
        const fields = patch === 3 ? { classification: 'supported' } : { classification: 'deprecated', expirationDate: hoursFromNow(-10 * patch) };
        versions.push({ version: `${1500 + minor}.${patch}.0`, cri: [{ name: 'containerd' }], architectures: ['amd64', 'arm64'], kubeletVersionConstraint: '>= 1.26', ...fields });
      }
    }
    images.push({ name: `image-${i}`, updateStrategy: 'major', versions });
  }
  return cloudProfile({ kubernetes, images });
}

t.test('a large profile is judged in well under a millisecond', async (t) => {
  const object = largeProfile();
  const oldObject = structuredClone(object);
  const config = resolveConfig({});
  const ctx: RuleContext = {
    kind: 'CloudProfile',
    operation: 'UPDATE',
    request: request({ operation: 'UPDATE', object, oldObject }),
    now: NOW,
    config,
    lifecycleGate: true,
    state: staticState([]),
    object,
    oldObject,
  };
  const rules = RULES.filter((r) => MINE.has(r.id));
  t.equal(rules.length, MINE.size);
  t.same(rules.flatMap((r) => r.check(ctx)), [], 'the profile is valid');
  for (let i = 0; i < 50; i++) for (const r of rules) r.check(ctx);
  const runs = 200;
  const start = process.cpuUsage();
  for (let i = 0; i < runs; i++) for (const r of rules) r.check(ctx);
  const used = process.cpuUsage(start);
  const perRunMs = (used.user + used.system) / 1000 / runs;
  t.ok(perRunMs < 2, `all seven rules: ${perRunMs.toFixed(3)} ms CPU per request`);
});
