// DEFAULT-LIFECYCLE's per-minor decision: which state the operator's policy wants for each version
// this path manages. Operator-owned versions are only read, never decided.
import type { ExpirableVersion } from '../../api/types.js';
import {
  compareVersions,
  hasLifecycle,
  hasStage,
  isExplicitlySupported,
  minorKey,
  windowsOf,
} from '../../gardener/versions.js';

export interface ListItem {
  version: string;
  /** Managed by this path (a plain version, or one it defaulted earlier). */
  policy: boolean;
  /** The entry as the request has it; read for operator-owned versions only. */
  entry: ExpirableVersion;
}

export interface ListPolicy {
  now: number;
  lifecycleGate: boolean;
  /** How many of the newest minors are maintained; undefined = all (machine images). */
  maintainedMinors?: number;
  /** How long a version deprecated now stays usable, in ms. */
  expiration: { maintained: number; unmaintained: number };
}

export interface Verdict {
  state: 'supported' | 'preview' | 'deprecated';
  minor: string;
  /** Whether the minor is maintained; always true for machine images. */
  maintained: boolean;
  /** The minor's newest non-preview patch, when it is another version. */
  newest?: string;
  /** Operator-set supported versions of the minor that keep this one from being supported. */
  operatorSupported: string[];
  /** How long this version stays usable once deprecated, in ms. */
  expiresAfter: number;
}

/** The verdict for every managed item of one version list (the Kubernetes list, or one image's). */
export function decideVersions(items: readonly ListItem[], policy: ListPolicy): Map<ListItem, Verdict> {
  const byMinor = groupByMinor(items);
  const maintained = maintainedMinorsOf(byMinor, policy.maintainedMinors);
  const verdicts = new Map<ListItem, Verdict>();
  for (const [minor, members] of byMinor) {
    const isMaintained = maintained.has(minor);
    const newest = newestNonPreview(members);
    const blockers = members.filter((m) => !m.policy && blocksSupported(m.entry, policy)).map((m) => m.version);
    const expiresAfter = isMaintained ? policy.expiration.maintained : policy.expiration.unmaintained;
    const base = { minor, maintained: isMaintained, operatorSupported: blockers, expiresAfter };
    // Two verdicts per minor, shared by its items (verdicts are never modified): every older patch
    // is superseded by the newest, and the newest gets its own.
    const superseded: Verdict = { ...base, state: 'deprecated', ...(newest ? { newest: newest.version } : {}) };
    const own: Verdict = isMaintained
      ? { ...base, state: blockers.length > 0 ? 'preview' : 'supported' }
      : { ...base, state: 'deprecated' };
    for (const item of members) if (item.policy) verdicts.set(item, item === newest ? own : superseded);
  }
  return verdicts;
}

/** Items by `major.minor`, newest minor first. Unparseable versions are left to the validating rules. */
function groupByMinor(items: readonly ListItem[]): Map<string, ListItem[]> {
  const groups = new Map<string, ListItem[]>();
  for (const item of items) {
    const minor = minorKey(item.version);
    if (minor === undefined) continue;
    const members = groups.get(minor);
    if (members) members.push(item);
    else groups.set(minor, [item]);
  }
  return new Map([...groups].sort(([a], [b]) => compareVersions(`${b}.0`, `${a}.0`)));
}

/**
 * The newest `count` minors that have a version someone could run: a minor holding nothing but
 * operator previews is not released yet, so it does not push an older minor out of maintenance.
 */
function maintainedMinorsOf(byMinor: Map<string, ListItem[]>, count: number | undefined): Set<string> {
  const released = [...byMinor]
    .filter(([, members]) => members.some((m) => !isOperatorPreview(m)))
    .map(([minor]) => minor);
  return new Set(count === undefined ? released : released.slice(0, count));
}

/** The highest patch that is not an operator preview: the one version of the minor that may be supported. */
function newestNonPreview(members: readonly ListItem[]): ListItem | undefined {
  let best: ListItem | undefined;
  for (const m of members) {
    if (isOperatorPreview(m)) continue;
    if (!best || compareVersions(m.version, best.version) > 0) best = m;
  }
  return best;
}

/** The operator made it preview: a preview stage and no supported one. */
function isOperatorPreview(item: ListItem): boolean {
  return !item.policy && !isExplicitlySupported(item.entry) && hasStage(item.entry, 'preview');
}

/**
 * Whether an operator's version keeps the minor's newest patch from being supported, judged the
 * way SUPPORTED-PER-MINOR will judge the result. With the gate on this path writes a lifecycle,
 * which conflicts only with supported windows reaching `now` or later. With the gate off it writes
 * legacy `classification: supported`, which Gardener's check holds against every other explicit
 * supported claim in the minor, expired or not.
 */
function blocksSupported(entry: ExpirableVersion, policy: ListPolicy): boolean {
  if (!isExplicitlySupported(entry)) return false;
  if (!policy.lifecycleGate) return true;
  const windows = windowsOf(entry, 'supported');
  // A legacy version expiring exactly at `now` still reads as supported at `now`, and Gardener's
  // check then holds it against any lifecycle supported stage.
  return hasLifecycle(entry) ? windows.some((w) => w.to > policy.now) : windows.some((w) => w.to >= policy.now);
}
