// DEFAULT-LIFECYCLE as a table: request in, stored versions, warnings and management annotation
// out. Every row is also checked for what the path promises beyond its own output: the result
// passes evaluate() and the policy invariants, the JSON Patch turns the request into exactly the
// stored object, and re-applying the same manifest afterwards changes nothing.
import jsonpatch from 'fast-json-patch';
import t from '../../helpers/parts.js';
import { staticState } from '../../../src/cluster/static-state.js';
import { applyMutatingPath } from '../../../src/policy/defaulting/index.js';
import { MANAGED_VERSIONS_ANNOTATION } from '../../../src/policy/defaulting/lifecycle.js';
import type { Decision } from '../../../src/policy/decision.js';
import type { CloudProfile, ExpirableVersion, LifecycleStage, MachineImage } from '../../../src/api/types.js';
import { sayWarning } from '../../../src/policy/warning.js';
import type { ConfigInput } from '../../helpers/objects.js';
import { NOW, NOW_ISO, cloudProfile, config, decide, hoursFromNow, image, request } from '../../helpers/objects.js';
import { invariantProblems } from './policy-invariants.js';

const supported: LifecycleStage[] = [{ classification: 'supported' }];
const preview: LifecycleStage[] = [{ classification: 'preview' }];
const deprecated = (hours: number): LifecycleStage[] => [
  { classification: 'deprecated' },
  { classification: 'expired', startTime: hoursFromNow(hours) },
];
/** A stored lifecycle with this path's supersede step appended at NOW. */
const superseded = (hours: number, before = supported): LifecycleStage[] => [
  ...before,
  { classification: 'deprecated', startTime: NOW_ISO },
  { classification: 'expired', startTime: hoursFromNow(hours) },
];
const at = (version: string, lifecycle: LifecycleStage[]): ExpirableVersion => ({
  version,
  lifecycle: structuredClone(lifecycle),
});
const legacy = (version: string, classification: string, expirationDate?: string): ExpirableVersion => ({
  version,
  classification,
  ...(expirationDate ? { expirationDate } : {}),
});

interface Managed {
  kubernetes: string[];
  machineImages: Record<string, string[]>;
}
const annotation = (m: Managed) => ({ [MANAGED_VERSIONS_ANNOTATION]: JSON.stringify(m) });

interface Row {
  name: string;
  gate?: boolean;
  config?: ConfigInput;
  now?: number;
  old?: CloudProfile;
  object: CloudProfile;
  kubernetes: ExpirableVersion[];
  images: MachineImage[];
  warnings: string[];
  /** The management annotation after the request; undefined: none. */
  managed: Managed | undefined;
  /** False when the request is no GitOps manifest: it repeats lifecycles that this path has since moved on. */
  reapplySame?: false;
}

const gl = (versions: (string | ExpirableVersion)[]) => image('gardenlinux', versions);

