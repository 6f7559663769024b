// Warnings on CloudProfiles and NamespacedCloudProfiles (docs/rules.md, "Reading a denial"): allowed, but said.
// The ones about Shoots read the state only when it is synced, and only through its count indexes,
// so they cost the same for 10 Shoots as for 100,000. Each is one warning per version, grouped per
// list when the budget needs the room. Each says its conclusion and its object first: kube-apiserver
// cuts a warning at 256 characters.
import type { ClusterState } from '../../api/cluster-state.js';
import { withExpiration } from '../../gardener/merge.js';
import type { CloudProfileContext, NamespacedCloudProfileContext, RuleContext } from '../rule.js';
import type {
  CloudProfileSpec,
  ExpirableVersion,
  NamespacedCloudProfile,
  NamespacedMachineImage,
} from '../../api/types.js';
import { liveChildren, sourcesOfCloudProfile } from '../../gardener/usage.js';
import type { UserSource } from '../../gardener/usage.js';
import type { Warning, WarningKind } from '../warning.js';
import { countOf, shootsText, sumOf, versionLabel, versionSpan, warningOf } from '../warning.js';
import {
  classificationAt,
  compareVersions,
  expiryInstant,
  formatInstant,
  hasStage,
  latestVersion,
  nextTransition,
  parseVersion,
} from '../../gardener/versions.js';

const DAY_MS = 86_400_000;

/** A version entry of a profile: a Kubernetes version, or a version of `image`. */
interface Entry {
  image?: string;
  entry: ExpirableVersion;
}

const label = ({ image, entry }: Entry) => versionLabel(image, entry.version);

const listKey = (e: Entry) => e.image ?? '';

function entriesOf(spec: {
  kubernetes?: { versions: ExpirableVersion[] };
  machineImages?: NamespacedMachineImage[];
}): Entry[] {
  const out: Entry[] = (spec.kubernetes?.versions ?? []).map((entry) => ({ entry }));
  for (const img of spec.machineImages ?? [])
    for (const entry of img.versions ?? []) out.push({ image: img.name, entry });
  return out;
}

// --- without the state --------------------------------------------------------------------

const neverExpiresKind: WarningKind<Entry> = {
  one: (e) => `no Shoot is ever forced off ${label(e)}: it is deprecated but never expires; give it an expiry`,
  many: (es) =>
    `no Shoot is ever forced off ${countOf(es.length, es[0]!.image)} (${versionSpan(es.map((e) => e.entry.version))}): they are deprecated but never expire; give them an expiry`,
};

/** Deprecated (now or later) and never expiring: Shoots are never pushed off it. */
function deprecatedWithoutExpiry(entries: readonly Entry[], latestKubernetes: string | undefined): Warning[] {
  const out: Warning[] = [];
  for (const e of entries) {
    if (e.image === undefined && e.entry.version === latestKubernetes) continue; // the latest may not expire at all
    if (hasStage(e.entry, 'deprecated') && expiryInstant(e.entry) === undefined) {
      out.push(warningOf(neverExpiresKind, `deprecated-never-expires\u0000${listKey(e)}`, e));
    }
  }
  return out;
}

interface Unavailable {
  version: string;
  until?: number;
}

const droppedKind: WarningKind<Unavailable> = {
  one: (u) =>
    `gardener-apiserver drops Kubernetes version "${u.version}" on create: it is unavailable${u.until !== undefined ? ` until ${formatInstant(u.until)}` : ''}; add it by a later update`,
  many: (us) =>
    `gardener-apiserver drops ${countOf(us.length, undefined)} on create (${versionSpan(us.map((u) => u.version))}): they are unavailable; add them by a later update`,
};

/** gardener-apiserver drops unavailable Kubernetes versions from a CloudProfile it creates. */
function droppedOnCreate(spec: CloudProfileSpec, now: number): Warning[] {
  const out: Warning[] = [];
  for (const x of spec.kubernetes.versions) {
    if (classificationAt(x, now) !== 'unavailable') continue;
    const next = nextTransition(x, now);
    out.push(warningOf(droppedKind, 'dropped-on-create', { version: x.version, ...(next ? { until: next.at } : {}) }));
  }
  return out;
}

