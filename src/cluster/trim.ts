// Objects from the API server are cut down on arrival to the fields the rules read, then checked
// by parse.ts like any other input. A full Shoot is 5-20 KB of JSON (status, managedFields,
// networking, extensions); what IN-USE and the Shoot warnings need is a few hundred bytes.
// Raw values are copied as they are, so a wrongly typed field fails the schema instead of
// silently vanishing from the index.
import type { ParseResult } from '../api/parse.js';
import { parsePolicedObject } from '../api/parse.js';
import type { Kind, PolicedObject } from '../api/types.js';
import { GROUP_VERSION, type Shoot } from '../api/types.js';
import { interner } from '../util/intern.js';

type Raw = Record<string, unknown>;

const asObject = (v: unknown): Raw | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Raw) : undefined;

/** The entries of `o` whose value is not undefined. */
function defined(o: Raw): Raw {
  const out: Raw = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * One copy of each string that many Shoots repeat (namespaces, versions, image, pool and profile
 * names, maintenance windows). JSON.parse gives every Shoot its own copies; at 100,000 Shoots
 * they cost about 20 MB. A landscape has a few thousand such values; the bound only guards
 * against a stream of unique ones.
 */
const share = interner(50_000);

/** Holds megabytes on some profiles and is never read. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

function trimMetadata(m: Raw, kind: Kind): Raw {
  const base = {
    name: m.name,
    namespace: m.namespace,
    resourceVersion: m.resourceVersion,
    deletionTimestamp: m.deletionTimestamp,
  };
  if (kind === 'Shoot') return { ...base, namespace: share(m.namespace) };
  // Profiles are few; DEFAULT-LIFECYCLE records its managed versions in an annotation.
  const annotations = asObject(m.annotations);
  const kept = annotations
    ? Object.fromEntries(Object.entries(annotations).filter(([k]) => k !== LAST_APPLIED))
    : undefined;
  return defined({
    ...base,
    uid: m.uid,
    generation: m.generation,
    annotations: kept && Object.keys(kept).length > 0 ? kept : undefined,
  });
}

// A trimmed Shoot has one fixed shape: each field below is a key, undefined where the API
// server's object has no value (the same to the schema and the rules as an absent key). V8
// stores objects built whole like this compactly; built key by key, each keeps spare slots
// (about 100 bytes per Shoot).

function trimWorker(w: unknown): unknown {
  const worker = asObject(w);
  if (!worker) return w;
  const kubernetes = asObject(worker.kubernetes);
  const machine = asObject(worker.machine);
  const image = asObject(machine?.image);
  const cri = asObject(worker.cri);
  return {
    name: share(worker.name),
    kubernetes: kubernetes && kubernetes.version !== undefined ? { version: share(kubernetes.version) } : undefined,
    // The forecast's image filters read the type (its architecture), the architecture, the CRI
    // and the update strategy (gardener/forecast/pool-filter.ts).
    machine: machine
      ? {
          type: share(machine.type),
          architecture: share(machine.architecture),
          image: image ? { name: share(image.name), version: share(image.version) } : undefined,
        }
      : undefined,
    cri: cri ? { name: share(cri.name), containerRuntimes: trimRuntimes(cri.containerRuntimes) } : undefined,
    updateStrategy: share(worker.updateStrategy),
  };
}

function trimRuntimes(v: unknown): unknown {
  if (!Array.isArray(v)) return v;
  return v.map((r: unknown) => {
    const runtime = asObject(r);
    return runtime ? { type: share(runtime.type) } : r;
  });
}

function trimShootSpec(s: Raw): Raw {
  const cloudProfile = asObject(s.cloudProfile);
  const workers = asObject(s.provider)?.workers;
  const maintenance = asObject(s.maintenance);
  const timeWindow = asObject(maintenance?.timeWindow);
  // Present or absent, the block decides the defaults (gardener/forecast/shoot.ts, autoUpdateOf).
  const autoUpdate = asObject(maintenance?.autoUpdate);
  const hibernation = asObject(s.hibernation);
  return {
    cloudProfileName: share(s.cloudProfileName),
    cloudProfile: cloudProfile ? { kind: share(cloudProfile.kind), name: share(cloudProfile.name) } : undefined,
    kubernetes: { version: share(asObject(s.kubernetes)?.version) },
    provider: Array.isArray(workers) ? { workers: workers.map(trimWorker) } : undefined,
    maintenance:
      timeWindow || autoUpdate
        ? {
            timeWindow: timeWindow ? { begin: share(timeWindow.begin), end: share(timeWindow.end) } : undefined,
            autoUpdate: autoUpdate
              ? {
                  kubernetesVersion: autoUpdate.kubernetesVersion,
                  machineImageVersion: autoUpdate.machineImageVersion,
                }
              : undefined,
          }
        : undefined,
    // The forecast says on a hibernated Shoot's steps that the rollout waits for the wake-up.
    hibernation: hibernation ? { enabled: hibernation.enabled } : undefined,
  };
}

/**
 * A Shoot rebuilt in the trimmed shape with this thread's copies of its strings: a worker thread's
 * mirror (server/workers/) receives the event loop's Shoots by structured clone, which copies
 * every string of every Shoot. Already checked where it was trimmed, so not checked again.
 */
export function sharedShoot(shoot: Shoot): Shoot {
  return {
    apiVersion: GROUP_VERSION,
    kind: 'Shoot',
    metadata: trimMetadata(shoot.metadata, 'Shoot'),
    spec: trimShootSpec(shoot.spec),
  } as Shoot;
}

/**
 * The part of a `kind` object from the API server that the policy reads, checked against the
 * schema. LIST items carry no apiVersion/kind; they are set here.
 */
export function trimObject(kind: Kind, raw: unknown): ParseResult<PolicedObject> {
  const o = asObject(raw);
  if (!o) return { ok: false, errors: [{ field: '', message: `a ${kind} must be an object` }] };
  const metadata = trimMetadata(asObject(o.metadata) ?? {}, kind);
  // Profiles are read whole (every rule looks at their versions); only status goes.
  const spec = kind === 'Shoot' ? trimShootSpec(asObject(o.spec) ?? {}) : o.spec;
  // Stored objects are not held to the request limits: leaving one out would hide its users.
  return parsePolicedObject(kind, { apiVersion: GROUP_VERSION, kind, metadata, spec }, { limits: false });
}
