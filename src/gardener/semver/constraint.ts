// Version constraints as Gardener reads them (`kubeletVersionConstraint`, and its own version
// helpers): Masterminds semver v3.5.0's NewConstraint and Constraints.Check, ported for exactness.
// The library reads a constraint with regular expressions that a backtracking engine would need
// quadratic time or worse for; this reads the same language in single passes (a small automaton
// for the version shape), so a hostile 512-byte constraint costs what a plain one does.
// test/e2e/semver/ proves this file against the Go library itself.
import { byteLength, comparePrerelease, type Semver, semverOf } from './version.js';

const MAX_CONSTRAINT_BYTES = 512;
const MAX_GROUPS = 32;
/** NewVersion's limit, which a term's version meets too. */
const MAX_VERSION_BYTES = 256;

interface Term {
  op: string;
  con: Semver;
  dirty: boolean;
  minorDirty: boolean;
  patchDirty: boolean;
}

interface Group {
  terms: Term[];
  /** A term names a pre-release: only then may a pre-release version match the group. */
  pre: boolean;
}

/** A parsed constraint: alternatives (`||`) of terms that must all hold. */
export class Constraint {
  constructor(private readonly groups: readonly Group[]) {}

  /** Masterminds' Check (IncludePrerelease off, as Gardener leaves it). */
  check(v: Semver): boolean {
    return this.groups.some((g) => g.terms.every((t) => holds(v, t, g.pre)));
  }
}

/** Masterminds' NewConstraint: the constraint, or its error text. */
export function newConstraint(c: string): Constraint | string {
  return read(c, true)!;
}

/** NewConstraint's error for `c`, or undefined when it parses; builds nothing (MACHINE-IMAGES asks it of every version). */
export function constraintError(c: string): string | undefined {
  return read(c, false) as string | undefined;
}

function read(c: string, build: boolean): Constraint | string | undefined {
  if (c.length > MAX_CONSTRAINT_BYTES / 4 && byteLength(c) > MAX_CONSTRAINT_BYTES)
    return `constraint string is too long (max ${MAX_CONSTRAINT_BYTES} bytes)`;
  const ors = rewriteRanges(c).split('||');
  if (ors.length > MAX_GROUPS) return `too many constraint groups (max ${MAX_GROUPS})`;
  const groups: Group[] = [];
  for (const or of ors) {
    // The whole alternative's grammar first, then its terms' versions, as NewConstraint does.
    const count = scanTerms(or);
    if (count < 0) return `improper constraint: ${goQuote(or)}`;
    const terms: Term[] = [];
    for (let t = 0; t < count * 4; t += 4) {
      const term = termOf(or, BOUNDS[t]!, BOUNDS[t + 1]!, BOUNDS[t + 2]!, BOUNDS[t + 3]!, build);
      if (!term) return 'constraint parser error';
      if (build) terms.push(term);
    }
    if (build) groups.push({ terms, pre: terms.some((t) => t.con.prerelease !== '') });
  }
  return build ? new Constraint(groups) : undefined;
}

// Character classes of the version automaton.
const SEG = 1; // 0-9 x X * |
const ID = 2; // 0-9 A-Z a-z -
const DOT = 4;
const DASH = 8;
const PLUS = 16;
const V = 32;
const CLASS = new Uint8Array(128);
for (let c = 48; c <= 57; c++) CLASS[c] = SEG | ID;
for (let c = 65; c <= 90; c++) CLASS[c] = ID;
for (let c = 97; c <= 122; c++) CLASS[c] = ID;
CLASS[120] = CLASS[88] = SEG | ID; // x X
CLASS[42] = CLASS[124] = SEG; // * |
CLASS[45] = ID | DASH;
CLASS[46] = DOT;
CLASS[43] = PLUS;
CLASS[118] = ID | V;
const classOf = (s: string, i: number): number => {
  const c = s.charCodeAt(i);
  return c < 128 ? CLASS[c]! : 0;
};