// --- with the state -----------------------------------------------------------------------

/** The Shoots of a profile and how each source sees an entry (a child NCP may extend its expiry). */
interface Audience {
  state: ClusterState;
  sources: UserSource[];
  effective(source: UserSource, e: Entry): ExpirableVersion;
}

function cloudProfileAudience(ctx: CloudProfileContext): Audience {
  const name = ctx.object!.metadata.name;
  const children = liveChildren(ctx.state, name);
  const overrides = new Map<NamespacedCloudProfile, Map<string, ExpirableVersion>>(
    children.map((n) => [n, overridesOf(n)]),
  );
  return {
    state: ctx.state,
    sources: sourcesOfCloudProfile(name, children),
    effective(source, e) {
      const o = source.via && overrides.get(source.via)?.get(entryKey(e.image, e.entry.version));
      return o ? withExpiration(e.entry, o) : e.entry;
    },
  };
}

const entryKey = (image: string | undefined, version: string) => `${image ?? ''}\u0000${version}`;

function overridesOf(ncp: NamespacedCloudProfile): Map<string, ExpirableVersion> {
  return new Map(entriesOf(ncp.spec).map((e) => [entryKey(e.image, e.entry.version), e.entry]));
}

/**
 * Live Shoots that use the entry where `test` holds for the entry as their profile has it. A
 * Shoot has one profile, so the sources' counts add up without overlap.
 */
function shootsWhere(a: Audience, e: Entry, test: (x: ExpirableVersion) => boolean): number {
  let n = 0;
  for (const source of a.sources) {
    if (!test(a.effective(source, e))) continue;
    n +=
      e.image === undefined
        ? a.state.kubernetesVersionShootCount(source.ref, e.entry.version)
        : a.state.machineImageVersionShootCount(source.ref, e.image, e.entry.version);
  }
  return n;
}

interface Expiring {
  entry: Entry;
  at: number;
  now: number;
  shoots: number;
  days: number;
}

const inDays = (x: Expiring) => {
  const days = Math.floor((x.at - x.now) / DAY_MS);
  return days < 1 ? 'in less than a day' : `in ${days} ${days === 1 ? 'day' : 'days'}`;
};

const expiringKind: WarningKind<Expiring> = {
  one: (x) => `move ${shootsText(x.shoots)} off ${label(x.entry)}: it expires ${inDays(x)} (${formatInstant(x.at)})`,
  many: (xs) =>
    `move ${shootsText(sumOf(xs, (x) => x.shoots))} off ${countOf(xs.length, xs[0]!.entry.image)} (${versionSpan(xs.map((x) => x.entry.entry.version))}): they expire within ${xs[0]!.days} days`,
};

function expiringSoon(a: Audience, entries: readonly Entry[], now: number, days: number): Warning[] {
  const limit = now + days * DAY_MS;
  const soon = (x: ExpirableVersion) => {
    const at = expiryInstant(x);
    return at !== undefined && at >= now && at <= limit;
  };
  const out: Warning[] = [];
  for (const e of entries) {
    if (!soon(e.entry)) continue;
    const shoots = shootsWhere(a, e, soon);
    if (shoots > 0)
      out.push(
        warningOf(expiringKind, `expiring-soon\u0000${listKey(e)}`, {
          entry: e,
          at: expiryInstant(e.entry)!,
          now,
          shoots,
          days,
        }),
      );
  }
  return out;
}

interface Stranded {
  version: string;
  nextMinor: string;
  shoots: number;
}

const strandedKind: WarningKind<Stranded> = {
  one: (x) =>
    `forced update will fail for ${shootsText(x.shoots)}: expired Kubernetes version "${x.version}" has no target (a newer patch or a ${x.nextMinor} version)`,
  many: (xs) =>
    `forced update will fail for ${shootsText(sumOf(xs, (x) => x.shoots))}: ${countOf(xs.length, undefined)} are expired (${versionSpan(xs.map((x) => x.version))}) and have no target; see version-policy explain`,
};

