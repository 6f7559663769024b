import t from '../helpers/parts.js';
import {
  classificationAt,
  classifyStages,
  compareVersions,
  hasStage,
  isStrictKubernetesVersion,
  latestVersion,
  nextTransition,
  parseVersion,
  stagesOf,
  versionsNotIn,
  windowsOf,
  windowsOverlapAfter,
} from '../../src/gardener/versions.js';
import type { ExpirableVersion } from '../../src/api/types.js';

const NOW = Date.parse('2026-09-01T00:00:00Z');
const at = (iso: string) => Date.parse(iso);

t.test('Kubernetes versions are strictly X.Y.Z', async (t) => {
  for (const [v, ok] of [
    ['1.31.0', true],
    ['10.0.100', true],
    ['1.31', false],
    ['v1.31.0', false],
    ['1.31.0-rc.1', false],
    ['1.31.0+build', false],
  ] as const) {
    t.equal(isStrictKubernetesVersion(v), ok, v);
  }
});

t.test('image versions parse leniently, like Masterminds semver', async (t) => {
  for (const [v, ok] of [
    ['1.2.3', true],
    ['v1.2', true],
    ['1', true],
    ['1877.12.0-inplace', true],
    ['1.2.3-x+y', true],
    ['1.2.3.4', false],
    ['latest', false],
    ['', false],
  ] as const) {
    t.equal(parseVersion(v) !== undefined, ok, v);
  }
});

t.test('ordering is semantic, not lexical, and ignores build metadata', async (t) => {
  t.ok(compareVersions('1.10.0', '1.9.0') > 0);
  t.ok(compareVersions('1877.12.0-inplace', '1877.12.0') < 0);
  t.equal(compareVersions('1.2.3+a', '1.2.3+b'), 0);
  t.equal(latestVersion([{ version: '1.9.0' }, { version: '1.10.0' }, { version: '1.2.0' }])?.version, '1.10.0');
  t.equal(
    latestVersion([{ version: '1.9.0' }, { version: 'nope' }]),
    undefined,
    'an unparseable entry hides the latest',
  );
});

t.test('classification at an instant', async (t) => {
  const cases: Array<[string, ExpirableVersion, number, string]> = [
    ['plain version', { version: '1.0.0' }, NOW, 'supported'],
    ['legacy preview', { version: '1.0.0', classification: 'preview' }, NOW, 'preview'],
    ['legacy expiry in the past', { version: '1.0.0', expirationDate: '2026-08-01T00:00:00Z' }, NOW, 'expired'],
    [
      'legacy expiry exactly now is not reached',
      { version: '1.0.0', expirationDate: '2026-09-01T00:00:00Z' },
      NOW,
      'supported',
    ],
    [
      'lifecycle all in the future',
      { version: '1.0.0', lifecycle: [{ classification: 'preview', startTime: '2026-10-01T00:00:00Z' }] },
      NOW,
      'unavailable',
    ],
    [
      'lifecycle stage starting exactly now is not active',
      { version: '1.0.0', lifecycle: [{ classification: 'supported', startTime: '2026-09-01T00:00:00Z' }] },
      NOW,
      'unavailable',
    ],
    [
      'equal start times: the later stage wins',
      {
        version: '1.0.0',
        lifecycle: [
          { classification: 'supported' },
          { classification: 'deprecated', startTime: '2026-08-01T00:00:00Z' },
          { classification: 'expired', startTime: '2026-08-01T00:00:00Z' },
        ],
      },
      NOW,
      'expired',
    ],
  ];
  for (const [name, v, when, want] of cases) t.equal(classificationAt(v, when), want, name);
});

t.test('classificationAt and hasStage read the version the way the stage model reads it', async (t) => {
  // classificationAt reads the fields directly (no stage objects); it must agree with the stage
  // model on every shape, at every instant around every start, including unparseable dates.
  const stamps = [undefined, '2026-08-01T00:00:00Z', '2026-09-01T00:00:00Z', '2026-10-01T00:00:00Z', 'not a date'];
  const classes = ['preview', 'supported', 'deprecated', 'expired'];
  const versions: ExpirableVersion[] = [{ version: '1.0.0' }, { version: '1.0.0', lifecycle: [] }];
  for (const classification of [undefined, ...classes]) {
    for (const expirationDate of stamps) {
      versions.push({
        version: '1.0.0',
        ...(classification ? { classification } : {}),
        ...(expirationDate ? { expirationDate } : {}),
      });
    }
  }
  for (const a of classes) {
    for (const b of classes) {
      for (const sa of stamps) {
        for (const sb of stamps) {
          versions.push({
            version: '1.0.0',
            lifecycle: [
              { classification: a, ...(sa ? { startTime: sa } : {}) },
              { classification: b, ...(sb ? { startTime: sb } : {}) },
            ],
          });
        }
      }
    }
  }
  const instants = stamps
    .filter((s) => s && !Number.isNaN(Date.parse(s)))
    .flatMap((s) => [-1, 0, 1].map((d) => Date.parse(s!) + d));
  let mismatches = 0;
  let checked = 0;
  for (const v of versions) {
    for (const when of instants) {
      checked++;
      if (classificationAt(v, when) !== classifyStages(stagesOf(v), when)) mismatches++;
    }
  }
  t.equal(mismatches, 0, `${checked} (version, instant) pairs agree`);
  t.ok(checked > 3000, 'the enumeration covers legacy, plain and two-stage lifecycles');
  const stageMismatches = versions.flatMap((v) =>
    [...classes, 'unavailable']
      .filter((c) => hasStage(v, c) !== stagesOf(v).some((s) => s.classification === c))
      .map((c) => `${JSON.stringify(v)} ${c}`),
  );
  t.strictSame(stageMismatches, [], 'hasStage agrees with the stage model too');
});

