// Shoot warnings: deprecated, expiring within the configured days (30 by default), and expired,
// with the step the forecast's engine takes off the version: an auto-update before the expiry, or
// the forced update, or its failure. Each row: a request, its state, and the words of each warning.
import t from '../../helpers/parts.js';
import type { PolicedObject, Shoot } from '../../../src/api/types.js';
import { cloudProfile, decide, hoursFromNow, image, shoot } from '../../helpers/objects.js';
import { AWS, NCP, deleting, expiredK8s } from '../rules/shoot-profile.js';

interface Row {
  name: string;
  operation: 'CREATE' | 'UPDATE';
  object: Shoot;
  oldObject?: Shoot;
  state?: PolicedObject[];
  config?: Record<string, unknown>;
  synced?: boolean;
  /** The words of each expected warning, in order. */
  want: Array<Array<string | RegExp>>;
}

// Image auto-update off: the aws profile's 1594.0.0 starts its lifecycle tomorrow, and Gardener
// would take it today and fail the whole run (docs/forecast.md, inactive-image); these rows are
// about Kubernetes versions. Kubernetes auto-update stays on, as with no autoUpdate block.
const s = (version: string, image = '1592.1.0', workerK8s?: string, profile = 'aws'): Shoot => {
  const x = shoot({
    profile,
    version,
    workers: [{ name: 'pool-a', image: ['gardenlinux', image], ...(workerK8s ? { kubernetes: workerK8s } : {}) }],
  });
  return {
    ...x,
    spec: {
      ...x.spec,
      maintenance: { ...x.spec.maintenance, autoUpdate: { kubernetesVersion: true, machineImageVersion: false } },
    },
  };
};
const withWindow = (x: Shoot, begin: string, end: string): Shoot => ({
  ...x,
  spec: { ...x.spec, maintenance: { ...x.spec.maintenance, timeWindow: { begin, end } } },
});
/** Kubernetes auto-update off (Gardener turns it on only when the whole autoUpdate block is absent). */
const noAutoUpdate = (x: Shoot): Shoot => ({
  ...x,
  spec: {
    ...x.spec,
    maintenance: { ...x.spec.maintenance, autoUpdate: { kubernetesVersion: false, machineImageVersion: false } },
  },
});
const withPool = (x: Shoot, name: string, image: string): Shoot => {
  const copy = structuredClone(x);
  copy.spec.provider!.workers!.push({
    name,
    machine: { type: 'm5.large', image: { name: 'gardenlinux', version: image } },
  });
  return copy;
};

/** 1.30 is missing: a Shoot on the expired 1.29.0 has nowhere to go. */
const GAP = cloudProfile({ name: 'gap', kubernetes: [expiredK8s('1.29.0'), '1.31.0'] });
/** 1.30 exists, but only expired. */
const CHAIN = cloudProfile({ name: 'chain', kubernetes: [expiredK8s('1.29.0'), expiredK8s('1.30.0'), '1.31.0'] });

const IN_10_DAYS = hoursFromNow(240);
/** 1.29.4 expires in 10 days (13 runs of the forecast); the others fill the list, unused. */
const longList = (name: string, n: number) =>
  cloudProfile({
    name,
    kubernetes: [
      ...Array.from({ length: n - 2 }, (_, i) => `2.${Math.floor(i / 100)}.${i % 100}`),
      { version: '1.29.4', classification: 'deprecated', expirationDate: IN_10_DAYS },
      '1.30.2',
    ],
    images: [image('gardenlinux', ['1592.1.0'])],
  });
