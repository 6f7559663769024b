// Gardener's version semantics (src/gardener/semver/): a few readings named, each with its edges.
// The proof that every reading is Masterminds' own is test/e2e/semver (npm run test:semver), which
// asks the Go library itself about tens of thousands of generated cases.
import t from '../helpers/parts.js';
import {
  beyondKubeletSkew,
  compareAs,
  compareVersions,
  kubeletConstraint,
  minorKey,
  normalize,
  parseConstraint,
  parseVersion,
  versionError,
} from '../../src/gardener/versions.js';

const meets = (constraint: string, version: string) => {
  const c = parseConstraint(constraint);
  const v = parseVersion(version);
  if (typeof c === 'string' || !v) throw new Error(`${constraint} / ${version} do not parse`);
  return c.check(v);
};

t.test('versions parse as semver.NewVersion reads them: lax, uint64 segments', async (t) => {
  const rows: Array<[string, string | undefined]> = [
    ['1.2.3', '1.2.3'],
    ['v1.2', '1.2.0'],
    ['1', '1.0.0'],
    ['01.002.0003', '1.2.3'],
    ['24.04', '24.4.0'],
    ['24.04.20240101', '24.4.20240101'],
    ['2250.0.0-baremetal-sci-usi-amd64-2250-0-0-bc27cc47', '2250.0.0-baremetal-sci-usi-amd64-2250-0-0-bc27cc47'],
    ['1.2.3-x+y', '1.2.3-x+y'],
    ['18446744073709551615.0.0', '18446744073709551615.0.0'],
    ['18446744073709551616.0.0', undefined],
    ['1.2.3-01', undefined],
    ['1.2.3.4', undefined],
    ['1.2.3-', undefined],
    ['V1.2.3', undefined],
    [' 1.2.3', undefined],
    ['latest', undefined],
    ['', undefined],
    ['1'.repeat(257), undefined],
  ];
  for (const [v, want] of rows) t.equal(parseVersion(v)?.toString(), want, JSON.stringify(v));
  t.equal(versionError('1.2.3-01'), 'version segment starts with 0');
  t.equal(versionError('x'), 'invalid semantic version');
  t.match(versionError('99999999999999999999'), /value out of range/);
  t.equal(versionError('1.2.3'), undefined);
});

t.test('order: segments, then a release above its pre-releases, build metadata ignored', async (t) => {
  const ascending = [
    '1.0.0-1',
    '1.0.0-2',
    '1.0.0-10',
    '1.0.0-99999999999999999999',
    '1.0.0-a',
    '1.0.0-a.1',
    '1.0.0',
    '1.9.0',
    '1.10.0',
    '24.04',
    '24.04.20240101',
    '2250.0.0-baremetal-sci-usi-amd64-2250-0-0-bc27cc47',
    '2250.0.0',
    '9007199254740993.0.0',
    '9007199254740994.0.0',
  ];
  for (let i = 0; i + 1 < ascending.length; i++) {
    t.equal(compareVersions(ascending[i]!, ascending[i + 1]!), -1, `${ascending[i]} < ${ascending[i + 1]}`);
    t.equal(compareVersions(ascending[i + 1]!, ascending[i]!), 1);
  }
  t.equal(compareVersions('1.2.3+a', '1.2.3+b'), 0);
  t.equal(compareVersions('v1.2', '1.2.0'), 0);
  t.equal(minorKey('24.04.20240101'), '24.4');
  t.equal(minorKey('nope'), undefined);
});

t.test('constraints: the grammar semver.NewConstraint accepts', async (t) => {
  const rows: Array<[string, boolean]> = [
    ['< 1.26', true],
    ['=> 1.30.0', true],
    ['=< 1.30', true],
    ['~> 1.2', true],
    ['^1.2.3', true],
    ['1.2.x', true],
    ['*', true],
    ['>= 1.2, < 2', true],
    ['>= 1.2 < 2', true],
    ['1.x || >= 2.0', true],
    ['1.2 - 1.4.5', true],
    ['v1.26.0-rc.1+build.5', true],
    ['>= 1.26,', false],
    ['', false],
    ['   ', false],
    ['newest', false],
    ['>= 1.26 <', false],
    ['>=', false],
    ['1.26 ||', false],
    ['1.2.3.4', false],
    ['> 1.2 ; < 2', false],
    ['>=\v1.2', false],
    ['1|2', false],
    [Array.from({ length: 33 }, () => '1').join('||'), false],
  ];
  for (const [constraint, valid] of rows)
    t.equal(typeof parseConstraint(constraint) !== 'string', valid, JSON.stringify(constraint));
  t.equal(parseConstraint('newest'), 'improper constraint: "newest"');
  t.equal(parseConstraint('1|2'), 'constraint parser error');
  t.equal(parseConstraint('> 1\t;'), 'improper constraint: "> 1\\t;"');
  t.equal(parseConstraint('1 '.repeat(300)), 'constraint string is too long (max 512 bytes)');
});

