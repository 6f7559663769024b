// One component in one maintenance run: the trigger, the target, the trap and the failure. The
// rules are those of Gardener's Shoot maintenance reconciler (docs/forecast.md); each line cites
// the file it follows.
import type { ForcedUpdate, UpdateStrategy } from '../update-path.js';
import {
  kubernetesAutoUpdate,
  kubernetesForcedUpdate,
  machineImageAutoUpdate,
  machineImageForcedUpdate,
} from '../update-path.js';
import type { Classification, ExpirableVersion, MachineImage } from '../../api/types.js';
import { classificationAt, expiryInstant, formatInstant, parseVersion, stagesOf } from '../versions.js';
import { type CapabilityDefinition, type FilterName, type PoolFacts, poolCandidates } from './pool-filter.js';
import type { FailureKind, ForecastEvent } from './types.js';

/** A step before it is placed in time. */
export type Step = Omit<ForecastEvent, 'at' | 'windowEnd' | 'component' | 'uncertain'>;

interface Trigger {
  mode: 'auto' | 'forced';
  reason: string;
  trigger: string;
  from?: Classification;
}

/** Control plane or pinned pool: missing → forced, expired → forced, opted in → auto, else nothing (maint/reconciler.go, shouldKubernetesVersionBeUpdated). */
export function kubernetesStep(
  current: string,
  versions: readonly ExpirableVersion[],
  autoUpdate: boolean,
  t: number,
): Step | undefined {
  // Existence is semver equality (v1h/cloudprofile.go, KubernetesVersionExistsInCloudProfile).
  const cur = parseVersion(current);
  const entry = versions.find((v) => cur !== undefined && parseVersion(v.version)?.compare(cur) === 0);
  const trig = triggerOf(current, entry, autoUpdate, t, {
    expired: 'Kubernetes version expired - force update required',
    auto: 'Automatic update of Kubernetes version configured',
  });
  if (!trig) return undefined;
  // Auto: the newest patch of the minor only; forced: that, else minor + 1 (maint/helper/helper.go, DetermineVersionForStrategy; v1h/cloudprofile.go, GetVersionForForcefulUpdateToConsecutiveMinor).
  const target =
    trig.mode === 'forced' ? kubernetesForcedUpdate(current, versions, t) : kubernetesAutoUpdate(current, versions, t);
  if (!target) return undefined;
  if (!target.found) return failed(trig, current, 'no-consecutive-minor', target.reason);
  return moved(trig, current, target, versions, t);
}

/** A pool's image: the same trigger on the pool's filtered candidates, targets by strategy (maint/reconciler.go, shouldMachineImageVersionBeUpdated). */
export function machineImageStep(
  current: string,
  image: MachineImage,
  strategy: UpdateStrategy,
  pool: PoolFacts,
  kubelet: string,
  autoUpdate: boolean,
  t: number,
  defs: readonly CapabilityDefinition[] = [],
): Step | undefined {
  // Every later decision sees only the filtered list (maint/helper/helper.go, FilterMachineImageVersions).
  const { kept, removed } = poolCandidates(image.versions, pool, kubelet, current, defs);
  // Existence is exact string equality on the filtered list (v1h/cloudprofile.go, ShootMachineImageVersionExists).
  const entry = kept.find((v) => v.version === current);
  const filteredOut = entry === undefined && image.versions.some((v) => v.version === current);
  const trig = triggerOf(current, entry, autoUpdate, t, {
    expired: `Machine image version expired - force update required (image update strategy: ${strategy})`,
    auto: `Automatic update of the machine image version is configured (image update strategy: ${strategy})`,
    missing: filteredOut ? `${current} is in the profile but not for this pool (${filtersText(removed)})` : undefined,
  });
  if (!trig) return undefined;
  const target =
    trig.mode === 'forced'
      ? machineImageForcedUpdate(current, kept, strategy, t)
      : machineImageAutoUpdate(current, kept, strategy, t);
  if (!target) return undefined;
  if (target.found) return moved(trig, current, target, kept, t);
  // Would the unfiltered list have a target? Then the pool's constraints are what fails.
  const unfiltered = machineImageForcedUpdate(current, image.versions, strategy, t);
  if (unfiltered.found && removed.size > 0) {
    return failed(
      trig,
      current,
      'pool-constraint',
      `${image.name} ${unfiltered.version} would be the target, but not for this pool (${filtersText(removed)})`,
    );
  }
  // Under `major` there is no forced step past the auto target: end of life (maint/helper/helper.go, DetermineMachineImageVersion).
  return failed(trig, current, strategy === 'major' ? 'end-of-life' : 'no-target', target.reason);
}

