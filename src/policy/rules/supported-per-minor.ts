// SUPPORTED-PER-MINOR: within one major.minor of a version list at most one version is explicitly
// supported at any instant after now (explicit = legacy `classification: supported` or a lifecycle
// `supported` stage; plain versions never count). On top, everything Gardener's own check rejects:
// a legacy-supported version that is supported now conflicts with every other version of its minor
// that ever claims `supported`. Each version of a conflict gets the violation that names both.
import type { Rule, Violation } from '../rule.js';
import type { ExpirableVersion } from '../types.js';
import type { Window } from '../versions.js';
import { classificationAt, compareVersions, formatInstant, isExplicitlySupported, minorKey, windowsOf } from '../versions.js';
import type { ProfileWrite, Target, VersionList } from './version-lists.js';
import { isProfileWrite, judgeOwnAndMerged, versionLists, violationOf } from './version-lists.js';

const violation = violationOf('SUPPORTED-PER-MINOR');

interface Claim {
  index: number;
  minor: string;
  version: ExpirableVersion;
  windows: Window[];
  /** Gardener checks only legacy-classified versions that are supported right now. */
  legacySupportedNow: boolean;
}

/** The first span after `now` in which both versions are supported, if any. */
function sharedSpan(a: Claim, b: Claim, now: number): Window | undefined {
  for (const x of a.windows) {
    for (const y of b.windows) {
      const from = Math.max(x.from, y.from, now);
      const to = Math.min(x.to, y.to);
      if (from < to) return { from, to };
    }
  }
  return undefined;
}

function describeSpan(span: Window, now: number): string {
  const from = span.from <= now ? 'from now on' : `from ${formatInstant(span.from)}`;
  return span.to === Number.POSITIVE_INFINITY ? `${from} with no end` : `${from} until ${formatInstant(span.to)}`;
}

function conflict(list: VersionList, self: Claim, other: Claim, now: number): Violation | undefined {
  const span = sharedSpan(self, other, now);
  if (!span && !self.legacySupportedNow) return undefined;
  const a = self.version.version;
  const b = other.version.version;
  const why = span
    ? `${a} and ${b} are both explicitly supported ${describeSpan(span, now)}`
    : `${a} is supported now through its legacy classification, and ${b} of the same minor also claims "supported" (gardener-apiserver counts every legacy "supported" classification, even an expired one, and every lifecycle supported stage)`;
  const image = list.image ? `machine image ${list.image.name}: ` : '';
  return violation(
    `${list.path}[${self.index}]`,
    `${image}unable to add version "${a}" with classification "supported". "supported" lifecycle stages must not overlap per minor version: ${why}; keep one supported version per minor (classify the other as preview or deprecated, or end its supported stage before the other's starts)`,
  );
}

/** The explicit supported claims of a list, in list order. */
function claimsOf(list: VersionList, now: number): Claim[] {
  const out: Claim[] = [];
  list.versions.forEach((version, index) => {
    const minor = minorKey(version.version);
    if (minor === undefined || !isExplicitlySupported(version)) return;
    const legacySupportedNow = version.classification !== undefined && classificationAt(version, now) === 'supported';
    out.push({ index, minor, version, windows: windowsOf(version, 'supported'), legacySupportedNow });
  });
  return out;
}

function judgeList(list: VersionList, now: number): Violation[] {
  const claims = claimsOf(list, now);
  const byMinor = new Map<string, Claim[]>();
  for (const c of claims) {
    const group = byMinor.get(c.minor);
    if (group) group.push(c);
    else byMinor.set(c.minor, [c]);
  }
  const out: Violation[] = [];
  for (const self of claims) {
    for (const other of byMinor.get(self.minor)!) {
      // Equal semver (duplicates, build-metadata-only differences) is the same version, not a rival.
      if (self === other || compareVersions(self.version.version, other.version.version) === 0) continue;
      const v = conflict(list, self, other, now);
      if (v) out.push(v);
    }
  }
  return out;
}

function judge(ctx: ProfileWrite, target: Target): Violation[] {
  return target.kind === 'NamespacedCloudProfile' ? [] : versionLists(target).flatMap((list) => judgeList(list, ctx.now));
}

export const supportedPerMinor: Rule = {
  id: 'SUPPORTED-PER-MINOR',
  appliesTo: isProfileWrite,
  check: (ctx) => (isProfileWrite(ctx) ? judgeOwnAndMerged(ctx, (t) => judge(ctx, t)) : []),
};
