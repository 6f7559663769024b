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
] as const;
/**
 * Why a forced update cannot happen. `no-consecutive-minor`: no version of minor + 1;
 * `end-of-life`: an image under `major` with nothing newer left; `no-target`: an image under
 * `patch`/`minor` with no next minor/major; `pool-constraint`: targets exist, but none for the
 * pool's architecture, CRI, kubelet version or in-place minimum; `skew` and `kubelet-constraint`:
 * the run's dry run is rejected, so none of its steps applies.
 */
export type FailureKind = (typeof FAILURE_KINDS)[number];

export type TrapIssue = 'gardener/gardener#13647' | 'gardener/gardener#13703';

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
  /** A lifecycle instant falls inside this window or the day before's: Gardener's random run instant decides, the step may come a window earlier. */
  uncertain?: boolean;
}

export interface ShootForecast {
  shoot: string;
  /** `CloudProfile/aws`, `NamespacedCloudProfile/garden-dev/aws-extended`. */
  profile: string;
  /** The window as Gardener reads it; `always` when the Shoot sets none. */
  window: string;
  events: ForecastEvent[];
}

export interface Forecast {
  now: number;
  until: number;
  shoots: ShootForecast[];
  /** Shoots not forecast, with why: being deleted, or their profile is missing. */
  skipped: Array<{ shoot: string; why: string }>;
}
