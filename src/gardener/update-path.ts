// Forced updates: the version Gardener's maintenance moves a Shoot to once its version expired.
// The semantics are Gardener's ("Automatic Version Upgrades" of its shoot versioning docs):
// 1. The strategy's auto-update target, if there is one: a newer version that is neither expired
//    nor preview, preferring non-deprecated ones. A version whose lifecycle has not started
//    (unavailable) qualifies: Gardener skips only preview versions (v1h/cloudprofile.go,
//    GetLatestQualifyingVersion), likely unintended; the forecast flags such a step. Kubernetes and `patch`: the same
//    minor; `minor`: the same minor, else the same major; `major`: the same minor, else any.
// 2. Otherwise the forced step. Kubernetes: the next minor, exactly +1 (Kubernetes never skips
//    one). `patch`: the next higher minor of the same major that has a qualifying version;
//    `minor`: the next higher major; `major`: none (end of life). Non-expired versions are
//    preferred; if only expired ones qualify, the latest of them (another forced update follows).
//    For images, when the non-expired target lies past the next minor (major) that any version of
//    the list has, preview ones included, the step takes the highest non-preview version of the
//    lowest group instead, expired or not (v1h/cloudprofile.go, getVersionForMachineImageForceUpdate).
// Classifications are taken at `at`, the instant the update runs. Step 1 alone is the auto-update
// target of a Shoot that opted in (kubernetesAutoUpdate, machineImageAutoUpdate; the forecast's).
import type { Classification, ExpirableVersion, MachineImage } from '../api/types.js';
import { classificationAt, parseVersion, type Semver } from './versions.js';

export const UPDATE_STRATEGIES = ['patch', 'minor', 'major'] as const;
export type UpdateStrategy = (typeof UPDATE_STRATEGIES)[number];

/** How the target was found: the auto-update scope, or the forced step past it. */
export type UpdateStep = 'same-minor' | 'same-major' | 'overall' | 'next-minor' | 'next-major';

export type ForcedUpdate =
  | {
      found: true;
      version: string;
      step: UpdateStep;
      /** The target is expired too: the next window updates again. */ expired: boolean;
    }
  | { found: false; reason: string };

interface Candidate {
  version: string;
  parsed: Semver;
  classification: Classification;
}

/** Gardener defaults a missing strategy to `major`; an unknown one is judged by MACHINE-IMAGES. */
export function strategyOf(image: Pick<MachineImage, 'updateStrategy'>): UpdateStrategy {
  return (UPDATE_STRATEGIES as readonly string[]).includes(image.updateStrategy ?? '')
    ? (image.updateStrategy as UpdateStrategy)
    : 'major';
}

/**
 * The auto-update target (step 1 alone): what maintenance moves an opted-in Shoot to while its
 * version is neither expired nor missing. Kubernetes never leaves the minor; undefined when nothing
 * newer qualifies.
 */
export function kubernetesAutoUpdate(
  current: string,
  versions: readonly ExpirableVersion[],
  at: number,
): ForcedUpdate | undefined {
  const cur = parseVersion(current);
  if (!cur) return undefined;
  const sameMinor = autoUpdateTarget(
    parsedVersions(versions, at),
    cur,
    (c) => c.parsed.major === cur.major && c.parsed.minor === cur.minor,
  );
  return sameMinor ? hit(sameMinor, 'same-minor') : undefined;
}

/** The image's auto-update target by strategy: the newest patch of the minor first, then the strategy's wider scope. */
export function machineImageAutoUpdate(
  current: string,
  versions: readonly ExpirableVersion[],
  strategy: UpdateStrategy,
  at: number,
): ForcedUpdate | undefined {
  const cur = parseVersion(current);
  if (!cur) return undefined;
  const all = parsedVersions(versions, at);
  const sameMinor = autoUpdateTarget(all, cur, (c) => c.parsed.major === cur.major && c.parsed.minor === cur.minor);
  if (sameMinor) return hit(sameMinor, 'same-minor');
  if (strategy === 'minor') {
    const sameMajor = autoUpdateTarget(all, cur, (c) => c.parsed.major === cur.major);
    return sameMajor ? hit(sameMajor, 'same-major') : undefined;
  }
  if (strategy === 'major') {
    const overall = autoUpdateTarget(all, cur, () => true);
    return overall ? hit(overall, 'overall') : undefined;
  }
  return undefined;
}

