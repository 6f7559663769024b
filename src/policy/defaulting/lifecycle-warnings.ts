// The warning DEFAULT-LIFECYCLE gives for each version whose stored lifecycle it changes:
// `1.30.1: deprecated, expires 2027-03-21T00:00:00Z (policy: older patch of maintained minor 1.30)`.
import type { Verdict } from './lifecycle-decision.js';
import type { NextLifecycle } from './lifecycle-stages.js';
import { describeStages } from './lifecycle-stages.js';

export interface Subject {
  /** `1.30.1`, or `machine image gardenlinux 1592.1.0`. */
  name: string;
  /** Kubernetes minors are maintained or not; every machine-image minor is. */
  kubernetes: boolean;
  maintainedMinors: number;
}

export function defaultedWarning(subject: Subject, verdict: Verdict, next: NextLifecycle, neverExpires: boolean): string {
  let why = reason(subject, verdict, next);
  if (neverExpires && verdict.state === 'deprecated') why += '; the highest kubernetes version never expires';
  return `${subject.name}: ${what(next)} (policy: ${why})`;
}

export function leftManagementWarning(name: string): string {
  return `${name}: no longer managed by lifecycle defaulting, because the request sets its lifecycle or classification explicitly`;
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

function reason(subject: Subject, verdict: Verdict, next: NextLifecycle): string {
  if (next.change === 'capped') return 'the highest kubernetes version never expires';
  const minor = subject.kubernetes && verdict.maintained ? `maintained minor ${verdict.minor}` : `minor ${verdict.minor}`;
  const operator = verdict.operatorSupported.join(', ');
  if (!verdict.maintained) return `minor ${verdict.minor} is no longer maintained, only the newest ${subject.maintainedMinors} are`;
  switch (verdict.state) {
    case 'supported':
      return `newest patch of ${minor}`;
    case 'preview':
      return next.change === 'advanced'
        ? `the operator set ${operator} supported in ${minor}`
        : `newest patch of ${minor}, whose supported version ${operator} the operator set`;
    case 'deprecated':
      return next.change === 'advanced' ? `superseded by ${verdict.newest ?? 'a newer patch'} in ${minor}` : `older patch of ${minor}`;
  }
}
