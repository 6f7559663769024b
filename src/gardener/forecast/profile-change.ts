// The forecast at admission: what a profile UPDATE changes in the maintenance of the Shoots it
// concerns. Only the lists the UPDATE changes are read, and in them only the versions in use at
// or below the highest changed one (maintenance never moves down). Each (version, auto-update
// flag, pool facts) is stepped through its chain under the stored and the proposed profile with
// the forecast's own step functions; the Shoots are read only where a finding names them, so a
// review costs per version in use, not per Shoot. Whole chains per Shoot (windows, the dry run's
// skew and kubelet checks) are `version-policy forecast --proposed`'s job.
import type { ClusterState, VersionUse } from '../../api/cluster-state.js';
import { jsonEqual } from '../../util/json-equal.js';
import type { CloudProfileSpec, ExpirableVersion, MachineImage, ProfileRef, Shoot } from '../../api/types.js';
import { strategyOf } from '../update-path.js';
import { isDeleting } from '../usage.js';
import { firstAtOrAfter } from '../../util/sorted.js';
import { compareVersions, expiryInstant, stagesOf } from '../versions.js';
import { architecturesOf, capabilityDefinitions, poolFacts, type PoolFacts } from './pool-filter.js';
import { autoUpdateOf } from './shoot.js';
import { kubernetesStep, machineImageStep, type Step } from './steps.js';

export const FORECAST_CONDITIONS = ['trap', 'no-target', 'forced-soon'] as const;
/** `trap`: Gardener would land Shoots on a deprecated version (#13647, #13703); `no-target`: a forced update would fail; `forced-soon`: a forced update moves into the next days. */
export type ForecastCondition = (typeof FORECAST_CONDITIONS)[number];

export interface ForecastFinding {
  condition: ForecastCondition;
  /** The machine image; absent for Kubernetes. */
  image?: string;
  /** The version the step leaves (or fails to leave). */
  version: string;
  /** The first run instant it concerns: `now` stands for the next maintenance run. */
  at: number;
  /** The step under the proposed profile. */
  step: Step;
  /** forced-soon: when the stored profile forces it, if within the horizon. */
  before?: number;
  /** The Shoots concerned. */
  shoots: Shoot[];
}

/** One profile reference whose Shoots the UPDATE concerns, with its effective specs before and after. */
export interface ForecastSource {
  ref: ProfileRef;
  before: () => CloudProfileSpec;
  after: () => CloudProfileSpec;
}

export interface ForecastOptions {
  horizonDays: number;
  soonDays: number;
}

export interface ForecastResult {
  findings: ForecastFinding[];
  /** Chains left unstepped when the budget ran out. */
  skippedGroups: number;
}

/**
 * What one review may spend: list entries read by step functions (a step reads its list once), so
 * the work is bounded at any list length; past it the rest is not stepped, and the result says so.
 */
export const ENTRY_BUDGET = 200_000;
/** Moves followed per chain: a minor a window, so eight windows of steps. */
const MAX_HOPS = 8;
const DAY_MS = 86_400_000;
/** Not a version bound: a list-level field changed (an image's update strategy), so every version counts. */
const EVERY_VERSION = '\u0000every';

/**
 * The highest changed version per list ('' for Kubernetes, else the lower-cased image name), or
 * EVERY_VERSION; lists the UPDATE leaves alone are absent.
 */
export function changedLists(
  before: Pick<CloudProfileSpec, 'kubernetes' | 'machineImages'>,
  after: Pick<CloudProfileSpec, 'kubernetes' | 'machineImages'>,
): Map<string, string> {
  const out = new Map<string, string>();
  const k8s = highestChanged(before.kubernetes?.versions ?? [], after.kubernetes?.versions ?? []);
  if (k8s !== undefined) out.set('', k8s);
  const images = new Map<string, [MachineImage | undefined, MachineImage | undefined]>();
  for (const i of before.machineImages ?? []) images.set(i.name.toLowerCase(), [i, undefined]);
  for (const i of after.machineImages ?? [])
    images.set(i.name.toLowerCase(), [images.get(i.name.toLowerCase())?.[0], i]);
  for (const [name, [b, a]] of images) {
    if (!b || !a || b.updateStrategy !== a.updateStrategy) out.set(name, EVERY_VERSION);
    else {
      const v = highestChanged(b.versions, a.versions);
      if (v !== undefined) out.set(name, v);
    }
  }
  return out;
}

