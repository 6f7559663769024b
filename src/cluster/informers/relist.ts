// A relist builds a fresh store for its kind beside the one serving admissions, in slices that
// yield to the event loop; the informer swaps it in when the list is complete (O(1)). Memory: the
// two stores live side by side while the relist runs, but objects whose resourceVersion did not
// change are taken over from the serving store (the same object, not a copy, and not trimmed
// again), so the overlap is the index structures plus the changed objects.
import type { KindStore } from '../cluster-index.js';
import { emptyStore, upsertInto } from '../cluster-index.js';
import type { RawPage } from '../list.js';
import { nameOf } from '../list.js';
import { trimObject } from '../trim.js';
import { formatFieldErrors } from '../../policy/parse.js';
import type { Kind, PolicedObject } from '../../policy/types.js';
import { Slicer } from './slices.js';

export interface BuiltStore {
  store: KindStore;
  /** The list's resourceVersion, where the watch resumes. */
  resourceVersion: string;
  /** When the list's first page was asked for: the snapshot is no older than this. */
  requestedAt: number;
  /** Objects taken over unchanged from the serving store. */
  unchanged: number;
  rejected: number;
  /** How many times the build let the event loop run. */
  yields: number;
}

export interface BuildOptions {
  sliceMs?: number;
  signal?: AbortSignal;
  /** An object the schema rejected: left out of the store. */
  onRejected(name: string, why: string): void;
}

/** Builds `kind`'s store from the pages of a LIST; undefined if aborted on the way. */
export async function buildStore(kind: Kind, pages: AsyncIterable<RawPage>, serving: KindStore, opts: BuildOptions): Promise<BuiltStore | undefined> {
  const store = emptyStore(kind);
  const slicer = new Slicer(opts.sliceMs);
  const built: BuiltStore = { store, resourceVersion: '', requestedAt: 0, unchanged: 0, rejected: 0, yields: 0 };
  for await (const page of pages) {
    built.resourceVersion = page.resourceVersion;
    built.requestedAt = page.requestedAt;
    for (const raw of page.items) {
      if (slicer.due()) await slicer.next();
      if (opts.signal?.aborted) return undefined;
      const same = unchanged(serving, raw);
      if (same) {
        upsertInto(store, same);
        built.unchanged++;
        continue;
      }
      const trimmed = trimObject(kind, raw);
      if (trimmed.ok) upsertInto(store, trimmed.object);
      else {
        built.rejected++;
        opts.onRejected(nameOf(raw), formatFieldErrors(trimmed.errors));
      }
    }
  }
  built.yields = slicer.slices;
  return opts.signal?.aborted ? undefined : built;
}

/** The serving store's object for `raw` when the API server's copy has the same resourceVersion: the same object. */
function unchanged(serving: KindStore, raw: unknown): PolicedObject | undefined {
  const m = (raw as { metadata?: { name?: unknown; namespace?: unknown; resourceVersion?: unknown } } | null)?.metadata;
  if (typeof m?.name !== 'string' || typeof m.resourceVersion !== 'string' || !m.resourceVersion) return undefined;
  const old = serving.get(typeof m.namespace === 'string' ? m.namespace : undefined, m.name);
  return old?.metadata.resourceVersion === m.resourceVersion ? old : undefined;
}
