// Gardener's reading of versions over Masterminds semver (its pkg/utils/version, and the checks of
// its admission plugins and maintenance controller that call the library directly), remembered per
// string: the rules ask the same few hundred versions and constraints on every review.
import { memo } from '../../util/memo.js';
import { type Constraint, newConstraint } from './constraint.js';
import { newVersion, type Semver } from './version.js';

/** semver.NewVersion: the version, or undefined when Gardener cannot parse it. */
export const parseVersion: (version: string) => Semver | undefined = memo(50_000, (version: string) => {
  const v = newVersion(version);
  return typeof v === 'string' ? undefined : v;
});

/** Why semver.NewVersion refuses `version` (Masterminds' own words), or undefined when it parses. */
export function versionError(version: string): string | undefined {
  return parseVersion(version) ? undefined : (newVersion(version) as string);
}

const parsedConstraint = memo(10_000, newConstraint);

/** semver.NewConstraint: the constraint, or Masterminds' reason for refusing it. */
export function parseConstraint(constraint: string): Constraint | string {
  return parsedConstraint(constraint);
}

/** versionutils.Normalize: every `v` dropped, and everything from the first `-`, `+` or `~`. */
export function normalize(version: string): string {
  const v = version.replaceAll('v', '');
  const cut = v.search(/[-+~]/);
  return cut < 0 ? v : v.slice(0, cut);
}

/**
 * versionutils.CompareVersions(a, op, b): both normalised, then `a` against the constraint `op b`
 * (so `1.2.3-foo` equals `1.2.3`). False when either side cannot be read, as Gardener's callers
 * take it.
 */
export function compareAs(a: string, op: '<' | '<=' | '>' | '>=', b: string): boolean {
  return meetsConstraint(normalize(a), `${op} ${normalize(b)}`);
}

/** versionutils.CheckVersionMeetsConstraint: false when either cannot be read. */
export function meetsConstraint(version: string, constraint: string): boolean {
  const c = parseConstraint(constraint);
  const v = parseVersion(normalize(version));
  return typeof c !== 'string' && v !== undefined && c.check(v);
}

/** The kubelet may be up to three minors older than the API server (Kubernetes' version skew policy). */
export const MAX_KUBELET_SKEW_MINORS = 3;

/**
 * Whether a worker pool's Kubernetes version is more than three minors behind the control plane's,
 * as Gardener decides it (validateWorkerGroupAndControlPlaneKubernetesVersion): the control plane
 * at or above the pool's fourth next minor (IncMinor), compared by CompareVersions. False when
 * either cannot be read.
 */
export function beyondKubeletSkew(worker: string, controlPlane: string): boolean {
  let limit = parseVersion(worker);
  for (let i = 0; i <= MAX_KUBELET_SKEW_MINORS && limit; i++) limit = limit.nextMinor();
  return limit !== undefined && compareAs(controlPlane, '>=', limit.toString());
}

/** `meets` false with a `reason` when a side cannot be read. */
export interface KubeletVerdict {
  meets: boolean;
  reason?: string;
}

const MEETS: KubeletVerdict = { meets: true };
const FAILS: KubeletVerdict = { meets: false };

/**
 * Whether a machine image version's `kubeletVersionConstraint` admits a pool's kubelet version, as
 * Gardener's Shoot admission (validateKubeletVersion) and maintenance (filterForKubeletVersionConstraint)
 * both judge it: the constraint against semver.NewVersion(kubelet), not normalised, so a
 * pre-release kubelet meets only a constraint that names a pre-release. Unreadable when either side
 * does not parse: Gardener never stores such a constraint, and cannot place such a kubelet.
 */
export function kubeletConstraint(constraint: string, kubelet: string): KubeletVerdict {
  const c = parseConstraint(constraint);
  if (typeof c === 'string') return { meets: false, reason: `cannot parse the kubeletVersionConstraint: ${c}` };
  const v = parseVersion(kubelet);
  if (!v) return { meets: false, reason: `cannot parse the kubelet version "${kubelet}": ${versionError(kubelet)}` };
  return c.check(v) ? MEETS : FAILS;
}

/** Version order for sorting: semver where both parse; an unparseable version sorts first, then by its text. */
export function compareVersions(a: string, b: string): number {
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  if (!pa || !pb) return (pa ? 1 : 0) - (pb ? 1 : 0) || (a < b ? -1 : a > b ? 1 : 0);
  return pa.compare(pb);
}

/** `major.minor` of a version, or undefined if it does not parse; remembered, as rules group every version by minor. */
export const minorKey: (version: string) => string | undefined = memo(50_000, (version: string) =>
  parseVersion(version)?.minorKey(),
);
