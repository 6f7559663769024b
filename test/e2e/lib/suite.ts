// What the kube-apiserver suite shares: a control plane with the CRDs, the chart's identity, and
// helpers to switch which webhook process the chart's configurations point at.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { startControlPlane, waitFor, type ControlPlane } from './control-plane.js';
import { Kubectl } from './kubectl.js';
import {
  installIdentity,
  pointedAt,
  renderChart,
  ROOT,
  serve,
  type K8sObject,
  type Rendered,
  type ServeOptions,
  type WebhookProcess,
} from './webhook.js';

/** A user the chart's matchConditions exempt (gardener-controller-manager): its writes reach no webhook. */
export const EXEMPT_USER = 'system:serviceaccount:garden:gardener-controller-manager';

export interface Suite {
  cp: ControlPlane;
  admin: Kubectl;
  /** The admin, impersonating EXEMPT_USER: sets up state without the webhook judging it. */
  exempt: Kubectl;
  rendered: Rendered;
  webhookKubeconfig: string;
  serve(opts: Omit<ServeOptions, 'cp' | 'rendered' | 'kubeconfig'>): Promise<WebhookProcess>;
  /** Points the chart's webhook configurations at `w` (url) and waits until kube-apiserver calls it. */
  use(w: WebhookProcess): Promise<void>;
  /** Deletes every profile, NamespacedCloudProfile and Shoot (as EXEMPT_USER: no webhook is asked). */
  reset(): Promise<void>;
  /** Creates the objects as EXEMPT_USER with `kubectl apply` (namespaces first). */
  seed(objects: readonly K8sObject[]): Promise<void>;
  /** Waits until `w`'s informer caches hold exactly these numbers of objects per kind. */
  cached(
    w: WebhookProcess,
    counts: Partial<Record<'CloudProfile' | 'NamespacedCloudProfile' | 'Shoot', number>>,
  ): Promise<void>;
  close(): Promise<void>;
}

/** A profile every webhook of the chart denies (PAST-EXPIRATION): written with --dry-run=server to see who answers. */
export const PROBE_PROFILE = {
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'CloudProfile',
  metadata: { name: 'e2e-probe' },
  spec: {
    type: 'aws',
    kubernetes: {
      versions: [{ version: '1.31.2', classification: 'deprecated', expirationDate: '2000-01-01T00:00:00Z' }],
    },
    machineImages: [
      {
        name: 'gardenlinux',
        updateStrategy: 'major',
        versions: [
          { version: '1592.1.0', classification: 'supported', cri: [{ name: 'containerd' }], architectures: ['amd64'] },
        ],
      },
    ],
    regions: [{ name: 'r' }],
  },
};

/** `chart`: --set values the chart is rendered with (its RBAC, config and webhook configurations). */
export async function startSuite(opts: { chart?: readonly string[] } = {}): Promise<Suite> {
  const dir = await mkdtemp(join(tmpdir(), 'version-policy-e2e-'));
  let cp: ControlPlane;
  try {
    cp = await startControlPlane(dir);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const admin = new Kubectl(cp.adminKubeconfig);
  const exempt = admin.as(EXEMPT_USER);
  const crds = await readFile(join(ROOT, 'test/e2e/manifests/crds.yaml'), 'utf8');
  await admin.ok(['apply', '-f', '-'], crds);
  await admin.ok([
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd/cloudprofiles.core.gardener.cloud',
    'crd/namespacedcloudprofiles.core.gardener.cloud',
    'crd/shoots.core.gardener.cloud',
  ]);
  // gardener-controller-manager may write anything of Gardener's; here it sets up and clears state.
  await admin.ok([
    'create',
    'clusterrolebinding',
    'e2e-exempt-user',
    '--clusterrole=cluster-admin',
    `--user=${EXEMPT_USER}`,
  ]);
  const rendered = await renderChart(opts.chart);
  const webhookKubeconfig = await installIdentity(admin, cp, rendered);
  const started: WebhookProcess[] = [];

  const suite: Suite = {
    cp,
    admin,
    exempt,
    rendered,
    webhookKubeconfig,
    async serve(opts) {
      const w = await serve({ ...opts, cp, rendered, kubeconfig: webhookKubeconfig });
      started.push(w);
      return w;
    },
    async use(w) {
      const res = await admin.apply(pointedAt(rendered, w.base, cp.caBundle));
      if (res.code !== 0) throw new Error(`webhook configurations did not apply: ${res.stderr}`);
      // kube-apiserver reads webhook configurations through an informer: wait until a probe write reaches `w`.
      await waitFor(
        `kube-apiserver calls ${w.base}`,
        async () => {
          const before = await w.sample('version_policy_admission_requests_total');
          await admin.create([PROBE_PROFILE], ['--dry-run=server']);
          return (await w.sample('version_policy_admission_requests_total')) > before;
        },
        30_000,
        200,
      );
    },
    async reset() {
      await exempt.ok(['delete', 'shoots,namespacedcloudprofiles', '--all', '--all-namespaces', '--wait=true']);
      await exempt.ok(['delete', 'cloudprofiles', '--all', '--wait=true']);
    },
    async seed(objects) {
      const namespaces = [
        ...new Set(objects.map((o) => o.metadata.namespace).filter((n): n is string => n !== undefined)),
      ];
      if (namespaces.length > 0)
        await admin.ok(
          ['apply', '-f', '-'],
          namespaces.map((n) => `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${n}}\n`).join('---\n'),
        );
      if (objects.length === 0) return;
      const res = await exempt.apply(objects);
      if (res.code !== 0) throw new Error(`seeding the state failed: ${res.stderr}`);
    },
    async cached(w, counts) {
      await waitFor(
        `informer caches hold ${JSON.stringify(counts)}`,
        async () => {
          for (const [kind, n] of Object.entries(counts))
            if ((await w.sample('version_policy_cluster_cached_objects', { kind })) !== n) return false;
          return true;
        },
        30_000,
        50,
      );
    },
    async close() {
      await Promise.all(started.map((w) => w.stop()));
      await cp.stop();
      if (process.env.E2E_KEEP !== '1') await rm(dir, { recursive: true, force: true });
    },
  };
  return suite;
}

/** The objects of a YAML stream. */
export function objectsOf(text: string | undefined): K8sObject[] {
  if (text === undefined) return [];
  return parseAllDocuments(text)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}
