// The forced-update target per update path: Kubernetes and the image strategies patch, minor and
// major. Each row: current version, the profile's versions, the expected target (or none).
import t, { type Test } from '../helpers/parts.js';
import type { ExpirableVersion } from '../../src/api/types.js';
import type { UpdateStrategy } from '../../src/gardener/update-path.js';
import { kubernetesForcedUpdate, machineImageForcedUpdate, strategyOf } from '../../src/gardener/update-path.js';
import { NOW, hoursFromNow } from '../helpers/objects.js';

const plain = (version: string): ExpirableVersion => ({ version });
const preview = (version: string): ExpirableVersion => ({ version, classification: 'preview' });
const deprecated = (version: string): ExpirableVersion => ({ version, classification: 'deprecated' });
const expired = (version: string): ExpirableVersion => ({
  version,
  classification: 'deprecated',
  expirationDate: hoursFromNow(-24),
});
/** Scheduled: preview from tomorrow, so unavailable now. */
const unavailable = (version: string): ExpirableVersion => ({
  version,
  lifecycle: [{ classification: 'preview', startTime: hoursFromNow(24) }],
});
/** Preview now, supported in ten days. */
const previewUntil10d = (version: string): ExpirableVersion => ({
  version,
  lifecycle: [{ classification: 'preview' }, { classification: 'supported', startTime: hoursFromNow(240) }],
});

interface Row {
  name: string;
  current: string;
  versions: ExpirableVersion[];
  /** The target version, or undefined when none exists. */
  want: string | undefined;
  step?: string;
  wantExpired?: boolean;
  /** Words the no-target reason must contain. */
  reason?: string[];
  at?: number;
}

function expectRow(t: Test, row: Row, got: ReturnType<typeof kubernetesForcedUpdate>): void {
  if (row.want === undefined) {
    t.equal(got.found, false, 'no target');
    if (!got.found) for (const word of row.reason ?? []) t.match(got.reason, word);
    return;
  }
  t.same(got, { found: true, version: row.want, step: row.step, expired: row.wantExpired ?? false });
}

const kubernetesRows: Row[] = [
  {
    name: 'latest patch of the same minor',
    current: '1.30.1',
    versions: [expired('1.30.1'), plain('1.30.3'), preview('1.30.5'), plain('1.31.2')],
    want: '1.30.3',
    step: 'same-minor',
  },
  {
    name: 'a supported patch is preferred to a higher deprecated one',
    current: '1.30.1',
    versions: [plain('1.30.1'), plain('1.30.2'), deprecated('1.30.4')],
    want: '1.30.2',
    step: 'same-minor',
  },
  {
    name: 'deprecated patches when no other is left',
    current: '1.30.1',
    versions: [plain('1.30.1'), deprecated('1.30.3'), deprecated('1.30.4')],
    want: '1.30.4',
    step: 'same-minor',
  },
  {
    name: 'the next minor when the minor has no newer patch',
    current: '1.30.4',
    versions: [expired('1.30.4'), plain('1.31.0'), plain('1.31.4'), preview('1.31.5'), plain('1.32.1')],
    want: '1.31.4',
    step: 'next-minor',
  },
  {
    name: 'an expired newer patch is skipped for the next minor',
    current: '1.30.1',
    versions: [plain('1.30.1'), expired('1.30.2'), plain('1.31.1')],
    want: '1.31.1',
    step: 'next-minor',
  },
  {
    name: 'the next minor is missing: never skip a minor',
    current: '1.30.1',
    versions: [expired('1.30.1'), plain('1.32.3'), plain('1.33.0')],
    want: undefined,
    reason: ['next minor 1.31', 'never skipped'],
  },
  {
    name: 'all candidates are preview',
    current: '1.30.1',
    versions: [expired('1.30.1'), preview('1.30.2'), preview('1.31.0'), preview('1.31.1')],
    want: undefined,
    reason: ['1.31'],
  },
  {
    name: 'a next minor with only expired versions: its latest, updated again later',
    current: '1.30.1',
    versions: [plain('1.30.1'), expired('1.31.0'), expired('1.31.2'), plain('1.32.0')],
    want: '1.31.2',
    step: 'next-minor',
    wantExpired: true,
  },
  {
    // Gardener skips only preview versions (v1h/cloudprofile.go, GetLatestQualifyingVersion); the forecast flags the step.
    name: 'a version whose lifecycle has not started is a target, as in Gardener',
    current: '1.30.1',
    versions: [plain('1.30.1'), unavailable('1.30.2'), unavailable('1.31.0')],
    want: '1.30.2',
    step: 'same-minor',
  },
  {
    name: 'and so is one of the next minor',
    current: '1.30.1',
    versions: [plain('1.30.1'), unavailable('1.31.0')],
    want: '1.31.0',
    step: 'next-minor',
  },
  {
    name: 'never a lower patch',
    current: '1.30.5',
    versions: [plain('1.30.3'), plain('1.30.5'), plain('1.29.9')],
    want: undefined,
  },
  {
    name: 'classified at the update instant: preview now, supported then',
    current: '1.30.1',
    versions: [plain('1.30.1'), previewUntil10d('1.31.0')],
    want: '1.31.0',
    step: 'next-minor',
    at: NOW + 11 * 86_400_000,
  },
  {
    name: 'classified at the update instant: still preview then',
    current: '1.30.1',
    versions: [plain('1.30.1'), previewUntil10d('1.31.0')],
    want: undefined,
    at: NOW + 9 * 86_400_000,
  },
  {
    name: 'a current version that does not parse',
    current: 'one.two',
    versions: [plain('1.31.0')],
    want: undefined,
    reason: ['does not parse'],
  },
];

