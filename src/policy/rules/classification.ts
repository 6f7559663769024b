// CLASSIFICATION: the legacy `classification` field takes preview, supported or deprecated.
// `expired` is forbidden (an expiry is a date, not a label) and `unavailable` is only ever derived.
import { type FieldPath, type FieldViolation, notSupported } from '../../api/field.js';
import { defineRule, WRITES } from '../rule.js';
import type { ExpirableVersion } from '../../api/types.js';
import type { VersionList } from './version-lists.js';
import type { VersionNamer } from './version-lists.js';
import { ownTarget, PROFILES, versionLists, versionNamer } from './version-lists.js';

export const LEGACY_CLASSIFICATIONS: readonly string[] = ['preview', 'supported', 'deprecated'];

function hint(value: string): string {
  if (value === 'expired')
    return 'cannot specify `classification` expired; set an expirationDate (or, with lifecycles, an expired stage with a startTime) instead';
  if (value === 'unavailable')
    return '"unavailable" is derived from a lifecycle whose stages all start in the future and cannot be written';
  return 'use one of them, or a lifecycle';
}

function unsupported(
  list: VersionList,
  v: ExpirableVersion,
  path: FieldPath,
  value: string,
  name: VersionNamer,
): FieldViolation {
  return notSupported(
    path.child('classification'),
    `classification "${value}" of ${name(list, v).text} is not supported: supported values: "deprecated", "preview", "supported"; ${hint(value)}`,
  );
}

export const classification = defineRule({
  id: 'CLASSIFICATION',
  kinds: PROFILES,
  operations: WRITES,
  summary: 'a legacy `classification` other than `preview`, `supported`, `deprecated`',
  check(ctx) {
    const out: FieldViolation[] = [];
    const name = versionNamer(ctx);
    for (const list of versionLists(ownTarget(ctx))) {
      list.versions.forEach((v, i) => {
        const value = v.classification;
        if (value !== undefined && !LEGACY_CLASSIFICATIONS.includes(value))
          out.push(unsupported(list, v, list.path.index(i), value, name));
      });
    }
    return out;
  },
});
