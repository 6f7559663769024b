// SHOOT-NO-DOWNGRADE: on UPDATE the control plane's and the worker pools' Kubernetes versions never
// go down. Like Gardener, a pool with an in-place update strategy may not downgrade its machine
// image either (a replaced node can start from an older image; an updated one cannot).
import { fieldPath, type FieldViolation, forbidden } from '../../api/field.js';
import { defineRule } from '../rule.js';
import type { Shoot } from '../../api/types.js';
import { compareAs } from '../../gardener/versions.js';
import {
  deletingUpdate,
  kubeletVersionOf,
  SHOOT,
  type ShootWrite,
  workerPath,
  workersByName,
  workersOf,
} from './shoot-changes.js';

const IN_PLACE = new Set(['AutoInPlaceUpdate', 'ManualInPlaceUpdate']);

export const shootNoDowngrade = defineRule({
  id: 'SHOOT-NO-DOWNGRADE',
  kinds: SHOOT,
  operations: ['UPDATE'],
  summary: 'a Kubernetes version that goes down',
  check: (ctx) => (ctx.oldObject && !deletingUpdate(ctx) ? checkShoot(ctx, ctx.oldObject) : []),
});

function checkShoot(ctx: ShootWrite, old: Shoot): FieldViolation[] {
  const shoot = ctx.object;
  const out: FieldViolation[] = [];
  const from = old.spec.kubernetes.version;
  const to = shoot.spec.kubernetes.version;
  if (lower(to, from)) {
    out.push(
      forbidden(
        fieldPath('spec', 'kubernetes', 'version'),
        `kubernetes version downgrade is not supported: from "${from}" to "${to}"`,
      ),
    );
  }
  const oldPools = workersByName(old);
  workersOf(shoot).forEach((w, i) => {
    const oldW = oldPools.get(w.name);
    if (!oldW) return;
    // A pool without its own version follows the control plane, judged above.
    const version = w.kubernetes?.version;
    const previous = kubeletVersionOf(old, oldW);
    if (version && lower(version, previous)) {
      out.push(
        forbidden(
          workerPath(i).child('kubernetes', 'version'),
          `worker pool "${w.name}": kubernetes version downgrade is not supported: from "${previous}" to "${version}"`,
        ),
      );
    }
    const img = w.machine?.image;
    const oldImg = oldW.machine?.image;
    if (
      IN_PLACE.has(w.updateStrategy ?? '') &&
      img?.version &&
      oldImg?.version &&
      img.name === oldImg.name &&
      lower(img.version, oldImg.version)
    ) {
      out.push(
        forbidden(
          workerPath(i).child('machine', 'image', 'version'),
          `worker pool "${w.name}": machine image version downgrade is not supported when the update strategy is AutoInPlaceUpdate or ManualInPlaceUpdate: from '${img.name}:${oldImg.version}' to '${img.name}:${img.version}'`,
        ),
      );
    }
  });
  return out;
}

/**
 * Gardener's `CompareVersions(new, "<", old)`: suffixes cut (`1.2.3-b` is not below `1.2.3-a`).
 * Unparseable versions are not compared: whether they exist is SHOOT-VERSION-AVAILABLE's call.
 */
function lower(version: string, than: string): boolean {
  return compareAs(version, '<', than);
}
