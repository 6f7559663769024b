// Realistic inputs for the benchmarks: a production-sized CloudProfile, Shoot populations and
// AdmissionReviews. Deterministic (seeded), so every run measures the same work.
const GV = 'core.gardener.cloud/v1beta1';

/** A small deterministic PRNG (mulberry32), so fixtures are identical across runs. */
export function rng(seed = 42) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const iso = (ms) => new Date(ms).toISOString().replace('.000Z', 'Z');

/**
 * Kubernetes versions: `minors` minors of `patches` patches each, the older ones deprecated with
 * an expiry in the future, the newest plain (as operators write them).
 */
export function kubernetesVersions(count, now) {
  const patches = 6;
  const minors = Math.ceil(count / patches);
  const out = [];
  for (let m = 0; m < minors && out.length < count; m++) {
    for (let p = 0; p < patches && out.length < count; p++) {
      const version = `1.${20 + m}.${p}`;
      const newestPatch = p === patches - 1;
      if (newestPatch) out.push({ version, classification: 'supported' });
      else
        out.push({ version, classification: 'deprecated', expirationDate: iso(now + (30 + m * 7 + p) * 86_400_000) });
    }
  }
  // The highest version must not expire (LATEST-NO-EXPIRY).
  const last = out[out.length - 1];
  delete last.expirationDate;
  last.classification = 'supported';
  return out;
}

export function machineImages(images, versionsPerImage, now) {
  const out = [];
  for (let i = 0; i < images; i++) {
    const versions = [];
    for (let v = 0; v < versionsPerImage; v++) {
      const minor = Math.floor(v / 4);
      const patch = v % 4;
      const newest = patch === 3;
      versions.push({
        version: `${1400 + i * 10}.${minor}.${patch}`,
        ...(newest
          ? { classification: 'supported' }
          : { classification: 'deprecated', expirationDate: iso(now + (60 + v) * 86_400_000) }),
        cri: [{ name: 'containerd', containerRuntimes: [{ type: 'gvisor' }] }],
        architectures: ['amd64', 'arm64'],
        kubeletVersionConstraint: '>= 1.26',
      });
    }
    out.push({ name: `image-${i}`, updateStrategy: i % 3 === 0 ? 'patch' : i % 3 === 1 ? 'minor' : 'major', versions });
  }
  return out;
}

/**
 * A CloudProfile the size of a large production landscape (about 150 KB as JSON by default; most
 * of it machine types and regions, which the rules do not read).
 */
export function cloudProfile({
  name = 'aws',
  k8s = 60,
  images = 8,
  imageVersions = 40,
  machineTypeCount = 700,
  regionCount = 40,
  now,
}) {
  const machineTypes = [];
  for (let i = 0; i < machineTypeCount; i++) {
    machineTypes.push({
      name: `m${5 + (i % 3)}.${['large', 'xlarge', '2xlarge', '4xlarge'][i % 4]}-${i}`,
      cpu: String(2 ** (i % 5)),
      gpu: '0',
      memory: `${8 * (1 + (i % 8))}Gi`,
      architecture: i % 2 ? 'arm64' : 'amd64',
      usable: true,
    });
  }
  const regions = [];
  for (let r = 0; r < regionCount; r++)
    regions.push({
      name: `region-${r}`,
      zones: [{ name: `region-${r}a` }, { name: `region-${r}b` }, { name: `region-${r}c` }],
    });
  return {
    apiVersion: GV,
    kind: 'CloudProfile',
    metadata: { name },
    spec: {
      type: 'aws',
      kubernetes: { versions: kubernetesVersions(k8s, now) },
      machineImages: machineImages(images, imageVersions, now),
      machineTypes,
      regions,
      volumeTypes: [{ name: 'gp3', class: 'standard', usable: true }],
    },
  };
}

/**
 * `count` Shoots on `profile`. Exactly `pinned` of them run `pinnedVersion` (so the users of one
 * version stay fixed while the population grows); the rest spread over the other versions.
 */
export function shoots(profile, count, { pinned = 10, pinnedVersion, seed = 7 } = {}) {
  const random = rng(seed);
  const k8s = profile.spec.kubernetes.versions.map((v) => v.version).filter((v) => v !== pinnedVersion);
  const images = profile.spec.machineImages;
  const out = [];
  for (let i = 0; i < count; i++) {
    const version = i < pinned && pinnedVersion ? pinnedVersion : k8s[Math.floor(random() * k8s.length)];
    const workers = [];
    const pools = 1 + Math.floor(random() * 3);
    for (let w = 0; w < pools; w++) {
      const image = images[Math.floor(random() * images.length)];
      const iv = image.versions[Math.floor(random() * image.versions.length)];
      workers.push({
        name: `pool-${w}`,
        machine: { type: 'm5.large', image: { name: image.name, version: iv.version } },
        minimum: 1,
        maximum: 3,
      });
    }
    out.push({
      apiVersion: GV,
      kind: 'Shoot',
      metadata: { name: `shoot-${i}`, namespace: `garden-project-${i % 500}` },
      spec: {
        cloudProfile: { kind: 'CloudProfile', name: profile.metadata.name },
        kubernetes: { version },
        provider: { type: 'aws', workers },
        maintenance: { timeWindow: { begin: '220000+0000', end: '230000+0000' } },
      },
    });
  }
  return out;
}

/** A profile UPDATE removing `removed` (a Kubernetes version). */
export function removeVersion(profile, removed) {
  const next = structuredClone(profile);
  next.spec.kubernetes.versions = next.spec.kubernetes.versions.filter((v) => v.version !== removed);
  return next;
}

/** A NamespacedCloudProfile of `profile` that moves the expiry of its fourth Kubernetes version. */
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
            expirationDate: new Date(now + 400 * 86_400_000).toISOString(),
          },
        ],
      },
    },
  };
}

/** `n` plain Kubernetes versions that no bench profile lists (what a claimed `oldObject` holds). */
export function claimedVersions(n) {
  return Array.from({ length: n }, (_, i) => ({ version: `0.${i % 1000}.${Math.floor(i / 1000)}` }));
}

/** An AdmissionReview v1 request. */
export function review({ uid, operation, object, oldObject, dryRun = false }) {
  const o = object ?? oldObject;
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: 'core.gardener.cloud', version: 'v1beta1', kind: o.kind },
      resource: { group: 'core.gardener.cloud', version: 'v1beta1', resource: `${o.kind.toLowerCase()}s` },
      requestKind: { group: 'core.gardener.cloud', version: 'v1beta1', kind: o.kind },
      requestResource: { group: 'core.gardener.cloud', version: 'v1beta1', resource: `${o.kind.toLowerCase()}s` },
      name: o.metadata.name,
      ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
      operation,
      userInfo: { username: 'bench', groups: ['system:authenticated'] },
      object: object ?? null,
      oldObject: oldObject ?? null,
      dryRun,
      options: null,
    },
  };
}