function highestChanged(before: readonly ExpirableVersion[], after: readonly ExpirableVersion[]): string | undefined {
  const old = new Map(before.map((v) => [v.version, v]));
  let high: string | undefined;
  const note = (v: string) => {
    if (high === undefined || compareVersions(v, high) > 0) high = v;
  };
  for (const v of after) {
    const o = old.get(v.version);
    if (!o || !jsonEqual(o, v)) note(v.version);
    old.delete(v.version);
  }
  for (const v of old.keys()) note(v);
  return high;
}

/** What decides a chain: a version of a list, the auto-update flag, and for an image the pool's facts and kubelet. */
interface Chain {
  image?: MachineImagePair;
  version: string;
  autoUpdate: boolean;
  facts?: PoolFacts;
  kubelet?: string;
  /** The uses that follow this chain are those whose `kindOf` is `kind`. */
  kind: string;
  kindOf(use: VersionUse): string | undefined;
}

interface MachineImagePair {
  name: string;
  before?: MachineImage;
  after?: MachineImage;
}

export function forecastFindings(
  sources: readonly ForecastSource[],
  changed: ReadonlyMap<string, string>,
  state: ClusterState,
  now: number,
  opts: ForecastOptions,
): ForecastResult {
  const findings = new Map<string, ForecastFinding>();
  const budget = { left: ENTRY_BUDGET, skipped: 0 };
  for (const source of sources) {
    if (state.shootsUsing(source.ref).length === 0) continue;
    const before = source.before();
    const after = source.after();
    const steppers = { before: stepper(before, now, opts, budget), after: stepper(after, now, opts, budget) };
    // Several chains share a version (one per flag and pool kind): its users are read, and sorted into kinds, once.
    const users = new Map<string, Map<string, VersionUse[]>>();
    const usersOf = (chain: Chain) => {
      const key = `${chain.image?.name ?? ''}\u0000${chain.version}`;
      let kinds = users.get(key);
      if (!kinds) {
        users.set(key, (kinds = new Map<string, VersionUse[]>()));
        for (const use of usesOf(state, source.ref, chain)) {
          const kind = isDeleting(use.shoot) ? undefined : chain.kindOf(use);
          if (kind === undefined) continue;
          const list = kinds.get(kind);
          if (list) list.push(use);
          else kinds.set(kind, [use]);
        }
      }
      return kinds.get(chain.kind) ?? [];
    };
    for (const chain of chainsOf(source.ref, before, after, changed, state)) {
      if (budget.left <= 0) {
        budget.skipped++;
        continue;
      }
      const judged = judge(chain, steppers, now, opts);
      // Ran out inside this chain: one side may be cut short, so its answer is not a finding.
      if (budget.left <= 0) {
        budget.skipped++;
        continue;
      }
      if (judged.length === 0) continue;
      const uses = usersOf(chain);
      if (uses.length === 0) continue;
      for (const f of judged) {
        const key = `${f.condition}\u0000${f.image ?? ''}\u0000${f.version}\u0000${f.step.to ?? ''}\u0000${f.step.failure?.kind ?? ''}`;
        const seen = findings.get(key);
        if (!seen) findings.set(key, { ...f, shoots: uses.map((u) => u.shoot) });
        else {
          for (const u of uses) seen.shoots.push(u.shoot);
          if (f.at < seen.at) seen.at = f.at;
        }
      }
    }
  }
  const list = [...findings.values()];
  for (const f of list) f.shoots = [...new Set(f.shoots)];
  return { findings: list, skippedGroups: budget.skipped };
}

function usesOf(state: ClusterState, ref: ProfileRef, chain: Chain): VersionUse[] {
  return chain.image
    ? state.machineImageVersionUsers(ref, chain.image.name, chain.version)
    : state.kubernetesVersionUsers(ref, chain.version);
}

const FLAGS = [true, false];

/**
 * The chains to step: each version in use (by the count indexes) at or below its list's bound,
 * with each auto-update flag, and for images each pool kind the list tells apart.
 */
