// One Shoot over the horizon: a maintenance run per day, each run's steps in Gardener's order
// (images, control plane, pinned pools), the run's dry run, then the next day with the result.
import { strategyOf } from '../update-path.js';
import type { CloudProfileSpec, ExpirableVersion, Shoot, Worker } from '../../api/types.js';
import { beyondKubeletSkew, compareVersions, kubeletConstraint, parseVersion, stagesOf } from '../versions.js';
import { capabilityDefinitions, machineTypeOf, type PoolFacts, poolFacts } from './pool-filter.js';
import { firstAtOrAfter } from '../../util/sorted.js';
import { lateOffset, nextRun, type RunWindow, runWindowOf, startsInWindows, windowEndOf } from './runs.js';
import { kubernetesStep, machineImageStep, type Step } from './steps.js';
import type { Component, ForecastEvent } from './types.js';
import { classificationAt, formatInstant, stagesOf as stagesOfVersion } from '../versions.js';

interface Pool {
  name: string;
  /** Its machine type, when the profile lacks it: Gardener's image part stops at this pool. */
  missingType?: string;
  facts: PoolFacts;
  /** The facts as a memo key part, built once. */
  factsKey: string;
  kubernetes?: string;
  image?: { name: string; version: string };
}

interface State {
  controlPlane: string;
  pools: Pool[];
}

/** The auto-update flags after Gardener's defaulting: Kubernetes on only when the whole block is absent, images on unless false (defaults_shoot.go, SetDefaults_Shoot). */
export function autoUpdateOf(shoot: Shoot): { kubernetes: boolean; image: boolean } {
  const block = shoot.spec.maintenance?.autoUpdate as
    { kubernetesVersion?: boolean; machineImageVersion?: boolean } | undefined;
  if (block === undefined) return { kubernetes: true, image: true };
  return { kubernetes: block.kubernetesVersion === true, image: block.machineImageVersion !== false };
}

/** The stage starts of a profile, sorted: between two of them every classification stays the same. */
const startsOf = new WeakMap<CloudProfileSpec, number[]>();
export function profileStarts(profile: CloudProfileSpec): number[] {
  let starts = startsOf.get(profile);
  if (!starts)
    startsOf.set(
      profile,
      (starts = sortedStarts([...profile.kubernetes.versions, ...profile.machineImages.flatMap((i) => i.versions)])),
    );
  return starts;
}

function sortedStarts(versions: readonly ExpirableVersion[]): number[] {
  const set = new Set<number>();
  for (const v of versions) for (const s of stagesOf(v)) if (Number.isFinite(s.start)) set.add(s.start);
  return [...set].sort((a, b) => a - b);
}

const startsFromCache = new WeakMap<CloudProfileSpec, Map<string, number[]>>();

/**
 * The stage starts that can change a component's step: those of its version and of the higher
 * ones in its list, since maintenance never moves down and judges only the targets above.
 */
function startsFrom(profile: CloudProfileSpec, image: string | undefined, version: string): number[] {
  let cache = startsFromCache.get(profile);
  if (!cache) startsFromCache.set(profile, (cache = new Map<string, number[]>()));
  const key = `${image ?? ''}\u0000${version}`;
  let starts = cache.get(key);
  if (!starts) {
    const list =
      image === undefined
        ? profile.kubernetes.versions
        : (profile.machineImages.find((i) => i.name.toLowerCase() === image.toLowerCase())?.versions ?? []);
    const cur = parseVersion(version);
    cache.set(
      key,
      (starts = sortedStarts(
        list.filter((v) => cur === undefined || (parseVersion(v.version)?.compare(cur) ?? 0) >= 0),
      )),
    );
  }
  return starts;
}

/** The starts that matter to the Shoot as it is: its control plane's, its pinned pools' and its images'. */
function stateStarts(state: State, profile: CloudProfileSpec): number[] {
  const lists = [startsFrom(profile, undefined, state.controlPlane)];
  for (const pool of state.pools) {
    if (pool.kubernetes) lists.push(startsFrom(profile, undefined, pool.kubernetes));
    if (pool.image) lists.push(startsFrom(profile, pool.image.name, pool.image.version));
  }
  return lists.length === 1 ? lists[0]! : [...new Set(lists.flat())].sort((a, b) => a - b);
}

/**
 * The Shoot's events from the first run after `now` until `until`, with Gardener running at each
 * window's begin (`events`) and, where a lifecycle stage starts inside a window so that the random
 * run instant decides, at its last second (`otherwise`: what differs). An event of `events` that
 * the late run does not take is `uncertain`, as is every event of `otherwise`.
 */
