// The generated fleet of the forecast benches: three profiles (Kubernetes 1.28–1.34, three images,
// one per update strategy) and Shoots spread over them with a fixed-seed generator, so every run
// judges the same fleet. bench/forecast.js and bench/forecast-admission.js read it.
export const NOW = Date.parse('2026-09-01T00:00:00Z');
export const stamp = (days) => new Date(NOW + days * 86_400_000).toISOString().replace('.000Z', 'Z');

// A fixed-seed generator: every run forecasts the same fleet.
let seed = 28;
const rand = (n) => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed % n;
};

/** Kubernetes 1.28–1.34, six patches each, older minors expiring through the horizon; three images, one per strategy. */
export function profile(name, shift) {
  const kubernetes = [];
  for (let minor = 28; minor <= 34; minor++) {
    for (let patch = 0; patch < 6; patch++) {
      const old = minor < 32;
      kubernetes.push({
        version: `1.${minor}.${patch}`,
        classification: patch === 5 && minor === 34 ? 'preview' : patch < 4 || old ? 'deprecated' : 'supported',
        ...(old || patch < 3 ? { expirationDate: stamp((minor - 28) * 30 + patch * 7 + shift) } : {}),
      });
    }
  }
  const image = (imageName, updateStrategy, majors, extra = {}) => ({
    name: imageName,
    updateStrategy,
    versions: majors.flatMap((major, mi) =>
      [0, 1, 2, 3].map((minor) => ({
        version: `${major}.${minor}.0`,
        classification: minor === 3 ? 'supported' : 'deprecated',
        ...(minor < 3 || mi === 0 ? { expirationDate: stamp(mi * 60 + minor * 20 + shift) } : {}),
        cri: [{ name: 'containerd' }],
        architectures: ['amd64', 'arm64'],
        ...extra,
      })),
    ),
  });
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'CloudProfile',
    metadata: { name },
    spec: {
      type: name,
      kubernetes: { versions: kubernetes },
      machineImages: [
        image('gardenlinux', 'major', [1443, 1592, 1877]),
        image('ubuntu', 'minor', [20, 22, 24]),
        image('suse', 'patch', [15, 16]),
      ],
      machineTypes: [
        { name: 'm5.large', architecture: 'amd64' },
        { name: 'm6g.large', architecture: 'arm64' },
      ],
    },
  };
}

export const PROFILES = [profile('aws', 0), profile('gcp', 11), profile('azure', 23)];
const IMAGES = [
  ['gardenlinux', [1443, 1592, 1877]],
  ['ubuntu', [20, 22, 24]],
  ['suse', [15, 16]],
];

export function shoot(i) {
  const minor = 28 + rand(7);
  const version = `1.${minor}.${rand(5)}`;
  const pool = (p) => {
    const [imageName, majors] = IMAGES[rand(IMAGES.length)];
    return {
      name: `pool-${p}`,
      machine: {
        type: rand(4) === 0 ? 'm6g.large' : 'm5.large',
        image: { name: imageName, version: `${majors[rand(majors.length)]}.${rand(4)}.0` },
      },
      ...(p === 1 && rand(3) === 0 ? { kubernetes: { version: `1.${Math.max(28, minor - rand(2))}.${rand(5)}` } } : {}),
    };
  };
  const hour = String(rand(23)).padStart(2, '0');
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: { name: `s${i}`, namespace: `garden-p${i % 200}` },
    spec: {
      cloudProfile: { kind: 'CloudProfile', name: PROFILES[i % 3].metadata.name },
      kubernetes: { version },
      provider: { type: 'x', workers: [pool(0), pool(1)] },
      maintenance: {
        timeWindow: {
          begin: `${hour}0000+0000`,
          end: `${hour}3000+0100`.replace(
            /^(\d\d)3000\+0100$/,
            (_, h) => `${String((Number(h) + 1) % 24).padStart(2, '0')}0000+0000`,
          ),
        },
        ...(rand(4) === 0 ? { autoUpdate: { kubernetesVersion: false, machineImageVersion: false } } : {}),
      },
    },
  };
}

/** The profiles and `shoots` Shoots, generated from the fixed seed. */
export function fleet(shoots) {
  seed = 28;
  return [...PROFILES, ...Array.from({ length: shoots }, (_, i) => shoot(i))];
}
