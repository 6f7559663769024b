// The replay of a case file against one Gardener control plane (one setting of the feature gate):
// for each case, its state is set up, its write is applied with the real kubectl as an ordinary
// admin (not exempt), and the outcome, kubectl's message and the stored object are recorded.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { waitFor } from '../lib/control-plane.js';
import type { GardenerPlane } from '../lib/gardener.js';
import { Kubectl } from '../lib/kubectl.js';
import {
  installIdentity,
  pointedAt,
  renderChart,
  serve,
  type K8sObject,
  type Rendered,
  type WebhookProcess,
} from '../lib/webhook.js';
import {
  deniedBy,
  expectedOf,
  GARDENER_ALONE_LEAD_MS,
  matches,
  rulesIn,
  shifted,
  type CaseResult,
  type Got,
  type ReplayCase,
} from './cases.js';
import { cleanUp, prepareLandscape, replace, setUp, writable, written } from './setup.js';

/** A user the chart's matchConditions exempt (gardener-controller-manager): its writes reach no webhook. */
export const EXEMPT_USER = 'system:serviceaccount:garden:gardener-controller-manager';

const RESOURCE: Record<string, string> = {
  CloudProfile: 'cloudprofiles.core.gardener.cloud',
  NamespacedCloudProfile: 'namespacedcloudprofiles.core.gardener.cloud',
  Shoot: 'shoots.core.gardener.cloud',
};

/** A dry-run write that reaches the mutating webhook: proof that gardener-apiserver calls it. */
const PROBE = {
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'CloudProfile',
  metadata: { name: 'e2e-probe' },
  spec: { type: 'local', kubernetes: { versions: [{ version: '1.31.2' }] } },
};

export interface Plane {
  g: GardenerPlane;
  admin: Kubectl;
  exempt: Kubectl;
  rendered: Rendered;
  webhook: WebhookProcess;
  /** What the landscape (namespaces, Projects, registrations) could not hold. */
  landscapeNotes: string[];
}

/** The chart's identity and `version-policy serve` (at the plane's gate) on a Gardener control plane. */
export async function prepare(g: GardenerPlane, cases: readonly ReplayCase[]): Promise<Plane> {
  const admin = new Kubectl(g.adminKubeconfig);
  // Here that user has no RBAC of its own (no gardener-controller-manager runs): system:masters stands in.
  const exempt = new Kubectl(g.adminKubeconfig, [`--as=${EXEMPT_USER}`, '--as-group=system:masters']);
  const landscapeNotes = await prepareLandscape(admin, cases);
  const rendered = await renderChart();
  const kubeconfig = await installIdentity(admin, g, rendered);
  const webhook = await serve({
    cp: g,
    rendered,
    kubeconfig,
    name: `webhook-gate-${g.lifecycleGate ? 'on' : 'off'}`,
    tls: 'files',
    config: { featureGates: { VersionClassificationLifecycle: g.lifecycleGate } },
  });
  return { g, admin, exempt, rendered, webhook, landscapeNotes };
}

async function requests(w: WebhookProcess): Promise<number> {
  return w.sample('version_policy_admission_requests_total');
}

/** Registers the chart's webhook configurations (url: the local webhook) and waits until they are called. */
export async function register(p: Plane): Promise<void> {
  const res = await p.admin.apply(pointedAt(p.rendered, p.webhook.base, p.g.caBundle));
  if (res.code !== 0) throw new Error(`webhook configurations did not apply: ${res.stderr}`);
  await waitFor(
    'gardener-apiserver calls the webhook',
    async () => {
      const before = await requests(p.webhook);
      await p.admin.create([PROBE], ['--dry-run=server']);
      return (await requests(p.webhook)) > before;
    },
    60_000,
    250,
  );
}

/** Deletes the webhook configurations and waits until a write no longer reaches the webhook. */
export async function unregister(p: Plane): Promise<void> {
  await p.admin.run(['delete', 'validatingwebhookconfigurations,mutatingwebhookconfigurations', '--all']);
  let quiet = 0;
  await waitFor(
    'gardener-apiserver stops calling the webhook',
    async () => {
      const before = await requests(p.webhook);
      await p.admin.create([PROBE], ['--dry-run=server']);
      quiet = (await requests(p.webhook)) === before ? quiet + 1 : 0;
      return quiet >= 3;
    },
    60_000,
    250,
  );
}

/** Waits until the webhook's informer caches hold exactly these counts (and a moment more for updates). */
async function cached(w: WebhookProcess, counts: Record<string, number>): Promise<void> {
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
  // Counts do not show an update of an object already cached (the setup replaces profiles after
  // creating Shoots). On loopback a watch event arrives within milliseconds; this margin is the
  // only assumption about timing in the replay.
  await new Promise((r) => setTimeout(r, 300));
}

