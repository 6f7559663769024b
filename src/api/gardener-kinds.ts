// The kinds Gardener serves in core.gardener.cloud (v1beta1, and v1 for ControllerDeployment), as
// registered by its API package. A manifest of that group whose kind is none of these is a typo
// (`kind: CloudProfiles`): skipping it as "another kind" would let a broken profile pass unjudged.

export const CORE_GROUP = 'core.gardener.cloud';

export const GARDENER_CORE_KINDS: readonly string[] = [
  'BackupBucket',
  'BackupEntry',
  'CloudProfile',
  'ControllerDeployment',
  'ControllerInstallation',
  'ControllerRegistration',
  'ExposureClass',
  'InternalSecret',
  'NamespacedCloudProfile',
  'Project',
  'Quota',
  'SecretBinding',
  'Seed',
  'Shoot',
  'ShootState',
];

/** The API group of an `apiVersion` (`core.gardener.cloud/v1beta1` → `core.gardener.cloud`, `v1` → ''). */
export function groupOf(apiVersion: unknown): string {
  if (typeof apiVersion !== 'string') return '';
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** Whether Gardener's core group has this kind, or this kind's list (`ShootList`). */
export function isGardenerCoreKind(kind: string): boolean {
  return GARDENER_CORE_KINDS.includes(kind) || GARDENER_CORE_KINDS.includes(kind.replace(/List$/, ''));
}
