// What the forecast says: per Shoot, the chain of maintenance runs that change or fail to change
// a version, in Gardener's terms (reasons are the texts maint/reconciler.go records).
import type { Classification } from '../../api/types.js';

/** The part of a Shoot one maintenance step moves: the control plane, a pinned pool's Kubernetes, a pool's image. */
export type Component =
  | { kind: 'kubernetes'; pool?: string }
  | { kind: 'machine-image'; pool: string; image: string }
  /** The whole run: a rejected dry run discards every step of the day. */
  | { kind: 'run' };

export const FAILURE_KINDS = [
  'no-consecutive-minor',
  'end-of-life',
  'no-target',
  'pool-constraint',
  'skew',
  'kubelet-constraint',
  'inactive-image',
  'no-machine-type',
] as const;
/**
 * Why a forced update cannot happen. `no-consecutive-minor`: no version of minor + 1;
 * `end-of-life`: an image under `major` with nothing newer left; `no-target`: an image under
 * `patch`/`minor` with no next minor/major; `pool-constraint`: targets exist, but none for the
 * pool's architecture, capabilities, CRI, kubelet version or in-place minimum; `skew`,
 * `kubelet-constraint` and `inactive-image` (a target image version whose lifecycle has not
 * started): the run's dry run is rejected, so none of its steps applies; `no-machine-type`: the
 * profile lacks a pool's machine type, and Gardener's image part stops at that pool.
 */
export type FailureKind = (typeof FAILURE_KINDS)[number];

export type TrapIssue = 'gardener/gardener#13647' | 'gardener/gardener#13703';

/**
 * Where Gardener does what its authors likely did not intend, with no issue to name: the forecast
 * shows what Gardener does and flags it. `before-lifecycle`: a target whose lifecycle has not
 * started (GetLatestQualifyingVersion skips only preview versions); `unrecorded`: the image part of
 * the run stops at a pool (its machine type or image is not in the profile) and Gardener only logs
 * it, so this step or failure has no event and no status.lastMaintenance entry; `expired-target`:
 * a forced image step takes an expired version although its minor (major) has one that is not,
 * because a minor (major) with only preview versions counts as the next one
 * (v1h/cloudprofile.go, getVersionForMachineImageForceUpdate).
 */
export type QuirkKind = 'before-lifecycle' | 'unrecorded' | 'expired-target';

export interface ForecastEvent {
  /** The run instant: the start of the day's maintenance window, UTC epoch ms. */
  at: number;
  /** End of the (configured) window that day. */
  windowEnd: number;
  component: Component;
  mode: 'auto' | 'forced';
  from?: string;
  /** Absent when the step fails. */
  to?: string;
  /** Gardener's recorded reason (`Kubernetes version expired - force update required`, …). */
  reason: string;
  /** What triggers it, in words: the classification or expiry that the run sees. */
  trigger: string;
  toClassification?: Classification;
  trap?: { issue: TrapIssue; detail: string };
  failure?: { kind: FailureKind; message: string };
  quirk?: { kind: QuirkKind; detail: string };
  /**
   * Gardener's random run instant decides: a run at the window's last second does not take this
   * step (`events`), or takes it (`otherwise`), because a lifecycle stage starts inside the window.
   */
  uncertain?: boolean;
  /** The Shoot is hibernated: the version is written to its spec in the window, its nodes and control plane roll out at wake-up. */
  hibernated?: boolean;
}

export interface ShootForecast {
  shoot: string;
  /** `CloudProfile/aws`, `NamespacedCloudProfile/garden-dev/aws-extended`. */
  profile: string;
  /** The window as Gardener reads it; `always` when the Shoot sets none. */
  window: string;
  /** The chain when Gardener runs at the window's begin each day. */
  events: ForecastEvent[];
  /**
   * The events of the chain when Gardener runs at the window's last second each day, where they
   * differ: they take the place of the uncertain ones of `events`. Absent when the two agree.
   */
  otherwise?: ForecastEvent[];
}

export interface Forecast {
  now: number;
  until: number;
  shoots: ShootForecast[];
  /** Shoots not forecast, with why: being deleted, or their profile is missing. */
  skipped: Array<{ shoot: string; why: string }>;
}