export function forecastShoot(
  shoot: Shoot,
  profile: CloudProfileSpec,
  now: number,
  until: number,
): { window: RunWindow; events: ForecastEvent[]; otherwise?: ForecastEvent[] } {
  const window = runWindowOf(shoot);
  const hibernated = (shoot.spec as { hibernation?: { enabled?: boolean } }).hibernation?.enabled === true;
  const early = chain(shoot, profile, window, now, until, 0, hibernated);
  const lateWindow = window.late ?? window;
  const offset = lateOffset(lateWindow);
  // The late run differs only where a stage starts in [begin, begin + offset) of some window; a
  // random window (none set) may also begin a day earlier.
  if (!window.late && (offset <= 0 || !startsInWindows(window, profileStarts(profile), now, until, offset)))
    return { window, events: early };
  const late = chain(shoot, profile, lateWindow, now, until, offset, hibernated);
  const key = (e: ForecastEvent) =>
    [e.at, componentText(e.component), e.mode, e.from ?? '', e.to ?? '', e.failure?.kind ?? ''].join('\u0000');
  const lateKeys = new Set(late.map(key));
  const earlyKeys = new Set(early.map(key));
  const otherwise = late.filter((e) => !earlyKeys.has(key(e))).map((e) => ({ ...e, uncertain: true }));
  const events = early.map((e) => (lateKeys.has(key(e)) ? e : { ...e, uncertain: true }));
  return otherwise.length > 0 || events.some((e) => e.uncertain) ? { window, events, otherwise } : { window, events };
}

/**
 * One chain: a run a day at `offset` after the window's begin; events carry the window's begin. A
 * run that changes nothing is followed by identical runs until a stage of its versions or of
 * higher ones starts, so the chain jumps to the first run after that start. A failure repeats
 * every window; it is listed at its first.
 */
function chain(
  shoot: Shoot,
  profile: CloudProfileSpec,
  window: RunWindow,
  now: number,
  until: number,
  offset: number,
  hibernated: boolean,
): ForecastEvent[] {
  const flags = autoUpdateOf(shoot);
  let state = initialState(shoot, profile);
  let starts = stateStarts(state, profile);
  const events: ForecastEvent[] = [];
  let previousFailures = new Set<string>();
  for (let t = nextRun(window, now); t < until;) {
    const run = runOnce(state, profile, flags, t + offset);
    const failures = new Set<string>();
    for (const { component, step } of run.steps) {
      const key = step.failure
        ? `${componentText(component)}\u0000${step.failure.kind}\u0000${step.from ?? ''}`
        : undefined;
      if (key) failures.add(key);
      if (key && previousFailures.has(key)) continue;
      events.push({
        at: t,
        windowEnd: windowEndOf(window, t),
        component,
        ...step,
        ...(hibernated && step.to !== undefined ? { hibernated } : {}),
      });
    }
    previousFailures = failures;
    if (run.next) {
      state = run.next;
      starts = stateStarts(state, profile);
      t = nextRun(window, t);
      continue;
    }
    // Nothing moved: the same answer until a classification changes (starts apply strictly after).
    const i = firstAtOrAfter(starts, t + offset);
    if (i >= starts.length) break;
    t = nextRun(window, starts[i]! - offset);
  }
  return events;
}

function initialState(shoot: Shoot, profile: CloudProfileSpec): State {
  const pools = (shoot.spec.provider?.workers ?? []).map((w: Worker): Pool => {
    const image = w.machine?.image;
    const facts = poolFacts(w, profile);
    const type = (w.machine as { type?: string } | undefined)?.type ?? '';
    return {
      name: w.name,
      ...(machineTypeOf(w, profile) ? {} : { missingType: type }),
      facts,
      factsKey: `${facts.architecture}\u0000${facts.cri}\u0000${facts.containerRuntimes.join(',')}\u0000${facts.inPlace}\u0000${JSON.stringify(facts.capabilities ?? null)}`,
      ...(w.kubernetes?.version ? { kubernetes: w.kubernetes.version } : {}),
      ...(image?.version ? { image: { name: image.name, version: image.version } } : {}),
    };
  });
  return { controlPlane: shoot.spec.kubernetes.version, pools };
}

interface RunResult {
  steps: Array<{ component: Component; step: Step }>;
  /** The state after the run, when it changed something. */
  next?: State;
}

