// One Shoot over the horizon: a maintenance run per day, each run's steps in Gardener's order
// (images, control plane, pinned pools), the run's dry run, then the next day with the result.
import { strategyOf } from '../update-path.js';
import type { CloudProfileSpec, ExpirableVersion, Shoot, Worker } from '../../api/types.js';
import { beyondKubeletSkew, compareVersions, kubeletConstraint, parseVersion, stagesOf } from '../versions.js';
import { type PoolFacts, poolFacts } from './pool-filter.js';
import { firstAtOrAfter } from '../../util/sorted.js';
import { nextRun, type RunWindow, runWindowOf, uncertainRun, windowEndOf } from './runs.js';
import { kubernetesStep, machineImageStep, type Step } from './steps.js';
import type { Component, ForecastEvent } from './types.js';

interface Pool {
  name: string;
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

const DAY_MS = 86_400_000;

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
 * The Shoot's events from the first run after `now` until `until`. A run that changes nothing is
 * followed by identical runs until a stage of its versions or of higher ones starts, so the
 * forecast jumps to the first run after that start. A failure repeats every window; it is listed
 * at its first.
 */
export function forecastShoot(
  shoot: Shoot,
  profile: CloudProfileSpec,
  now: number,
  until: number,
): { window: RunWindow; events: ForecastEvent[] } {
  const window = runWindowOf(shoot);
  const flags = autoUpdateOf(shoot);
  let state = initialState(shoot, profile);
  let starts = stateStarts(state, profile);
  const events: ForecastEvent[] = [];
  let previousFailures = new Set<string>();
  for (let t = nextRun(window, now); t < until;) {
    const run = runOnce(state, profile, flags, t);
    // A stage start inside this window, or the previous day's, makes the random run instant decide (maint/reconciler.go, requeueAfterDuration).
    const uncertain = uncertainRun(window, t, starts) || uncertainRun(window, t - DAY_MS, starts);
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
        ...(uncertain ? { uncertain } : {}),
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
    const i = firstAtOrAfter(starts, t);
    if (i >= starts.length) break;
    t = nextRun(window, starts[i]!);
  }
  return { window, events };
}

function initialState(shoot: Shoot, profile: CloudProfileSpec): State {
  const pools = (shoot.spec.provider?.workers ?? []).map((w: Worker): Pool => {
    const image = w.machine?.image;
    const facts = poolFacts(w, profile);
    return {
      name: w.name,
      facts,
      factsKey: `${facts.architecture}\u0000${facts.cri}\u0000${facts.containerRuntimes.join(',')}\u0000${facts.inPlace}`,
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
  for (const pool of pools) {
    if (!pool.image) continue;
    const image = profile.machineImages.find((i) => i.name.toLowerCase() === pool.image!.name.toLowerCase());
    if (!image) {
      // A hard error: the image part stops for this pool and all later ones (maint/helper/helper.go, DetermineMachineImage).
      steps.push({
        component: { kind: 'machine-image', pool: pool.name, image: pool.image.name },
        step: {
          mode: 'forced',
          from: pool.image.version,
          reason: 'Version does not exist in CloudProfile',
          trigger: `machine image "${pool.image.name}" is not in the profile`,
          failure: {
            kind: 'no-target',
            message: `the profile has no machine image "${pool.image.name}": the image part of this run stops here`,
          },
        },
      });
      break;
    }
    const kubelet = pool.kubernetes ?? state.controlPlane;
    const f = pool.facts;
    const key = `i\u0000${image.name}\u0000${pool.image.version}\u0000${pool.factsKey}\u0000${kubelet}\u0000${flags.image}`;
    const step = memo.get(key, () =>
      machineImageStep(pool.image!.version, image, strategyOf(image), f, kubelet, flags.image, t),
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
  const rejected = rejection(next, profile);
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

function rejection(state: State, profile: CloudProfileSpec): Step['failure'] {
  for (const pool of state.pools) {
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

export function componentText(c: Component): string {
  if (c.kind === 'run') return 'the run';
  if (c.kind === 'machine-image') return `worker pool "${c.pool}" image ${c.image}`;
  return c.pool === undefined ? 'control plane' : `worker pool "${c.pool}"`;
}