t.test('kubernetes', async (t) => {
  for (const row of kubernetesRows) {
    t.test(row.name, async (t) => expectRow(t, row, kubernetesForcedUpdate(row.current, row.versions, row.at ?? NOW)));
  }
});

const imageRows: Record<UpdateStrategy, Row[]> = {
  patch: [
    {
      name: 'latest patch of the same minor',
      current: '1.0.0',
      versions: [expired('1.0.0'), plain('1.0.2'), plain('1.1.0')],
      want: '1.0.2',
      step: 'same-minor',
    },
    {
      name: 'the next higher minor, not necessarily +1',
      current: '1.0.2',
      versions: [expired('1.0.2'), plain('1.3.1'), plain('1.3.4'), plain('1.5.0')],
      want: '1.3.4',
      step: 'next-minor',
    },
    {
      name: 'a minor with only preview versions is skipped',
      current: '1.0.2',
      versions: [expired('1.0.2'), preview('1.1.0'), plain('1.2.3')],
      want: '1.2.3',
      step: 'next-minor',
    },
    {
      name: 'a nearer minor with only expired versions is taken first',
      current: '1.0.2',
      versions: [expired('1.0.2'), expired('1.1.0'), expired('1.1.2'), plain('1.2.3')],
      want: '1.1.2',
      step: 'next-minor',
      wantExpired: true,
    },
    {
      name: 'no higher minor in the major: the next major is out of reach',
      current: '1.4.0',
      versions: [expired('1.4.0'), plain('2.0.0')],
      want: undefined,
      reason: ['major 1', 'patch'],
    },
    {
      name: 'all candidates are preview',
      current: '1.4.0',
      versions: [expired('1.4.0'), preview('1.4.1'), preview('1.5.0')],
      want: undefined,
    },
  ],
  minor: [
    {
      name: 'latest of the same major',
      current: '1.0.2',
      versions: [expired('1.0.2'), plain('1.3.1'), plain('1.5.0'), plain('2.0.0')],
      want: '1.5.0',
      step: 'same-major',
    },
    {
      name: 'a patch of the same minor comes first',
      current: '1.0.2',
      versions: [expired('1.0.2'), plain('1.0.3'), plain('1.5.0')],
      want: '1.0.3',
      step: 'same-minor',
    },
    {
      name: 'the next higher major',
      current: '1.5.0',
      versions: [expired('1.5.0'), plain('2.1.0'), plain('2.3.0'), plain('3.0.0')],
      want: '2.3.0',
      step: 'next-major',
    },
    {
      name: 'a major with only preview versions is skipped',
      current: '1.5.0',
      versions: [expired('1.5.0'), preview('2.0.0'), plain('3.1.0')],
      want: '3.1.0',
      step: 'next-major',
    },
    {
      name: 'the next major is missing',
      current: '1.5.0',
      versions: [expired('1.5.0'), plain('1.4.0')],
      want: undefined,
      reason: ['higher major'],
    },
    {
      name: 'all candidates are preview',
      current: '1.5.0',
      versions: [expired('1.5.0'), preview('1.6.0'), preview('2.0.0')],
      want: undefined,
    },
  ],
  major: [
    {
      name: 'the overall latest non-preview version',
      current: '1.0.0',
      versions: [expired('1.0.0'), plain('1.2.0'), plain('2.4.0'), preview('3.0.0')],
      want: '2.4.0',
      step: 'overall',
    },
    {
      name: 'a patch of the same minor comes first',
      current: '1.0.0',
      versions: [expired('1.0.0'), plain('1.0.1'), plain('2.0.0')],
      want: '1.0.1',
      step: 'same-minor',
    },
    {
      name: 'already the latest: end of life',
      current: '2.0.0',
      versions: [plain('1.0.0'), expired('2.0.0')],
      want: undefined,
      reason: ['end of life'],
    },
    {
      name: 'the only newer version is expired: no target',
      current: '1.0.0',
      versions: [expired('1.0.0'), expired('2.0.0')],
      want: undefined,
    },
    {
      name: 'all candidates are preview',
      current: '1.0.0',
      versions: [expired('1.0.0'), preview('1.1.0'), preview('2.0.0')],
      want: undefined,
    },
  ],
};

for (const strategy of ['patch', 'minor', 'major'] as const) {
  t.test(`machine image, strategy ${strategy}`, async (t) => {
    for (const row of imageRows[strategy]) {
      t.test(row.name, async (t) =>
        expectRow(t, row, machineImageForcedUpdate(row.current, row.versions, strategy, row.at ?? NOW)),
      );
    }
  });
}

t.test('lenient image versions are ordered by semver', async (t) => {
  t.same(machineImageForcedUpdate('v1.2', [expired('v1.2'), plain('1.2.10'), plain('1.2.9')], 'patch', NOW), {
    found: true,
    version: '1.2.10',
    step: 'same-minor',
    expired: false,
  });
});

t.test("strategyOf: a missing or unknown strategy is Gardener's default, major", async (t) => {
  t.equal(strategyOf({}), 'major');
  t.equal(strategyOf({ updateStrategy: 'patch' }), 'patch');
  t.equal(strategyOf({ updateStrategy: 'minor' }), 'minor');
  t.equal(strategyOf({ updateStrategy: 'sideways' }), 'major');
});
