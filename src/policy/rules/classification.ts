// CLASSIFICATION: the legacy `classification` field takes preview, supported or deprecated.
// `expired` is forbidden (an expiry is a date, not a label) and `unavailable` is only ever derived.
import type { Rule, Violation } from '../rule.js';
import type { ExpirableVersion } from '../types.js';
import type { VersionList } from './version-lists.js';
import type { VersionNamer } from './version-lists.js';
import { isProfileWrite, ownTarget, versionLists, versionNamer, violationOf } from './version-lists.js';

const violation = violationOf('CLASSIFICATION');

export const LEGACY_CLASSIFICATIONS: readonly string[] = ['preview', 'supported', 'deprecated'];

function hint(value: string): string {
  if (value === 'expired') return 'cannot specify `classification` expired; set an expirationDate (or, with lifecycles, an expired stage with a startTime) instead';
  if (value === 'unavailable') return '"unavailable" is derived from a lifecycle whose stages all start in the future and cannot be written';
  return 'use one of them, or a lifecycle';
}

function unsupported(list: VersionList, v: ExpirableVersion, path: string, value: string, name: VersionNamer): Violation {
  return violation(
    `${path}.classification`,
    `classification "${value}" of ${name(list, v).text} is not supported: supported values: "deprecated", "preview", "supported"; ${hint(value)}`,
  );
}

export const classification: Rule = {
  id: 'CLASSIFICATION',
  appliesTo: isProfileWrite,
  check(ctx) {
    if (!isProfileWrite(ctx)) return [];
    const out: Violation[] = [];
    const name = versionNamer(ctx);
    for (const list of versionLists(ownTarget(ctx))) {
      list.versions.forEach((v, i) => {
        const value = v.classification;
        if (value !== undefined && !LEGACY_CLASSIFICATIONS.includes(value)) out.push(unsupported(list, v, `${list.path}[${i}]`, value, name));
      });
    }
    return out;
  },
};