// Work: 13 runs × (the list + the image's 1 + its scan's 1 + the pool's 1): 2,700 versions is past 35,000, 2,600 within.
const LONG = longList('long', 2700);
const SHORTER = longList('shorter', 2600);
const rows: Row[] = [
  { name: 'supported versions say nothing', operation: 'CREATE', object: s('1.31.0'), want: [] },
  { name: 'a preview version says nothing', operation: 'CREATE', object: s('1.32.0', '1593.0.0'), want: [] },
  {
    name: 'deprecated, expiring after the warning horizon',
    operation: 'CREATE',
    object: s('1.30.1'),
    want: [
      [
        `update to a supported version: kubernetes version "1.30.1" of shoot 'garden-dev/shoot' (control plane) is deprecated: it expires at ${hoursFromNow(24 * 60)}`,
      ],
    ],
  },
  {
    name: 'deprecated without an expiry',
    operation: 'CREATE',
    object: s('1.31.0', '1591.0.0'),
    want: [
      ["machine image version 'gardenlinux:1591.0.0'", '(worker pool "pool-a") is deprecated: no expiry is set yet'],
    ],
  },
  {
    name: 'expiring within 30 days: the date and the forced update',
    operation: 'CREATE',
    object: s('1.29.4'),
    want: [
      [
        `"1.29.4"`,
        `is deprecated and expires at ${IN_10_DAYS} (in 10 days)`,
        /^forced update to "1\.30\.2" in its maintenance on 2026-09-12 \(no window set: any time that day\): kubernetes version "1\.29\.4" of shoot/,
      ],
    ],
  },
  {
    name: 'expiring within 30 days, with a maintenance window: the window it happens in',
    operation: 'CREATE',
    object: withWindow(s('1.29.4'), '220000+0200', '230000+0200'),
    want: [['forced update to "1.30.2" in the maintenance window beginning 2026-09-11T20:00:00Z']],
  },
  {
    name: 'expiring, but an auto-update moves it off first: said as the auto-update, never as forced',
    operation: 'CREATE',
    object: withWindow(s('1.30.1'), '220000+0200', '230000+0200'),
    config: { warnings: { expiringWithinDays: 90 } },
    want: [
      [
        /^auto-update to "1\.30\.2" in the maintenance window beginning 2026-09-01T20:00:00Z: kubernetes version "1\.30\.1"/,
        `is deprecated and expires at ${hoursFromNow(24 * 60)} (in 60 days)`,
      ],
    ],
  },
  {
    name: 'expiring, with auto-update off: the forced update after the expiry',
    operation: 'CREATE',
    object: noAutoUpdate(withWindow(s('1.30.1'), '220000+0200', '230000+0200')),
    config: { warnings: { expiringWithinDays: 90 } },
    want: [[/^forced update to "1\.30\.2" in the maintenance window beginning 2026-10-31T20:00:00Z/]],
  },
  {
    name: 'the horizon is configurable',
    operation: 'CREATE',
    object: s('1.29.4'),
    config: { warnings: { expiringWithinDays: 5 } },
    want: [[`is deprecated: it expires at ${IN_10_DAYS}`]],
  },
  {
    name: 'one warning per version, naming every place that uses it',
    operation: 'CREATE',
    object: s('1.30.1', '1592.1.0', '1.30.1'),
    want: [['"1.30.1"', '(control plane, worker pool "pool-a")']],
  },
  {
    name: 'expired and kept on UPDATE: the forced update in the next maintenance window',
    operation: 'UPDATE',
    object: s('1.28.5'),
    oldObject: s('1.28.5'),
    want: [
      [
        '"1.28.5"',
        'is expired since 2026-08-30T00:00:00Z',
        /^forced update to "1\.29\.4" in its maintenance on 2026-09-02 \(no window set: any time that day\): kubernetes version "1\.28\.5"/,
      ],
    ],
  },
  {
    name: 'expired machine image kept by an existing pool: the target of its strategy',
    operation: 'UPDATE',
    object: s('1.31.0', '1590.0.0'),
    oldObject: s('1.31.0', '1590.0.0'),
    want: [["'gardenlinux:1590.0.0'", 'is expired', /^forced update to "1595\.0\.0"/]],
  },
  {
    name: 'expired on CREATE is a denial, not a forecast',
    operation: 'CREATE',
    object: s('1.28.5', '1590.0.0'),
    want: [],
  },
  {
    name: 'expired in a new pool is a denial; in an existing pool a forecast',
    operation: 'UPDATE',
    object: withPool(s('1.31.0', '1589.0.0'), 'pool-new', '1590.0.0'),
    oldObject: s('1.31.0', '1589.0.0'),
    want: [["'gardenlinux:1589.0.0'", '(worker pool "pool-a")']],
  },
  {
    name: 'expired with no version to go to: the maintenance will fail',
    operation: 'UPDATE',
    object: s('1.29.0', '1592.1.0', undefined, 'gap'),
    oldObject: s('1.29.0', '1592.1.0', undefined, 'gap'),
    state: [GAP],
    want: [
      [
        /^forced update will fail in its maintenance on 2026-09-02 \(no window set: any time that day\): kubernetes version "1\.29\.0" of shoot 'garden-dev\/shoot'/,
        ', and no newer non-preview patch of 1.29',
        'next minor 1.30',
      ],
    ],
  },
  {
    name: 'expired, and so is the only target: another forced update follows',
    operation: 'UPDATE',
    object: s('1.29.0', '1592.1.0', undefined, 'chain'),
    oldObject: s('1.29.0', '1592.1.0', undefined, 'chain'),
    state: [CHAIN],
    want: [['forced update to "1.30.0"', '"1.30.0" is expired too, so another forced update follows']],
  },
  {
    name: "the NamespacedCloudProfile's extended expiry is the one that counts",
    operation: 'CREATE',
    object: shoot({
      profile: { kind: 'NamespacedCloudProfile', name: 'team' },
      version: '1.28.5',
      workers: [{ name: 'pool-a', image: ['gardenlinux', '1592.1.0'] }],
    }),
    want: [[`"1.28.5"`, `expires at ${hoursFromNow(24 * 30)} (in 30 days)`, 'forced update to "1.29.4"']],
  },
  {
    name: "past the forecast's work budget: the warning names no step, and points to explain",
    operation: 'CREATE',
    object: s('1.29.4', '1592.1.0', undefined, 'long'),
    state: [LONG],
    want: [
      [
        /^update to a supported version \(version-policy explain shows what maintenance does first\): kubernetes version "1\.29\.4"/,
        `is deprecated and expires at ${IN_10_DAYS} (in 10 days)`,
      ],
    ],
  },
  {
    name: 'just within the budget: the step',
    operation: 'CREATE',
    object: s('1.29.4', '1592.1.0', undefined, 'shorter'),
    state: [SHORTER],
    want: [[/^forced update to "1\.30\.2" in its maintenance on 2026-09-12/]],
  },
  { name: 'an unsynced state says nothing', operation: 'CREATE', object: s('1.29.4'), synced: false, want: [] },
  {
    name: 'a Shoot being deleted says nothing',
    operation: 'UPDATE',
    object: deleting(s('1.28.5')),
    oldObject: deleting(s('1.28.5')),
    want: [],
  },
];