// The automaton of cvRegex: v? SEG (.SEG){0,2} (-ID(.ID)*)? (+ID(.ID)*)?
const [START, AFTER_V, C1, D1, C2, D2, C3, PRE0, PRE, PRE_DOT, META0, META, META_DOT] = [
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
];
const ACCEPT = (1 << C1) | (1 << C2) | (1 << C3) | (1 << PRE) | (1 << META);
/** [from, to, class]: the transitions, each taken on a character of the class. */
const EDGES: ReadonlyArray<readonly [number, number, number]> = [
  [START, AFTER_V, V],
  [START, C1, SEG],
  [AFTER_V, C1, SEG],
  ...[C1, C2, C3].flatMap((c) => [[c, c, SEG] as const, [c, PRE0, DASH] as const, [c, META0, PLUS] as const]),
  [C1, D1, DOT],
  [D1, C2, SEG],
  [C2, D2, DOT],
  [D2, C3, SEG],
  [PRE0, PRE, ID],
  [PRE, PRE, ID],
  [PRE, PRE_DOT, DOT],
  [PRE_DOT, PRE, ID],
  [PRE, META0, PLUS],
  [META0, META, ID],
  [META, META, ID],
  [META, META_DOT, DOT],
  [META_DOT, META, ID],
];
const NEXT: number[][] = Array.from({ length: 13 }, () => new Array<number>(64).fill(-1));
for (const [from, to, cls] of EDGES) for (let k = 0; k < 64; k++) if (k & cls) NEXT[from]![k] = to;

/** Whether s[from, to) is a constraint term's version. */
function isTermVersion(s: string, from: number, to: number): boolean {
  let q = START;
  for (let i = from; i < to && q >= 0; i++) q = NEXT[q]![classOf(s, i)]!;
  return q >= 0 && (ACCEPT & (1 << q)) !== 0;
}

// PREVIOUS[cls * 16 + to]: the states from which a character of class cls leads to `to`.
const PREVIOUS = new Uint16Array(64 * 16);
for (const [from, to, cls] of EDGES) for (let k = 0; k < 64; k++) if (k & cls) PREVIOUS[k * 16 + to]! |= 1 << from;

// The backward step for a whole set of states, remembered per (class, set): a set costs one lookup
// after its first time. The eight classes that occur are numbered for the table (128 KiB).
const CLASS_NUMBER = new Int8Array(64).fill(-1);
[0, SEG, ID, SEG | ID, ID | DASH, ID | V, DOT, PLUS].forEach((cls, n) => (CLASS_NUMBER[cls] = n));
const STEP_BACK = new Int16Array(8 * 8192).fill(-1);

function stepBack(cls: number, live: number): number {
  const key = CLASS_NUMBER[cls]! * 8192 + live;
  let before = STEP_BACK[key]!;
  if (before < 0) {
    before = 0;
    for (let m = live; m !== 0; m &= m - 1) before |= PREVIOUS[cls * 16 + 31 - Math.clz32(m & -m)]!;
    STEP_BACK[key] = before;
  }
  return before;
}

/** The first i in [lo, hi) whose s[i, hi) is a term's version, or -1: the automaton run backwards. */
function firstVersionSuffix(s: string, lo: number, hi: number): number {
  let live = ACCEPT;
  let first = -1;
  for (let i = hi - 1; i >= lo && live !== 0; i--) {
    live = stepBack(classOf(s, i), live);
    if (live & (1 << START)) first = i;
  }
  return first;
}

/** The end of the longest term version from i, as the regex's greedy first choice reads it; -1 if none. */
function greedyVersionEnd(s: string, i: number): number {
  let k = i;
  if (classOf(s, k) & V && classOf(s, k + 1) & SEG) k++;
  if (!(classOf(s, k) & SEG)) return -1;
  const run = (cls: number) => {
    while (classOf(s, k) & cls) k++;
  };
  run(SEG);
  for (let n = 0; n < 2 && classOf(s, k) & DOT && classOf(s, k + 1) & SEG; n++) {
    k++;
    run(SEG);
  }
  for (const lead of [DASH, PLUS]) {
    if (!(classOf(s, k) & lead && classOf(s, k + 1) & ID)) continue;
    k++;
    run(ID);
    while (classOf(s, k) & DOT && classOf(s, k + 1) & ID) {
      k++;
      run(ID);
    }
  }
  return k;
}

