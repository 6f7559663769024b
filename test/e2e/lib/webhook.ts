// The chart's own objects on the real API server, and `version-policy serve` (the built CLI, a
// child process) behind them: the RBAC the chart renders, bound to a ServiceAccount whose token is
// the webhook's only credential; the config the chart renders; and the webhook configurations the
// chart renders, with only their clientConfig pointed at this machine.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { CLEAN_ENV } from '../../helpers/run-cli.js';
import { freePort, httpsCall, kubeconfigYaml, waitFor, type ControlPlane } from './control-plane.js';
import { helmTemplate, type Kubectl } from './kubectl.js';
import { startProcess, type Started } from './processes.js';

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const CHART = join(ROOT, 'charts/version-policy');
export const CLI = join(ROOT, 'dist/cli/main.js');
export const RELEASE = 'version-policy';
export const NAMESPACE = 'gardener-version-policy';
export const SERVICE_ACCOUNT = 'version-policy';

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [k: string]: unknown };
  [k: string]: unknown;
}

interface WebhookEntry {
  name: string;
  clientConfig: { url?: string; service?: unknown; caBundle?: string };
  [k: string]: unknown;
}

export interface Rendered {
  objects: K8sObject[];
  /** The config file the chart gives the server (its ConfigMap's config.yaml), parsed. */
  config: Record<string, unknown>;
  validating: K8sObject & { webhooks: WebhookEntry[] };
  mutating: K8sObject & { webhooks: WebhookEntry[] };
}

export async function renderChart(set: readonly string[] = [], major: 3 | 4 = 4): Promise<Rendered> {
  const text = await helmTemplate(
    CHART,
    RELEASE,
    NAMESPACE,
    ['--kube-version', '1.36.4', ...set.flatMap((s) => ['--set', s])],
    major,
  );
  const objects = parseAllDocuments(text)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
  const one = (kind: string) => {
    const found = objects.filter((o) => o.kind === kind);
    if (found.length !== 1) throw new Error(`the chart rendered ${found.length} ${kind}`);
    return found[0]!;
  };
  const configMap = one('ConfigMap') as K8sObject & { data: { 'config.yaml': string } };
  return {
    objects,
    config: parse(configMap.data['config.yaml']) as Record<string, unknown>,
    validating: one('ValidatingWebhookConfiguration') as Rendered['validating'],
    mutating: one('MutatingWebhookConfiguration') as Rendered['mutating'],
  };
}

/** The kinds the webhook's identity needs on the API server: its account and the chart's RBAC. */
const IDENTITY_KINDS = new Set([
  'ServiceAccount',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
  'Secret',
]);

/**
 * Creates the namespace and the chart's identity objects, and returns a kubeconfig holding a token
 * of the chart's ServiceAccount: the webhook runs with exactly the chart's permissions.
 */
export async function installIdentity(
  kubectl: Kubectl,
  cp: Pick<ControlPlane, 'dir' | 'server' | 'caPem'>,
  rendered: Rendered,
): Promise<string> {
  await kubectl.apply([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }]);
  const identity = rendered.objects.filter(
    (o) =>
      IDENTITY_KINDS.has(o.kind) &&
      (o.metadata.annotations as Record<string, string> | undefined)?.['helm.sh/hook'] === undefined,
  );
  const res = await kubectl.apply(identity);
  if (res.code !== 0) throw new Error(`the chart's RBAC did not apply: ${res.stderr}`);
  const token = (await kubectl.ok(['create', 'token', SERVICE_ACCOUNT, '-n', NAMESPACE, '--duration=2h'])).trim();
  const path = join(cp.dir, 'webhook.kubeconfig');
  await writeFile(path, kubeconfigYaml(cp.server, cp.caPem, token, SERVICE_ACCOUNT), { mode: 0o600 });
  return path;
}

/** The rendered webhook configurations, each webhook's service replaced by `url` + `path`. */
export function pointedAt(rendered: Rendered, base: string | undefined, caBundle: string | undefined): K8sObject[] {
  return [rendered.validating, rendered.mutating].map((cfg) => ({
    ...cfg,
    webhooks: cfg.webhooks.map((w) => {
      const service = w.clientConfig.service as { path: string } | undefined;
      const clientConfig = base === undefined ? { ...w.clientConfig } : { url: `${base}${service?.path ?? ''}` };
      return { ...w, clientConfig: caBundle === undefined ? clientConfig : { ...clientConfig, caBundle } };
    }),
  }));
}

