// Warnings on Shoot admission: a version the Shoot uses is deprecated, expires soon (with the date
// and what the forced update will do), or is expired (the forced update in its next maintenance
// window, or that there is nothing to update to). Each says its conclusion first, then the version
// and the Shoot, then why: kube-apiserver cuts a warning at 256 characters.
import type { ForcedUpdatePlan, ShootVersionUse } from '../../gardener/forced-update.js';
import { describeUse, placeOf, planForcedUpdate, profileEntries, versionUsesOf } from '../../gardener/forced-update.js';
import type { RuleContext } from '../rule.js';
import { judgesShoot, shootName, workersByName } from '../rules/shoot-changes.js';
import { listSome } from '../../util/text.js';
import type { Shoot } from '../../api/types.js';
import type { Warning, WarningKind } from '../warning.js';
import { warningOf } from '../warning.js';
import { classificationAt, expiryInstant, formatInstant, isActive } from '../../gardener/versions.js';

const DAY_MS = 86_400_000;

interface ShootUseWarning {
  /** `kubernetes version "1.30.1" of shoot 'ns/name' (control plane, worker pool "a")`. */
  subject: string;
  /** `kubernetes version "1.30.1"`, for a group. */
  use: string;
  shoot: string;
  state: 'expired' | 'expiring' | 'deprecated';
  /** What happens, said first: kube-apiserver cuts a warning at 256 characters, and the cut must only take detail. */
  conclusion: () => string;
  /** The rest of the sentence after the subject, built when said. */
  rest: () => string;
}

const STATE_WORDS = { expired: 'are expired', expiring: 'expire soon', deprecated: 'are deprecated' } as const;

const shootUseKind: WarningKind<ShootUseWarning> = {
  one: (w) => `${w.conclusion()}: ${w.subject} ${w.rest()}`,
  many: (ws) =>
    `update shoot ${ws[0]!.shoot}: ${ws.length} of its versions ${STATE_WORDS[ws[0]!.state]}: ${listSome(
      ws.map((w) => w.use),
      3,
    )}; see version-policy explain`,
};

export function shootWarnings(ctx: RuleContext): Warning[] {
  // An unsynced state may hold a stale profile: say nothing rather than something wrong.
  if (!judgesShoot(ctx) || !ctx.state.synced || !ctx.profile) return [];
  const profile = ctx.profile;
  const entries = ctx.entries ?? profileEntries(profile);
  const shoot = ctx.object;
  const old = ctx.operation === 'UPDATE' ? ctx.oldObject : undefined;
  const oldPools = old ? workersByName(old) : undefined;
  const out: Warning[] = [];
  const say = (
    state: ShootUseWarning['state'],
    use: ShootVersionUse,
    places: readonly ShootVersionUse[],
    conclusion: () => string,
    rest: () => string,
  ) => {
    const item = {
      subject: `${describeUse(use)} of shoot ${shootName(shoot)} (${listSome(places.map(placeOf), 3)})`,
      use: describeUse(use),
      shoot: shootName(shoot),
      state,
      conclusion,
      rest,
    };
    out.push(warningOf(shootUseKind, `shoot\u0000${state}`, item));
  };
  for (const { use, places } of groupedUses(shoot)) {
    const entry = entries.entry(use);
    if (!entry) continue;
    const c = classificationAt(entry, ctx.now);
    const expiresAt = expiryInstant(entry);
    const plan = () => planForcedUpdate(profile, shoot, use, ctx.now, entries)!;
    if (c === 'expired') {
      // On CREATE and for a new pool an expired version is a denial, not a forecast.
      if (!places.some((p) => existedBefore(oldPools, p))) continue;
      const since = expiresAt !== undefined && Number.isFinite(expiresAt) ? ` since ${formatInstant(expiresAt)}` : '';
      say(
        'expired',
        use,
        places,
        () => forcedUpdate(plan(), ctx.now),
        () => `is expired${since}${forecastDetail(plan())}`,
      );
    } else if (isActive(c)) {
      const soon =
        expiresAt !== undefined &&
        expiresAt >= ctx.now &&
        expiresAt - ctx.now <= ctx.config.warnings.expiringWithinDays * DAY_MS;
      if (soon) {
        const days = Math.max(1, Math.ceil((expiresAt - ctx.now) / DAY_MS));
        const deprecated = c === 'deprecated' ? 'is deprecated and ' : '';
        say(
          'expiring',
          use,
          places,
          () => forcedUpdate(plan(), ctx.now),
          () =>
            `${deprecated}expires at ${formatInstant(expiresAt)} (in ${days} day${days === 1 ? '' : 's'})${forecastDetail(plan())}`,
        );
      } else if (c === 'deprecated') {
        const when =
          expiresAt !== undefined && Number.isFinite(expiresAt)
            ? `it expires at ${formatInstant(expiresAt)}`
            : 'no expiry is set yet';
        say(
          'deprecated',
          use,
          places,
          () => 'update to a supported version',
          () => `is deprecated: ${when}`,
        );
      }
    }
  }
  return out;
}

/** What the forced update will do, and when: the warning's conclusion. */
export function forcedUpdate(plan: ForcedUpdatePlan, now: number): string {
  const when =
    plan.at !== undefined
      ? `in the maintenance window beginning ${formatInstant(plan.at)}`
      : plan.expiresAt > now
        ? 'in the first maintenance window after expiry'
        : 'in its next maintenance window';
  const u = plan.update;
  return u.found ? `forced update to "${u.version}" ${when}` : `forced update will fail ${when}`;
}

/** Why, after the subject: the failure's reason (long, so last, where a cut may shorten it), or that another update follows. */
function forecastDetail(plan: ForcedUpdatePlan): string {
  const u = plan.update;
  if (!u.found) return `, and no version to update to exists (${u.reason})`;
  return u.expired ? `; "${u.version}" is expired too, so another forced update follows` : '';
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
function existedBefore(oldPools: ReadonlyMap<string, unknown> | undefined, use: ShootVersionUse): boolean {
  if (!oldPools) return false;
  return use.pool === undefined || oldPools.has(use.pool);
}
