// Cluster state from files, for `check --state`, `serve --state`, demos and tests. Always synced.
import type { PolicedObject } from '../api/types.js';
import { ClusterIndex } from './cluster-index.js';
import { readObjectFiles } from './object-files.js';

export function staticState(objects: Iterable<PolicedObject>): ClusterIndex {
  const index = new ClusterIndex(true);
  for (const o of objects) index.upsert(o);
  return index;
}

export async function loadStaticState(files: readonly string[]): Promise<ClusterIndex> {
  const sourced = await readObjectFiles(files, { stored: true });
  return staticState(sourced.map((s) => s.object));
}