t.test('versionsNotIn: the versions a list drops, with and without the in-order shortcut', async (t) => {
  const list = (...vs: string[]) => vs.map((version) => ({ version }));
  t.strictSame(versionsNotIn(list('1.0.0', '1.1.0'), list('1.0.0', '1.1.0')), [], 'unchanged');
  t.strictSame(versionsNotIn(list('1.0.0', '1.1.0'), list('1.0.0', '1.1.0', '1.2.0')), [], 'one added at the end');
  t.strictSame(
    versionsNotIn(list('1.0.0', '1.1.0'), list('1.2.0', '1.1.0', '1.0.0')),
    [],
    'reordered, one added at the front',
  );
  t.strictSame(
    versionsNotIn(list('1.0.0', '1.1.0', '1.2.0'), list('1.0.0', '1.2.0')),
    ['1.1.0'],
    'one removed from the middle',
  );
  t.strictSame(
    versionsNotIn(list('1.0.0', '1.1.0'), list('1.0.0', '1.2.0', '1.3.0')),
    ['1.1.0'],
    'longer, but one of the old ones gone',
  );
  t.strictSame(versionsNotIn(list('1.0.0', '1.0.0'), list()), ['1.0.0', '1.0.0'], 'duplicates keep their multiplicity');
  t.strictSame(versionsNotIn(list(), list('1.0.0')), [], 'nothing to drop');
  // Against the plain definition, on lists drawn from a small pool so that overlaps, repeats and
  // shared prefixes are common (a fixed-seed generator: the same lists on every run).
  let seed = 7;
  const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const draw = () => list(...Array.from({ length: next(8) }, () => `1.${next(5)}.0`));
  const wrong: string[] = [];
  for (let i = 0; i < 2000; i++) {
    const a = draw();
    const b = next(3) === 0 ? [...a, ...draw()] : draw();
    const want = a.map((x) => x.version).filter((v) => !b.some((y) => y.version === v));
    const got = versionsNotIn(a, b);
    if (JSON.stringify(got) !== JSON.stringify(want))
      wrong.push(`${JSON.stringify(a)} into ${JSON.stringify(b)}: ${JSON.stringify(got)}`);
  }
  t.strictSame(wrong, [], '2,000 generated pairs agree with the definition');
});

t.test('supported windows and their overlap after now', async (t) => {
  const a: ExpirableVersion = {
    version: '1.31.1',
    lifecycle: [{ classification: 'supported' }, { classification: 'deprecated', startTime: '2026-09-01T00:00:00Z' }],
  };
  const b: ExpirableVersion = { version: '1.31.2', lifecycle: [{ classification: 'supported' }] };
  t.same(windowsOf(a, 'supported'), [{ from: -Infinity, to: at('2026-09-01T00:00:00Z') }]);
  t.notOk(
    windowsOverlapAfter(windowsOf(a, 'supported'), windowsOf(b, 'supported'), NOW),
    'shared time lies wholly before now',
  );
  t.ok(
    windowsOverlapAfter(windowsOf(a, 'supported'), windowsOf(b, 'supported'), NOW - 1),
    'one millisecond earlier they overlap',
  );
  const legacy: ExpirableVersion = {
    version: '1.31.3',
    classification: 'supported',
    expirationDate: '2026-12-01T00:00:00Z',
  };
  t.same(windowsOf(legacy, 'supported'), [{ from: -Infinity, to: at('2026-12-01T00:00:00Z') }]);
  const equal: ExpirableVersion = {
    version: '1.31.4',
    lifecycle: [
      { classification: 'preview' },
      { classification: 'supported', startTime: '2026-10-01T00:00:00Z' },
      { classification: 'deprecated', startTime: '2026-10-01T00:00:00Z' },
    ],
  };
  t.same(windowsOf(equal, 'supported'), [], 'a supported stage overtaken at its own start is never supported');
});

t.test('next transition treats a stage starting exactly now as ahead', async (t) => {
  const v: ExpirableVersion = {
    version: '1.0.0',
    lifecycle: [{ classification: 'supported' }, { classification: 'deprecated', startTime: '2026-09-01T00:00:00Z' }],
  };
  t.same(nextTransition(v, NOW), { classification: 'deprecated', at: NOW });
  t.equal(nextTransition({ version: '1.0.0' }, NOW), undefined);
});
