// The three resources the cluster layer reads, and nothing else (the RBAC in
// docs/cluster-state.md and the Helm chart grants get/list/watch on exactly these).
import type { Kind } from '../api/types.js';
import { GROUP_VERSION } from '../api/types.js';

export interface Resource {
  kind: Kind;
  plural: 'cloudprofiles' | 'namespacedcloudprofiles' | 'shoots';
  /** Cluster-wide path: every namespace for namespaced resources. */
  path: string;
}

const path = (plural: string) => `/apis/${GROUP_VERSION}/${plural}`;

export const RESOURCES: readonly Resource[] = [
  { kind: 'CloudProfile', plural: 'cloudprofiles', path: path('cloudprofiles') },
  { kind: 'NamespacedCloudProfile', plural: 'namespacedcloudprofiles', path: path('namespacedcloudprofiles') },
  { kind: 'Shoot', plural: 'shoots', path: path('shoots') },
];
