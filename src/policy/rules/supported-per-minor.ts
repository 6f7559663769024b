// SUPPORTED-PER-MINOR: within one major.minor of a version list at most one version is explicitly
// supported at any instant after now (explicit = legacy `classification: supported` or a lifecycle
// `supported` stage; plain versions never count). On top, everything Gardener's own check rejects:
// a legacy-supported version that is supported now conflicts with every other version of its minor
// that ever claims `supported`.
//
// A clash is reported once per minor, naming its versions, whatever their number: the windows are
// swept in order (O(n log n)), never compared pair by pair. Gardener reports its check on each
// legacy-supported version; those versions also get a short line that points to the one report,
// so tools that match Gardener's field paths still find them.
import { type FieldViolation, forbidden } from '../../api/field.js';
import { defineRule, WRITES } from '../rule.js';
import { inWords } from '../../util/text.js';
import type { ExpirableVersion } from '../../api/types.js';
import type { Window } from '../../gardener/versions.js';
import {
  classificationAt,
  formatInstant,
  isExplicitlySupported,
  minorKey,
  parseVersion,
  windowsOf,
} from '../../gardener/versions.js';
import type { ProfileWrite, Target, VersionIndex, VersionList } from './version-lists.js';
import { indexVersions, judgeOwnAndMerged, oldVersions, PROFILES, versionLists } from './version-lists.js';

/** How many legacy-supported versions of one clash get a line of their own, besides the report. */
const POINTERS_PER_MINOR = 4;

interface Claim {
  index: number;
  entry: ExpirableVersion;
  /** Semver without build metadata: versions equal in it are one version, never rivals. */
  same: string;
  /** Gardener checks only legacy-classified versions that are supported right now. */
  legacySupportedNow: boolean;
}

/** A version of the minor (duplicates merged) and the spans after now in which it is supported. */
interface Rival {
  same: string;
  claims: Claim[];
  spans: Window[];
}

function claimsOf(list: VersionList, now: number): Map<string, Claim[]> {
  const byMinor = new Map<string, Claim[]>();
  list.versions.forEach((entry, index) => {
    const minor = minorKey(entry.version);
    if (minor === undefined || !isExplicitlySupported(entry)) return;
    const legacySupportedNow = entry.classification !== undefined && classificationAt(entry, now) === 'supported';
    const claim = { index, entry, same: parseVersion(entry.version)!.equalityKey(), legacySupportedNow };
    const group = byMinor.get(minor);
    if (group) group.push(claim);
    else byMinor.set(minor, [claim]);
  });
  return byMinor;
}

/** Each version's supported windows from `now` on, as half-open (from, to] spans, merged per version. */
function rivalsOf(claims: readonly Claim[], now: number): Rival[] {
  const bySame = new Map<string, Rival>();
  for (const c of claims) {
    let rival = bySame.get(c.same);
    if (!rival) bySame.set(c.same, (rival = { same: c.same, claims: [], spans: [] }));
    rival.claims.push(c);
    for (const w of windowsOf(c.entry, 'supported')) {
      const from = Math.max(w.from, now);
      if (from < w.to) rival.spans.push({ from, to: w.to });
    }
  }
  for (const rival of bySame.values()) rival.spans = mergeSpans(rival.spans);
  return [...bySame.values()];
}

function mergeSpans(spans: Window[]): Window[] {
  if (spans.length < 2) return spans;
  spans.sort((a, b) => a.from - b.from);
  const out: Window[] = [{ ...spans[0]! }];
  for (const s of spans.slice(1)) {
    const last = out[out.length - 1]!;
    if (s.from <= last.to) last.to = Math.max(last.to, s.to);
    else out.push({ ...s });
  }
  return out;
}

/**
 * The spans in which two or more versions are supported at once, in order. A sweep over the
 * spans' ends: a span that ends where another starts does not overlap it, so ends go first.
 */
function contestedSpans(rivals: readonly Rival[]): Window[] {
  const events: Array<[number, number]> = [];
  for (const r of rivals) for (const s of r.spans) events.push([s.from, 1], [s.to, -1]);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: Window[] = [];
  let open = 0;
  let since = 0;
  for (const [at, step] of events) {
    const before = open;
    open += step;
    if (before < 2 && open >= 2) since = at;
    else if (before >= 2 && open < 2 && at > since) {
      const last = out[out.length - 1];
      if (last && last.to === since) last.to = at;
      else out.push({ from: since, to: at });
    }
  }
  return out;
}

/** Whether `span` shares an instant with one of the sorted, disjoint `contested` spans. */
function touches(span: Window, contested: readonly Window[]): boolean {
  let lo = 0;
  let hi = contested.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (contested[mid]!.to <= span.from) lo = mid + 1;
    else hi = mid;
  }
  const c = contested[lo];
  return c !== undefined && c.from < span.to;
}

function describeSpan(span: Window, now: number): string {
  const from = span.from <= now ? 'from now on' : `from ${formatInstant(span.from)}`;
  return span.to === Number.POSITIVE_INFINITY ? `${from} with no end` : `${from} until ${formatInstant(span.to)}`;
}

/** How a message names the versions of one list under judgement. */
interface Naming {
  /** `1.30.0`, or `1.30.0 (overridden by this NamespacedCloudProfile)` on a merged profile. */
  name(claim: Claim): string;
  /** Whether the request adds the version: the message may then say so in Gardener's words. */
  added(claim: Claim): boolean;
}

const are = (n: number) => (n === 1 ? 'is' : 'are');
const names = (claims: readonly Claim[], naming: Naming) => inWords(claims.map((c) => naming.name(c)));
const byIndex = (a: Claim, b: Claim) => a.index - b.index;