async function applyWrite(p: Plane, c: ReplayCase): Promise<Got> {
  const target = (c.object ?? c.oldObject)!;
  const resource = RESOURCE[c.kind] ?? c.kind;
  const ns = target.metadata.namespace ? ['-n', target.metadata.namespace] : [];
  let res: { code: number; stdout: string; stderr: string };
  if (c.operation === 'CREATE')
    res = await p.admin.run(['create', '-f', '-', '-o', 'json'], stringify(written(c, c.object!)));
  else if (c.operation === 'UPDATE') res = await replace(p.admin, written(c, c.object!), ['-o', 'json']);
  else {
    if (c.kind === 'Shoot')
      await p.exempt.run([
        'annotate',
        '--overwrite',
        resource,
        target.metadata.name,
        ...ns,
        'confirmation.gardener.cloud/deletion=true',
      ]);
    res = await p.admin.run(['delete', resource, target.metadata.name, ...ns, '--wait=false']);
  }
  const allowed = res.code === 0;
  const message = allowed ? '' : res.stderr.trim();
  let stored: unknown;
  if (allowed && c.operation !== 'DELETE') stored = JSON.parse(res.stdout) as unknown;
  else stored = await p.admin.get(resource, target.metadata.name, target.metadata.namespace);
  return { allowed, rules: allowed ? [] : rulesIn(message), message, stored };
}

const oneLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).trim().replace(/\s*\n\s*/g, ' ');

/**
 * Replays every case (of this plane's gate) and cleans up after each. One case never stops the
 * run: what could not be set up, written or cleaned is in that case's setupNotes, and a case whose
 * write did not run is a mismatch.
 */
export async function replayAll(
  p: Plane,
  cases: readonly ReplayCase[],
  withWebhook: boolean,
  onCase?: (r: CaseResult) => void,
): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const original of cases) {
    const { c, shiftMs } = shifted(original, Date.now(), withWebhook ? 0 : GARDENER_ALONE_LEAD_MS);
    const farFuture = new Date(Date.now() + 10 * 365 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const notes: string[] = [];
    // What the clean-up may have to bring back (a profile a Shoot still names): the case's own
    // profiles, unless the setup says what it created.
    let created: K8sObject[] = [c.parentCloudProfile, c.kind === 'Shoot' ? undefined : c.oldObject]
      .filter((o): o is K8sObject => o?.kind === 'CloudProfile')
      .map(writable);
    try {
      const setup = await setUp(p.exempt, c, farFuture);
      notes.push(...setup.notes);
      created = setup.created;
      if (withWebhook) await cached(p.webhook, setup.counts);
    } catch (err) {
      notes.push(`not set up whole: ${oneLine(err)}`);
    }
    let got: Got;
    let ran = true;
    try {
      got = await applyWrite(p, c);
    } catch (err) {
      ran = false;
      got = { allowed: false, rules: [], message: `the write did not run: ${oneLine(err)}` };
      notes.push(got.message);
    }
    const expected = expectedOf(original, withWebhook);
    const denier = ran ? deniedBy(got.allowed, got.message) : null;
    notes.push(...(await cleanUp(p.exempt, created)).map((n) => `cleanup: ${n}`));
    if (withWebhook)
      await cached(p.webhook, { CloudProfile: 0, NamespacedCloudProfile: 0, Shoot: 0 }).catch((err: unknown) =>
        notes.push(`cleanup: ${oneLine(err)}`),
      );
    const result: CaseResult = {
      id: original.id,
      ...(original.rule ? { rule: original.rule } : {}),
      kind: original.kind,
      operation: original.operation,
      gate: p.g.lifecycleGate,
      expected,
      got,
      deniedBy: denier,
      matched: ran && matches(expected, got, denier),
      shiftMs,
      setupNotes: notes,
    };
    results.push(result);
    onCase?.(result);
  }
  return results;
}

/** The admission-webhook metrics of an API server's /metrics: calls per webhook name. */
function webhookCalls(metrics: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of metrics.split('\n')) {
    const m = /^apiserver_admission_webhook_admission_duration_seconds_count\{([^}]*)\} (\d+)/.exec(line);
    if (!m) continue;
    const name = /name="([^"]+)"/.exec(m[1]!)?.[1];
    if (name?.includes('version-policy')) out[name] = (out[name] ?? 0) + Number(m[2]);
  }
  return out;
}

export interface Callers {
  /** Webhook calls gardener-apiserver counted, per webhook name. */
  gardenerApiserver: Record<string, number>;
  /** The same, by kube-apiserver. */
  kubeApiserver: Record<string, number>;
  /** The stored kinds' API: served by an APIService (gardener-apiserver), not by a CRD. */
  servedBy: string;
}

/** Who sent the reviews: the admission metrics of both API servers, read from each directly. */
export async function callers(p: Plane): Promise<Callers> {
  const kube = await p.admin.ok(['get', '--raw', '/metrics']);
  const service = JSON.parse(await p.admin.ok(['get', 'apiservice', 'v1beta1.core.gardener.cloud', '-o', 'json'])) as {
    spec: { service?: { port?: number }; caBundle?: string };
  };
  const port = service.spec.service?.port;
  const ca = join(p.g.dir, 'gardener-apiserver-ca.crt');
  await writeFile(ca, Buffer.from(service.spec.caBundle ?? '', 'base64'));
  // gardener-apiserver delegates authentication to kube-apiserver: the admin's client certificate works.
  const gardener = await p.admin
    .ok(['--server', `https://localhost:${port}`, `--certificate-authority=${ca}`, 'get', '--raw', '/metrics'])
    .catch((err: Error) => `# ${err.message}`);
  const crds = await p.admin.run(['get', 'crd', 'cloudprofiles.core.gardener.cloud']);
  return {
    gardenerApiserver: webhookCalls(gardener),
    kubeApiserver: webhookCalls(kube),
    servedBy: `APIService v1beta1.core.gardener.cloud -> kube-system/gardener-apiserver:${port}; CRD cloudprofiles.core.gardener.cloud: ${crds.code === 0 ? 'exists' : 'none'}`,
  };
}