// Go's \s: no vertical tab, nothing beyond ASCII.
const isSpaceCode = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 12 || c === 13;
const isSpace = (s: string, i: number): boolean => isSpaceCode(s.charCodeAt(i));
const HAS_RANGE = /[\t\n\f\r ]-[\t\n\f\r ]/;

/**
 * Masterminds' rewriteRange: every `a - b` (its constraintRangeRegex, `\s*(v)\s+-\s+(v)\s*`, found
 * left to right) becomes `>= a, <= b `, each replacing the first occurrence of its matched text.
 */
function rewriteRanges(s: string): string {
  if (!HAS_RANGE.test(s)) return s;
  const found: Array<[string, string]> = [];
  let pos = 0;
  for (let j = 1; j < s.length - 1; j++) {
    if (s.charCodeAt(j) !== 45 || !isSpace(s, j - 1) || !isSpace(s, j + 1)) continue;
    // The range's first version ends where the spaces before the dash start.
    let fromEnd = j - 1;
    while (fromEnd > 0 && isSpace(s, fromEnd - 1)) fromEnd--;
    if (fromEnd <= pos) continue;
    let token = fromEnd;
    while (token > 0 && !isSpace(s, token - 1)) token--;
    let to = j + 1;
    while (isSpace(s, to)) to++;
    const toEnd = greedyVersionEnd(s, to);
    if (toEnd < 0) continue;
    const from = firstVersionSuffix(s, Math.max(pos, token), fromEnd);
    if (from < 0) continue;
    // A match starting at the token takes the spaces before it too (the leading \s*).
    let start = from;
    if (from === token) while (start > pos && isSpace(s, start - 1)) start--;
    let end = toEnd;
    while (isSpace(s, end)) end++;
    found.push([s.slice(start, end), `>= ${s.slice(from, fromEnd)}, <= ${s.slice(to, toEnd)} `]);
    pos = end;
  }
  let out = s;
  for (const [text, range] of found) out = out.replace(text, () => range);
  return out;
}

const isOpChar = (c: number): boolean => c === 61 || c === 33 || c === 60 || c === 62 || c === 126 || c === 94; // = ! < > ~ ^

/** Whether s[from, to) is one of the operators (the empty one included). */
function isOperator(s: string, from: number, to: number): boolean {
  const a = s.charCodeAt(from);
  if (to - from === 0) return true;
  if (to - from === 1) return a !== 33; // any of = < > ~ ^, not a lone !
  if (to - from > 2) return false;
  const b = s.charCodeAt(from + 1);
  // != >= => <= =< ~>
  return (
    (b === 61 && a !== 61 && a !== 126 && a !== 94) || (a === 61 && (b === 62 || b === 60)) || (a === 126 && b === 62)
  );
}

// The terms scanTerms found: [opFrom, opTo, from, to] each. 512 bytes hold at most 256 terms.
const BOUNDS = new Int32Array(4 * 256);

/**
 * The terms of one alternative as Masterminds' validConstraintRegex reads them (terms separated by
 * spaces or one comma, each an operator and a version), into BOUNDS; their count, or -1 when the
 * grammar fails.
 */
function scanTerms(s: string): number {
  let n = 0;
  let i = 0;
  for (;;) {
    while (isSpace(s, i)) i++;
    const opFrom = i;
    while (isOpChar(s.charCodeAt(i))) i++;
    if (!isOperator(s, opFrom, i)) return -1;
    const opTo = i;
    while (isSpace(s, i)) i++;
    const from = i;
    for (let c = s.charCodeAt(i); i < s.length && c !== 44 && !isSpaceCode(c); c = s.charCodeAt(++i));
    if (!isTermVersion(s, from, i)) return -1;
    BOUNDS[4 * n] = opFrom;
    BOUNDS[4 * n + 1] = opTo;
    BOUNDS[4 * n + 2] = from;
    BOUNDS[4 * n++ + 3] = i;
    while (isSpace(s, i)) i++;
    if (i === s.length) return n;
    if (s.charCodeAt(i) === 44) i++;
  }
}

