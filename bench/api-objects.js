// Objects as the API server returns them: full Shoots with metadata, managedFields, status and
// the provider configuration a real landscape has, as items of a LIST page (no apiVersion/kind).
// The informers trim them on arrival; the memory benchmarks measure what remains.
export const K8S = ['1.29.14', '1.30.10', '1.30.11', '1.31.6', '1.31.7', '1.32.2', '1.32.3', '1.33.0'];
const IMAGES = {
  gardenlinux: ['1592.6.0', '1592.7.0', '1877.1.0', '1877.2.0'],
  suse: ['15.6.20250101', '15.6.20250301'],
};
export const PROFILES = ['aws', 'azure', 'gcp', 'openstack', 'alicloud'];
const pick = (list, i) => list[i % list.length];

/** A Shoot as gardener-apiserver returns it in a LIST page (no apiVersion/kind on items). */
export function apiShoot(i) {
  const namespace = `garden-project-${i % 400}`;
  const name = `shoot-${i}`;
  const version = pick(K8S, i);
  const pools = 1 + (i % 3);
  const workers = Array.from({ length: pools }, (_, w) => {
    const imageName = w === 2 ? 'suse' : 'gardenlinux';
    return {
      name: `worker-${w + 1}`,
      ...(w === 1 ? { kubernetes: { version: pick(K8S, i + 7) } } : {}),
      machine: {
        type: pick(['m5.large', 'm5.xlarge', 'c5.2xlarge'], i + w),
        image: { name: imageName, version: pick(IMAGES[imageName], i + w) },
        architecture: 'amd64',
      },
      maximum: 5,
      minimum: 1,
      maxSurge: 1,
      maxUnavailable: 0,
      volume: { type: 'gp3', size: '50Gi' },
      zones: ['eu-west-1a', 'eu-west-1b'],
      cri: { name: 'containerd' },
      systemComponents: { allow: true },
    };
  });
  return {
    metadata: {
      name,
      namespace,
      uid: `3f6c1a2e-${String(i).padStart(4, '0')}-4b1e-9c2a-${String(i).padStart(12, '0')}`,
      resourceVersion: String(1_000_000 + i),
      generation: 12,
      creationTimestamp: '2025-03-01T10:00:00Z',
      labels: { 'shoot.gardener.cloud/status': 'healthy', 'project.gardener.cloud/name': `project-${i % 400}` },
      annotations: {
        'gardener.cloud/created-by': 'someone@example.com',
        'shoot.gardener.cloud/last-successful-reconcile': '2026-08-30T22:10:00Z',
        'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ spec: { kubernetes: { version } } }),
      },
      finalizers: ['gardener'],
      managedFields: [
        {
          manager: 'gardener-dashboard',
          operation: 'Update',
          apiVersion: 'core.gardener.cloud/v1beta1',
          time: '2026-08-01T10:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:spec': { 'f:kubernetes': { 'f:version': {} }, 'f:provider': { 'f:workers': {} } } },
        },
        {
          manager: 'gardenlet',
          operation: 'Update',
          apiVersion: 'core.gardener.cloud/v1beta1',
          time: '2026-08-30T22:10:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:status': { 'f:conditions': {}, 'f:lastOperation': {} } },
          subresource: 'status',
        },
      ],
    },
    spec: {
      cloudProfile: { kind: 'CloudProfile', name: pick(PROFILES, i) },
      cloudProfileName: pick(PROFILES, i),
      region: 'eu-west-1',
      secretBindingName: 'my-secret',
      purpose: 'production',
      addons: { kubernetesDashboard: { enabled: false }, nginxIngress: { enabled: false } },
      dns: { domain: `${name}.${namespace}.shoot.example.com` },
      hibernation: {
        enabled: false,
        schedules: [{ start: '00 20 * * 1,2,3,4,5', end: '00 08 * * 1,2,3,4,5', location: 'Europe/Berlin' }],
      },
      kubernetes: { version, kubeAPIServer: { enableAnonymousAuthentication: false }, kubelet: { failSwapOn: true } },
      networking: {
        type: 'calico',
        pods: '100.96.0.0/11',
        nodes: '10.250.0.0/16',
        services: '100.64.0.0/13',
        ipFamilies: ['IPv4'],
      },
      maintenance: {
        autoUpdate: { kubernetesVersion: true, machineImageVersion: true },
        timeWindow: { begin: '220000+0100', end: '230000+0100' },
      },
      provider: {
        type: 'aws',
        controlPlaneConfig: {
          apiVersion: 'aws.provider.extensions.gardener.cloud/v1alpha1',
          kind: 'ControlPlaneConfig',
        },
        infrastructureConfig: {
          apiVersion: 'aws.provider.extensions.gardener.cloud/v1alpha1',
          kind: 'InfrastructureConfig',
          networks: {
            vpc: { cidr: '10.250.0.0/16' },
            zones: [
              { name: 'eu-west-1a', internal: '10.250.112.0/22', public: '10.250.96.0/22', workers: '10.250.0.0/19' },
            ],
          },
        },
        workers,
        workersSettings: { sshAccess: { enabled: true } },
      },
      seedName: 'aws-eu1',
    },
    status: {
      conditions: [
        'APIServerAvailable',
        'ControlPlaneHealthy',
        'ObservabilityComponentsHealthy',
        'EveryNodeReady',
        'SystemComponentsHealthy',
      ].map((type) => ({
        type,
        status: 'True',
        lastTransitionTime: '2026-08-30T22:10:00Z',
        lastUpdateTime: '2026-08-30T22:10:00Z',
        reason: `${type}Healthy`,
        message: 'All checks passed.',
      })),
      gardener: { id: 'abcdef', name: 'gardener-controller-manager', version: 'v1.120.0' },
      hibernated: false,
      lastOperation: {
        description: 'Shoot cluster has been successfully reconciled.',
        lastUpdateTime: '2026-08-30T22:10:00Z',
        progress: 100,
        state: 'Succeeded',
        type: 'Reconcile',
      },
      observedGeneration: 12,
      seedName: 'aws-eu1',
      technicalID: `shoot--${namespace}--${name}`,
      uid: `3f6c1a2e-${i}`,
      clusterIdentity: `shoot--${namespace}--${name}-3f6c1a2e-garden`,
    },
  };
}

/** apiShoot(i)'s metadata, status and provider settings around a stored Shoot's profile, versions and pools. */
export function apiShootOf(stored, i) {
  const api = apiShoot(i);
  const pool = api.spec.provider.workers[0];
  api.metadata.name = stored.metadata.name;
  api.metadata.namespace = stored.metadata.namespace;
  api.spec.cloudProfile = stored.spec.cloudProfile;
  api.spec.cloudProfileName = stored.spec.cloudProfile.name;
  api.spec.kubernetes.version = stored.spec.kubernetes.version;
  api.spec.provider.workers = stored.spec.provider.workers.map((w) => ({
    ...pool,
    ...w,
    machine: { ...pool.machine, ...w.machine },
  }));
  return api;
}
