// Runs the real helm on the chart, and gives the rendered objects typed just far enough for the
// chart tests. Helm 4 and Helm 3, both current, built from their pinned Go modules
// (test/e2e/tools/helm3, helm4) by test/e2e/build-binaries.sh, which caches them; `npm test` builds
// them before tap runs, so this finds them at once.
import { execFile, execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CHART = join(ROOT, 'charts/version-policy');
const BIN =
  process.env.E2E_BIN ??
  execFileSync('bash', [join(ROOT, 'test/e2e/build-binaries.sh'), 'helm'], {
    encoding: 'utf8',
    // The build's progress lines (a first build takes minutes) go to the terminal as they come.
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
/** Helm 4, what the chart tests run; HELM3 renders and lints the chart too (test/chart/lint.part.ts). */
export const HELM = join(BIN, 'helm4');
export const HELM3 = join(BIN, 'helm3');
export const RELEASE = 'version-policy';
export const NAMESPACE = 'gardener-version-policy';

/** The example values under ci/, as paths. */
export const CI_VALUES = readdirSync(join(CHART, 'ci'))
  .filter((f) => f.endsWith('-values.yaml'))
  .sort()
  .map((f) => join(CHART, 'ci', f));

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

// No deadline of our own: helm traps SIGTERM and exits 0 with whatever it had rendered (at load
// 40 a 30 s kill left the chart tests with no ValidatingWebhookConfiguration); tap's timeout
// ends a helm that hangs.
export function helm(args: string[], binary = HELM): Promise<HelmResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(binary, args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      // A number is helm's exit code; anything else (ENOENT, a signal) means helm did not finish.
      if (child.signalCode !== null || (err !== null && typeof err.code !== 'number'))
        reject(new Error(`helm did not run or was killed: ${err?.message ?? child.signalCode}`));
      else resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
    });
  });
}

/** The chart's minimum (Chart.yaml kubeVersion); helm template assumes v1.20 unless told. */
export const KUBE_VERSION = '1.28.0';

export interface RenderOptions {
  /** Values files (-f). */
  values?: string[];
  /** --set key=value pairs. */
  set?: string[];
  /** --kube-version; KUBE_VERSION unless given. */
  kubeVersion?: string;
}

function templateArgs(opts: RenderOptions): string[] {
  return [
    'template',
    RELEASE,
    CHART,
    '--namespace',
    NAMESPACE,
    '--kube-version',
    opts.kubeVersion ?? KUBE_VERSION,
    ...(opts.values ?? []).flatMap((f) => ['-f', f]),
    ...(opts.set ?? []).flatMap((s) => ['--set', s]),
  ];
}

const templated = new Map<string, Promise<HelmResult>>();

/**
 * `helm template` with these options, run once per process: the chart does not change while a
 * file's tests run, so its tests share each render instead of starting helm for every one.
 */
export function template(opts: RenderOptions = {}, binary = HELM): Promise<HelmResult> {
  const args = templateArgs(opts);
  const key = JSON.stringify([binary, args]);
  let res = templated.get(key);
  if (!res) templated.set(key, (res = helm(args, binary)));
  return res;
}

/** `helm template` expected to fail; returns its error output. */
export async function renderError(opts: RenderOptions): Promise<string> {
  const res = await template(opts);
  if (res.code === 0) throw new Error(`helm template ${JSON.stringify(opts)} succeeded, expected a failure`);
  return res.stderr;
}

export interface Meta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: Meta;
}

export interface WebhookRule {
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  operations: string[];
  scope?: string;
}

export interface Webhook {
  name: string;
  clientConfig: { service: { name: string; namespace: string; path: string; port: number }; caBundle?: string };
  rules: WebhookRule[];
  admissionReviewVersions: string[];
  sideEffects: string;
  matchPolicy: string;
  failurePolicy: string;
  timeoutSeconds: number;
  namespaceSelector: unknown;
  objectSelector: unknown;
  matchConditions?: { name: string; expression: string }[];
}

export interface Annotated extends K8sObject {
  metadata: Meta & { annotations: Record<string, string> };
}

export interface WebhookConfiguration extends K8sObject {
  webhooks: Webhook[];
}

export interface Probe {
  httpGet: { path: string; port: string | number; scheme: string };
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args: string[];
  ports: { name: string; containerPort: number }[];
  livenessProbe: Probe;
  readinessProbe: Probe;
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    privileged?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
    seccompProfile?: { type: string };
  };
  volumeMounts: { name: string; mountPath: string; subPath?: string; readOnly?: boolean }[];
}

export interface Volume {
  name: string;
  secret?: { secretName: string };
  configMap?: { name: string };
  emptyDir?: unknown;
}

export interface PodSpec {
  serviceAccountName: string;
  priorityClassName?: string;
  terminationGracePeriodSeconds: number;
  securityContext: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type: string } };
  topologySpreadConstraints?: { topologyKey: string; labelSelector: { matchLabels: Record<string, string> } }[];
  affinity?: { podAntiAffinity?: unknown };
  containers: Container[];
  volumes: Volume[];
}

export interface Deployment extends K8sObject {
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: Meta; spec: PodSpec };
  };
}

export interface Service extends K8sObject {
  spec: { selector: Record<string, string>; ports: { name: string; port: number; targetPort: string | number }[] };
}

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface DataObject extends K8sObject {
  data: Record<string, string>;
}

const isHook = (o: K8sObject) => o.metadata.annotations?.['helm.sh/hook'] !== undefined;

export class Rendered {
  /** The release's objects: what Helm installs and tracks. */
  readonly objects: K8sObject[];
  /** Hook objects (helm.sh/hook), which Helm creates only at their event. */
  readonly hooks: K8sObject[];

  constructor(all: K8sObject[]) {
    this.objects = all.filter((o) => !isHook(o));
    this.hooks = all.filter(isHook);
  }

  all<T extends K8sObject = K8sObject>(kind: string): T[] {
    return this.objects.filter((o) => o.kind === kind) as T[];
  }

  /** The one object of `kind` (named `name`, if given); throws unless there is exactly one. */
  one<T extends K8sObject = K8sObject>(kind: string, name?: string): T {
    const found = this.all<T>(kind).filter((o) => name === undefined || o.metadata.name === name);
    if (found.length !== 1) throw new Error(`expected one ${kind}${name ? ` ${name}` : ''}, rendered ${found.length}`);
    return found[0]!;
  }

  /** The one hook object of `kind`. */
  hook<T extends K8sObject = K8sObject>(kind: string): T {
    const found = this.hooks.filter((o) => o.kind === kind) as T[];
    if (found.length !== 1) throw new Error(`expected one ${kind} hook, rendered ${found.length}`);
    return found[0]!;
  }
}

/** The objects `helm template` renders, parsed anew for each caller (a test may change its copy). */
export async function render(opts: RenderOptions = {}): Promise<Rendered> {
  const res = await template(opts);
  if (res.code !== 0) throw new Error(`helm template failed (${res.code}): ${res.stderr}`);
  const objects = parseAllDocuments(res.stdout)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`rendered YAML does not parse: ${doc.errors[0]!.message}`);
      return doc.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null);
  return new Rendered(objects);
}