/**
 * A Shoot on an expired Kubernetes version is force-updated in its maintenance: to a newer
 * active, non-preview patch of its minor, else to such a version of the next minor. With neither,
 * the maintenance fails. The targets are indexed by minor once, so each expired version is one
 * lookup.
 */
function forcedUpdateImpossible(a: Audience, spec: Pick<CloudProfileSpec, 'kubernetes'>, now: number): Warning[] {
  const highestTarget = new Map<string, string>();
  for (const t of spec.kubernetes.versions) {
    const q = parseVersion(t.version);
    const c = classificationAt(t, now);
    if (!q || (c !== 'supported' && c !== 'deprecated')) continue;
    const minor = `${q.major}.${q.minor}`;
    const best = highestTarget.get(minor);
    if (best === undefined || compareVersions(t.version, best) > 0) highestTarget.set(minor, t.version);
  }
  const out: Warning[] = [];
  for (const x of spec.kubernetes.versions) {
    const p = parseVersion(x.version);
    if (!p || classificationAt(x, now) !== 'expired') continue;
    const sameMinor = highestTarget.get(`${p.major}.${p.minor}`);
    const nextMinor = `${p.major}.${p.minor + 1}`;
    if ((sameMinor !== undefined && compareVersions(sameMinor, x.version) > 0) || highestTarget.has(nextMinor))
      continue;
    const shoots = shootsWhere(a, { entry: x }, (y) => classificationAt(y, now) === 'expired');
    if (shoots > 0)
      out.push(warningOf(strandedKind, 'no-forced-update-target', { version: x.version, nextMinor, shoots }));
  }
  return out;
}

// --- per kind -----------------------------------------------------------------------------

function cloudProfileWarnings(ctx: CloudProfileContext): Warning[] {
  const spec = ctx.object!.spec;
  const entries = entriesOf(spec);
  let out = deprecatedWithoutExpiry(entries, latestVersion(spec.kubernetes.versions)?.version);
  if (ctx.operation === 'CREATE') out = [...out, ...droppedOnCreate(spec, ctx.now)];
  if (!ctx.state.synced) return out;
  const audience = cloudProfileAudience(ctx);
  return [
    ...out,
    ...expiringSoon(audience, entries, ctx.now, ctx.config.warnings.expiringWithinDays),
    ...forcedUpdateImpossible(audience, spec, ctx.now),
  ];
}

function namespacedProfileWarnings(ctx: NamespacedCloudProfileContext): Warning[] {
  const ncp = ctx.object!;
  const merged = ctx.state.synced ? ctx.merged : undefined;
  // What the NCP writes, as the merged profile has it (its own entries when that is unknown).
  const mergedEntries = new Map((merged ? entriesOf(merged) : []).map((e) => [entryKey(e.image, e.entry.version), e]));
  const written = entriesOf(ncp.spec).map((e) => mergedEntries.get(entryKey(e.image, e.entry.version)) ?? e);
  const out = deprecatedWithoutExpiry(written, merged ? latestVersion(merged.kubernetes.versions)?.version : undefined);
  if (!merged) return out;
  const audience: Audience = {
    state: ctx.state,
    sources: [{ ref: { kind: 'NamespacedCloudProfile', namespace: ncp.metadata.namespace, name: ncp.metadata.name } }],
    effective: (_source, e) => e.entry,
  };
  return [
    ...out,
    ...expiringSoon(audience, entriesOf(merged), ctx.now, ctx.config.warnings.expiringWithinDays),
    ...forcedUpdateImpossible(audience, merged, ctx.now),
  ];
}

export function profileWarnings(ctx: RuleContext): Warning[] {
  if (ctx.operation === 'DELETE' || !ctx.object) return [];
  if (ctx.kind === 'CloudProfile') return cloudProfileWarnings(ctx);
  if (ctx.kind === 'NamespacedCloudProfile') return namespacedProfileWarnings(ctx);
  return [];
}