function* chainsOf(
  ref: ProfileRef,
  before: CloudProfileSpec,
  after: CloudProfileSpec,
  changed: ReadonlyMap<string, string>,
  state: ClusterState,
): Generator<Chain> {
  const within = (bound: string, v: string) => bound === EVERY_VERSION || compareVersions(v, bound) <= 0;
  const k8sBound = changed.get('');
  if (k8sBound !== undefined) {
    // A version the update removes is IN-USE's to deny while Shoots run it: only the kept ones step.
    for (const version of new Set(after.kubernetes.versions.map((v) => v.version))) {
      if (!within(k8sBound, version) || state.kubernetesVersionShootCount(ref, version) === 0) continue;
      for (const autoUpdate of FLAGS)
        yield {
          version,
          autoUpdate,
          kind: String(autoUpdate),
          kindOf: (u) => String(autoUpdateOf(u.shoot).kubernetes),
        };
    }
  }
  for (const [name, bound] of changed) {
    if (name === '') continue;
    const image: MachineImagePair = { name, before: findImage(before, name), after: findImage(after, name) };
    if (!image.after) continue; // a removed image is IN-USE's to deny
    const named = { ...image, name: image.after.name };
    const kinds = poolKindsOf(named, after);
    for (const version of new Set(image.after.versions.map((v) => v.version))) {
      if (!within(bound, version) || state.machineImageVersionShootCount(ref, named.name, version) === 0) continue;
      yield* imageChains(named, kinds, version, after, ref, state);
    }
  }
}

const findImage = (spec: CloudProfileSpec, lowerName: string) =>
  spec.machineImages.find((i) => i.name.toLowerCase() === lowerName);

/**
 * The pool kinds an image's filters tell apart, read once per image: where they read only
 * architecture, CRI name and in-place updates, every combination they name (a pool can run a
 * version only with one of its architectures and CRIs); undefined where they also read a kubelet
 * constraint, container runtimes or machine capabilities, and the pools in use must be read.
 */
function poolKindsOf(image: MachineImagePair, spec: CloudProfileSpec): PoolFacts[] | undefined {
  const all = [...(image.before?.versions ?? []), ...image.after!.versions];
  const defs = capabilityDefinitions(spec);
  if (
    defs.length > 0 ||
    all.some(
      (v) =>
        v.kubeletVersionConstraint !== undefined || (v.cri ?? []).some((c) => (c.containerRuntimes ?? []).length > 0),
    )
  )
    return undefined;
  const cris = [...new Set(['containerd', ...all.flatMap((v) => (v.cri ?? []).map((c) => c.name))])];
  // Without any in-place support an in-place pool fails alike under both profiles: no kind of its own.
  const inPlace = all.some((v) => v.inPlaceUpdates !== undefined) ? FLAGS : [false];
  return [...new Set(all.flatMap((v) => architecturesOf(v)))].flatMap((architecture) =>
    cris.flatMap((cri) => inPlace.map((ip) => ({ architecture, cri, containerRuntimes: [], inPlace: ip }))),
  );
}

/** The chains of one image version: one per auto-update flag and pool kind. */
function* imageChains(
  image: MachineImagePair,
  kinds: readonly PoolFacts[] | undefined,
  version: string,
  after: CloudProfileSpec,
  ref: ProfileRef,
  state: ClusterState,
): Generator<Chain> {
  if (kinds) {
    for (const autoUpdate of FLAGS) {
      for (const facts of kinds)
        yield {
          image,
          version,
          autoUpdate,
          facts,
          kubelet: '',
          kind: `${autoUpdate}\u0000${factsKey(facts)}`,
          kindOf: (u) => fastKindOf(u, after),
        };
    }
    return;
  }
  const byKind = new Map<string, Chain>();
  for (const use of state.machineImageVersionUsers(ref, image.name, version)) {
    if (isDeleting(use.shoot)) continue;
    const facts = poolOf(use, after);
    const key = poolKindOf(use, after);
    if (!facts || key === undefined || byKind.has(key)) continue;
    byKind.set(key, {
      image,
      version,
      autoUpdate: autoUpdateOf(use.shoot).image,
      facts,
      kubelet: kubeletOf(use),
      kind: key,
      kindOf: (u) => poolKindOf(u, after),
    });
  }
  yield* byKind.values();
}

