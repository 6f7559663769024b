// Where a pod's service account is mounted. A leaf of its own: reading the namespace from it must
// not load client-node (about 1,000 modules) into a process that never talks to the API server.
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