function judgeMinor(
  list: VersionList,
  minor: string,
  claims: readonly Claim[],
  now: number,
  naming: Naming,
): FieldViolation[] {
  const rivals = rivalsOf(claims, now);
  if (rivals.length < 2) return [];
  const contested = contestedSpans(rivals);
  const overlapping =
    contested.length === 0
      ? []
      : rivals.filter((r) => r.spans.some((s) => touches(s, contested))).flatMap((r) => r.claims);

  // Gardener: a version supported now through its legacy classification against every other
  // version of the minor that claims "supported" at all.
  const legacy = claims.filter((c) => c.legacySupportedNow);
  const legacySame = new Set(legacy.map((c) => c.same));
  const counterparts = legacy.length === 0 ? [] : claims.filter((c) => legacySame.size > 1 || !legacySame.has(c.same));
  const checked = counterparts.length === 0 ? [] : legacy;
  if (overlapping.length === 0 && checked.length === 0) return [];

  const reasons: string[] = [];
  if (overlapping.length > 0) {
    const both = new Set(overlapping.map((c) => c.same)).size === 2 ? 'both' : 'all';
    reasons.push(
      `${names(overlapping.sort(byIndex), naming)} are ${both} explicitly supported ${describeSpan(contested[0]!, now)}`,
    );
  }
  const inOverlap = new Set(overlapping);
  const gardenerOnly = checked.length > 0 && counterparts.some((c) => !inOverlap.has(c));
  if (overlapping.length === 0 || gardenerOnly) {
    const others = counterparts.filter((c) => !c.legacySupportedNow).sort(byIndex);
    const also =
      others.length > 0
        ? `, and ${names(others, naming)} of the same minor also ${others.length === 1 ? 'claims' : 'claim'} "supported"`
        : '';
    reasons.push(
      `${names(checked, naming)} ${are(checked.length)} supported now through ${checked.length === 1 ? 'its' : 'their'} legacy classification${also} ` +
        '(gardener-apiserver counts every legacy "supported" classification, even an expired one, and every lifecycle supported stage)',
    );
  }

  // The report sits on a version the request adds, else on one Gardener checks, else on the first.
  const involved = [...new Set([...overlapping, ...checked, ...counterparts])].sort(byIndex);
  const main = involved.find((c) => naming.added(c)) ?? checked[0] ?? involved[0]!;
  const image = list.image ? `machine image ${list.image.name}: ` : '';
  const add = naming.added(main)
    ? `unable to add version "${main.entry.version}" with classification "supported". `
    : '';
  const field = list.path.index(main.index);
  const out = [
    forbidden(
      field,
      `${image}${add}"supported" lifecycle stages must not overlap per minor version: in minor ${minor}, ${reasons.join('; also, ')}; ` +
        'keep one supported version per minor (classify the others as preview or deprecated, or end one supported stage before the next starts)',
    ),
  ];
  for (const c of checked.filter((c) => c !== main).slice(0, POINTERS_PER_MINOR)) {
    out.push(
      forbidden(
        list.path.index(c.index),
        `${image}version "${c.entry.version}" is one of the clashing supported versions of minor ${minor} reported at ${String(field)}`,
      ),
    );
  }
  return out;
}

/** Built on first use: a minor without a clash (nearly every one) never reads another object's versions. */
function lazy<T>(make: () => T): () => T {
  let value: T | undefined;
  let made = false;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value as T;
  };
}

function namingFor(ctx: ProfileWrite, target: Target, list: VersionList, indexes: Indexes): Naming {
  if (target.kind !== 'merged') {
    const old = () => (ctx.operation === 'UPDATE' ? indexes.old().matching(list) : undefined);
    return { name: (c) => c.entry.version, added: (c) => ctx.operation === 'CREATE' || !old()?.has(c.entry.version) };
  }
  // The merged profile: the NCP adds nothing to its parent's versions; it overrides them.
  const own = () => indexes.own().matching(list);
  const parent = () => indexes.parent()?.matching(list);
  return {
    name(c) {
      if (!own()?.has(c.entry.version)) return c.entry.version;
      return parent()?.has(c.entry.version)
        ? `${c.entry.version} (overridden by this NamespacedCloudProfile)`
        : `${c.entry.version} (of this NamespacedCloudProfile)`;
    },
    added: () => false,
  };
}

/** The other objects' versions a message may need, each indexed once per review and only when a minor clashes. */
interface Indexes {
  old: () => VersionIndex;
  own: () => VersionIndex;
  parent: () => VersionIndex | undefined;
}

function indexesOf(ctx: ProfileWrite): Indexes {
  return {
    old: lazy(() => oldVersions(ctx)),
    own: lazy(() => indexVersions(ctx.object.spec)),
    parent: lazy(() =>
      ctx.kind === 'NamespacedCloudProfile' && ctx.parent ? indexVersions(ctx.parent.spec) : undefined,
    ),
  };
}

function judge(ctx: ProfileWrite, target: Target, indexes: Indexes): FieldViolation[] {
  if (target.kind === 'NamespacedCloudProfile') return [];
  const out: FieldViolation[] = [];
  for (const list of versionLists(target)) {
    let naming: Naming | undefined;
    for (const [minor, claims] of claimsOf(list, ctx.now)) {
      if (claims.length > 1)
        for (const v of judgeMinor(list, minor, claims, ctx.now, (naming ??= namingFor(ctx, target, list, indexes))))
          out.push(v);
    }
  }
  return out;
}

export const supportedPerMinor = defineRule({
  id: 'SUPPORTED-PER-MINOR',
  kinds: PROFILES,
  operations: WRITES,
  summary: 'two versions of one minor explicitly supported at the same time',
  check: (ctx) => {
    const indexes = indexesOf(ctx);
    return judgeOwnAndMerged(ctx, (t) => judge(ctx, t, indexes));
  },
});
