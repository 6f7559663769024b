// Warnings on CloudProfiles and NamespacedCloudProfiles (POLICY.md "Warnings"): allowed, but said.
// The ones about Shoots read the state only when it is synced, and only through its indexes.
import type { ClusterState } from '../../cluster/state.js';
import { withExpiration } from '../merge.js';
import type { CloudProfileContext, NamespacedCloudProfileContext, RuleContext } from '../rule.js';
import type { CloudProfileSpec, ExpirableVersion, MachineImage, NamespacedCloudProfile } from '../types.js';
import { formatCount, liveChildren, sourcesOfCloudProfile } from '../usage.js';
import type { UserSource } from '../usage.js';
import { classificationAt, compareVersions, expiryInstant, formatInstant, latestVersion, nextTransition, parseVersion, stagesOf } from '../versions.js';

const DAY_MS = 86_400_000;

/** A version entry of a profile: a Kubernetes version, or a version of `image`. */
interface Entry {
  image?: string;
  entry: ExpirableVersion;
}

const label = ({ image, entry }: Entry) => (image === undefined ? `Kubernetes version "${entry.version}"` : `machine image version "${image}/${entry.version}"`);

const shoots = (n: number) => `${formatCount(n)} ${n === 1 ? 'Shoot' : 'Shoots'}`;

function entriesOf(spec: { kubernetes?: { versions: ExpirableVersion[] }; machineImages?: MachineImage[] }): Entry[] {
  return [
    ...(spec.kubernetes?.versions ?? []).map((entry) => ({ entry })),
    ...(spec.machineImages ?? []).flatMap((img: MachineImage) => (img.versions ?? []).map((entry) => ({ image: img.name, entry }))),
  ];
}

// --- without the state --------------------------------------------------------------------

/** Deprecated (now or later) and never expiring: Shoots are never pushed off it. */
function deprecatedWithoutExpiry(entries: readonly Entry[], latestKubernetes: string | undefined): string[] {
  return entries
    .filter((e) => !(e.image === undefined && e.entry.version === latestKubernetes)) // the latest may not expire at all
    .filter((e) => stagesOf(e.entry).some((s) => s.classification === 'deprecated') && expiryInstant(e.entry) === undefined)
    .map((e) => `${label(e)} is deprecated but has no expiration date: Shoots are never forced off it; give it an expirationDate or an expired lifecycle stage`);
}

/** gardener-apiserver drops unavailable Kubernetes versions from a CloudProfile it creates. */
function droppedOnCreate(spec: CloudProfileSpec, now: number): string[] {
  return spec.kubernetes.versions
    .filter((x) => classificationAt(x, now) === 'unavailable')
    .map((x) => {
      const next = nextTransition(x, now);
      const until = next ? ` until ${formatInstant(next.at)}` : '';
      return `Kubernetes version "${x.version}" is unavailable${until}: gardener-apiserver drops unavailable Kubernetes versions when it creates a CloudProfile, so it will not be stored; add it with an update once the profile exists`;
    });
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
  const overrides = new Map<NamespacedCloudProfile, Map<string, ExpirableVersion>>(children.map((n) => [n, overridesOf(n)]));
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
 * Shoot has one profile, so the sources' counts add up without overlap; the index keeps them,
 * so this costs the same for 10 users as for 10,000.
 */
function shootsWhere(a: Audience, e: Entry, test: (x: ExpirableVersion) => boolean): number {
  let n = 0;
  for (const source of a.sources) {
    if (!test(a.effective(source, e))) continue;
    n += e.image === undefined ? a.state.kubernetesVersionShootCount(source.ref, e.entry.version) : a.state.machineImageVersionShootCount(source.ref, e.image, e.entry.version);
  }
  return n;
}

function expiringSoon(a: Audience, entries: readonly Entry[], now: number, days: number): string[] {
  const limit = now + days * DAY_MS;
  const soon = (x: ExpirableVersion) => {
    const at = expiryInstant(x);
    return at !== undefined && at >= now && at <= limit;
  };
  const out: string[] = [];
  for (const e of entries) {
    if (!soon(e.entry)) continue;
    const n = shootsWhere(a, e, soon);
    if (n === 0) continue;
    const at = expiryInstant(e.entry)!;
    const inDays = Math.floor((at - now) / DAY_MS);
    const when = inDays < 1 ? 'in less than a day' : `in ${inDays} ${inDays === 1 ? 'day' : 'days'}`;
    out.push(`${label(e)} expires at ${formatInstant(at)} (${when}) and is still used by ${shoots(n)}; move ${n === 1 ? 'it' : 'them'} to a newer version before then`);
  }
  return out;
}

/**
 * A Shoot on an expired Kubernetes version is force-updated in its maintenance: to a newer
 * active, non-preview patch of its minor, else to such a version of the next minor. With
 * neither, the maintenance fails.
 */
function forcedUpdateImpossible(a: Audience, spec: Pick<CloudProfileSpec, 'kubernetes'>, now: number): string[] {
  const targets = spec.kubernetes.versions.filter((x) => ['supported', 'deprecated'].includes(classificationAt(x, now)));
  const out: string[] = [];
  for (const x of spec.kubernetes.versions) {
    const p = parseVersion(x.version);
    if (!p || classificationAt(x, now) !== 'expired') continue;
    const nextMinor = `${p.major}.${p.minor + 1}`;
    const reachable = targets.some((t) => {
      const q = parseVersion(t.version);
      return q && q.major === p.major && ((q.minor === p.minor && compareVersions(t.version, x.version) > 0) || q.minor === p.minor + 1);
    });
    if (reachable) continue;
    const n = shootsWhere(a, { entry: x }, (y) => classificationAt(y, now) === 'expired');
    if (n === 0) continue;
    out.push(
      `Kubernetes version "${x.version}" is expired and still used by ${shoots(n)}, but minor ${nextMinor} has no active non-preview version ` +
        `(nor is there a newer ${p.major}.${p.minor} patch) a forced update could move them to: their maintenance will fail; offer a ${nextMinor} version`,
    );
  }
  return out;
}

// --- per kind -----------------------------------------------------------------------------

function cloudProfileWarnings(ctx: CloudProfileContext): string[] {
  const spec = ctx.object!.spec;
  const entries = entriesOf(spec);
  const out = deprecatedWithoutExpiry(entries, latestVersion(spec.kubernetes.versions)?.version);
  if (ctx.operation === 'CREATE') out.push(...droppedOnCreate(spec, ctx.now));
  if (!ctx.state.synced) return out;
  const audience = cloudProfileAudience(ctx);
  out.push(...expiringSoon(audience, entries, ctx.now, ctx.config.warnings.expiringWithinDays));
  out.push(...forcedUpdateImpossible(audience, spec, ctx.now));
  return out;
}

function namespacedProfileWarnings(ctx: NamespacedCloudProfileContext): string[] {
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
  out.push(...expiringSoon(audience, entriesOf(merged), ctx.now, ctx.config.warnings.expiringWithinDays));
  out.push(...forcedUpdateImpossible(audience, merged, ctx.now));
  return out;
}

export function profileWarnings(ctx: RuleContext): string[] {
  if (ctx.operation === 'DELETE' || !ctx.object) return [];
  if (ctx.kind === 'CloudProfile') return cloudProfileWarnings(ctx);
  if (ctx.kind === 'NamespacedCloudProfile') return namespacedProfileWarnings(ctx);
  return [];
}