t.test('constraints: what they admit', async (t) => {
  const rows: Array<[string, string, boolean]> = [
    ['=> 1.30.0', '1.30.0', true],
    ['=> 1.30.0', '1.29.9', false],
    ['=< 1.30', '1.30.9', true],
    ['=< 1.30', '1.31.0', false],
    ['~> 1.30', '1.30.5', true],
    ['~> 1.30', '1.31.0', false],
    ['^1.2', '1.9.0', true],
    ['^0.2.3', '0.3.0', false],
    ['1.2 - 1.4', '1.4.9', true],
    ['1.2 - 1.4', '1.5.0', false],
    ['>= 1.30, < 1.32 || 1.34.x', '1.34.2', true],
    ['>= 1.30, < 1.32 || 1.34.x', '1.33.0', false],
    ['!= 1.30.x', '1.30.4', false],
    ['!= 1.30.x', '1.31.0', true],
    // A pre-release meets only a group that names one.
    ['>= 1.30', '1.31.0-rc.1', false],
    ['>= 1.31.0-0', '1.31.0-rc.1', true],
    ['>= 1.31.0-0 || >= 1.30', '1.32.0-rc.1', true],
    ['< 2', '2.0.0-rc.1', false],
    // Two-segment and hash-suffixed image versions.
    ['>= 24.04', '24.04.20240101', true],
    ['~24.04', '24.4.1', true],
    ['>= 2250.0.0-0', '2250.0.0-baremetal-sci-usi-amd64-2250-0-0-bc27cc47', true],
  ];
  for (const [c, v, want] of rows) t.equal(meets(c, v), want, `${v} against ${c}`);
});

t.test("Gardener's helpers: normalised comparison, and one verdict on a kubelet", async (t) => {
  t.equal(normalize('v1.31.0-rc.1+b'), '1.31.0');
  t.equal(normalize('2250.0.0-bc27cc47'), '2250.0.0');
  t.notOk(compareAs('2250.0.0-a', '<', '2250.0.0-b'), 'the suffixes are cut: equal, so no downgrade');
  t.ok(compareAs('1.2.3', '<', '1.10.0'));
  t.notOk(compareAs('latest', '<', '1.0.0'), 'unreadable: false, as Gardener takes it');
  t.same(kubeletConstraint('>= 1.30', '1.31.0'), { meets: true });
  t.same(kubeletConstraint('>= 1.30', '1.29.0'), { meets: false });
  t.same(kubeletConstraint('>= 1.30', '1.31.0-rc.1'), { meets: false }, 'the kubelet is not normalised');
  t.match(kubeletConstraint('newest', '1.31.0'), {
    meets: false,
    reason: 'cannot parse the kubeletVersionConstraint: improper constraint: "newest"',
  });
  t.match(kubeletConstraint('>= 1.30', '1.31.0.1'), { meets: false, reason: /kubelet version "1.31.0.1"/ });
});

t.test("the kubelet skew: the control plane at or above the pool's fourth next minor", async (t) => {
  t.notOk(beyondKubeletSkew('1.28.9', '1.31.0'), 'three minors behind');
  t.ok(beyondKubeletSkew('1.27.3', '1.31.0'), 'four minors behind');
  t.ok(beyondKubeletSkew('1.31.0', '2.0.0'), 'a major ahead counts, as in Gardener');
  t.ok(beyondKubeletSkew('1.27.3', '1.31.0-rc.1'), 'the control plane is normalised: 1.31.0-rc.1 is 1.31.0');
  t.notOk(beyondKubeletSkew('1.28.0', '1.31.99'), 'three minors behind, any patch');
  t.notOk(beyondKubeletSkew('latest', '1.31.0'), 'unreadable: not judged');
});

// A backtracking reading of Masterminds' expressions would take minutes on these; the file's
// timeout is the bound, and no clock is read here.
t.test('a hostile constraint is read in one pass', async (t) => {
  const hostile = [
    `${'1 '.repeat(255)}!`,
    `${' '.repeat(500)}1 - 2!`,
    `${'1.1.1-a.'.repeat(60)}x - 1`,
    `1${' '.repeat(250)}-${' '.repeat(250)}`,
    `${'1'.repeat(20_000)}!`,
  ];
  for (const c of hostile) t.type(parseConstraint(c), 'string');
  for (let i = 0; i < 4000; i++) parseConstraint(`${i} ${' '.repeat(480)}- 1 !`);
});
