// PAST-EXPIRATION: a version must not be added already expired. On CREATE every version, on UPDATE
// every version that is new or whose expiry instant changed, must expire strictly after now.
// Unchanged past dates stay allowed, so re-applying the same manifest keeps working. The same holds
// for a NamespacedCloudProfile's overrides. (gardener-apiserver drops such versions on CREATE and
// accepts them on UPDATE; its documentation promises this rule.)
import type { Rule, Violation } from '../rule.js';
import type { ExpirableVersion } from '../types.js';
import { formatInstant, parseInstant } from '../versions.js';
import type { ProfileWrite } from './version-lists.js';
import { isProfileWrite, oldVersions, ownTarget, sameClassificationFields, versionLists, versionNamer, violationOf } from './version-lists.js';

const violation = violationOf('PAST-EXPIRATION');

/** An instant at which the version becomes expired, and where it is written. */
interface Expiry {
  field: string;
  at: number;
  label: string;
}

function expiriesOf(v: ExpirableVersion, path: string): Expiry[] {
  const out: Expiry[] = [];
  if (v.expirationDate !== undefined) {
    out.push({ field: `${path}.expirationDate`, at: parseInstant(v.expirationDate), label: `expirationDate ${v.expirationDate}` });
  }
  (v.lifecycle ?? []).forEach((s, k) => {
    if (s.classification !== 'expired') return;
    if (s.startTime === undefined) out.push({ field: `${path}.lifecycle[${k}]`, at: Number.NEGATIVE_INFINITY, label: 'an expired stage without startTime (expired from the start)' });
    else out.push({ field: `${path}.lifecycle[${k}].startTime`, at: parseInstant(s.startTime), label: `an expired stage starting ${s.startTime}` });
  });
  return out;
}

function judge(ctx: ProfileWrite): Violation[] {
  const old = oldVersions(ctx);
  const name = versionNamer(ctx);
  const out: Violation[] = [];
  for (const list of versionLists(ownTarget(ctx))) {
    const matching = old.matching(list);
    list.versions.forEach((v, i) => {
      const before = matching?.get(v.version);
      if (before && sameClassificationFields(before, v)) return;
      const previous = new Set(before ? expiriesOf(before, '').map((p) => p.at) : []);
      for (const e of expiriesOf(v, `${list.path}[${i}]`)) {
        if (!(e.at <= ctx.now) || previous.has(e.at)) continue;
        out.push(violation(e.field, `expiration date for version "${v.version}" is in the past: ${pastExpiry(name(list, v), e, before !== undefined, ctx.now)}`));
      }
    });
  }
  return out;
}

/** What the request does with the expiry, in words that fit: an added version, a changed one, an override. */
function pastExpiry(what: { text: string; override: boolean }, e: Expiry, existed: boolean, now: number): string {
  const notAfter = `which is not after now (${formatInstant(now)})`;
  if (existed) return `${what.text} is changed to ${e.label}, ${notAfter}; an expiry must not be moved into the past, so set a future instant or keep the previous one`;
  if (what.override) return `${what.text} sets ${e.label}, ${notAfter}; an override extends a version's expiry, so set a future instant`;
  return `${what.text} is added with ${e.label}, ${notAfter}; a version must not be added already expired, so set a future instant or leave the version out`;
}

export const pastExpiration: Rule = {
  id: 'PAST-EXPIRATION',
  appliesTo: isProfileWrite,
  check: (ctx) => (isProfileWrite(ctx) ? judge(ctx) : []),
};
