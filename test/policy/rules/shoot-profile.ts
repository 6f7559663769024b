// The profile every SHOOT-* rule test judges against: one version in each stage, for Kubernetes
// and for one machine image, plus the helpers that shape Shoots beyond what the builder offers.
import type { ExpirableVersion, Shoot, Worker } from '../../../src/api/types.js';
import { cloudProfile, hoursFromNow, image, namespacedProfile } from '../../helpers/objects.js';
import type { Decision } from '../../../src/policy/decision.js';

export const expiredK8s = (version: string): ExpirableVersion => ({
  version,
  classification: 'deprecated',
  expirationDate: hoursFromNow(-48),
});
export const unavailableK8s = (version: string): ExpirableVersion => ({
  version,
  lifecycle: [{ classification: 'preview', startTime: hoursFromNow(24) }],
});

export const AWS = cloudProfile({
  name: 'aws',
  kubernetes: [
    '1.27.3',
    expiredK8s('1.28.5'),
    expiredK8s('1.29.1'),
    { version: '1.29.4', classification: 'deprecated', expirationDate: hoursFromNow(240) },
    { version: '1.30.1', classification: 'deprecated', expirationDate: hoursFromNow(24 * 60) },
    { version: '1.30.2', classification: 'supported' },
    '1.31.0',
    { version: '1.32.0', classification: 'preview' },
    unavailableK8s('1.33.0'),
  ],
  images: [
    image('gardenlinux', [
      { version: '1589.0.0', expirationDate: hoursFromNow(-72) },
      { version: '1590.0.0', expirationDate: hoursFromNow(-48) },
      { version: '1591.0.0', classification: 'deprecated' },
      '1592.0.0',
      '1592.1.0',
      { version: '1593.0.0', classification: 'preview' },
      { version: '1594.0.0', lifecycle: [{ classification: 'supported', startTime: hoursFromNow(24) }] },
      { version: '1595.0.0', kubeletVersionConstraint: '>= 1.31' },
    ]),
    image('suse-chost', ['15.6.0']),
  ],
});

/** Extends 1.28.5 by a month and adds an image version only this namespace has. */
export const NCP = namespacedProfile({
  name: 'team',
  namespace: 'garden-dev',
  parent: 'aws',
  kubernetes: [{ version: '1.28.5', expirationDate: hoursFromNow(24 * 30) }],
  images: [
    {
      name: 'gardenlinux',
      versions: [{ version: '1596.0.0', cri: [{ name: 'containerd' }], architectures: ['amd64'] }],
    },
  ],
});

/** A copy of `s` with pool `name` changed by `patch`. */
export function withWorker(s: Shoot, name: string, patch: Partial<Worker>): Shoot {
  const copy = structuredClone(s);
  copy.spec.provider!.workers = copy.spec.provider!.workers!.map((w) => (w.name === name ? { ...w, ...patch } : w));
  return copy;
}

export function deleting(s: Shoot): Shoot {
  const copy = structuredClone(s);
  copy.metadata.deletionTimestamp = hoursFromNow(-1);
  return copy;
}

/** The violations of one rule, as `field: message` lines. */
export function violationsOf(d: Decision, rule: string): string[] {
  return d.violations.filter((v) => v.rule === rule).map((v) => `${v.field}: ${v.message}`);
}
