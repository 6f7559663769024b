// SHOOT-NO-DOWNGRADE: on UPDATE the control plane's and the worker pools' Kubernetes versions never
// go down. Like Gardener, a pool with an in-place update strategy may not downgrade its machine
// image either (a replaced node can start from an older image; an updated one cannot).
import type { Rule, ShootContext, Violation } from '../rule.js';
import type { Shoot } from '../types.js';
import { compareVersions, parseVersion } from '../versions.js';
import { judgesShoot, kubeletVersionOf, workerPath, workersByName, workersOf } from './shoot-changes.js';

const RULE = 'SHOOT-NO-DOWNGRADE';
const IN_PLACE = new Set(['AutoInPlaceUpdate', 'ManualInPlaceUpdate']);

export const shootNoDowngrade: Rule = {
  id: RULE,
  appliesTo: (ctx) => judgesShoot(ctx) && ctx.operation === 'UPDATE' && ctx.oldObject !== undefined,
  check: (ctx) => (judgesShoot(ctx) && ctx.oldObject ? checkShoot(ctx, ctx.oldObject) : []),
};

function checkShoot(ctx: ShootContext & { object: Shoot }, old: Shoot): Violation[] {
  const shoot = ctx.object;
  const out: Violation[] = [];
  const from = old.spec.kubernetes.version;
  const to = shoot.spec.kubernetes.version;
  if (lower(to, from)) {
    out.push({ rule: RULE, field: 'spec.kubernetes.version', message: `kubernetes version downgrade is not supported: from "${from}" to "${to}"` });
  }
  const oldPools = workersByName(old);
  workersOf(shoot).forEach((w, i) => {
    const oldW = oldPools.get(w.name);
    if (!oldW) return;
    // A pool without its own version follows the control plane, judged above.
    const version = w.kubernetes?.version;
    const previous = kubeletVersionOf(old, oldW);
    if (version && lower(version, previous)) {
      out.push({
        rule: RULE,
        field: `${workerPath(i)}.kubernetes.version`,
        message: `worker pool "${w.name}": kubernetes version downgrade is not supported: from "${previous}" to "${version}"`,
      });
    }
    const img = w.machine?.image;
    const oldImg = oldW.machine?.image;
    if (IN_PLACE.has(w.updateStrategy ?? '') && img?.version && oldImg?.version && img.name === oldImg.name && lower(img.version, oldImg.version)) {
      out.push({
        rule: RULE,
        field: `${workerPath(i)}.machine.image.version`,
        message: `worker pool "${w.name}": machine image version downgrade is not supported when the update strategy is AutoInPlaceUpdate or ManualInPlaceUpdate: from '${img.name}:${oldImg.version}' to '${img.name}:${img.version}'`,
      });
    }
  });
  return out;
}

/** Unparseable versions are not compared: whether they exist is SHOOT-VERSION-AVAILABLE's call. */
function lower(version: string, than: string): boolean {
  return parseVersion(version) !== undefined && parseVersion(than) !== undefined && compareVersions(version, than) < 0;
}
