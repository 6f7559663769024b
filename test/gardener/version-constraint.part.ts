import t from 'tap';
import { isValidVersionConstraint } from '../../src/gardener/version-constraint.js';

t.test('kubeletVersionConstraint grammar (Masterminds semver v3)', async (t) => {
  const rows: Array<[string, boolean]> = [
    ['< 1.26', true],
    ['>= 1.26', true],
    ['=1.26.3', true],
    ['!= 1.27.0', true],
    ['~1.2', true],
    ['~> 1.2', true],
    ['^1.2.3', true],
    ['1.2.x', true],
    ['*', true],
    ['>= 1.2, < 2', true],
    ['>= 1.2 < 2', true],
    ['1.x || >= 2.0', true],
    ['1.2 - 1.4.5', true],
    ['v1.26.0-rc.1+build.5', true],
    ['>= 1.26,', true],
    ['', false],
    ['   ', false],
    ['newest', false],
    ['>= 1.26 <', false],
    ['>=', false],
    ['1.26 ||', false],
    ['1.2.3.4', false],
    ['> 1.2 ; < 2', false],
  ];
  for (const [constraint, valid] of rows)
    t.equal(isValidVersionConstraint(constraint), valid, JSON.stringify(constraint));
});

// Catastrophic backtracking on these would not end in any lifetime: the file's timeout is the
// bound, and no clock is read here.
t.test('a hostile constraint is rejected (no catastrophic backtracking)', async (t) => {
  t.notOk(isValidVersionConstraint(`${'1 '.repeat(5000)}!`));
  t.notOk(isValidVersionConstraint(`${'1'.repeat(20_000)}!`));
});