for (const row of rows) {
  t.test(row.name, async (t) => {
    const d = decide({
      operation: row.operation,
      object: row.object,
      ...(row.oldObject ? { oldObject: row.oldObject } : {}),
      state: row.state ?? [AWS, NCP],
      ...(row.config ? { config: row.config } : {}),
      ...(row.synced === false ? { synced: false } : {}),
    });
    t.equal(d.allWarnings.length, row.want.length, `warnings: ${JSON.stringify(d.allWarnings)}`);
    row.want.forEach((words, i) => {
      for (const word of words) t.match(d.allWarnings[i] ?? '', word, `warning ${i} says ${JSON.stringify(word)}`);
      // What the review answers is the same text, cut to the budget's 256 characters at most.
      const said = d.warnings[i] ?? '';
      t.ok(
        said.length <= 256 &&
          (said === d.allWarnings[i] || (said.endsWith('…') && d.allWarnings[i]!.startsWith(said.slice(0, -1)))),
        `warning ${i} as answered`,
      );
    });
  });
}

t.test('the cut at 256 characters takes only detail: the conclusion and the Shoot lead', async (t) => {
  const pool = (name: string) => ({
    name: `${name}-${'x'.repeat(60)}`,
    kubernetes: '1.29.0',
    image: ['gardenlinux', '1592.1.0'] as [string, string],
  });
  const object = shoot({ profile: 'gap', version: '1.29.0', workers: [pool('a'), pool('b'), pool('c')] });
  const d = decide({ operation: 'UPDATE', object, oldObject: object, state: [GAP] });
  const [full = '', said = ''] = [d.allWarnings[0], d.warnings[0]];
  t.ok(full.length > 256, `long enough to be cut: ${full.length}`);
  t.equal(said.length, 256);
  t.match(
    said,
    /^forced update will fail in its maintenance on 2026-09-02 \(no window set: any time that day\): kubernetes version "1\.29\.0" of shoot 'garden-dev\/shoot' \(control plane, worker pool "a-x+"/,
  );
  t.match(
    full,
    /, and no newer non-preview patch of 1\.29 .*\)$/,
    'the reason is the end, which is what the cut takes',
  );
});