function poolOf(use: VersionUse, spec: CloudProfileSpec): PoolFacts | undefined {
  if (use.via !== 'machine-image') return undefined;
  const worker = use.shoot.spec.provider?.workers?.find((w) => w.name === use.worker);
  return worker ? poolFacts(worker, spec) : undefined;
}

function kubeletOf(use: VersionUse): string {
  const worker =
    use.via === 'control-plane' ? undefined : use.shoot.spec.provider?.workers?.find((w) => w.name === use.worker);
  return worker?.kubernetes?.version ?? use.shoot.spec.kubernetes.version;
}

const factsKey = (f: PoolFacts) =>
  `${f.architecture}\u0000${f.cri}\u0000${f.containerRuntimes.join(',')}\u0000${f.inPlace}\u0000${JSON.stringify(f.capabilities ?? null)}`;

/** A pool's kind where the filters read no kubelet: its flag and facts. */
function fastKindOf(use: VersionUse, spec: CloudProfileSpec): string | undefined {
  const facts = poolOf(use, spec);
  return facts && `${autoUpdateOf(use.shoot).image}\u0000${factsKey(facts)}`;
}

/** A pool's kind where the filters read its kubelet or container runtimes. */
function poolKindOf(use: VersionUse, spec: CloudProfileSpec): string | undefined {
  const facts = poolOf(use, spec);
  return facts && `${autoUpdateOf(use.shoot).image}\u0000${kubeletOf(use)}\u0000${factsKey(facts)}`;
}

interface FirstSteps {
  trap?: { at: number; step: Step };
  failure?: { at: number; step: Step };
  forced?: { at: number; step: Step };
}

type Stepper = (chain: Chain) => FirstSteps;

function judge(
  chain: Chain,
  steppers: { before: Stepper; after: Stepper },
  now: number,
  opts: ForecastOptions,
): Omit<ForecastFinding, 'shoots'>[] {
  const old = steppers.before(chain);
  const neu = steppers.after(chain);
  const base = (s: Step) => ({ ...(chain.image ? { image: chain.image.name } : {}), version: s.from ?? chain.version });
  const out: Omit<ForecastFinding, 'shoots'>[] = [];
  if (neu.trap && !(old.trap && old.trap.step.from === neu.trap.step.from && old.trap.step.to === neu.trap.step.to))
    out.push({ condition: 'trap', ...base(neu.trap.step), ...neu.trap });
  if (neu.failure && old.failure?.step.failure?.kind !== neu.failure.step.failure?.kind)
    out.push({ condition: 'no-target', ...base(neu.failure.step), ...neu.failure });
  const soon = now + opts.soonDays * DAY_MS;
  if (neu.forced && neu.forced.at < soon && !(old.forced && old.forced.at < soon)) {
    out.push({
      condition: 'forced-soon',
      ...base(neu.forced.step),
      ...neu.forced,
      ...(old.forced ? { before: old.forced.at } : {}),
    });
  }
  return out;
}

/** A list's stage starts in the horizon (just after each), with the highest version starting at each. */
interface ListTimeline {
  instants: number[];
  highest: string[];
}

/**
 * Steps chains under one spec. A step depends only on the classifications, which change only at
 * stage starts, so steps are remembered per start span: a chain revisits them for free.
 */
function stepper(spec: CloudProfileSpec, now: number, opts: ForecastOptions, budget: { left: number }): Stepper {
  const until = now + opts.horizonDays * DAY_MS;
  const timelines = new Map<string, ListTimeline>();
  const memo = new Map<string, Step | null>();
  return (chain) => {
    const image = chain.image ? findImage(spec, chain.image.name.toLowerCase()) : undefined;
    if (chain.image && !image) return {};
    const list = image ? image.versions : spec.kubernetes.versions;
    const listKey = image?.name ?? '';
    let timeline = timelines.get(listKey);
    if (!timeline) {
      budget.left -= list.length;
      timelines.set(listKey, (timeline = timelineOf(list, now, until)));
    }
    const { instants } = timeline;
    const at = (version: string, t: number) => {
      // The span t falls in: the steps are the same throughout it.
      const span = firstAfter(instants, t);
      const key = `${listKey}\u0000${version}\u0000${chain.autoUpdate}\u0000${chain.kubelet ?? ''}\u0000${chain.facts ? factsKey(chain.facts) : ''}\u0000${span}`;
      let step = memo.get(key);
      if (step === undefined) {
        budget.left -= list.length + 1;
        step =
          (image
            ? machineImageStep(
                version,
                image,
                strategyOf(image),
                chain.facts!,
                chain.kubelet!,
                chain.autoUpdate,
                t,
                capabilityDefinitions(spec),
              )
            : kubernetesStep(version, list, chain.autoUpdate, t)) ?? null;
        memo.set(key, step);
      }
      return step ?? undefined;
    };
    return chainSteps(chain, list, timeline, until, at, budget, now);
  };
}

