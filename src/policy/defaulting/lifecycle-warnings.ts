// The warnings DEFAULT-LIFECYCLE gives: one per version whose stored lifecycle it changes
// (`1.30.1: deprecated, expires 2027-03-21T00:00:00Z (policy: older patch of maintained minor 1.30)`),
// grouped by list, outcome and expiry day when the budget needs the room
// (`14 Kubernetes versions get deprecated (1.25.0…1.28.5), expiring 2027-03-24; see version-policy explain`).
import type { Warning, WarningKind } from '../warning.js';
import { countOf, dayOf, shootsText, textWarning, versionSpan, warningOf } from '../warning.js';
import { listSome } from '../../util/text.js';
import type { Verdict } from './lifecycle-decision.js';
import type { NextLifecycle } from './lifecycle-stages.js';
import { describeStages } from './lifecycle-stages.js';

export interface Subject {
  version: string;
  /** Undefined for the Kubernetes list. */
  image?: string;
  maintainedMinors: number;
}

export interface Adoption {
  /** Live Shoots that run the version and whose expiry this sets. */
  shoots: number;
}

interface Defaulted {
  subject: Subject;
  verdict: Verdict;
  next: NextLifecycle;
  neverExpires: boolean;
  /** Set when the version was already in the profile and adoptExisting took it over. */
  adopted?: Adoption;
  /** What the new stages make of the version: its last new classification, or `reverted`/`capped`. */
  outcome: string;
  /** When the new stages say the version expires, if they do. */
  expiry?: string;
  /** Shoots forced off the version by that expiry (adopted versions only). */
  forced: number;
}

/** `1.30.1`, or `machine image gardenlinux 1592.1.0`. */
function nameOf(s: Subject): string {
  return s.image === undefined ? s.version : `machine image ${s.image} ${s.version}`;
}

function outcomeOf(next: NextLifecycle, verdict: Verdict): { outcome: string; expiry?: string } {
  if (next.change === 'reverted' || next.change === 'capped') return { outcome: next.change };
  let outcome: string = verdict.state;
  let expiry: string | undefined;
  for (const s of next.news) {
    if (s.classification === 'expired') expiry = s.startTime;
    else outcome = s.classification;
  }
  return expiry === undefined ? { outcome } : { outcome, expiry };
}

const defaultedKind: WarningKind<Defaulted> = {
  one(d) {
    let why = reason(d);
    if (d.neverExpires && d.verdict.state === 'deprecated') why += '; the highest kubernetes version never expires';
    const adopted = d.adopted ? 'adopted, ' : '';
    const forced = d.forced > 0 ? `; ${shootsText(d.forced)} run it and will be force-updated from then` : '';
    return `${nameOf(d.subject)}: ${what(d.next)} (${adopted}policy: ${why})${forced}`;
  },
  many(items) {
    const first = items[0]!;
    const span = versionSpan(items.map((d) => d.subject.version));
    const versions = `${countOf(items.length, first.subject.image)}${first.adopted ? ' already in the profile' : ''}`;
    const shoots = items.reduce((n, d) => n + d.forced, 0);
    const forced = shoots > 0 ? `; ${shootsText(shoots)} run them and will be force-updated from then` : '';
    switch (first.outcome) {
      case 'reverted':
        return `${versions} are supported again (${span}), their deprecation withdrawn; see version-policy explain`;
      case 'capped':
        return `${versions} no longer expire (${span}): the highest kubernetes version never expires`;
      default:
        return `${versions} get ${first.outcome} (${span})${first.expiry ? `, expiring ${dayOf(first.expiry)}` : ''}${forced}; see version-policy explain`;
    }
  },
};

/** One warning per version; grouped by list, outcome, expiry day, and whether it was adopted and forces Shoots. */
export function defaultedWarning(
  subject: Subject,
  verdict: Verdict,
  next: NextLifecycle,
  neverExpires: boolean,
  adopted?: Adoption,
): Warning {
  const { outcome, expiry } = outcomeOf(next, verdict);
  const forced = adopted && expiry !== undefined ? adopted.shoots : 0;
  const item: Defaulted = {
    subject,
    verdict,
    next,
    neverExpires,
    outcome,
    forced,
    ...(expiry !== undefined ? { expiry } : {}),
    ...(adopted ? { adopted } : {}),
  };
  const key = `defaulted\u0000${subject.image ?? ''}\u0000${outcome}\u0000${expiry ? dayOf(expiry) : ''}\u0000${adopted ? 'adopted' : ''}\u0000${forced > 0 ? 'forced' : ''}`;
  return warningOf(defaultedKind, key, item);
}

const leftKind: WarningKind<Subject> = {
  one: (s) =>
    `${nameOf(s)}: no longer managed by lifecycle defaulting, because the request sets its lifecycle or classification explicitly`,
  many: (items) =>
    `${countOf(items.length, items[0]!.image)} (${versionSpan(items.map((s) => s.version))}) are no longer managed by lifecycle defaulting: the request sets their lifecycle or classification`,
};

export function leftManagementWarning(subject: Subject): Warning {
  return warningOf(leftKind, `left\u0000${subject.image ?? ''}`, subject);
}

/** adoptExisting is on, but which versions Shoots run is not known: nothing is adopted this time. */
export function adoptionSkippedWarning(versions: readonly string[], reason: string): Warning {
  return textWarning(
    `lifecycle defaulting did not adopt the existing versions without a classification (${listSome(versions, 3)}): the cluster state is not ready (${reason}); a later write adopts them`,
  );
}

function what(next: NextLifecycle): string {
  switch (next.change) {
    case 'reverted':
      return 'supported again, its deprecation withdrawn';
    case 'capped':
      return 'no longer expires';
    default:
      return describeStages(next.news);
  }
}

function reason({ subject, verdict, next }: Defaulted): string {
  if (next.change === 'capped') return 'the highest kubernetes version never expires';
  const kubernetes = subject.image === undefined;
  const minor = kubernetes && verdict.maintained ? `maintained minor ${verdict.minor}` : `minor ${verdict.minor}`;
  const operator = listSome(verdict.operatorSupported, 3);
  if (!verdict.maintained)
    return `minor ${verdict.minor} is no longer maintained, only the newest ${subject.maintainedMinors} are`;
  switch (verdict.state) {
    case 'supported':
      return `newest patch of ${minor}`;
    case 'preview':
      return next.change === 'advanced'
        ? `the operator set ${operator} supported in ${minor}`
        : `newest patch of ${minor}, whose supported version ${operator} the operator set`;
    case 'deprecated':
      return next.change === 'advanced'
        ? `superseded by ${verdict.newest ?? 'a newer patch'} in ${minor}`
        : `older patch of ${minor}`;
  }
}
