// Whether a string is a version constraint as Gardener reads `kubeletVersionConstraint`
// (Masterminds/semver v3 NewConstraint): alternatives joined by `||`; each a list of
// `[operator] version` terms separated by commas or spaces; `a - b` hyphen ranges; versions may
// carry a `v`, wildcards (x, X, *), a pre-release and build metadata. The empty string is invalid.

const OPERATOR = '(?:!=|>=|=>|<=|=<|~>|[=<>~^])?';
const PART = '(?:[0-9]+|[xX*])';
const IDENTS = '[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*';
const VERSION = `v?${PART}(?:\\.${PART}){0,2}(?:-${IDENTS})?(?:\\+${IDENTS})?`;

// Ranges start only at a token start, so a long run of digits is scanned once, not once per digit.
const HYPHEN_RANGE = new RegExp(`(?<![^\\s,|])(${VERSION})\\s+-\\s+(${VERSION})`, 'g');
const TERM = `${OPERATOR}\\s*${VERSION}`;
// Terms need a separator, which keeps the match linear (no ambiguous splits of "111").
const ALTERNATIVE = new RegExp(`^\\s*${TERM}(?:(?:\\s*,\\s*|\\s+)${TERM})*\\s*,?\\s*$`);

const cache = new Map<string, boolean>();

export function isValidVersionConstraint(constraint: string): boolean {
  let valid = cache.get(constraint);
  if (valid === undefined) {
    const rewritten = constraint.replace(HYPHEN_RANGE, ' >= $1, <= $2 ');
    valid = rewritten.split('||').every((alternative) => ALTERNATIVE.test(alternative));
    if (cache.size > 10_000) cache.clear();
    cache.set(constraint, valid);
  }
  return valid;
}
