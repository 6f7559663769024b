// The self-managed certificate source (the model is Gatekeeper's cert-controller): the server makes
// its own CA and serving certificate, keeps them in one Secret, rotates them, and keeps both webhook
// configurations' caBundle current. Every replica runs the same loop on the same Secret, which is
// the single source of truth: writes carry the resourceVersion that was read, and a replica that
// loses a race (409) reads again and adopts what the winner wrote.
//
// One pass: read the Secret and both configurations → plan (self-managed-state.ts) → write the
// Secret if the plan changed it → patch every webhook entry whose caBundle differs → once every
// entry holds the bundle, record when its new CAs may be relied on → serve the Secret's pair.
import type { Logger } from 'pino';
import { ApiError, connectionFrom } from '../../cluster/api-client.js';
import { loadKubeConfig } from '../../cluster/kubeconfig.js';
import type { Config } from '../../config.js';
import type { CertificateSource, TlsMaterial } from './certificate-source.js';
import { CertificateError, checkMaterial } from './certificate-source.js';
import { KubeObjects, type WebhookConfiguration, type WebhookKind } from './kube-objects.js';
import { selfManagedOptions, type SelfManagedOptions } from './self-managed-options.js';
import type { AuthorityState, Mint } from './self-managed-state.js';
import {
  bundlePem,
  certificate,
  decodeState,
  encodeState,
  isSettled,
  plan,
  settle,
  signedBy,
  splitBundle,
} from './self-managed-state.js';
import { createCertificateAuthority, issueCertificate, loadAuthority } from './self-signed.js';

/** Write races lost in one pass before it gives up until the next poll; more replicas than this rarely write at once. */
const MAX_ATTEMPTS = 5;

export interface SelfManagedSourceOptions extends SelfManagedOptions {
  objects: KubeObjects;
  logger: Logger;
}

interface Observed {
  kind: WebhookKind;
  config: WebhookConfiguration;
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const unb64 = (text: string) => Buffer.from(text, 'base64').toString('utf8');

export class SelfManagedCertificateSource implements CertificateSource {
  private material: TlsMaterial;
  /** The CA (PEM) that signed what is served; undefined while a placeholder is served. */
  private servedCA: string | undefined;
  private state: AuthorityState | undefined;
  /** The webhook configurations as last read or patched; undefined until one pass succeeded. */
  private observed: Observed[] | undefined;
  private problem: string | undefined;
  private readonly changeListeners: Array<(m: TlsMaterial) => void> = [];
  private readonly errorListeners: Array<(e: Error) => void> = [];
  private readonly mint: Mint;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;

  /** Runs the first pass before it returns; if that fails, serves an untrusted placeholder (not ready) and keeps trying. */
  static async open(opts: SelfManagedSourceOptions): Promise<SelfManagedCertificateSource> {
    const mint = mintFor(opts);
    const ca = await mint.authority(Date.now());
    const placeholder = await mint.serving(ca, Date.now(), Infinity);
    const source = new SelfManagedCertificateSource(opts, mint, checkMaterial(placeholder.certPem, placeholder.keyPem));
    await source.sync();
    source.schedule();
    return source;
  }

  private constructor(
    private readonly opts: SelfManagedSourceOptions,
    mint: Mint,
    placeholder: TlsMaterial,
  ) {
    this.mint = mint;
    this.material = placeholder;
  }

  current(): TlsMaterial {
    return this.material;
  }

  onChange(listener: (m: TlsMaterial) => void): void {
    this.changeListeners.push(listener);
  }

  onError(listener: (e: Error) => void): void {
    this.errorListeners.push(listener);
  }

  /**
   * Ready only when kube-apiserver can be relied on to trust what this replica serves: its CA has
   * been in every webhook entry for propagationDelay, and some entry still holds it.
   */
  notReadyReason(): string | undefined {
    const problem = this.problem ? ` (${this.problem})` : '';
    if (!this.observed || !this.state)
      return `the certificate Secret and webhook configurations have not been read yet${problem}`;
    if (!this.servedCA) return `serving a placeholder certificate that nothing trusts${problem}`;
    const now = Date.now();
    if (Date.parse(this.material.notAfter) <= now)
      return `the serving certificate expired at ${this.material.notAfter}${problem}`;
    if (!isSettled(this.state, this.servedCA, now))
      return `waiting for kube-apiserver to pick up the caBundle with this replica's CA (propagationDelay ${this.opts.propagationDelayMs / 1000}s)`;
    const entries = this.observed.flatMap((o) => o.config.webhooks ?? []);
    const leaf = this.material.cert;
    if (
      entries.length > 0 &&
      !entries.some((e) => splitBundle(unb64(e.clientConfig?.caBundle ?? '')).some((ca) => signedBy(leaf, ca)))
    ) {
      return `no webhook configuration's caBundle trusts the served certificate${problem}`;
    }
    return undefined;
  }

