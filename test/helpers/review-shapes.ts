// Single AdmissionReviews of every shape up to the 7 MiB body limit: what the event-loop test
// sends one at a time, and what bench/review-cost.js takes apart stage by stage. Each body is
// built to just under the limit, so the figures are the worst a single review can cost.
import { cloudProfile, hoursFromNow, image, namespacedProfile, shoot, type WorkerInput } from './objects.js';
import { review } from './server.js';
import type { CloudProfile, ExpirableVersion, PolicedObject } from '../../src/api/types.js';

/** The default body limit, less room for the envelope. */
export const BODY_TARGET = 7 * 1024 * 1024 - 32 * 1024;

export interface ReviewShape {
  name: string;
  path: '/validate' | '/mutate';
  /** The body as sent. */
  body(): Buffer;
  /** Objects the server's state holds for this shape (a parent profile, Shoots). */
  state?: PolicedObject[];
}

/** `count` items from `make`, as many as fit `bytes` when serialised (measured on a sample). */
function fill<T>(bytes: number, make: (i: number) => T): T[] {
  const sizeOf = (from: number) => JSON.stringify(Array.from({ length: 100 }, (_, i) => make(from + i))).length / 100;
  // Items grow with their index (longer numbers): size them at the end too.
  const first = sizeOf(0);
  const per = Math.max(first, sizeOf(Math.floor(bytes / first) - 100));
  return Array.from({ length: Math.floor(bytes / per) }, (_, i) => make(i));
}

/** Kubernetes versions over many minors: one supported per minor, the rest deprecated with an expiry. */
function k8sVersion(i: number): ExpirableVersion {
  const minor = 20 + Math.floor(i / 50);
  const patch = i % 50;
  return patch === 49
    ? { version: `1.${minor}.${patch}`, classification: 'supported' }
    : {
        version: `1.${minor}.${patch}`,
        classification: 'deprecated',
        expirationDate: hoursFromNow(24 * (30 + (i % 300))),
      };
}

function encode(value: unknown): Buffer {
  const buf = Buffer.from(JSON.stringify(value));
  if (buf.length > 7 * 1024 * 1024) throw new Error(`shape too big: ${buf.length} bytes`);
  return buf;
}

function profileWithVersions(bytes: number, name = 'huge'): CloudProfile {
  const p = cloudProfile({ name });
  p.spec.kubernetes.versions = fill(bytes, k8sVersion);
  // The highest version must not expire.
  const last = p.spec.kubernetes.versions.at(-1)!;
  delete last.expirationDate;
  last.classification = 'supported';
  return p;
}

export const REVIEW_SHAPES: ReviewShape[] = [
  {
    name: 'CloudProfile CREATE, many Kubernetes versions',
    path: '/validate',
    body: () => encode(review({ operation: 'CREATE', object: profileWithVersions(BODY_TARGET) })),
  },
  {
    name: 'CloudProfile UPDATE, many Kubernetes versions on both sides',
    path: '/mutate',
    body: () => {
      const old = profileWithVersions(BODY_TARGET / 2);
      const next = structuredClone(old);
      next.spec.kubernetes.versions.splice(0, 1);
      return encode(review({ operation: 'UPDATE', object: next, oldObject: old }));
    },
  },
  {
    name: 'CloudProfile CREATE, many machine images',
    path: '/validate',
    body: () => {
      const p = cloudProfile({ name: 'images' });
      p.spec.machineImages = fill(BODY_TARGET, (i) =>
        image(`image-${i}`, [`${i}.0.0`, `${i}.1.0`, { version: `${i}.2.0`, classification: 'supported' }]),
      );
      return encode(review({ operation: 'CREATE', object: p }));
    },
  },
  {
    name: 'CloudProfile CREATE, huge label and annotation maps',
    path: '/mutate',
    body: () => {
      const entries = fill(BODY_TARGET / 2, (i) => [`example.com/key-${i}`, `value-${i}`] as const);
      const p = cloudProfile({ name: 'labels', annotations: Object.fromEntries(entries) });
      (p.metadata as { labels?: Record<string, string> }).labels = Object.fromEntries(
        entries.map(([k, v]) => [`l.${k}`, v]),
      );
      return encode(review({ operation: 'CREATE', object: p }));
    },
  },
  {
    name: 'Shoot CREATE, many workers',
    path: '/validate',
    body: () => {
      const worker = (i: number): WorkerInput => ({
        name: `pool-${i}`,
        image: ['gardenlinux', '1592.1.0'],
        kubernetes: '1.31.0',
      });
      // A worker input becomes a bigger worker: size the built Shoot.
      const sized = (n: number) =>
        JSON.stringify(shoot({ workers: Array.from({ length: n }, (_, i) => worker(i + 100_000)) })).length;
      const per = (sized(200) - sized(100)) / 100;
      const workers = Array.from({ length: Math.floor(BODY_TARGET / per) }, (_, i) => worker(i));
      return encode(review({ operation: 'CREATE', object: shoot({ name: 'big', workers }) }));
    },
    state: [cloudProfile({ name: 'profile', kubernetes: ['1.31.0'] })],
  },
  {
    name: 'NamespacedCloudProfile UPDATE, many versions',
    path: '/validate',
    body: () => {
      const versions = fill(BODY_TARGET / 2, k8sVersion);
      const old = namespacedProfile({ name: 'ncp', parent: 'profile', kubernetes: versions });
      const next = namespacedProfile({ name: 'ncp', parent: 'profile', kubernetes: versions.slice(1) });
      return encode(review({ operation: 'UPDATE', object: next, oldObject: old }));
    },
    state: [cloudProfile({ name: 'profile', kubernetes: ['1.31.0'] })],
  },
  {
    name: 'an unpoliced kind with a 7 MiB object',
    path: '/validate',
    body: () => {
      const data = Object.fromEntries(
        fill(BODY_TARGET, (i) => [`key-${i}`, { value: i, text: 'some text', list: [1, 2, 3] }] as const),
      );
      return encode(
        review({
          operation: 'CREATE',
          kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
          object: { kind: 'Deployment', metadata: { name: 'x' }, data },
        }),
      );
    },
  },
  {
    name: 'a 7 MiB annotation value of multibyte characters',
    path: '/validate',
    body: () =>
      encode(
        review({
          operation: 'CREATE',
          object: cloudProfile({
            name: 'text',
            annotations: { note: 'Grüße, 世界 😀 '.repeat(Math.floor(BODY_TARGET / 30)) },
          }),
        }),
      ),
  },
  {
    name: 'a CloudProfile whose providerConfig nests 990 levels, many times over',
    path: '/validate',
    body: () => {
      const nested = JSON.parse(`${'{"a":'.repeat(990)}1${'}'.repeat(990)}`) as unknown;
      const p = cloudProfile({ name: 'deep' }) as CloudProfile & { spec: { providerConfig?: unknown } };
      p.spec.providerConfig = { apiVersion: 'x/v1', kind: 'Config', items: fill(BODY_TARGET, () => nested) };
      return encode(review({ operation: 'CREATE', object: p }));
    },
  },
  {
    name: '7 MiB of "[" (refused by the nesting scan)',
    path: '/validate',
    body: () => Buffer.alloc(BODY_TARGET, '['),
  },
  {
    name: 'keys that could hide __proto__ everywhere (the walk runs)',
    path: '/validate',
    body: () => {
      const annotations = Object.fromEntries(
        fill(BODY_TARGET, (i) => [`constructor-${i}`, `prototype \\u0070 ${i}`] as const),
      );
      return encode(review({ operation: 'CREATE', object: cloudProfile({ name: 'suspicious', annotations }) }));
    },
  },
];
