// Warnings on Shoot admission: a version the Shoot uses is deprecated, expires soon (with the date
// and what the forced update will do), or is expired (the forced update in its next maintenance
// window, or that there is nothing to update to).
import type { ForcedUpdatePlan, ShootVersionUse } from '../forced-update.js';
import { describeUse, entryOf, placeOf, planForcedUpdate, versionUsesOf } from '../forced-update.js';
import type { RuleContext } from '../rule.js';
import { judgesShoot, oldWorkerOf, shootName } from '../rules/shoot-changes.js';
import type { Shoot } from '../types.js';
import { classificationAt, expiryInstant, formatInstant, isActive } from '../versions.js';

const DAY_MS = 86_400_000;

export function shootWarnings(ctx: RuleContext): string[] {
  // An unsynced state may hold a stale profile: say nothing rather than something wrong.
  if (!judgesShoot(ctx) || !ctx.state.synced || !ctx.profile) return [];
  const profile = ctx.profile;
  const shoot = ctx.object;
  const old = ctx.operation === 'UPDATE' ? ctx.oldObject : undefined;
  const out: string[] = [];
  for (const { use, places } of groupedUses(shoot)) {
    const entry = entryOf(profile, use);
    if (!entry) continue;
    const c = classificationAt(entry, ctx.now);
    const expiresAt = expiryInstant(entry);
    const subject = `${describeUse(use)} of shoot ${shootName(shoot)} (${places.map(placeOf).join(', ')})`;
    const plan = () => planForcedUpdate(profile, shoot, use, ctx.now)!;
    if (c === 'expired') {
      // On CREATE and for a new pool an expired version is a denial, not a forecast.
      if (!places.some((p) => existedBefore(old, p))) continue;
      const since = expiresAt !== undefined && Number.isFinite(expiresAt) ? ` since ${formatInstant(expiresAt)}` : '';
      out.push(`${subject} is expired${since}: ${forecast(plan(), ctx.now)}`);
    } else if (isActive(c)) {
      const soon = expiresAt !== undefined && expiresAt >= ctx.now && expiresAt - ctx.now <= ctx.config.warnings.expiringWithinDays * DAY_MS;
      if (soon) {
        const days = Math.max(1, Math.ceil((expiresAt - ctx.now) / DAY_MS));
        const deprecated = c === 'deprecated' ? 'is deprecated and ' : '';
        out.push(`${subject} ${deprecated}expires at ${formatInstant(expiresAt)} (in ${days} day${days === 1 ? '' : 's'}): ${forecast(plan(), ctx.now)}`);
      } else if (c === 'deprecated') {
        const when = expiresAt !== undefined && Number.isFinite(expiresAt) ? `it expires at ${formatInstant(expiresAt)}` : 'no expiry is set yet';
        out.push(`${subject} is deprecated: ${when}; update to a supported version`);
      }
    }
  }
  return out;
}

/** What the forced update will do, and when. */
export function forecast(plan: ForcedUpdatePlan, now: number): string {
  const when =
    plan.at !== undefined
      ? `in the maintenance window beginning ${formatInstant(plan.at)}`
      : plan.expiresAt > now
        ? 'in the first maintenance window after that'
        : 'in its next maintenance window';
  const u = plan.update;
  if (!u.found) return `no version to update to exists (${u.reason}): the forced update ${when} will fail`;
  const again = u.expired ? `; "${u.version}" is expired too, so another forced update follows` : '';
  return `it will be forcibly updated to "${u.version}" ${when}${again}`;
}

/** The Shoot's uses, one per version, with every place that names it. */
function groupedUses(shoot: Shoot): Array<{ use: ShootVersionUse; places: ShootVersionUse[] }> {
  const groups = new Map<string, { use: ShootVersionUse; places: ShootVersionUse[] }>();
  for (const use of versionUsesOf(shoot)) {
    const key = use.kind === 'kubernetes' ? `k8s\u0000${use.version}` : `img\u0000${use.image}\u0000${use.version}`;
    const group = groups.get(key);
    if (group) group.places.push(use);
    else groups.set(key, { use, places: [use] });
  }
  return [...groups.values()];
}

/** Whether the old Shoot already had this place (the control plane, or a pool of that name). */
function existedBefore(old: Shoot | undefined, use: ShootVersionUse): boolean {
  if (!old) return false;
  return use.pool === undefined || oldWorkerOf(old, use.pool) !== undefined;
}