  /** One pass now. Concurrent calls share a pass; errors are logged and kept for the readiness reason. */
  sync(): Promise<void> {
    this.running ??= this.syncOnce()
      .then(() => {
        if (this.problem) this.opts.logger.info('certificate source recovered');
        this.problem = undefined;
      })
      .catch((err: Error) => {
        const message = err.message;
        if (message !== this.problem)
          this.opts.logger.warn(
            { err: { message } },
            'certificate source pass failed; serving the last good certificate and trying again',
          );
        this.problem = message;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.closed) return;
    // ±10% jitter, so replicas started together do not poll (and race to write) in lockstep.
    const delay = this.opts.pollIntervalMs * (0.9 + Math.random() * 0.2);
    this.timer = setTimeout(() => void this.sync().finally(() => this.schedule()), delay).unref();
  }

  private async syncOnce(): Promise<void> {
    const { objects, logger } = this.opts;
    for (let attempt = 1; ; attempt++) {
      const now = Date.now();
      const [secret, observed] = await Promise.all([this.readSecret(), this.readConfigurations()]);
      const published = observed.flatMap((o) =>
        (o.config.webhooks ?? []).flatMap((e) => splitBundle(unb64(e.clientConfig?.caBundle ?? ''))),
      );
      const { state, changes } = await plan(decodeState(secret.data), {
        now,
        times: this.opts,
        published,
        mint: this.mint,
      });
      let stored = secret;
      if (changes.length > 0) {
        try {
          stored = await objects.replaceSecret({ ...secret, data: encodeState(state, secret.data) });
        } catch (err) {
          if (this.lostRace(err, attempt)) continue;
          throw err;
        }
        logger.info({ changes, secret: `${objects.namespace}/${objects.secretName}` }, 'certificate Secret updated');
      }
      // Serve what the plan allows before publishing: a bundle that drops the CA served until now must
      // not reach kube-apiserver while this replica still serves it.
      this.state = state;
      this.adopt(state, now);
      const wasEmpty = observed.every((o) => (o.config.webhooks ?? []).every((e) => !e.clientConfig?.caBundle));
      const everywhere = await this.publish(observed, b64(bundlePem(state)));
      this.observed = observed;
      if (everywhere && observed.length > 0) {
        // Counted from now, after the patch was answered. Before this pass nothing was published (a
        // fresh install): no kube-apiserver relies on an older bundle, so there is nothing to wait for.
        const settled: AuthorityState = { ...state, settled: { ...state.settled } };
        if (settle(settled, Date.now() + (wasEmpty ? 0 : this.opts.propagationDelayMs))) {
          try {
            await objects.replaceSecret({ ...stored, data: encodeState(settled, stored.data) });
          } catch (err) {
            if (this.lostRace(err, attempt)) continue;
            throw err;
          }
          this.state = settled;
          this.adopt(settled, Date.now());
        }
      }
      return;
    }
  }

  /** A 409 means another replica wrote first: read again and plan on top of what it wrote. */
  private lostRace(err: unknown, attempt: number): boolean {
    if (!(err instanceof ApiError) || err.status !== 409) return false;
    if (attempt >= MAX_ATTEMPTS)
      throw new Error(`lost ${attempt} write races on the certificate Secret in a row; trying again at the next poll`);
    this.opts.logger.debug({ attempt }, 'another replica wrote the certificate Secret first; adopting what it wrote');
    return true;
  }

  private async readSecret() {
    const { objects } = this.opts;
    try {
      return await objects.getSecret();
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        throw new Error(
          `Secret ${objects.namespace}/${objects.secretName} not found: the chart creates it (empty), and the server may only read and update it, not create it`,
        );
      }
      throw err;
    }
  }