function triggerOf(
  current: string,
  entry: ExpirableVersion | undefined,
  autoUpdate: boolean,
  t: number,
  reasons: { expired: string; auto: string; missing?: string | undefined },
): Trigger | undefined {
  if (!entry)
    return {
      mode: 'forced',
      reason: 'Version does not exist in CloudProfile',
      trigger: reasons.missing ?? `${current} is not in the profile`,
    };
  const cls = classificationAt(entry, t);
  if (cls === 'expired') {
    const at = expiryInstant(entry);
    return {
      mode: 'forced',
      reason: reasons.expired,
      trigger:
        at !== undefined && Number.isFinite(at)
          ? `${current} expired at ${formatInstant(at)}`
          : `${current} is expired`,
      from: cls,
    };
  }
  // Auto-update also covers preview and deprecated versions; nothing happens without the opt-in (maint/reconciler.go, shouldKubernetesVersionBeUpdated).
  if (autoUpdate)
    return { mode: 'auto', reason: reasons.auto, trigger: `auto-update on, ${current} is ${cls}`, from: cls };
  return undefined;
}

function moved(
  trig: Trigger,
  current: string,
  target: Extract<ForcedUpdate, { found: true }>,
  versions: readonly ExpirableVersion[],
  t: number,
): Step {
  const toEntry = versions.find((v) => v.version === target.version);
  const toClassification = toEntry ? classificationAt(toEntry, t) : undefined;
  const trap = trapOf(trig, current, target, toClassification, versions, t);
  const starts =
    toEntry && toClassification === 'unavailable' ? stagesOf(toEntry).find((s) => s.start >= t) : undefined;
  return {
    mode: trig.mode,
    from: current,
    to: target.version,
    reason: trig.reason,
    trigger: trig.trigger,
    ...(toClassification ? { toClassification } : {}),
    ...(trap ? { trap } : {}),
    ...expiredTargetQuirk(target, versions, t),
    // Gardener's targets skip only preview versions (v1h/cloudprofile.go, GetLatestQualifyingVersion).
    ...(toClassification === 'unavailable'
      ? {
          quirk: {
            kind: 'before-lifecycle' as const,
            detail: `Gardener picks ${target.version} before its lifecycle starts${starts && Number.isFinite(starts.start) ? ` (${formatInstant(starts.start)})` : ''}: it skips only preview versions`,
          },
        }
      : {}),
  };
}

/** A forced image step onto an expired version while its group has one that is not (update-path.ts, nextHigher). */
function expiredTargetQuirk(
  target: Extract<ForcedUpdate, { found: true }>,
  versions: readonly ExpirableVersion[],
  t: number,
): Pick<Step, 'quirk'> {
  if (!target.expired || (target.step !== 'next-minor' && target.step !== 'next-major')) return {};
  const tv = parseVersion(target.version)!;
  const usable = versions.filter((v) => {
    const p = parseVersion(v.version);
    const c = classificationAt(v, t);
    return (
      p !== undefined &&
      p.major === tv.major &&
      (target.step === 'next-major' || p.minor === tv.minor) &&
      c !== 'expired' &&
      c !== 'preview'
    );
  });
  if (usable.length === 0) return {};
  const group = target.step === 'next-minor' ? 'minor' : 'major';
  return {
    quirk: {
      kind: 'expired-target',
      detail: `Gardener takes expired ${target.version} over ${usable.map((v) => v.version).join(', ')} of the same ${group}: a ${group} below it with only preview versions counts as the next one`,
    },
  };
}

function failed(trig: Trigger, current: string, kind: FailureKind, message: string): Step {
  return { mode: trig.mode, from: current, reason: trig.reason, trigger: trig.trigger, failure: { kind, message } };
}

/**
 * Where Gardener lands on a deprecated version although a supported one was at hand.
 * #13647: the auto target prefers non-deprecated versions but falls back to a newer deprecated one,
 * so a Shoot on a supported version moves onto it (v1h/cloudprofile.go, getVersionForAutoUpdate).
 * #13703: the forced minor/major step takes the highest non-expired version, deprecated or not
 * (v1h/cloudprofile.go, GetVersionForForcefulUpdateToConsecutiveMinor, getVersionForMachineImageForceUpdate).
 */
function trapOf(
  trig: Trigger,
  current: string,
  target: Extract<ForcedUpdate, { found: true }>,
  to: Classification | undefined,
  versions: readonly ExpirableVersion[],
  t: number,
): Step['trap'] {
  if (to !== 'deprecated') return undefined;
  if (target.step === 'next-minor' || target.step === 'next-major') {
    const tv = parseVersion(target.version)!;
    const sameGroup = (v: ExpirableVersion) => {
      const p = parseVersion(v.version);
      return p !== undefined && p.major === tv.major && (target.step === 'next-major' || p.minor === tv.minor);
    };
    const supported = versions
      .filter((v) => sameGroup(v) && classificationAt(v, t) === 'supported')
      .map((v) => v.version);
    if (supported.length === 0) return undefined;
    return {
      issue: 'gardener/gardener#13703',
      detail: `the forced step takes deprecated ${target.version} over supported ${supported.join(', ')}`,
    };
  }
  if (trig.from === 'supported' || trig.from === 'preview') {
    return {
      issue: 'gardener/gardener#13647',
      detail: `moves from ${trig.from} ${current} onto deprecated ${target.version}`,
    };
  }
  return undefined;
}

function filtersText(removed: ReadonlyMap<FilterName, number>): string {
  return [...removed].map(([name, n]) => `${n} version${n === 1 ? '' : 's'} removed by the ${name} filter`).join(', ');
}