export interface WebhookProcess {
  port: number;
  probePort: number;
  /** https://127.0.0.1:<port> */
  base: string;
  proc: Started;
  configFile: string;
  /** GET /metrics from the probe port. */
  metrics(): Promise<string>;
  /** The sum of a metric's samples whose labels include every pair in `labels`. */
  sample(name: string, labels?: Record<string, string>): Promise<number>;
  ready(): Promise<boolean>;
  stop(): Promise<number | string>;
}

export interface ServeOptions {
  /** Where its files go, and the CA that issues its serving certificate. */
  cp: Pick<ControlPlane, 'dir' | 'issue'>;
  rendered: Rendered;
  kubeconfig: string;
  /** A name for its log file. */
  name: string;
  /** 'files': a serving certificate for 127.0.0.1 from the suite's CA; 'selfManaged': the chart's mode. */
  tls: 'files' | 'selfManaged';
  /** Listen address (default 127.0.0.1). */
  host?: string;
  /** Merged over the chart's config (objects key by key). */
  config?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
  /** Wait for /readyz (default true). */
  waitReady?: boolean;
  port?: number;
}

function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] =
      v !== null &&
      typeof v === 'object' &&
      !Array.isArray(v) &&
      b !== null &&
      typeof b === 'object' &&
      !Array.isArray(b)
        ? merge(b as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

export async function serve(opts: ServeOptions): Promise<WebhookProcess> {
  const dir = join(opts.cp.dir, opts.name);
  await mkdir(dir, { recursive: true });
  const port = opts.port ?? (await freePort());
  const probePort = await freePort();
  const host = opts.host ?? '127.0.0.1';
  let tls: Record<string, unknown>;
  if (opts.tls === 'files') {
    const pair = await opts.cp.issue(['localhost', '127.0.0.1']);
    await writeFile(join(dir, 'tls.crt'), pair.certPem);
    await writeFile(join(dir, 'tls.key'), pair.keyPem, { mode: 0o600 });
    tls = { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') };
  } else {
    tls = (opts.rendered.config.server as { tls: Record<string, unknown> }).tls;
  }
  const chartConfig = opts.rendered.config;
  const config = merge(
    { ...chartConfig, server: { ...(chartConfig.server as Record<string, unknown>), tls } },
    merge(
      {
        server: { host, port, probePort, shutdownDelaySeconds: 0, shutdownGraceSeconds: 5 },
        cluster: { kubeconfig: opts.kubeconfig },
      },
      opts.config ?? {},
    ),
  );
  const configFile = join(dir, 'config.yaml');
  await writeFile(configFile, stringify(config));
  const env = { ...CLEAN_ENV, ...(opts.env ?? {}) };
  const proc = startProcess(opts.name, process.execPath, [CLI, 'serve', '--config', configFile], {
    logDir: opts.cp.dir,
    env,
    cwd: dir,
  });
  const probe = `http://127.0.0.1:${probePort}`;
  const get = async (path: string) => {
    const res = await fetch(`${probe}${path}`, { signal: AbortSignal.timeout(5000) });
    return { status: res.status, body: await res.text() };
  };
  const running: WebhookProcess = {
    port,
    probePort,
    base: `https://127.0.0.1:${port}`,
    proc,
    configFile,
    metrics: async () => (await get('/metrics')).body,
    async sample(name, labels = {}) {
      const text = await running.metrics();
      let sum = 0;
      for (const line of text.split('\n')) {
        if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
        if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
          sum += Number(line.slice(line.lastIndexOf(' ') + 1));
      }
      return sum;
    },
    ready: async () => (await get('/readyz')).status === 200,
    stop: () => proc.stop(15_000),
  };
  if (opts.waitReady !== false) {
    await waitFor(
      `${opts.name} ready`,
      async () => {
        const code = await Promise.race([proc.exited, new Promise<undefined>((r) => setTimeout(r, 0, undefined))]);
        if (code !== undefined) throw new Error(`${opts.name} exited (${code}); see ${proc.logFile}`);
        return running.ready();
      },
      // Only tells a hang from a slow start: at load 35 a start with its informers took over 60 s.
      180_000,
      200,
    );
  }
  return running;
}

/** POSTs an AdmissionReview to the webhook directly (for comparing with what the API server got). */
export async function postReview(w: WebhookProcess, caPem: string, path: string, body: unknown): Promise<unknown> {
  const res = await httpsCall(`${w.base}${path}`, { ca: caPem, method: 'POST', body: JSON.stringify(body) });
  return JSON.parse(res.body) as unknown;
}