  private async readConfigurations(): Promise<Observed[]> {
    const wanted: [WebhookKind, string][] = [
      ['ValidatingWebhookConfiguration', this.opts.validatingWebhookConfiguration],
      ['MutatingWebhookConfiguration', this.opts.mutatingWebhookConfiguration],
    ];
    const found = await Promise.all(
      wanted
        .filter(([, name]) => name)
        .map(async ([kind, name]) => ({ kind, config: await this.opts.objects.getWebhookConfiguration(kind, name) })),
    );
    // A configuration that does not exist (removed in an emergency, or not yet created) is skipped:
    // nothing calls us through it, and the other one must keep working.
    return found.filter((o): o is Observed => o.config !== undefined);
  }

  /** Patches the entries whose caBundle differs; true once every entry of every configuration holds `caBundle`. */
  private async publish(observed: Observed[], caBundle: string): Promise<boolean> {
    let everywhere = true;
    for (const o of observed) {
      const stale = (o.config.webhooks ?? []).flatMap((e, i) => (e.clientConfig?.caBundle === caBundle ? [] : [i]));
      if (stale.length === 0) continue;
      try {
        o.config = await this.opts.objects.patchCABundles(o.kind, o.config, stale, caBundle);
        this.opts.logger.info(
          { kind: o.kind, name: o.config.metadata.name, webhooks: stale.length },
          'caBundle published',
        );
      } catch (err) {
        everywhere = false;
        this.opts.logger.warn(
          { err: { message: (err as Error).message }, kind: o.kind, name: o.config.metadata.name },
          'caBundle could not be published; trying again at the next poll',
        );
      }
    }
    return everywhere;
  }

  /**
   * Serves the Secret's pair. A pair from a CA that kube-apiserver may not know yet replaces the
   * served one only if the served one is not trusted either (a placeholder, or a CA no longer
   * published): after a takeover, replicas keep serving the old certificate until the new CA settles.
   */
  private adopt(s: AuthorityState, now: number): void {
    const { serving, active } = s;
    if (!serving || !active || serving.certPem === this.material.cert) return;
    const servedTrusted =
      this.servedCA !== undefined &&
      Date.parse(this.material.notAfter) > now &&
      s.bundle.some((ca) => signedBy(this.material.cert, ca)) &&
      isSettled(s, this.servedCA, now);
    if (servedTrusted && !isSettled(s, active.certPem, now)) return;
    let next: TlsMaterial;
    try {
      next = checkMaterial(serving.certPem, serving.keyPem);
    } catch (err) {
      const error = err instanceof CertificateError ? err : new CertificateError((err as Error).message);
      for (const listener of this.errorListeners) listener(error);
      return;
    }
    const caCert = certificate(active.certPem);
    this.material = { ...next, ...(caCert ? { caNotAfter: new Date(caCert.validTo).toISOString() } : {}) };
    this.servedCA = active.certPem;
    for (const listener of this.changeListeners) listener(this.material);
  }
}

function mintFor(opts: SelfManagedOptions): Mint {
  return {
    async authority(now) {
      const ca = await createCertificateAuthority(`${opts.secretName} CA ${new Date(now).toISOString()}`, 0, {
        validityMs: opts.caValidityMs,
        now,
      });
      return { certPem: ca.certPem, keyPem: ca.keyPem };
    },
    async serving(ca, now, notAfterCap) {
      return issueCertificate(await loadAuthority(ca), {
        hosts: opts.dnsNames,
        validityMs: opts.servingValidityMs,
        now,
        notAfterCap,
      });
    },
  };
}

/** The source as `serve` runs it: server.tls.selfManaged, and the kubeconfig the informers use (cluster.kubeconfig). */
export async function openSelfManagedSource(config: Config, logger: Logger): Promise<SelfManagedCertificateSource> {
  const opts = selfManagedOptions(config.server.tls.selfManaged, config.server.certReloadIntervalSeconds);
  const objects = new KubeObjects(
    connectionFrom(loadKubeConfig(config.cluster.kubeconfig)),
    opts.namespace,
    opts.secretName,
  );
  logger.info(
    {
      secret: `${opts.namespace}/${opts.secretName}`,
      validating: opts.validatingWebhookConfiguration,
      mutating: opts.mutatingWebhookConfiguration,
      dnsNames: opts.dnsNames,
    },
    'self-managed certificates: reading the Secret and the webhook configurations',
  );
  return SelfManagedCertificateSource.open({ ...opts, objects, logger });
}
