// The module's answer to each question, in the oracle's words (semver-oracle's JSON, keys sorted).
// Where the module has two ways to one answer (a parse and its error text; a constraint and its
// build-nothing check; a helper and the primitives under it), both must agree, or the answer says so.
import { type Constraint, constraintError, newConstraint } from '../../../src/gardener/semver/constraint.js';
import { newVersion, type Semver } from '../../../src/gardener/semver/version.js';
import { compareAs, meetsConstraint, normalize, parseVersion, versionError } from '../../../src/gardener/versions.js';
import { parseGoInstant } from '../../../src/api/instant.js';
import type { Question } from './questions.js';

type Answer = Record<string, unknown>;

const version = (s: string): Semver | string => {
  const v = newVersion(s);
  const again = parseVersion(s);
  if ((typeof v === 'string') !== (again === undefined) || (typeof v === 'string' && versionError(s) !== v))
    return `parseVersion and newVersion disagree on ${JSON.stringify(s)}`;
  return v;
};

const constraint = (s: string): Constraint | string => {
  const c = newConstraint(s);
  const error = constraintError(s);
  if ((typeof c === 'string' ? c : undefined) !== error) return `constraintError says ${error}`;
  return c;
};

/** CheckVersionMeetsConstraint from the primitives: the constraint's error first, then the version's. */
function meets(v: string, c: string): Answer {
  const parsed = constraint(c);
  if (typeof parsed === 'string') return { err: parsed };
  const ver = version(normalize(v));
  if (typeof ver === 'string') return { err: ver };
  return { ok: parsed.check(ver) };
}

export function answerOf(q: Question): Answer {
  switch (q[0]) {
    case 'version': {
      const v = version(q[1]);
      return typeof v === 'string'
        ? { err: v }
        : { parts: [...v.segments(), v.prerelease, v.metadata], text: v.toString() };
    }
    case 'nextMinor': {
      const v = version(q[1]);
      if (typeof v === 'string') return { err: v };
      const next = v.nextMinor();
      return next ? { text: next.toString() } : { err: 'panic: minor version increment would overflow uint64' };
    }
    case 'compare': {
      const [a, b] = [version(q[1]), version(q[2])];
      return typeof a === 'string' || typeof b === 'string' ? { err: 'unparseable' } : { cmp: a.compare(b) };
    }
    case 'check': {
      const c = constraint(q[1]);
      if (typeof c === 'string') return { err: c };
      const v = version(q[2]);
      return typeof v === 'string' ? { err: `version: ${v}` } : { ok: c.check(v) };
    }
    case 'compareVersions': {
      const [, a, op, b] = q;
      const answer = meets(normalize(a), `${op} ${normalize(b)}`);
      if ((answer.ok === true) !== compareAs(a, op as '<', b))
        return { err: 'compareAs disagrees with its primitives' };
      return answer;
    }
    case 'instant': {
      const ms = parseGoInstant(q[1]);
      return typeof ms === 'string' ? { err: ms } : { ms };
    }
    case 'meets': {
      const answer = meets(q[1], q[2]);
      if ((answer.ok === true) !== meetsConstraint(q[1], q[2]))
        return { err: 'meetsConstraint disagrees with its primitives' };
      return answer;
    }
  }
}