export function kubernetesForcedUpdate(
  current: string,
  versions: readonly ExpirableVersion[],
  at: number,
): ForcedUpdate {
  const cur = parseVersion(current);
  if (!cur) return { found: false, reason: `version "${current}" does not parse` };
  const all = parsedVersions(versions, at);
  const sameMinor = autoUpdateTarget(all, cur, (c) => c.parsed.major === cur.major && c.parsed.minor === cur.minor);
  if (sameMinor) return hit(sameMinor, 'same-minor');
  const next = preferNonExpired(
    qualifying(all).filter((c) => c.parsed.major === cur.major && c.parsed.minor === cur.minor + 1),
  );
  if (next) return hit(next, 'next-minor');
  return {
    found: false,
    reason: `no newer non-preview patch of ${cur.major}.${cur.minor} and no non-preview version of the next minor ${cur.major}.${cur.minor + 1} (a minor is never skipped)`,
  };
}

export function machineImageForcedUpdate(
  current: string,
  versions: readonly ExpirableVersion[],
  strategy: UpdateStrategy,
  at: number,
): ForcedUpdate {
  const cur = parseVersion(current);
  if (!cur) return { found: false, reason: `version "${current}" does not parse` };
  const auto = machineImageAutoUpdate(current, versions, strategy, at);
  if (auto) return auto;
  const all = parsedVersions(versions, at);
  switch (strategy) {
    case 'patch': {
      const next = nextHigher(
        all,
        (c) => c.parsed.major === cur.major && c.parsed.minor > cur.minor,
        (c) => c.parsed.minor,
        cur.minor,
      );
      if (next) return hit(next, 'next-minor');
      return {
        found: false,
        reason: `no newer non-preview version of ${cur.major}.${cur.minor} and none of a higher minor of major ${cur.major} (update strategy patch)`,
      };
    }
    case 'minor': {
      const next = nextHigher(
        all,
        (c) => c.parsed.major > cur.major,
        (c) => c.parsed.major,
        cur.major,
      );
      if (next) return hit(next, 'next-major');
      return {
        found: false,
        reason: `no newer non-preview version of major ${cur.major} and none of a higher major (update strategy minor)`,
      };
    }
    case 'major':
      return {
        found: false,
        reason:
          'no newer version that is neither preview nor expired (update strategy major: the image reached its end of life)',
      };
  }
}

function hit(c: Candidate, step: UpdateStep): ForcedUpdate {
  return { found: true, version: c.version, step, expired: c.classification === 'expired' };
}

function parsedVersions(versions: readonly ExpirableVersion[], at: number): Candidate[] {
  const out: Candidate[] = [];
  for (const v of versions) {
    const parsed = parseVersion(v.version);
    if (parsed) out.push({ version: v.version, parsed, classification: classificationAt(v, at) });
  }
  return out;
}

/** Never preview; expired ones stay, for the last-resort step. Unavailable ones stay too, as in Gardener. */
function qualifying(all: readonly Candidate[]): Candidate[] {
  return all.filter((c) => c.classification !== 'preview');
}

function highest(cs: readonly Candidate[]): Candidate | undefined {
  let best: Candidate | undefined;
  for (const c of cs) if (!best || c.parsed.compare(best.parsed) > 0) best = c;
  return best;
}

function autoUpdateTarget(
  all: readonly Candidate[],
  cur: Semver,
  inScope: (c: Candidate) => boolean,
): Candidate | undefined {
  const pool = qualifying(all).filter((c) => c.classification !== 'expired' && c.parsed.compare(cur) > 0 && inScope(c));
  return highest(pool.filter((c) => c.classification !== 'deprecated')) ?? highest(pool);
}

function preferNonExpired(pool: readonly Candidate[]): Candidate | undefined {
  return highest(pool.filter((c) => c.classification !== 'expired')) ?? highest(pool);
}

/**
 * The forced image step to a higher minor (or major), as getVersionForMachineImageForceUpdate takes
 * it: the highest non-expired version of the lowest group above the current one that has one;
 * but if that group lies past `next`, the lowest group above the current one that any version of
 * the list has (preview, other majors and all), then the highest version of the lowest group that
 * has a non-preview version, expired or not. Groups with only preview versions are skipped.
 */
function nextHigher(
  all: readonly Candidate[],
  inScope: (c: Candidate) => boolean,
  key: (c: Candidate) => number,
  currentKey: number,
): Candidate | undefined {
  let next = Number.POSITIVE_INFINITY;
  for (const c of all) if (key(c) > currentKey && key(c) < next) next = key(c);
  const scoped = qualifying(all).filter(inScope);
  const lowestGroup = (pool: readonly Candidate[]) => {
    if (pool.length === 0) return undefined;
    const k = pool.reduce((low, c) => Math.min(low, key(c)), Number.POSITIVE_INFINITY);
    return highest(pool.filter((c) => key(c) === k));
  };
  const fresh = lowestGroup(scoped.filter((c) => c.classification !== 'expired'));
  if (fresh && key(fresh) <= next) return fresh;
  return lowestGroup(scoped);
}
