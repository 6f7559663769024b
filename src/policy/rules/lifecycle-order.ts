// LIFECYCLE-ORDER: a `lifecycle` only with the feature gate on and never together with the legacy
// fields; stages from {preview, supported, deprecated, expired}, each once, in stage order; only
// the first stage may omit its startTime; start times never decrease (equal is fine). On UPDATE a
// version that was not unavailable must not become unavailable. Legacy `classification: expired`
// is forbidden here too (POLICY lists it under both rules).
import {
  duplicate,
  type FieldPath,
  type FieldViolation,
  forbidden,
  invalid,
  notSupported,
  required,
} from '../../api/field.js';
import { defineRule, WRITES } from '../rule.js';
import type { ExpirableVersion, LifecycleStage } from '../../api/types.js';
import {
  classificationAt,
  formatInstant,
  hasLegacyFields,
  hasLifecycle,
  parseInstant,
  stageRank,
  stageStart,
} from '../../gardener/versions.js';
import type { ProfileWrite, VersionList } from './version-lists.js';
import type { VersionNamer } from './version-lists.js';
import {
  oldVersions,
  ownTarget,
  PROFILES,
  sameClassificationFields,
  versionLists,
  versionNamer,
} from './version-lists.js';

const WRITABLE_STAGES: readonly string[] = ['preview', 'supported', 'deprecated', 'expired'];
const SUPPORTED_VALUES = 'supported values: "deprecated", "expired", "preview", "supported"';

// Paths are built only for a violation: nearly every version and stage has none.
const versionPath = (list: VersionList, i: number): FieldPath => list.path.index(i);
const stagePath = (list: VersionList, i: number, k: number) => versionPath(list, i).child('lifecycle').index(k);
const stageField = (list: VersionList, i: number, k: number) => stagePath(list, i, k).child('classification');

function stageValues(stages: readonly LifecycleStage[], list: VersionList, i: number, what: string): FieldViolation[] {
  const out: FieldViolation[] = [];
  const seen = new Set<string>();
  stages.forEach((s, k) => {
    if (!WRITABLE_STAGES.includes(s.classification)) {
      const why =
        s.classification === 'unavailable'
          ? '; "unavailable" is derived (every stage still in the future) and cannot be written'
          : '';
      out.push(
        notSupported(
          stageField(list, i, k),
          `lifecycle stage "${s.classification}" of ${what} is not supported: ${SUPPORTED_VALUES}${why}`,
        ),
      );
    } else if (seen.has(s.classification)) {
      out.push(
        duplicate(
          stageField(list, i, k),
          `duplicate value "${s.classification}": ${what} lists the ${s.classification} stage more than once; keep one`,
        ),
      );
    }
    seen.add(s.classification);
    const prev = stages[k - 1];
    if (prev && stageRank(prev.classification) > stageRank(s.classification) && stageRank(s.classification) > 0) {
      out.push(
        invalid(
          stageField(list, i, k),
          `lifecycle classifications not in expected order (preview, supported, deprecated, expired): ${s.classification} must be before ${prev.classification} in the lifecycle of ${what}`,
        ),
      );
    }
  });
  return out;
}

function startTimes(stages: readonly LifecycleStage[], list: VersionList, i: number, what: string): FieldViolation[] {
  const out: FieldViolation[] = [];
  const first = stages[0];
  if (!first) return out;
  let prev = { classification: first.classification, start: stageStart(first) };
  stages.forEach((s, k) => {
    if (k === 0) return;
    if (s.startTime === undefined) {
      out.push(
        required(
          stagePath(list, i, k),
          `only the leading lifecycle elements can have the start time optional: the ${s.classification} stage of ${what} has no startTime; give it one`,
        ),
      );
      return;
    }
    const start = parseInstant(s.startTime);
    if (start < prev.start) {
      out.push(
        invalid(
          stagePath(list, i, k),
          `lifecycle start times must be monotonically increasing: the ${s.classification} stage of ${what} starts at ${formatInstant(start)}, before the ${prev.classification} stage (${formatInstant(prev.start)}); equal start times are allowed`,
        ),
      );
    }
    prev = { classification: s.classification, start };
  });
  return out;
}

function judgeVersion(
  list: VersionList,
  v: ExpirableVersion,
  i: number,
  gate: boolean,
  name: VersionNamer,
): FieldViolation[] {
  const what = name(list, v).text;
  const out: FieldViolation[] = [];
  if (v.classification === 'expired' && !hasLifecycle(v)) {
    out.push(
      forbidden(
        versionPath(list, i).child('classification'),
        `cannot specify \`classification\` expired for ${what}: set an expirationDate or use a lifecycle with an expired stage`,
      ),
    );
  }
  if (!hasLifecycle(v)) return out;
  if (!gate) {
    out.push(
      forbidden(
        versionPath(list, i).child('lifecycle'),
        `lifecycles are not allowed with disabled VersionClassificationLifecycle feature gate: ${what} has a lifecycle; use classification and expirationDate, or turn the gate on (in gardener-apiserver and in this webhook's config)`,
      ),
    );
    return out;
  }
  if (hasLegacyFields(v)) {
    out.push(
      forbidden(
        versionPath(list, i),
        `cannot specify \`classification\` or \`expirationDate\` in combination with \`lifecycle\`: ${what} has both; express the classification and expiry as lifecycle stages`,
      ),
    );
  }
  const stages = v.lifecycle!;
  return [...out, ...stageValues(stages, list, i, what), ...startTimes(stages, list, i, what)];
}

function turnedUnavailable(ctx: ProfileWrite, name: VersionNamer): FieldViolation[] {
  if (ctx.operation !== 'UPDATE') return [];
  const old = oldVersions(ctx);
  const out: FieldViolation[] = [];
  for (const list of versionLists(ownTarget(ctx))) {
    const matching = old.matching(list);
    if (!matching) continue;
    list.versions.forEach((v, i) => {
      const before = matching.get(v.version);
      if (!before || sameClassificationFields(before, v)) return;
      const was = classificationAt(before, ctx.now);
      if (was === 'unavailable' || classificationAt(v, ctx.now) !== 'unavailable') return;
      out.push(
        forbidden(
          versionPath(list, i),
          `a version cannot be turned unavailable if it was already moved into a later lifecycle stage: ${name(list, v).text} is ${was} now, but every stage of its new lifecycle starts in the future, so it would become unavailable; keep a stage that has already started`,
        ),
      );
    });
  }
  return out;
}

export const lifecycleOrder = defineRule({
  id: 'LIFECYCLE-ORDER',
  kinds: PROFILES,
  operations: WRITES,
  summary:
    'a `lifecycle` with the feature gate off, out of order, or mixed with the legacy fields; a version turned back to `unavailable`',
  check(ctx) {
    const out: FieldViolation[] = [];
    const name = versionNamer(ctx);
    for (const list of versionLists(ownTarget(ctx))) {
      list.versions.forEach((v, i) => {
        if (hasLifecycle(v) || v.classification === 'expired')
          for (const problem of judgeVersion(list, v, i, ctx.lifecycleGate, name)) out.push(problem);
      });
    }
    return [...out, ...turnedUnavailable(ctx, name)];
  },
});
