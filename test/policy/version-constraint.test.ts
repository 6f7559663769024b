import t from 'tap';
import { isValidVersionConstraint } from '../../src/policy/version-constraint.js';

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
  for (const [constraint, valid] of rows) t.equal(isValidVersionConstraint(constraint), valid, JSON.stringify(constraint));
});

t.test('a hostile constraint is rejected quickly (no catastrophic backtracking)', async (t) => {
  const hostile = `${'1 '.repeat(5000)}!`;
  const start = process.hrtime.bigint();
  t.notOk(isValidVersionConstraint(hostile));
  t.notOk(isValidVersionConstraint(`${'1'.repeat(20_000)}!`));
  t.ok(Number(process.hrtime.bigint() - start) / 1e6 < 200, 'well under 200 ms');
});
