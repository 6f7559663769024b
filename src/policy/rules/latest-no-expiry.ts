// LATEST-NO-EXPIRY: the highest Kubernetes version (semver, every classification) has no
// expirationDate and its lifecycle does not end in `expired`. On CloudProfile CREATE the same
// holds for the highest version that is not unavailable, which becomes the latest once
// gardener-apiserver has dropped the scheduled ones. Machine images are exempt. A
// NamespacedCloudProfile is judged on its merged profile.
import { type FieldViolation, forbidden } from '../../api/field.js';
import { defineRule, WRITES } from '../rule.js';
import type { ExpirableVersion } from '../../api/types.js';
import { classificationAt, hasLifecycle, latestVersion, parseVersion } from '../../gardener/versions.js';
import type { ProfileWrite, Target, VersionList } from './version-lists.js';
import { judgeOwnAndMerged, kubernetesList, PROFILES } from './version-lists.js';

function judgeLatest(list: VersionList, latest: ExpirableVersion, why: string): FieldViolation[] {
  const i = list.versions.indexOf(latest);
  const out: FieldViolation[] = [];
  if (latest.expirationDate !== undefined) {
    out.push(
      forbidden(
        list.path.index(i).child('expirationDate'),
        `expiration date of latest kubernetes version ('${latest.version}') must not be set${why}: remove the expirationDate, or add a higher version first`,
      ),
    );
  }
  const last = hasLifecycle(latest) ? latest.lifecycle!.length - 1 : -1;
  if (last >= 0 && latest.lifecycle![last]!.classification === 'expired') {
    out.push(
      forbidden(
        list.path.index(i).child('lifecycle').index(last),
        `classification expired of latest kubernetes version ('${latest.version}') must not be set${why}: end its lifecycle before the expired stage, or add a higher version first`,
      ),
    );
  }
  return out;
}

function judge(ctx: ProfileWrite, target: Target): FieldViolation[] {
  const list = target.kind === 'NamespacedCloudProfile' ? undefined : kubernetesList(target);
  if (!list) return [];
  // Unparseable entries are K8S-VERSIONS' business; the latest is judged among the rest.
  const parseable = list.versions.filter((v) => parseVersion(v.version));
  const latest = latestVersion(parseable);
  if (!latest) return [];
  const out = judgeLatest(list, latest, '');
  if (
    ctx.operation === 'CREATE' &&
    target.kind === 'CloudProfile' &&
    classificationAt(latest, ctx.now) === 'unavailable'
  ) {
    const available = latestVersion(parseable.filter((v) => classificationAt(v, ctx.now) !== 'unavailable'));
    if (available) {
      const why = ` (${available.version} is the highest version that is not unavailable; gardener-apiserver drops the unavailable higher versions on create, so it becomes the latest)`;
      for (const v of judgeLatest(list, available, why)) out.push(v);
    }
  }
  return out;
}

export const latestNoExpiry = defineRule({
  id: 'LATEST-NO-EXPIRY',
  kinds: PROFILES,
  operations: WRITES,
  summary: 'an expiry on the highest Kubernetes version',
  check: (ctx) => judgeOwnAndMerged(ctx, (t) => judge(ctx, t)),
});