/**
 * The chain from the next run: at each run it steps from where the last step left it; when
 * nothing moves it waits for the next stage start of its version or a higher one (maintenance
 * never moves down), or without auto-update for its own expiry. Up to MAX_HOPS moves, or a failure.
 */
function chainSteps(
  chain: Chain,
  list: readonly ExpirableVersion[],
  timeline: ListTimeline,
  until: number,
  stepAt: (v: string, t: number) => Step | undefined,
  budget: { left: number },
  now: number,
): FirstSteps {
  const out: FirstSteps = {};
  let version = chain.version;
  let t = now;
  for (let hops = 0; hops < MAX_HOPS && t < until && budget.left > 0; hops++) {
    const next = chain.autoUpdate
      ? nextStep(version, t, timeline, stepAt, budget)
      : forcedStep(version, t, list, stepAt, budget);
    if (!next || next.at >= until) break;
    const { at, step } = next;
    if (step.trap) out.trap ??= next;
    if (step.failure) out.failure ??= next;
    if (step.mode === 'forced') out.forced ??= next;
    if (step.to === undefined) break;
    version = step.to;
    t = at + DAY_MS; // the next day's run
  }
  return out;
}

/** Without auto-update only the version's absence or expiry moves it: the step at `t`, else just after its expiry. */
function forcedStep(
  version: string,
  t: number,
  list: readonly ExpirableVersion[],
  stepAt: (v: string, t: number) => Step | undefined,
  budget: { left: number },
): { at: number; step: Step } | undefined {
  const step = stepAt(version, t);
  if (step) return { at: t, step };
  budget.left -= list.length;
  const entry = list.find((v) => v.version === version);
  const expiry = entry ? expiryInstant(entry) : undefined;
  if (expiry === undefined || !Number.isFinite(expiry) || expiry + 1 <= t) return undefined;
  const later = stepAt(version, expiry + 1);
  return later && { at: expiry + 1, step: later };
}

/** The step at `t`, else just after the first later stage start of this version or a higher one that brings one. */
function nextStep(
  version: string,
  t: number,
  timeline: ListTimeline,
  stepAt: (v: string, t: number) => Step | undefined,
  budget: { left: number },
): { at: number; step: Step } | undefined {
  const step = stepAt(version, t);
  if (step) return { at: t, step };
  for (let i = firstAfter(timeline.instants, t); i < timeline.instants.length; i++) {
    // A scan reads no list, but it still costs: it counts too.
    if (--budget.left <= 0) return undefined;
    if (compareVersions(timeline.highest[i]!, version) < 0) continue;
    const at = timeline.instants[i]!;
    const later = stepAt(version, at);
    if (later) return { at, step: later };
  }
  return undefined;
}

/** Just after each stage start of the list in [now, until), earliest first, with the highest version starting there. */
function timelineOf(list: readonly ExpirableVersion[], now: number, until: number): ListTimeline {
  const highest = new Map<number, string>();
  for (const v of list) {
    for (const s of stagesOf(v)) {
      if (s.start < now || s.start >= until) continue;
      const seen = highest.get(s.start + 1);
      if (seen === undefined || compareVersions(v.version, seen) > 0) highest.set(s.start + 1, v.version);
    }
  }
  const instants = [...highest.keys()].sort((a, b) => a - b);
  return { instants, highest: instants.map((i) => highest.get(i)!) };
}

/** The index of the first instant after `t`. */
const firstAfter = (sorted: readonly number[], t: number) => firstAtOrAfter(sorted, t + 1);
