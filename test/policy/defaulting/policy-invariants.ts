// An independent check of the promises DEFAULT-LIFECYCLE makes to the validating rules (stage
// order, one supported window per minor from now on, no expiry on the highest Kubernetes
// version, no new past expiry). It holds before those rules land and cross-checks them after.
import type { CloudProfile, ExpirableVersion } from '../../../src/api/types.js';
import {
  classificationAt,
  expiryInstant,
  hasLifecycle,
  isExplicitlySupported,
  latestVersion,
  minorKey,
  parseInstant,
  stageRank,
  windowsOf,
  windowsOverlapAfter,
} from '../../../src/gardener/versions.js';

export function invariantProblems(
  profile: CloudProfile,
  old: CloudProfile | undefined,
  now: number,
  gate: boolean,
): string[] {
  const lists: [string, ExpirableVersion[], ExpirableVersion[]][] = [
    ['kubernetes', profile.spec.kubernetes.versions, old?.spec.kubernetes.versions ?? []],
    ...profile.spec.machineImages.map((i): [string, ExpirableVersion[], ExpirableVersion[]] => [
      i.name,
      i.versions,
      old?.spec.machineImages.find((o) => o.name === i.name)?.versions ?? [],
    ]),
  ];
  const out: string[] = [];
  for (const [list, versions, oldVersions] of lists) {
    for (const v of versions)
      out.push(...versionProblems(v, oldVersions, now, gate).map((p) => `${list} ${v.version}: ${p}`));
    out.push(...supportedConflicts(versions, now).map((p) => `${list}: ${p}`));
  }
  const latest = latestVersion(profile.spec.kubernetes.versions);
  if (latest && (latest.expirationDate !== undefined || latest.lifecycle?.at(-1)?.classification === 'expired')) {
    out.push(`highest kubernetes version ${latest.version} expires`);
  }
  return out;
}

function versionProblems(
  v: ExpirableVersion,
  oldVersions: readonly ExpirableVersion[],
  now: number,
  gate: boolean,
): string[] {
  const out: string[] = [];
  if (hasLifecycle(v)) {
    if (!gate) out.push('lifecycle with the gate off');
    if (v.classification !== undefined || v.expirationDate !== undefined)
      out.push('lifecycle mixed with legacy fields');
    const stages = v.lifecycle!;
    stages.forEach((s, i) => {
      const prev = stages[i - 1];
      if (i > 0 && s.startTime === undefined) out.push(`stage ${i} has no start`);
      if (prev && stageRank(prev.classification) >= stageRank(s.classification)) out.push(`stage ${i} out of order`);
      if (prev?.startTime && s.startTime && parseInstant(s.startTime) < parseInstant(prev.startTime))
        out.push(`stage ${i} starts earlier`);
    });
  }
  if (v.classification === 'expired') out.push('legacy classification expired');
  const expiry = expiryInstant(v);
  const before = oldVersions.find((o) => o.version === v.version);
  if (expiry !== undefined && expiry <= now && (!before || expiryInstant(before) !== expiry))
    out.push('added already expired');
  if (before && classificationAt(before, now) !== 'unavailable' && classificationAt(v, now) === 'unavailable')
    out.push('turned unavailable');
  return out;
}

function supportedConflicts(versions: readonly ExpirableVersion[], now: number): string[] {
  const out: string[] = [];
  const explicit = versions.filter(isExplicitlySupported);
  for (const a of explicit) {
    for (const b of explicit) {
      if (a === b || minorKey(a.version) !== minorKey(b.version)) continue;
      if (a.version < b.version && windowsOverlapAfter(windowsOf(a, 'supported'), windowsOf(b, 'supported'), now)) {
        out.push(`${a.version} and ${b.version} are both supported after now`);
      }
      const legacyNow =
        !hasLifecycle(a) && a.classification === 'supported' && classificationAt(a, now) === 'supported';
      if (legacyNow) out.push(`legacy supported ${a.version} next to supported ${b.version}`);
    }
  }
  return out;
}