const rows: Row[] = [
  {
    name: 'fresh CREATE across five minors: newest patch of a maintained minor supported, the rest deprecated',
    object: cloudProfile({
      kubernetes: ['1.27.9', '1.28.4', '1.28.5', '1.29.0', '1.30.1', '1.30.2', '1.31.0', '1.31.1'],
      images: [gl(['1592.1.0'])],
    }),
    kubernetes: [
      at('1.27.9', deprecated(720)),
      at('1.28.4', deprecated(720)),
      at('1.28.5', deprecated(720)),
      at('1.29.0', supported),
      at('1.30.1', deprecated(2880)),
      at('1.30.2', supported),
      at('1.31.0', deprecated(2880)),
      at('1.31.1', supported),
    ],
    images: [gl([at('1592.1.0', supported)])],
    warnings: [
      `1.27.9: deprecated, expires 2026-10-01T00:00:00Z (policy: minor 1.27 is no longer maintained, only the newest 3 are)`,
      `1.28.4: deprecated, expires 2026-10-01T00:00:00Z (policy: minor 1.28 is no longer maintained, only the newest 3 are)`,
      `1.28.5: deprecated, expires 2026-10-01T00:00:00Z (policy: minor 1.28 is no longer maintained, only the newest 3 are)`,
      `1.29.0: supported (policy: newest patch of maintained minor 1.29)`,
      `1.30.1: deprecated, expires 2026-12-30T00:00:00Z (policy: older patch of maintained minor 1.30)`,
      `1.30.2: supported (policy: newest patch of maintained minor 1.30)`,
      `1.31.0: deprecated, expires 2026-12-30T00:00:00Z (policy: older patch of maintained minor 1.31)`,
      `1.31.1: supported (policy: newest patch of maintained minor 1.31)`,
      `machine image gardenlinux 1592.1.0: supported (policy: newest patch of minor 1592.1)`,
    ],
    managed: {
      kubernetes: ['1.27.9', '1.28.4', '1.28.5', '1.29.0', '1.30.1', '1.30.2', '1.31.0', '1.31.1'],
      machineImages: { gardenlinux: ['1592.1.0'] },
    },
  },
  {
    name: 'the same CREATE with the gate off writes legacy classification and expirationDate',
    gate: false,
    object: cloudProfile({
      kubernetes: ['1.28.5', '1.29.0', '1.30.1', '1.30.2', '1.31.0', '1.31.1'],
      images: [gl(['1592.1.0', '1592.1.1'])],
    }),
    kubernetes: [
      legacy('1.28.5', 'deprecated', '2026-10-01T00:00:00Z'),
      legacy('1.29.0', 'supported'),
      legacy('1.30.1', 'deprecated', '2026-12-30T00:00:00Z'),
      legacy('1.30.2', 'supported'),
      legacy('1.31.0', 'deprecated', '2026-12-30T00:00:00Z'),
      legacy('1.31.1', 'supported'),
    ],
    images: [gl([legacy('1592.1.0', 'deprecated', '2026-12-30T00:00:00Z'), legacy('1592.1.1', 'supported')])],
    warnings: [
      `1.28.5: deprecated, expires 2026-10-01T00:00:00Z (policy: minor 1.28 is no longer maintained, only the newest 3 are)`,
      `1.29.0: supported (policy: newest patch of maintained minor 1.29)`,
      `1.30.1: deprecated, expires 2026-12-30T00:00:00Z (policy: older patch of maintained minor 1.30)`,
      `1.30.2: supported (policy: newest patch of maintained minor 1.30)`,
      `1.31.0: deprecated, expires 2026-12-30T00:00:00Z (policy: older patch of maintained minor 1.31)`,
      `1.31.1: supported (policy: newest patch of maintained minor 1.31)`,
      `machine image gardenlinux 1592.1.0: deprecated, expires 2026-12-30T00:00:00Z (policy: older patch of minor 1592.1)`,
      `machine image gardenlinux 1592.1.1: supported (policy: newest patch of minor 1592.1)`,
    ],
    managed: {
      kubernetes: ['1.28.5', '1.29.0', '1.30.1', '1.30.2', '1.31.0', '1.31.1'],
      machineImages: { gardenlinux: ['1592.1.0', '1592.1.1'] },
    },
  },
  {
    name: 'maintainedMinors and the durations come from the config (Go durations)',
    config: {
      defaulting: {
        lifecycle: {
          maintainedMinors: 1,
          expirationMaintained: '240h',
          expirationUnmaintained: '1h30m',
          machineImageExpiration: '48h',
        },
      },
    },
    object: cloudProfile({ kubernetes: ['1.30.1', '1.31.0', '1.31.1'], images: [gl(['1592.1.0', '1592.1.1'])] }),
    kubernetes: [at('1.30.1', deprecated(1.5)), at('1.31.0', deprecated(240)), at('1.31.1', supported)],
    images: [gl([at('1592.1.0', deprecated(48)), at('1592.1.1', supported)])],
    warnings: [
      `1.30.1: deprecated, expires 2026-09-01T01:30:00Z (policy: minor 1.30 is no longer maintained, only the newest 1 are)`,
      `1.31.0: deprecated, expires 2026-09-11T00:00:00Z (policy: older patch of maintained minor 1.31)`,
      `1.31.1: supported (policy: newest patch of maintained minor 1.31)`,
      `machine image gardenlinux 1592.1.0: deprecated, expires 2026-09-03T00:00:00Z (policy: older patch of minor 1592.1)`,
      `machine image gardenlinux 1592.1.1: supported (policy: newest patch of minor 1592.1)`,
    ],
    managed: { kubernetes: ['1.30.1', '1.31.0', '1.31.1'], machineImages: { gardenlinux: ['1592.1.0', '1592.1.1'] } },
  },
  {
    name: 'an operator preview is not the newest patch, and a preview-only minor keeps no older minor from maintenance',
    config: { defaulting: { lifecycle: { maintainedMinors: 2 } } },
    object: cloudProfile({
      kubernetes: ['1.29.5', '1.30.4', '1.31.0', at('1.31.1', preview), legacy('1.32.0', 'preview')],
      images: [gl(['1592.1.0', at('1592.1.1', preview)])],
    }),
    kubernetes: [
      at('1.29.5', deprecated(720)),
      at('1.30.4', supported),
      at('1.31.0', supported),
      at('1.31.1', preview),
      legacy('1.32.0', 'preview'),
    ],
    images: [gl([at('1592.1.0', supported), at('1592.1.1', preview)])],
    warnings: [
      `1.29.5: deprecated, expires 2026-10-01T00:00:00Z (policy: minor 1.29 is no longer maintained, only the newest 2 are)`,
      `1.30.4: supported (policy: newest patch of maintained minor 1.30)`,
      `1.31.0: supported (policy: newest patch of maintained minor 1.31)`,
      `machine image gardenlinux 1592.1.0: supported (policy: newest patch of minor 1592.1)`,
    ],
    managed: { kubernetes: ['1.29.5', '1.30.4', '1.31.0'], machineImages: { gardenlinux: ['1592.1.0'] } },
  },
  {
    name: "an operator's supported version stands: the newest patch gets preview, older ones are deprecated",
    object: cloudProfile({
      kubernetes: [
        '1.30.2',
        // The operator's support of 1.30.1 is over, so it no longer holds the minor.
        at('1.30.1', [
          { classification: 'supported' },
          { classification: 'deprecated', startTime: '2026-08-01T00:00:00Z' },
          { classification: 'expired', startTime: '2026-10-01T00:00:00Z' },
        ]),
        '1.31.0',
        at('1.31.1', supported),
        '1.31.2',
      ],
    }),
    kubernetes: [
      at('1.30.2', supported),
      at('1.30.1', [
        { classification: 'supported' },
        { classification: 'deprecated', startTime: '2026-08-01T00:00:00Z' },
        { classification: 'expired', startTime: '2026-10-01T00:00:00Z' },
      ]),
      at('1.31.0', deprecated(2880)),
      at('1.31.1', supported),
      at('1.31.2', preview),
    ],
    images: [gl([at('1592.1.0', supported)])],
    warnings: [
      `1.30.2: supported (policy: newest patch of maintained minor 1.30)`,
      `1.31.0: deprecated, expires 2026-12-30T00:00:00Z (policy: older patch of maintained minor 1.31)`,
      `1.31.2: preview (policy: newest patch of maintained minor 1.31, whose supported version 1.31.1 the operator set)`,
      `machine image gardenlinux 1592.1.0: supported (policy: newest patch of minor 1592.1)`,
    ],
    managed: { kubernetes: ['1.30.2', '1.31.0', '1.31.2'], machineImages: { gardenlinux: ['1592.1.0'] } },
  },
  {
    name: 'gate off: a legacy supported version holds its minor even when expired (Gardener counts it)',
    gate: false,
    old: cloudProfile({
      kubernetes: [legacy('1.30.1', 'supported', '2026-08-01T00:00:00Z'), legacy('1.31.0', 'supported')],
    }),
    object: cloudProfile({
      kubernetes: [legacy('1.30.1', 'supported', '2026-08-01T00:00:00Z'), '1.30.2', legacy('1.31.0', 'supported')],
    }),
    kubernetes: [
      legacy('1.30.1', 'supported', '2026-08-01T00:00:00Z'),
      legacy('1.30.2', 'preview'),
      legacy('1.31.0', 'supported'),
    ],
    // The plain image version was there before: it stays as written.
    images: [gl(['1592.1.0'])],
    warnings: [
      `1.30.2: preview (policy: newest patch of maintained minor 1.30, whose supported version 1.30.1 the operator set)`,
    ],
    managed: { kubernetes: ['1.30.2'], machineImages: {} },
  },
  {
    name: 'a new patch supersedes a managed one: deprecated from now, expiring later; older history is not appended twice',
    old: cloudProfile({
      annotations: annotation({
        kubernetes: ['1.30.4', '1.31.0', '1.31.1'],
        machineImages: { gardenlinux: ['1592.1.0'] },
      }),
      kubernetes: [
        at('1.30.4', supported),
        at('1.31.0', [...supported, ...superseded(100).slice(1)]),
        at('1.31.1', supported),
      ],
      images: [gl([at('1592.1.0', supported)])],
    }),
    // A GitOps manifest: plain versions, no annotation.
    object: cloudProfile({
      kubernetes: ['1.30.4', '1.31.0', '1.31.1', '1.31.2'],
      images: [gl(['1592.1.0', '1592.1.1'])],
    }),
    kubernetes: [
      at('1.30.4', supported),
      at('1.31.0', superseded(100)),
      at('1.31.1', superseded(2880)),
      at('1.31.2', supported),
    ],
    images: [gl([at('1592.1.0', superseded(2880)), at('1592.1.1', supported)])],
    warnings: [
      `1.31.1: deprecated from 2026-09-01T00:00:00Z, expires 2026-12-30T00:00:00Z (policy: superseded by 1.31.2 in maintained minor 1.31)`,
      `1.31.2: supported (policy: newest patch of maintained minor 1.31)`,
      `machine image gardenlinux 1592.1.0: deprecated from 2026-09-01T00:00:00Z, expires 2026-12-30T00:00:00Z (policy: superseded by 1592.1.1 in minor 1592.1)`,
      `machine image gardenlinux 1592.1.1: supported (policy: newest patch of minor 1592.1)`,
    ],
    managed: {
      kubernetes: ['1.30.4', '1.31.0', '1.31.1', '1.31.2'],
      machineImages: { gardenlinux: ['1592.1.0', '1592.1.1'] },
    },
  },
  {
    name: 'gate off: a superseded managed version turns legacy deprecated with an expirationDate',
    gate: false,
    old: cloudProfile({
      annotations: annotation({ kubernetes: ['1.31.0'], machineImages: {} }),
      kubernetes: [legacy('1.31.0', 'supported')],
      images: [gl([legacy('1592.1.0', 'supported')])],
    }),
    object: cloudProfile({ kubernetes: ['1.31.0', '1.31.1'], images: [gl([legacy('1592.1.0', 'supported')])] }),
    kubernetes: [legacy('1.31.0', 'deprecated', '2026-12-30T00:00:00Z'), legacy('1.31.1', 'supported')],
    images: [gl([legacy('1592.1.0', 'supported')])],
    warnings: [
      `1.31.0: deprecated from 2026-09-01T00:00:00Z, expires 2026-12-30T00:00:00Z (policy: superseded by 1.31.1 in maintained minor 1.31)`,
      `1.31.1: supported (policy: newest patch of maintained minor 1.31)`,
    ],
    managed: { kubernetes: ['1.31.0', '1.31.1'], machineImages: {} },
  },
  {
    name: 're-applying the same manifest a month later moves no date and says nothing',
    now: NOW + 30 * 24 * 3_600_000,
    old: cloudProfile({
      annotations: annotation({
        kubernetes: ['1.30.1', '1.30.2', '1.31.0'],
        machineImages: { gardenlinux: ['1592.1.0'] },
      }),
      kubernetes: [at('1.30.1', deprecated(2880)), at('1.30.2', supported), at('1.31.0', supported)],
      images: [gl([at('1592.1.0', supported)])],
    }),
    object: cloudProfile({ kubernetes: ['1.30.1', '1.30.2', '1.31.0'], images: [gl(['1592.1.0'])] }),
    kubernetes: [at('1.30.1', deprecated(2880)), at('1.30.2', supported), at('1.31.0', supported)],
    images: [gl([at('1592.1.0', supported)])],
    warnings: [],
    managed: { kubernetes: ['1.30.1', '1.30.2', '1.31.0'], machineImages: { gardenlinux: ['1592.1.0'] } },
  },
  {
    name: 'a user taking a version out of management: the operator choice stands, the managed newest patch yields',
    old: cloudProfile({
      annotations: annotation({
        kubernetes: ['1.30.1', '1.30.2', '1.31.0'],
        machineImages: { gardenlinux: ['1592.1.0'] },
      }),
      kubernetes: [at('1.30.1', superseded(100)), at('1.30.2', supported), at('1.31.0', supported)],
      images: [gl([at('1592.1.0', supported)])],
    }),
    object: cloudProfile({
      kubernetes: [at('1.30.1', supported), '1.30.2', at('1.31.0', supported)],
      images: [gl([legacy('1592.1.0', 'deprecated', '2027-01-01T00:00:00Z')])],
    }),
    kubernetes: [at('1.30.1', supported), at('1.30.2', superseded(2880)), at('1.31.0', supported)],
    images: [gl([legacy('1592.1.0', 'deprecated', '2027-01-01T00:00:00Z')])],
    warnings: [
      `1.30.1: no longer managed by lifecycle defaulting, because the request sets its lifecycle or classification explicitly`,
      `1.30.2: deprecated from 2026-09-01T00:00:00Z, expires 2026-12-30T00:00:00Z (policy: the operator set 1.30.1 supported in maintained minor 1.30)`,
      `machine image gardenlinux 1592.1.0: no longer managed by lifecycle defaulting, because the request sets its lifecycle or classification explicitly`,
    ],
    managed: { kubernetes: ['1.30.2', '1.31.0'], machineImages: {} },
  },
  {
    name: "a managed preview becomes supported once the operator's supported version is deprecated",
    old: cloudProfile({
      annotations: annotation({ kubernetes: ['1.31.2'], machineImages: {} }),
      kubernetes: [
        at('1.31.1', [...supported, { classification: 'deprecated', startTime: '2026-08-20T00:00:00Z' }]),
        at('1.31.2', preview),
      ],
      images: [gl([at('1592.1.0', supported)])],
    }),
    object: cloudProfile({
      kubernetes: [
        at('1.31.1', [...supported, { classification: 'deprecated', startTime: '2026-08-20T00:00:00Z' }]),
        '1.31.2',
      ],
      images: [gl([at('1592.1.0', supported)])],
    }),
    kubernetes: [
      at('1.31.1', [...supported, { classification: 'deprecated', startTime: '2026-08-20T00:00:00Z' }]),
      at('1.31.2', [...preview, { classification: 'supported', startTime: NOW_ISO }]),
    ],
    images: [gl([at('1592.1.0', supported)])],
    warnings: [`1.31.2: supported from 2026-09-01T00:00:00Z (policy: newest patch of maintained minor 1.31)`],
    managed: { kubernetes: ['1.31.2'], machineImages: {} },
  },
  {
    name: 'the highest kubernetes version: once its successor is removed, a superseded patch is supported again',
    old: cloudProfile({
      annotations: annotation({ kubernetes: ['1.31.0', '1.31.1'], machineImages: {} }),
      kubernetes: [at('1.31.0', superseded(2880)), at('1.31.1', supported)],
    }),
    object: cloudProfile({ kubernetes: ['1.31.0'] }),
    kubernetes: [at('1.31.0', supported)],
    images: [gl(['1592.1.0'])],
    warnings: [`1.31.0: supported again, its deprecation withdrawn (policy: newest patch of maintained minor 1.31)`],
    managed: { kubernetes: ['1.31.0'], machineImages: {} },
  },
  {
    name: 'the highest kubernetes version that is not unavailable on CREATE never gets an expired stage',
    object: cloudProfile({
      kubernetes: ['1.31.2', at('1.31.5', [{ classification: 'supported', startTime: '2026-10-01T00:00:00Z' }])],
    }),
    kubernetes: [
      at('1.31.2', [{ classification: 'deprecated' }]),
      at('1.31.5', [{ classification: 'supported', startTime: '2026-10-01T00:00:00Z' }]),
    ],
    images: [gl([at('1592.1.0', supported)])],
    warnings: [
      `1.31.2: deprecated (policy: older patch of maintained minor 1.31; the highest kubernetes version never expires)`,
      `machine image gardenlinux 1592.1.0: supported (policy: newest patch of minor 1592.1)`,
    ],
    managed: { kubernetes: ['1.31.2'], machineImages: { gardenlinux: ['1592.1.0'] } },
  },
  {
    name: 'machine images: per image and per minor, every minor maintained, lenient versions',
    object: cloudProfile({
      kubernetes: [at('1.31.0', supported)],
      images: [
        gl(['1443.3.0', '1592.1.0', '1592.2.0', '1592.2.1', at('1592.3.0', preview)]),
        image('suse-chost', ['15.4', 'v15.5.20240101', '15.5.20240201', legacy('15.6.1', 'supported'), '15.6.2']),
      ],
    }),
    kubernetes: [at('1.31.0', supported)],
    images: [
      gl([
        at('1443.3.0', supported),
        at('1592.1.0', supported),
        at('1592.2.0', deprecated(2880)),
        at('1592.2.1', supported),
        at('1592.3.0', preview),
      ]),
      image('suse-chost', [
        at('15.4', supported),
        at('v15.5.20240101', deprecated(2880)),
        at('15.5.20240201', supported),
        legacy('15.6.1', 'supported'),
        at('15.6.2', preview),
      ]),
    ],
    warnings: [
      `machine image gardenlinux 1443.3.0: supported (policy: newest patch of minor 1443.3)`,
      `machine image gardenlinux 1592.1.0: supported (policy: newest patch of minor 1592.1)`,
      `machine image gardenlinux 1592.2.0: deprecated, expires 2026-12-30T00:00:00Z (policy: older patch of minor 1592.2)`,
      `machine image gardenlinux 1592.2.1: supported (policy: newest patch of minor 1592.2)`,
      `machine image suse-chost 15.4: supported (policy: newest patch of minor 15.4)`,
      `machine image suse-chost v15.5.20240101: deprecated, expires 2026-12-30T00:00:00Z (policy: older patch of minor 15.5)`,
      `machine image suse-chost 15.5.20240201: supported (policy: newest patch of minor 15.5)`,
      `machine image suse-chost 15.6.2: preview (policy: newest patch of minor 15.6, whose supported version 15.6.1 the operator set)`,
    ],
    managed: {
      kubernetes: [],
      machineImages: {
        gardenlinux: ['1443.3.0', '1592.1.0', '1592.2.0', '1592.2.1'],
        'suse-chost': ['15.4', 'v15.5.20240101', '15.5.20240201', '15.6.2'],
      },
    },
  },
  {
    name: "an unreadable annotation is ignored with a warning: versions the profile had are the operator's, new ones are defaulted",
    old: cloudProfile({
      annotations: { [MANAGED_VERSIONS_ANNOTATION]: '{"kubernetes": "1.31.0"' },
      kubernetes: [at('1.31.0', supported)],
      images: [gl([at('1592.1.0', supported)])],
    }),
    object: cloudProfile({ kubernetes: ['1.31.0', '1.32.0'], images: [gl([at('1592.1.0', supported)])] }),
    kubernetes: [{ version: '1.31.0' }, at('1.32.0', supported)],
    images: [gl([at('1592.1.0', supported)])],
    warnings: [
      `annotation ${MANAGED_VERSIONS_ANNOTATION} is not valid (not JSON): no version counts as managed by lifecycle defaulting`,
      `1.32.0: supported (policy: newest patch of maintained minor 1.32)`,
    ],
    managed: { kubernetes: ['1.32.0'], machineImages: {} },
  },
  {
    name: 'a re-created profile keeps the management its own annotation records',
    object: cloudProfile({
      annotations: annotation({ kubernetes: ['1.31.0'], machineImages: {} }),
      kubernetes: [at('1.31.0', supported), '1.31.1'],
      images: [gl([at('1592.1.0', supported)])],
    }),
    kubernetes: [at('1.31.0', superseded(2880)), at('1.31.1', supported)],
    images: [gl([at('1592.1.0', supported)])],
    warnings: [
      `1.31.0: deprecated from 2026-09-01T00:00:00Z, expires 2026-12-30T00:00:00Z (policy: superseded by 1.31.1 in maintained minor 1.31)`,
      `1.31.1: supported (policy: newest patch of maintained minor 1.31)`,
    ],
    managed: { kubernetes: ['1.31.0', '1.31.1'], machineImages: {} },
    // Sent again, its explicit lifecycle for 1.31.0 differs from the stored one: the user takes 1.31.0 over.
    reapplySame: false,
  },
];

