// PAST-EXPIRATION: a version must not be added already expired. On CREATE every version, on UPDATE
// every version that is new or whose expiry instant changed, must expire strictly after now.
// Unchanged past dates stay allowed, so re-applying the same manifest keeps working. The same holds
// for a NamespacedCloudProfile's overrides. (gardener-apiserver drops such versions on CREATE and
// accepts them on UPDATE; its documentation promises this rule.)
import { type FieldPath, type FieldViolation, forbidden } from '../../api/field.js';
import { defineRule, WRITES } from '../rule.js';
import type { ExpirableVersion } from '../../api/types.js';
import { formatInstant, parseInstant, stageStart } from '../../gardener/versions.js';
import type { ProfileWrite } from './version-lists.js';
import {
  oldVersions,
  ownTarget,
  PROFILES,
  sameClassificationFields,
  versionLists,
  versionNamer,
} from './version-lists.js';

/**
 * An instant at which the version becomes expired, and where it is written: a lifecycle stage's
 * index, or undefined for expirationDate. Its field path and wording are built only for a violation.
 */
interface Expiry {
  at: number;
  stage?: number;
}

const NONE: readonly Expiry[] = [];

/** The version's expiries at or before `now`: almost always none, and then nothing is allocated. */
function pastExpiries(v: ExpirableVersion, now: number): readonly Expiry[] {
  let out: Expiry[] | undefined;
  if (v.expirationDate !== undefined) {
    const at = parseInstant(v.expirationDate);
    if (at <= now) (out ??= []).push({ at });
  }
  const stages = v.lifecycle ?? [];
  for (let k = 0; k < stages.length; k++) {
    if (stages[k]!.classification !== 'expired') continue;
    const at = stageStart(stages[k]!);
    if (at <= now) (out ??= []).push({ at, stage: k });
  }
  return out ?? NONE;
}

/** Whether the version becomes expired at `at`, by its expirationDate or an expired stage. */
function expiresAt(v: ExpirableVersion, at: number): boolean {
  if (v.expirationDate !== undefined && parseInstant(v.expirationDate) === at) return true;
  return (v.lifecycle ?? []).some((s) => s.classification === 'expired' && stageStart(s) === at);
}

function fieldOf(v: ExpirableVersion, path: FieldPath, e: Expiry): FieldPath {
  if (e.stage === undefined) return path.child('expirationDate');
  const stage = path.child('lifecycle').index(e.stage);
  return v.lifecycle![e.stage]!.startTime === undefined ? stage : stage.child('startTime');
}

function labelOf(v: ExpirableVersion, e: Expiry): string {
  if (e.stage === undefined) return `expirationDate ${v.expirationDate}`;
  const start = v.lifecycle![e.stage]!.startTime;
  return start === undefined
    ? 'an expired stage without startTime (expired from the start)'
    : `an expired stage starting ${start}`;
}

function judge(ctx: ProfileWrite): FieldViolation[] {
  const old = oldVersions(ctx);
  const name = versionNamer(ctx);
  const out: FieldViolation[] = [];
  for (const list of versionLists(ownTarget(ctx))) {
    const matching = old.matching(list);
    list.versions.forEach((v, i) => {
      const before = matching?.get(v.version);
      if (before && sameClassificationFields(before, v)) return;
      for (const e of pastExpiries(v, ctx.now)) {
        // An expiry the stored version already had stays allowed: re-applying a manifest works.
        if (before && expiresAt(before, e.at)) continue;
        const message = `expiration date for version "${v.version}" is in the past: ${pastExpiry(name(list, v), labelOf(v, e), before !== undefined, ctx.now)}`;
        out.push(forbidden(fieldOf(v, list.path.index(i), e), message));
      }
    });
  }
  return out;
}

/** What the request does with the expiry, in words that fit: an added version, a changed one, an override. */
function pastExpiry(what: { text: string; override: boolean }, label: string, existed: boolean, now: number): string {
  const notAfter = `which is not after now (${formatInstant(now)})`;
  if (existed)
    return `${what.text} is changed to ${label}, ${notAfter}; an expiry must not be moved into the past, so set a future instant or keep the previous one`;
  if (what.override)
    return `${what.text} sets ${label}, ${notAfter}; an override extends a version's expiry, so set a future instant`;
  return `${what.text} is added with ${label}, ${notAfter}; a version must not be added already expired, so set a future instant or leave the version out`;
}

export const pastExpiration = defineRule({
  id: 'PAST-EXPIRATION',
  kinds: PROFILES,
  operations: WRITES,
  summary: 'adding a version that is already expired, or moving an expiry into the past',
  check: judge,
});