const isX = (s: string, from: number, to: number): boolean => {
  const c = s.charCodeAt(from);
  return to - from === 1 && (c === 120 || c === 88 || c === 42); // x X *
};

/** Whether s[from, to) is a segment NewVersion reads: digits, within uint64. */
function isSegment(s: string, from: number, to: number): boolean {
  let i = from;
  while (i < to - 1 && s[i] === '0') i++;
  if (to - i > 20) return false;
  for (let j = i; j < to; j++) {
    const c = s.charCodeAt(j);
    if (c < 48 || c > 57) return false;
  }
  return to - i < 20 || s.slice(i, to) <= '18446744073709551615';
}

/** Whether NewVersion accepts a pre-release: no numeric part with a leading zero. */
function prereleaseFits(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const start = i;
    let digits = true;
    for (; i < to && s[i] !== '.'; i++) digits &&= s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;
    if (digits && i - start > 1 && s[start] === '0') return false;
  }
  return true;
}

/** The end of the segment run from k. */
function segmentEnd(s: string, k: number): number {
  while (classOf(s, k) & SEG) k++;
  return k;
}

/**
 * Masterminds' parseConstraint for the term version s[from, to) (already of the term grammar):
 * wildcards and missing parts make it "dirty" and become zeros, then NewVersion must read the
 * result. Undefined when it cannot; with build false, a placeholder term that says it can.
 */
function termOf(s: string, opFrom: number, opTo: number, from: number, to: number, build: boolean): Term | undefined {
  // The parts, as the regex's greedy first choice splits them: [a1, b1) . [a2, b2) . [a3, b3)
  const a1 = s[from] === 'v' && classOf(s, from + 1) & SEG ? from + 1 : from;
  const b1 = segmentEnd(s, a1);
  const a2 = s[b1] === '.' && classOf(s, b1 + 1) & SEG ? b1 + 1 : -1;
  const b2 = a2 < 0 ? -1 : segmentEnd(s, a2);
  const a3 = a2 >= 0 && s[b2] === '.' && classOf(s, b2 + 1) & SEG ? b2 + 1 : -1;
  const b3 = a3 < 0 ? -1 : segmentEnd(s, a3);
  let k = Math.max(b1, b2, b3);
  let preFrom = -1;
  if (s[k] === '-') {
    preFrom = ++k;
    while (k < to && s[k] !== '+') k++;
    if (!prereleaseFits(s, preFrom, k)) return undefined;
  }
  const preLength = preFrom < 0 ? 0 : k - preFrom + 1;
  let used: number; // how many segments come from the text; the rest are zeros
  if (isX(s, a1, b1)) used = 0;
  else if (a2 < 0 || isX(s, a2, b2)) used = 1;
  else if (a3 < 0 || isX(s, a3, b3)) used = 2;
  else used = 3;
  if (used > 0 && !isSegment(s, a1, b1)) return undefined;
  if (used > 1 && !isSegment(s, a2, b2)) return undefined;
  if (used > 2 && !isSegment(s, a3, b3)) return undefined;
  const length = used === 0 ? 5 : used === 1 ? b1 - a1 + 4 : used === 2 ? b1 - a1 + b2 - a2 + 3 : to - from - preLength;
  if (length + preLength > MAX_VERSION_BYTES) return undefined;
  if (!build) return PARSES;
  const con = semverOf(
    used > 0 ? s.slice(a1, b1) : '0',
    used > 1 ? s.slice(a2, b2) : '0',
    used > 2 ? s.slice(a3, b3) : '0',
    preFrom < 0 ? '' : s.slice(preFrom, k),
    used === 3 && k < to ? s.slice(k + 1, to) : '',
  );
  return { op: s.slice(opFrom, opTo), con, dirty: used < 3, minorDirty: used === 1, patchDirty: used === 2 };
}

