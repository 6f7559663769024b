// One writer among the replicas: a coordination.k8s.io/v1 Lease, taken and renewed as client-go's
// leader election does (leaderelection.go): a holder renews every retry period; another replica
// takes the Lease only once it has seen the same record unchanged for the Lease's whole duration,
// by its own clock, so clocks that disagree between nodes do not matter. A holder counts itself
// the holder only until its renew deadline (2/3 of the duration) after its last successful
// renewal: it stops writing before anyone else may start.
import { ApiError, type ApiConnection } from '../../cluster/api-client.js';
import { call } from '../tls/kube-objects.js';

export interface LeaseObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string } & Record<string, unknown>;
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

export interface LeaseOptions {
  conn: ApiConnection;
  namespace: string;
  name: string;
  /** This replica: unique per process (client-go uses the hostname and a UUID). */
  identity: string;
  durationSeconds: number;
  /** Monotonic milliseconds: how long a record has been seen unchanged, and since the last renewal. */
  monotonic?: () => number;
  /** Wall clock (epoch ms), for the Lease's own acquireTime and renewTime. */
  now?: () => number;
  onChange?: (holding: boolean) => void;
}

/** A Lease's MicroTime: RFC 3339 with microseconds, as kube-apiserver writes it. */
const microTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

export class LeaseElector {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private renewedAt: number | undefined;
  private observed: { record: string; at: number } | undefined;
  private wasHolding = false;
  private readonly monotonic: () => number;
  private readonly now: () => number;

  constructor(private readonly opts: LeaseOptions) {
    this.monotonic = opts.monotonic ?? (() => performance.now());
    this.now = opts.now ?? Date.now;
  }

  get durationMs(): number {
    return this.opts.durationSeconds * 1000;
  }

  /** client-go's ratios: renew deadline 2/3 of the duration, retry period 2/15 (10 s and 2 s of 15 s). */
  get renewDeadlineMs(): number {
    return (this.durationMs * 2) / 3;
  }

  get retryPeriodMs(): number {
    return (this.durationMs * 2) / 15;
  }

  /** True while this replica may write: it holds the Lease, renewed within the renew deadline. */
  holding(): boolean {
    const held = this.renewedAt !== undefined && this.monotonic() - this.renewedAt < this.renewDeadlineMs;
    if (!held && this.wasHolding) this.changed(false);
    return held;
  }

  start(): void {
    const loop = () => {
      if (this.stopped) return;
      void this.tryOnce().finally(() => {
        if (this.stopped) return;
        this.timer = setTimeout(loop, this.retryPeriodMs);
        this.timer.unref();
      });
    };
    loop();
  }

  /** Stops renewing; a holder gives the Lease up (an empty holder), so another takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (!this.holding()) return;
    this.renewedAt = undefined;
    this.changed(false);
    try {
      const lease = await this.get();
      if (lease?.spec?.holderIdentity !== this.opts.identity) return;
      await this.put({ ...lease, spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1 } });
    } catch {
      // The others take over when the Lease runs out.
    }
  }

  /** One round of acquire-or-renew; true when this replica holds the Lease afterwards. */
  async tryOnce(): Promise<boolean> {
    const started = this.monotonic();
    try {
      const lease = await this.get();
      const at = this.now();
      if (!lease) {
        await this.create(at);
        return this.renewed(started);
      }
      const spec = lease.spec ?? {};
      const holder = spec.holderIdentity ?? '';
      if (holder !== this.opts.identity) {
        if (holder !== '' && !this.expired(lease, started)) return this.lost();
        await this.put({
          ...lease,
          spec: {
            holderIdentity: this.opts.identity,
            leaseDurationSeconds: this.opts.durationSeconds,
            acquireTime: microTime(at),
            renewTime: microTime(at),
            leaseTransitions: (spec.leaseTransitions ?? 0) + 1,
          },
        });
        return this.renewed(started);
      }
      await this.put({
        ...lease,
        spec: { ...spec, leaseDurationSeconds: this.opts.durationSeconds, renewTime: microTime(at) },
      });
      return this.renewed(started);
    } catch (err) {
      // A conflict: another replica wrote first. Anything else: keep holding until the deadline.
      if (err instanceof ApiError && err.status === 409) return this.lost();
      return this.holding();
    }
  }

  /** Whether the record has been seen unchanged for its whole duration, by this replica's clock. */
  private expired(lease: LeaseObject, at: number): boolean {
    const spec = lease.spec ?? {};
    // Every write changes the resourceVersion: a renewal shows even when the clocks disagree.
    const record = `${lease.metadata.resourceVersion ?? ''}\u0000${spec.holderIdentity ?? ''}\u0000${spec.renewTime ?? ''}`;
    if (this.observed?.record !== record) this.observed = { record, at };
    const duration = (spec.leaseDurationSeconds ?? this.opts.durationSeconds) * 1000;
    return at - this.observed.at >= duration;
  }

  private renewed(started: number): boolean {
    // Counted from before the request: the Lease may have been written at any point of it.
    this.renewedAt = started;
    if (!this.wasHolding) this.changed(true);
    return true;
  }

  private lost(): boolean {
    this.renewedAt = undefined;
    if (this.wasHolding) this.changed(false);
    return false;
  }

  private changed(holding: boolean): void {
    this.wasHolding = holding;
    this.opts.onChange?.(holding);
  }

  private get path(): string {
    const { namespace, name } = this.opts;
    return `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases/${encodeURIComponent(name)}`;
  }

  private async get(): Promise<LeaseObject | undefined> {
    try {
      return (await call(this.opts.conn, 'GET', this.path)) as LeaseObject;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return undefined;
      throw err;
    }
  }

  private async create(at: number): Promise<void> {
    const { namespace, name, identity, durationSeconds } = this.opts;
    await call(
      this.opts.conn,
      'POST',
      `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`,
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace },
        spec: {
          holderIdentity: identity,
          leaseDurationSeconds: durationSeconds,
          acquireTime: microTime(at),
          renewTime: microTime(at),
          leaseTransitions: 0,
        },
      },
    );
  }

  /** A PUT with the resourceVersion read: a replica that wrote in between makes it fail with 409. */
  private async put(lease: LeaseObject): Promise<void> {
    await call(this.opts.conn, 'PUT', this.path, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...lease });
  }
}
