// server.tls.selfManaged turned into what the self-managed source runs on: durations in
// milliseconds, the names it may touch, and the DNS names its serving certificate covers. Each
// default is derived here; the config schema (src/config.ts) only repeats the values.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SelfManagedConfig } from '../../config.js';
import { ConfigError } from '../../config.js';
import { parseDuration } from '../../gardener/duration.js';
import { SERVICE_ACCOUNT_DIR } from '../../cluster/service-account.js';

/**
 * Defaults, and why:
 * - servingValidity 2160h (90 d), servingRenewBefore 720h (30 d): cert-manager's defaults, which the
 *   chart's certManager mode uses as well. A leaked key stops working within 90 days; a renewal that
 *   keeps failing has 30 days of retries, and the expiry alert (14 days) fires 16 days into them.
 * - caValidity 8760h (365 d): a CA that rotates yearly runs its rotation in every landscape at least
 *   once a year, so a fault in that path shows while people still know how it works.
 * - caRenewBefore 2160h (90 d): the rotation takes propagationDelay + overlap (about a day); 90 days
 *   leave a quarter of the CA's life to notice and fix a rotation that cannot finish (API server
 *   unreachable, RBAC changed). It is at least servingValidity, so a serving certificate issued
 *   before the rotation starts never has to be cut short to end with its CA.
 * - propagationDelay 60s: kube-apiserver reads webhook configurations through an informer. A change
 *   normally reaches it within a second; one whose watch broke relists within client-go's
 *   reflector backoff, capped at 30 s. Twice that, before a certificate from a new CA is served.
 * - overlap 24h: how long a CA stays in the caBundle after its successor has served. Our replicas
 *   follow the Secret within certReloadIntervalSeconds, but pods that do not run this code (the
 *   old chart mode's pods during the upgrade rollout) serve the old CA until the rollout replaces
 *   them, and a stalled rollout keeps them as long as it stalls. A day is time to notice one (the
 *   Deployment's progress deadline reports it after 10 minutes).
 */
export interface SelfManagedOptions {
  namespace: string;
  secretName: string;
  validatingWebhookConfiguration: string;
  mutatingWebhookConfiguration: string;
  /** The names kube-apiserver may dial: <service>, <service>.<ns>, <service>.<ns>.svc, ….svc.cluster.local. */
  dnsNames: string[];
  caValidityMs: number;
  caRenewBeforeMs: number;
  servingValidityMs: number;
  servingRenewBeforeMs: number;
  propagationDelayMs: number;
  overlapMs: number;
  /** How often the Secret and the webhook configurations are read (certReloadIntervalSeconds). */
  pollIntervalMs: number;
}

const KEY = 'server.tls.selfManaged';

/** Reads the pod's namespace from its service-account mount; `root` prefixes the path in tests. */
export function podNamespace(root = '/'): string | undefined {
  try {
    return readFileSync(join(root, SERVICE_ACCOUNT_DIR, 'namespace'), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

export function selfManagedOptions(
  cfg: SelfManagedConfig,
  pollIntervalSeconds: number,
  namespaceOf: () => string | undefined = podNamespace,
): SelfManagedOptions {
  const namespace = cfg.namespace || namespaceOf();
  if (!namespace)
    throw new ConfigError(`${KEY}.namespace is empty and there is no service-account namespace to default to: set it`);
  const ms = (key: keyof SelfManagedConfig) => parseDuration(String(cfg[key]));
  const opts: SelfManagedOptions = {
    namespace,
    secretName: cfg.secretName,
    validatingWebhookConfiguration: cfg.validatingWebhookConfiguration,
    mutatingWebhookConfiguration: cfg.mutatingWebhookConfiguration,
    dnsNames: [
      cfg.serviceName,
      `${cfg.serviceName}.${namespace}`,
      `${cfg.serviceName}.${namespace}.svc`,
      `${cfg.serviceName}.${namespace}.svc.cluster.local`,
    ],
    caValidityMs: ms('caValidity'),
    caRenewBeforeMs: ms('caRenewBefore'),
    servingValidityMs: ms('servingValidity'),
    servingRenewBeforeMs: ms('servingRenewBefore'),
    propagationDelayMs: ms('propagationDelay'),
    overlapMs: ms('overlap'),
    pollIntervalMs: pollIntervalSeconds * 1000,
  };
  const problems = relationProblems(opts);
  if (problems.length > 0) throw new ConfigError(`${KEY}: ${problems.join('; ')}`);
  return opts;
}

/** The orderings the rotation depends on; each broken one is named with its reason. */
function relationProblems(o: SelfManagedOptions): string[] {
  const out: string[] = [];
  if (o.servingRenewBeforeMs >= o.servingValidityMs)
    out.push('servingRenewBefore must be shorter than servingValidity, or every poll renews');
  if (o.caRenewBeforeMs >= o.caValidityMs)
    out.push('caRenewBefore must be shorter than caValidity, or every poll starts a CA rotation');
  if (o.servingValidityMs > o.caRenewBeforeMs)
    out.push(
      'servingValidity must not exceed caRenewBefore, or serving certificates are cut short to end with their CA',
    );
  if (o.propagationDelayMs >= o.caRenewBeforeMs)
    out.push('propagationDelay must be shorter than caRenewBefore, or the CA expires before its successor may serve');
  if (o.pollIntervalMs >= o.servingRenewBeforeMs)
    out.push('certReloadIntervalSeconds must be shorter than servingRenewBefore, or a renewal can be missed');
  return out;
}
