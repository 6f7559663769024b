// SHOOT-NO-MINOR-SKIP: the control plane moves at most one minor per update (Kubernetes supports
// no other upgrade); every worker pool's version is at most the control plane's and at most three
// minors behind it (the kubelet version skew policy). Like Gardener, a pool with an in-place update
// strategy may not skip a minor either, since its nodes are upgraded, not replaced.
import { fieldPath, type FieldViolation, forbidden } from '../../api/field.js';
import { defineRule, WRITES } from '../rule.js';
import { beyondKubeletSkew, compareAs, MAX_KUBELET_SKEW_MINORS, parseVersion } from '../../gardener/versions.js';
import {
  deletingUpdate,
  kubeletVersionOf,
  SHOOT,
  type ShootWrite,
  workerPath,
  workersByName,
  workersOf,
} from './shoot-changes.js';

// Built only for a violation: nearly every pool has none.
const versionField = (i: number) => workerPath(i).child('kubernetes', 'version');

const IN_PLACE = new Set(['AutoInPlaceUpdate', 'ManualInPlaceUpdate']);

export const shootNoMinorSkip = defineRule({
  id: 'SHOOT-NO-MINOR-SKIP',
  kinds: SHOOT,
  operations: WRITES,
  summary: 'skipping a minor; worker pools above the control plane or more than three minors behind',
  check: (ctx) => (deletingUpdate(ctx) ? [] : checkShoot(ctx)),
});

function checkShoot(ctx: ShootWrite): FieldViolation[] {
  const shoot = ctx.object;
  const old = ctx.operation === 'UPDATE' ? ctx.oldObject : undefined;
  const out: FieldViolation[] = [];
  const cp = shoot.spec.kubernetes.version;
  if (old && skipsMinor(old.spec.kubernetes.version, shoot.spec.kubernetes.version)) {
    out.push(
      forbidden(
        fieldPath('spec', 'kubernetes', 'version'),
        `kubernetes version upgrade cannot skip a minor version: from "${old.spec.kubernetes.version}" to "${shoot.spec.kubernetes.version}"; upgrade to ${nextMinor(old.spec.kubernetes.version)} first`,
      ),
    );
  }
  const oldPools = workersByName(old);
  workersOf(shoot).forEach((w, i) => {
    const version = w.kubernetes?.version;
    if (!version) return;
    if (compareAs(version, '>', cp)) {
      out.push(
        forbidden(
          versionField(i),
          `worker pool "${w.name}": worker group kubernetes version must not be higher than control plane version: "${version}" > "${shoot.spec.kubernetes.version}"`,
        ),
      );
    } else if (beyondKubeletSkew(version, cp)) {
      out.push(
        forbidden(
          versionField(i),
          `worker pool "${w.name}": worker group kubernetes version must be at most three minor versions behind control plane version: "${version}" is more than ${MAX_KUBELET_SKEW_MINORS} minors behind "${shoot.spec.kubernetes.version}"`,
        ),
      );
    }
    const oldW = oldPools.get(w.name);
    if (old && oldW && IN_PLACE.has(w.updateStrategy ?? '') && skipsMinor(kubeletVersionOf(old, oldW), version)) {
      out.push(
        forbidden(
          versionField(i),
          `worker pool "${w.name}": kubernetes version upgrade cannot skip a minor version when the update strategy is AutoInPlaceUpdate or ManualInPlaceUpdate: from "${kubeletVersionOf(old, oldW)}" to "${version}"`,
        ),
      );
    }
  });
  return out;
}

// Gardener's own reading (validateKubernetesVersionUpdate, validateWorkerGroupAndControlPlaneKubernetesVersion):
// the next minors by IncMinor, compared by CompareVersions (suffixes cut); an unreadable side is
// not judged here, SHOOT-VERSION-AVAILABLE names it.

/** True when `to` is at or above the minor after next of `from`; like Gardener, any major bump counts. */
function skipsMinor(from: string, to: string): boolean {
  const afterNext = parseVersion(from)?.nextMinor()?.nextMinor();
  return afterNext !== undefined && compareAs(to, '>=', afterNext.toString());
}

function nextMinor(version: string): string {
  const v = parseVersion(version);
  return v ? `${v.major}.${v.minor + 1}` : 'the next minor';
}
