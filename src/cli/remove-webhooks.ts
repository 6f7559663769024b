// `version-policy remove-webhooks`: what the chart's pre-delete hook runs. It deletes the two webhook
// configurations before Helm deletes the Deployment, so an uninstall never leaves a
// `failurePolicy: Fail` webhook behind that points at nothing. Gone already (404) counts as done;
// any other answer is retried a bounded number of times, then the command fails (exit 1) and says
// which configuration is left.
import * as http from 'node:http';
import * as https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidArgumentError, type Command } from 'commander';
import type { ApiConnection } from '../cluster/api-client.js';
import { UsageError } from './errors.js';
import { EXIT_DENIED } from './exit-codes.js';
import type { Invocation } from './io.js';

export interface RemoveWebhooksOptions {
  validating?: string;
  mutating?: string;
  kubeconfig?: string;
  attempts: number;
  backoffSeconds: number;
}

/** Each request's bound: a hook that hangs holds `helm uninstall` until Helm's own timeout. */
const REQUEST_TIMEOUT_MS = 10_000;
/** The retry delay doubles from --backoff-seconds up to this. */
const MAX_BACKOFF_MS = 10_000;

const RESOURCES = {
  validating: 'validatingwebhookconfigurations',
  mutating: 'mutatingwebhookconfigurations',
} as const;

export function registerRemoveWebhooks(program: Command, run: Invocation): void {
  program
    .command('remove-webhooks')
    .description(
      'delete the webhook configurations (the chart runs this before uninstalling); already gone counts as done',
    )
    .option('--validating <name>', 'ValidatingWebhookConfiguration to delete')
    .option('--mutating <name>', 'MutatingWebhookConfiguration to delete')
    .option(
      '--kubeconfig <file>',
      'kubeconfig; default: the pod service account, then $KUBECONFIG, then ~/.kube/config',
    )
    .option('--attempts <n>', 'tries per configuration before giving up', positiveInteger, 5)
    .option('--backoff-seconds <s>', 'first pause between tries; it doubles up to 10 s', positiveNumber, 1)
    .action((opts: RemoveWebhooksOptions) => removeWebhooks(opts, run));
}

function positiveInteger(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`not a positive integer: ${JSON.stringify(text)}`);
  return n;
}

function positiveNumber(text: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`not a positive number: ${JSON.stringify(text)}`);
  return n;
}

export async function removeWebhooks(opts: RemoveWebhooksOptions, run: Invocation): Promise<void> {
  const targets: RemovalTarget[] = (['validating', 'mutating'] as const).flatMap((k) =>
    opts[k] ? [{ resource: RESOURCES[k], name: opts[k] }] : [],
  );
  if (targets.length === 0) throw new UsageError('remove-webhooks: name at least one of --validating and --mutating');
  // The Kubernetes client loads only here, as for `serve` and `check --cluster`.
  const [{ loadKubeConfig }, { connectionFrom }] = await Promise.all([
    import('../cluster/kubeconfig.js'),
    import('../cluster/api-client.js'),
  ]);
  let conn: ApiConnection;
  try {
    conn = connectionFrom(loadKubeConfig(opts.kubeconfig ?? '', { env: run.io.env }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const results = await removeWebhookConfigurations(conn, targets, opts);
  for (const line of results) run.io.stdout.write(`${line.text}\n`);
  const failed = results.filter((r) => !r.removed);
  if (failed.length > 0) {
    run.io.stderr.write(
      `version-policy: ${failed.length} webhook configuration(s) left in place; delete them by hand (docs/operations/uninstall.md)\n`,
    );
    run.exitCode = EXIT_DENIED;
  }
}

export interface RemovalTarget {
  resource: (typeof RESOURCES)[keyof typeof RESOURCES];
  name: string;
}

export interface RemovalResult {
  removed: boolean;
  /** One line for the hook's log. */
  text: string;
}

/** Deletes each target, all at once: one unreachable configuration must not keep the other in place. */
export function removeWebhookConfigurations(
  conn: ApiConnection,
  targets: readonly RemovalTarget[],
  opts: Pick<RemoveWebhooksOptions, 'attempts' | 'backoffSeconds'>,
): Promise<RemovalResult[]> {
  return Promise.all(targets.map((t) => removeOne(conn, t.resource, t.name, opts)));
}

async function removeOne(
  conn: ApiConnection,
  resource: string,
  name: string,
  opts: Pick<RemoveWebhooksOptions, 'attempts' | 'backoffSeconds'>,
): Promise<RemovalResult> {
  const path = `/apis/admissionregistration.k8s.io/v1/${resource}/${encodeURIComponent(name)}`;
  const what = `${resource.replace(/s$/, '')} ${name}`;
  let lastProblem = '';
  let deleted = false;
  for (let attempt = 1; attempt <= opts.attempts; attempt++) {
    if (attempt > 1) await sleep(Math.min(opts.backoffSeconds * 1000 * 2 ** (attempt - 2), MAX_BACKOFF_MS));
    try {
      // DELETE, then GET until 404: an object with a finalizer outlives its DELETE.
      const del = await call(conn, 'DELETE', path);
      if (del.status === 404) return { removed: true, text: `${what}: ${deleted ? 'deleted' : 'already gone'}` };
      if (del.status >= 300) {
        lastProblem = `DELETE answered ${del.status}${del.message ? `: ${del.message}` : ''}`;
        continue;
      }
      deleted = true;
      const get = await call(conn, 'GET', path);
      if (get.status === 404) return { removed: true, text: `${what}: deleted` };
      lastProblem =
        get.status === 200
          ? 'still present after DELETE'
          : `GET answered ${get.status}${get.message ? `: ${get.message}` : ''}`;
    } catch (err) {
      lastProblem = (err as Error).message;
    }
  }
  return { removed: false, text: `${what}: NOT removed after ${opts.attempts} attempt(s): ${lastProblem}` };
}

async function call(
  conn: ApiConnection,
  method: 'GET' | 'DELETE',
  path: string,
): Promise<{ status: number; message: string }> {
  const base = await conn.requestOptions();
  const url = new URL(conn.server + path);
  const transport = url.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      url,
      { ...base, method, headers: { ...base.headers, Accept: 'application/json' }, timeout: REQUEST_TIMEOUT_MS },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body = body.length < 4096 ? body + c : body));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, message: statusMessage(body) }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`no answer from ${conn.server} within ${REQUEST_TIMEOUT_MS / 1000}s`)),
    );
    req.on('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(`cannot reach the API server ${conn.server}: ${err.code ?? err.message}`)),
    );
    req.end();
  });
}

/** The `message` of a Kubernetes Status body, if it is one. */
function statusMessage(body: string): string {
  try {
    const status = JSON.parse(body) as { kind?: unknown; message?: unknown };
    return status.kind === 'Status' && typeof status.message === 'string' ? status.message : '';
  } catch {
    return '';
  }
}