/** One maintenance run on an in-memory copy, all or nothing (maint/reconciler.go, reconcile). */
function runOnce(
  state: State,
  profile: CloudProfileSpec,
  flags: { kubernetes: boolean; image: boolean },
  t: number,
): RunResult {
  const memo = stepMemo(profile, t);
  const steps: RunResult['steps'] = [];
  const pools = state.pools.map((p) => ({ ...p }));
  // 1. Images first, each pool with its kubelet version from before this run (maint/reconciler.go, maintainMachineImages).
  const defs = capabilityDefinitions(profile);
  for (const pool of pools) {
    if (!pool.image) continue;
    const image = profile.machineImages.find((i) => i.name.toLowerCase() === pool.image!.name.toLowerCase());
    if (pool.missingType !== undefined || !image) {
      // A hard error: the image part stops for this pool and all later ones; Gardener logs it and
      // records nothing, not even the steps of the pools before (maint/reconciler.go, maintainMachineImages).
      steps.push({
        component: { kind: 'machine-image', pool: pool.name, image: pool.image.name },
        step: stopped(pool),
      });
      for (const s of steps) if (s.step.to !== undefined) s.step.quirk = unrecorded(pool);
      break;
    }
    const kubelet = pool.kubernetes ?? state.controlPlane;
    const f = pool.facts;
    const key = `i\u0000${image.name}\u0000${pool.image.version}\u0000${pool.factsKey}\u0000${kubelet}\u0000${flags.image}`;
    const step = memo.get(key, () =>
      machineImageStep(pool.image!.version, image, strategyOf(image), f, kubelet, flags.image, t, defs),
    );
    if (!step) continue;
    steps.push({ component: { kind: 'machine-image', pool: pool.name, image: image.name }, step });
    if (step.to) pool.image = { name: pool.image.name, version: step.to };
  }
  // 2. The control plane (maint/reconciler.go, maintainKubernetesVersion).
  let controlPlane = state.controlPlane;
  const cp = memo.get(`k\u0000${controlPlane}\u0000${flags.kubernetes}`, () =>
    kubernetesStep(controlPlane, profile.kubernetes.versions, flags.kubernetes, t),
  );
  if (cp) {
    steps.push({ component: { kind: 'kubernetes' }, step: cp });
    if (cp.to) controlPlane = cp.to;
  }
  // 3. Pinned pools, capped at the new control plane (maint/reconciler.go, reconcile).
  for (const pool of pools) {
    if (!pool.kubernetes) continue;
    const version = pool.kubernetes;
    const step = memo.get(`k\u0000${version}\u0000${flags.kubernetes}`, () =>
      kubernetesStep(version, profile.kubernetes.versions, flags.kubernetes, t),
    );
    if (!step) continue;
    if (step.to && compareVersions(step.to, controlPlane) > 0) step.to = controlPlane;
    // Capped back onto its own version: no step.
    if (step.to === pool.kubernetes) continue;
    steps.push({ component: { kind: 'kubernetes', pool: pool.name }, step });
    if (step.to) pool.kubernetes = step.to;
  }
  if (steps.length === 0) return { steps };
  // 4. The dry run: a rejection discards every step of the run (maint/reconciler.go, reconcile; plugin/pkg/shoot/validator/admission.go).
  const next: State = { controlPlane, pools };
  const rejected = rejection(next, state, profile, t);
  if (rejected) {
    const mode = steps.some((s) => s.step.mode === 'forced') ? 'forced' : 'auto';
    const discarded = steps
      .filter((s) => s.step.to)
      .map((s) => `${componentText(s.component)} ${s.step.from} → ${s.step.to}`);
    return {
      steps: [
        {
          component: { kind: 'run' },
          step: {
            mode,
            reason: 'Updates to the Shoot failed to be applied',
            trigger: `the run would move ${discarded.join(', ') || 'nothing'}`,
            failure: rejected,
            ...(rejected.kind === 'inactive-image'
              ? {
                  quirk: {
                    kind: 'before-lifecycle' as const,
                    detail:
                      'Gardener picks an image version before its lifecycle starts (it skips only preview versions), and its own admission rejects it',
                  },
                }
              : {}),
          },
        },
      ],
    };
  }
  const changed = steps.some((s) => s.step.to !== undefined);
  return changed ? { steps, next } : { steps };
}

/**
 * A step depends on the version, the pool's facts, the flag and the classifications at `t`, and
 * those change only at stage starts: steps are remembered per profile and per span between two
 * starts, so a fleet costs per distinct version in use, not per Shoot. Callers get copies.
 */