const lifecycleConfig = (row: Row): ConfigInput => {
  const overrides = structuredClone(row.config ?? {}) as { defaulting?: { lifecycle?: object } };
  return {
    ...overrides,
    defaulting: { ...overrides.defaulting, lifecycle: { enabled: true, ...overrides.defaulting?.lifecycle } },
  };
};

/** What arrives over the wire: a fresh copy that shares nothing. */
const wire = <T>(o: T): T => JSON.parse(JSON.stringify(o)) as T;

function run(
  row: Row,
  object: CloudProfile,
  old: CloudProfile | undefined,
): { decision: Decision; warnings: string[] } {
  const input = {
    operation: old ? ('UPDATE' as const) : ('CREATE' as const),
    object: wire(object),
    ...(old ? { oldObject: wire(old) } : {}),
    now: row.now ?? NOW,
    lifecycleGate: row.gate ?? true,
    config: row.config ?? {},
    lifecycleDefaulting: true,
  };
  const decision = decide(input);
  // The mutating path's own warnings, apart from those the validating rules add.
  const mutation = applyMutatingPath(request(input), {
    now: input.now,
    config: config(lifecycleConfig(row), input.lifecycleGate),
    state: staticState([]),
  });
  return { decision, warnings: (mutation?.warnings ?? []).map(sayWarning) };
}

