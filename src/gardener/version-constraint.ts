// Whether a string is a version constraint as Gardener reads `kubeletVersionConstraint`
// (Masterminds/semver v3 NewConstraint): alternatives joined by `||`; each a list of
// `[operator] version` terms separated by commas or spaces; `a - b` hyphen ranges; versions may
// carry a `v`, wildcards (x, X, *), a pre-release and build metadata. The empty string is invalid.

import { memo } from '../util/memo.js';

const OPERATOR = '(?:!=|>=|=>|<=|=<|~>|[=<>~^])?';
const PART = '(?:[0-9]+|[xX*])';
const IDENTS = '[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*';
const VERSION = `v?${PART}(?:\\.${PART}){0,2}(?:-${IDENTS})?(?:\\+${IDENTS})?`;

// Ranges start only at a token start, so a long run of digits is scanned once, not once per digit.
const HYPHEN_RANGE = new RegExp(`(?<![^\\s,|])(${VERSION})\\s+-\\s+(${VERSION})`, 'g');
const TERM = `${OPERATOR}\\s*${VERSION}`;
// Terms need a separator, which keeps the match linear (no ambiguous splits of "111").
const ALTERNATIVE = new RegExp(`^\\s*${TERM}(?:(?:\\s*,\\s*|\\s+)${TERM})*\\s*,?\\s*$`);

/** Whether Gardener would accept the string as a `kubeletVersionConstraint`. */
export const isValidVersionConstraint: (constraint: string) => boolean = memo(10_000, (constraint: string) =>
  constraint
    .replace(HYPHEN_RANGE, ' >= $1, <= $2 ')
    .split('||')
    .every((alternative) => ALTERNATIVE.test(alternative)),
);