const PARSES: Term = {
  op: '',
  con: semverOf('0', '0', '0', '', ''),
  dirty: false,
  minorDirty: false,
  patchDirty: false,
};

function holds(v: Semver, t: Term, includePre: boolean): boolean {
  if (v.prerelease !== '' && !includePre) return false;
  switch (t.op) {
    case '':
    case '=':
      return t.dirty ? tilde(v, t) : v.compare(t.con) === 0;
    case '!=':
      return notEqual(v, t);
    case '>':
      return greaterThan(v, t);
    case '<':
      return v.compare(t.con) < 0;
    case '>=':
    case '=>':
      return v.compare(t.con) >= 0;
    case '<=':
    case '=<':
      return lessOrEqual(v, t);
    case '~':
    case '~>':
      return tilde(v, t);
    default:
      return caret(v, t);
  }
}

function notEqual(v: Semver, t: Term): boolean {
  if (t.dirty) {
    if (t.con.compareSegment(v, 0) !== 0) return true;
    if (t.con.compareSegment(v, 1) !== 0 && !t.minorDirty) return true;
    if (t.minorDirty) return false;
    if (t.con.compareSegment(v, 2) !== 0 && !t.patchDirty) return true;
    if (t.patchDirty) {
      if (v.prerelease !== '' || t.con.prerelease !== '')
        return comparePrerelease(v.prerelease, t.con.prerelease) !== 0;
      return false;
    }
  }
  return v.compare(t.con) !== 0;
}

function greaterThan(v: Semver, t: Term): boolean {
  if (!t.dirty) return v.compare(t.con) === 1;
  const major = v.compareSegment(t.con, 0);
  if (major !== 0) return major > 0;
  if (t.minorDirty) return false;
  if (t.patchDirty) return v.compareSegment(t.con, 1) > 0;
  return v.compare(t.con) === 1;
}

function lessOrEqual(v: Semver, t: Term): boolean {
  if (!t.dirty) return v.compare(t.con) <= 0;
  const major = v.compareSegment(t.con, 0);
  if (major > 0) return false;
  return !(major === 0 && v.compareSegment(t.con, 1) > 0 && !t.minorDirty);
}

function tilde(v: Semver, t: Term): boolean {
  if (v.compare(t.con) < 0) return false;
  const c = t.con;
  if (c.major === 0 && c.minor === 0 && c.patch === 0 && !t.minorDirty && !t.patchDirty) return true;
  if (v.compareSegment(c, 0) !== 0) return false;
  return v.compareSegment(c, 1) === 0 || t.minorDirty;
}

function caret(v: Semver, t: Term): boolean {
  if (v.compare(t.con) < 0) return false;
  const c = t.con;
  if (c.major > 0 || t.minorDirty) return v.compareSegment(c, 0) === 0;
  if (v.major > 0) return false;
  if (c.minor > 0 || t.patchDirty) return v.compareSegment(c, 1) === 0;
  if (v.minor > 0) return false;
  return v.compareSegment(c, 2) === 0;
}

/** Go's %q (strconv.Quote), for the messages that quote a constraint. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c >= 0x20 && c < 0x7f) out += ch;
    else if (c < 0x80 || !PRINTABLE.test(ch)) out += escape(c);
    else out += ch;
  }
  return `${out}"`;
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;
const NAMED: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r' };

function escape(c: number): string {
  if (NAMED[c]) return NAMED[c];
  if (c < 0x20 || c === 0x7f) return `\\x${c.toString(16).padStart(2, '0')}`;
  if (c >= 0xd800 && c < 0xe000) return '\ufffd'; // a lone surrogate: Go would have read U+FFFD
  return c < 0x10000 ? `\\u${c.toString(16).padStart(4, '0')}` : `\\U${c.toString(16).padStart(8, '0')}`;
}