const managedOf = (o: CloudProfile | undefined): unknown => {
  const text = o?.metadata.annotations?.[MANAGED_VERSIONS_ANNOTATION];
  return text === undefined ? undefined : JSON.parse(text);
};

for (const row of rows) {
  t.test(row.name, async (t) => {
    const now = row.now ?? NOW;
    const { decision, warnings } = run(row, row.object, row.old);
    const stored = decision.object as CloudProfile;

    t.strictSame(stored.spec.kubernetes.versions, row.kubernetes, 'kubernetes versions');
    t.strictSame(stored.spec.machineImages, row.images, 'machine images');
    t.strictSame(warnings, row.warnings, 'warnings');
    t.strictSame(managedOf(stored), row.managed, 'management annotation');
    t.strictSame(
      decision.allWarnings.slice(0, warnings.length),
      warnings,
      'the decision carries the defaulting warnings first',
    );
    t.ok(decision.warnings.length <= 10, 'the answer stays within the warning budget');

    t.strictSame(decision.violations, [], 'the stored object passes every validating rule');
    t.strictSame(
      invariantProblems(stored, row.old, now, row.gate ?? true),
      [],
      'the stored object keeps the policy invariants',
    );

    const patch = jsonpatch.compare(row.object, stored);
    t.equal(patch.length > 0, decision.mutated, 'a patch exactly when mutated');
    t.equal(
      decision.patch !== undefined,
      decision.mutated,
      "the decision carries the mutating path's patch exactly when mutated",
    );
    // The webhook answers with the mutating path's own operations, not this whole-object diff:
    // applied to the request as sent, they must give the stored object too.
    t.strictSame(
      jsonpatch.applyPatch(wire(row.object), structuredClone([...(decision.patch ?? [])])).newDocument,
      stored,
      "the decision's JSON Patch turns the request into the stored object",
    );

    // GitOps: the same manifest again, and the stored object sent back unchanged (kubectl edit).
    const replays: [string, CloudProfile][] = [['the stored object', stored]];
    if (row.reapplySame !== false) replays.push(['the same manifest', row.object]);
    for (const [what, again] of replays) {
      const replay = run(row, again, stored);
      t.strictSame(replay.decision.object, stored, `re-applying ${what} changes nothing`);
      t.strictSame(replay.warnings, [], `re-applying ${what} says nothing`);
    }
  });
}

t.test('with lifecycle defaulting disabled nothing is written', async (t) => {
  const object = cloudProfile({ kubernetes: ['1.30.1', '1.31.0'] });
  const decision = decide({
    operation: 'CREATE',
    object: structuredClone(object),
    config: { defaulting: { lifecycle: { enabled: false } } },
  });
  t.strictSame(decision.object, object);
  t.equal(decision.mutated, false);
});

t.test('the DEFAULT-LIFECYCLE rule switch turns the path off too', async (t) => {
  const object = cloudProfile({ kubernetes: ['1.30.1', '1.31.0'] });
  const decision = decide({
    operation: 'CREATE',
    object: structuredClone(object),
    lifecycleDefaulting: true,
    config: { rules: { 'DEFAULT-LIFECYCLE': { enabled: false } } },
  });
  t.strictSame(decision.object, object);
});
