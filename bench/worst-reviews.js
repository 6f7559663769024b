// The four worst reviews of issue 34 (items 3 to 5 and 7), as AdmissionReview bodies against a
// realistic profile (bench/fixtures.js's cloudProfile), an NCP on it and Shoots on it:
//   oldProfile  a CloudProfile UPDATE whose oldObject lists 240,000 more versions (about 6 MB)
//   oldNcp      a NamespacedCloudProfile UPDATE whose oldObject claims 200,000 overrides
//   oldShoot    a Shoot UPDATE whose oldObject claims 50,000 worker pools
//   bulkExpiry  the bulk UPDATE operators make: a kubeletVersionConstraint on every image version
//               and every image version but the newest expiring in two days (forecast at admission)
// Used by bench/memory-50k.js and test/faults/memory.faults.ts.
const DAY = 86_400_000;

/** The NamespacedCloudProfile the reviews name: one override of the parent's fourth version. */
export function namespacedProfile(profile, now) {
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'NamespacedCloudProfile',
    metadata: { name: 'team', namespace: 'garden-team' },
    spec: {
      parent: { kind: 'CloudProfile', name: profile.metadata.name },
      kubernetes: {
        versions: [
          {
            version: profile.spec.kubernetes.versions[3].version,
            expirationDate: new Date(now + 400 * DAY).toISOString(),
          },
        ],
      },
    },
  };
}

export function review(operation, object, oldObject, uid = 'worst-review') {
  const o = object ?? oldObject;
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: 'core.gardener.cloud', version: 'v1beta1', kind: o.kind },
      resource: { group: 'core.gardener.cloud', version: 'v1beta1', resource: `${o.kind.toLowerCase()}s` },
      name: o.metadata.name,
      ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
      operation,
      userInfo: { username: 'bench' },
      object: object ?? null,
      oldObject: oldObject ?? null,
    },
  });
}

/** `n` plain Kubernetes versions, none of them the profile's. */
const claimedVersions = (n) =>
  Array.from({ length: n }, (_, i) => ({ version: `0.${i % 1000}.${Math.floor(i / 1000)}` }));

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
