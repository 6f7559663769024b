// The four worst reviews of issue 34 (items 3 to 5 and 7), as AdmissionReview bodies against a
// realistic profile (bench/fixtures.js's cloudProfile), an NCP on it and Shoots on it:
//   oldProfile  a CloudProfile UPDATE whose oldObject lists 240,000 more versions (about 6 MB)
//   oldNcp      a NamespacedCloudProfile UPDATE whose oldObject claims 200,000 overrides
//   oldShoot    a Shoot UPDATE whose oldObject claims 50,000 worker pools
//   bulkExpiry  the bulk UPDATE operators make: a kubeletVersionConstraint on every image version
//               and every image version but the newest expiring in two days (forecast at admission)
// Used by bench/memory-50k.js and test/faults/memory.faults.ts.
import { claimedVersions, namespacedProfile, review as fixtureReview } from './fixtures.js';

const DAY = 86_400_000;
const review = (operation, object, oldObject) =>
  JSON.stringify(fixtureReview({ uid: 'worst-review', operation, object, oldObject }));

/** The four bodies, by name; `shoot` is one Shoot on `profile` as stored (apiVersion and kind set). */
export function worstReviews({ profile, shoot, now }) {
  const clone = (x) => structuredClone(x);
  const ncp = namespacedProfile(profile, now);

  const oldProfile = clone(profile);
  oldProfile.spec.kubernetes.versions = oldProfile.spec.kubernetes.versions.concat(claimedVersions(240_000));

  const oldNcp = clone(ncp);
  // Plain overrides: with an expirationDate each, 200,000 pass the 7 MiB body limit.
  oldNcp.spec.kubernetes.versions = oldNcp.spec.kubernetes.versions.concat(claimedVersions(200_000));

  const oldShoot = clone(shoot);
  const pool = oldShoot.spec.provider.workers[0];
  oldShoot.spec.provider.workers = Array.from({ length: 50_000 }, (_, i) => ({ ...pool, name: `pool-claimed-${i}` }));

  const bulk = clone(profile);
  const inTwoDays = new Date(now + 2 * DAY).toISOString().replace('.000Z', 'Z');
  for (const image of bulk.spec.machineImages) {
    const newest = image.versions.at(-1).version;
    for (const v of image.versions) {
      v.kubeletVersionConstraint = '>= 1.28.0';
      if (v.version !== newest) v.expirationDate = inTwoDays;
    }
  }

  return {
    oldProfile: review('UPDATE', clone(profile), oldProfile),
    oldNcp: review('UPDATE', ncp, oldNcp),
    oldShoot: review('UPDATE', clone(shoot), oldShoot),
    bulkExpiry: review('UPDATE', bulk, clone(profile)),
  };
}