const memos = new WeakMap<CloudProfileSpec, Map<string, Step | null>>();
function stepMemo(
  profile: CloudProfileSpec,
  t: number,
): { get(key: string, compute: () => Step | undefined): Step | undefined } {
  let memo = memos.get(profile);
  if (!memo) memos.set(profile, (memo = new Map<string, Step | null>()));
  const span = firstAtOrAfter(profileStarts(profile), t);
  const known = memo;
  return {
    get(key, compute) {
      const full = `${span}\u0000${key}`;
      let step = known.get(full);
      if (step === undefined) known.set(full, (step = compute() ?? null));
      return step === null ? undefined : { ...step };
    },
  };
}

function rejection(state: State, before: State, profile: CloudProfileSpec, t: number): Step['failure'] {
  for (const [i, pool] of state.pools.entries()) {
    // A changed image must be active: one whose lifecycle has not started is rejected (plugin/pkg/shoot/validator/admission.go, validateMachineImage).
    const moved = pool.image && pool.image.version !== before.pools[i]?.image?.version;
    const entry = moved
      ? profile.machineImages
          .find((im) => im.name.toLowerCase() === pool.image!.name.toLowerCase())
          ?.versions.find((v) => v.version === pool.image!.version)
      : undefined;
    if (entry && classificationAt(entry, t) === 'unavailable') {
      const start = stagesOfVersion(entry).find((s) => s.start >= t)?.start;
      return {
        kind: 'inactive-image',
        message: `worker pool "${pool.name}" would move onto machine image version '${pool.image!.name}:${pool.image!.version}', whose lifecycle has not started${start !== undefined && Number.isFinite(start) ? ` (${formatInstant(start)})` : ''}: the dry run rejects it ("is expired"), and every run fails alike until the version is preview or later`,
      };
    }
    const kubelet = pool.kubernetes ?? state.controlPlane;
    // Pinned pools may be at most three minors behind (SHOOT-NO-MINOR-SKIP's reading, Gardener's).
    if (beyondKubeletSkew(kubelet, state.controlPlane)) {
      return {
        kind: 'skew',
        message: `worker pool "${pool.name}" on ${kubelet} would be more than three minors behind control plane ${state.controlPlane} ("worker group kubernetes version must be at most three minor versions behind control plane version")`,
      };
    }
    // Every pool's image must accept its kubelet after the run (plugin/pkg/shoot/validator/admission.go, validateKubeletVersion).
    if (!pool.image) continue;
    const image = profile.machineImages.find((i) => i.name.toLowerCase() === pool.image!.name.toLowerCase());
    const constraint = image?.versions.find((v) => v.version === pool.image!.version)?.kubeletVersionConstraint;
    if (constraint !== undefined && !kubeletConstraint(constraint, kubelet).meets) {
      return {
        kind: 'kubelet-constraint',
        message: `machine image '${pool.image.name}@${pool.image.version}' does not support kubelet version '${kubelet}' of worker pool "${pool.name}" (constraint '${constraint}')`,
      };
    }
  }
  return undefined;
}

/** The failure where Gardener's image part stops: a pool whose machine type or image the profile lacks. */
function stopped(pool: Pool): Step {
  const what =
    pool.missingType !== undefined
      ? {
          kind: 'no-machine-type' as const,
          trigger: `machine type "${pool.missingType}" is not in the profile`,
          message: `machine type "${pool.missingType}" of worker "${pool.name}" does not exist in cloudprofile`,
        }
      : {
          kind: 'no-target' as const,
          trigger: `machine image "${pool.image!.name}" is not in the profile`,
          message: `the profile has no machine image "${pool.image!.name}"`,
        };
  return {
    mode: 'forced',
    from: pool.image!.version,
    reason: 'Failed to maintain Shoot machine images',
    trigger: what.trigger,
    failure: {
      kind: what.kind,
      message: `${what.message}: the image part of the run stops at this pool, for it and every later pool`,
    },
    quirk: unrecorded(pool),
  };
}

function unrecorded(pool: Pool): NonNullable<Step['quirk']> {
  return {
    kind: 'unrecorded',
    detail: `Gardener's image maintenance stops at worker pool "${pool.name}" and only logs it: no event, no status.lastMaintenance entry`,
  };
}

export function componentText(c: Component): string {
  if (c.kind === 'run') return 'the run';
  if (c.kind === 'machine-image') return `worker pool "${c.pool}" image ${c.image}`;
  return c.pool === undefined ? 'control plane' : `worker pool "${c.pool}"`;
}
