// FORECAST: a profile UPDATE that, by Gardener's maintenance, would land Shoots on a deprecated
// version (gardener#13647, #13703), leave a forced update without a target, or bring a forced
// update within `forecast.soonDays`. Only the conditions listed in `forecast.deny` deny; the
// others are warnings (warnings/forecast.ts), and with the default empty list the rule denies
// nothing and never waits for the cluster state.
import { fieldPath, type FieldViolation, forbidden } from '../../api/field.js';
import { LIMITS } from '../../api/limits.js';
import type { Judged } from '../rule.js';
import { defineRule } from '../rule.js';
import { LISTED_USERS } from '../../gardener/usage.js';
import { forecastOfUpdate, sayFinding } from '../warnings/forecast.js';

type ProfileUpdate = Judged<'CloudProfile' | 'NamespacedCloudProfile', 'UPDATE'>;

function check(ctx: ProfileUpdate): FieldViolation[] {
  const deny = new Set(ctx.config.forecast.deny);
  if (deny.size === 0) return [];
  // A removal too big to read whole (admission/stored.ts) is read by name only, and not forecast:
  // the webhook cannot know what it does to maintenance, so it denies rather than guess allowed.
  const removed = ctx.request.stored?.removed;
  if (removed)
    return [
      forbidden(
        fieldPath(),
        `maintenance forecast not made: the update removes ${removed.count.toLocaleString('en-US')} version entries and images, more than the ${LIMITS.versionEntries.toLocaleString('en-US')} entries or ${LIMITS.machineImages} images read whole, so forecast.deny cannot be judged; remove fewer at once, or run version-policy forecast --proposed`,
      ),
    ];
  const answer = forecastOfUpdate(ctx);
  // No forecast (the server's worker did not answer): the webhook cannot know, so it denies.
  if ('unavailable' in answer)
    return [
      forbidden(
        fieldPath(),
        `maintenance forecast not available: ${answer.unavailable}, so forecast.deny cannot be judged; retry, or run version-policy forecast --proposed`,
      ),
    ];
  const { findings, skippedGroups } = answer;
  const out = findings
    .filter((f) => deny.has(f.condition))
    .map((f) =>
      forbidden(
        f.image === undefined ? fieldPath('spec', 'kubernetes', 'versions') : fieldPath('spec', 'machineImages'),
        sayFinding(f, LISTED_USERS),
      ),
    );
  // A forecast cut short cannot say "no finding": it never guesses allowed.
  if (skippedGroups > 0)
    out.push(
      forbidden(
        fieldPath(),
        `maintenance forecast incomplete: ${skippedGroups.toLocaleString('en-US')} groups of Shoots were not stepped within this review's budget, so forecast.deny cannot be judged; run version-policy forecast --proposed`,
      ),
    );
  return out;
}

export const forecast = defineRule({
  id: 'FORECAST',
  kinds: ['CloudProfile', 'NamespacedCloudProfile'],
  operations: ['UPDATE'],
  summary:
    'an update whose maintenance forecast meets a condition listed in `forecast.deny` (none by default: then it only warns)',
  needsState: (ctx) => ctx.config.forecast.deny.length > 0,
  check,
});
