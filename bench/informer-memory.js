// Memory of the informer cache per Shoot: realistic Shoots, as the API server sends them in LIST
// pages, go through the informers' own path (JSON.parse of a page → trimObject → ClusterIndex
// upsert), and the retained heap and RSS are measured after a full GC. For comparison, the same
// Shoots kept untrimmed (what a cache of whole objects, e.g. client-node's ListWatch, holds).
//
//   npm run build && node --expose-gc bench/informer-memory.js [10000 100000]
//
// Not part of `npm test`.
import { ClusterIndex } from '../dist/cluster/cluster-index.js';
import { trimObject } from '../dist/cluster/trim.js';
import { K8S, apiShoot } from './api-objects.js';

if (typeof globalThis.gc !== 'function') {
  console.error('run with node --expose-gc');
  process.exit(2);
}

const PAGE = 500;

/** The informers' path: one page of JSON at a time, parsed, trimmed, indexed. */
function fill(n, keep) {
  const index = new ClusterIndex(true);
  const full = [];
  let pageBytes = 0;
  for (let start = 0; start < n; start += PAGE) {
    const page = JSON.stringify({
      kind: 'ShootList',
      apiVersion: 'core.gardener.cloud/v1beta1',
      metadata: {},
      items: Array.from({ length: Math.min(PAGE, n - start) }, (_, k) => apiShoot(start + k)),
    });
    pageBytes += page.length;
    for (const raw of JSON.parse(page).items) {
      if (keep === 'full') {
        full.push(raw);
        continue;
      }
      const t = trimObject('Shoot', raw);
      if (!t.ok) throw new Error(JSON.stringify(t.errors));
      index.upsert(t.object);
    }
  }
  return { index, full, pageBytes };
}

function settle() {
  for (let i = 0; i < 3; i++) globalThis.gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed + m.external + m.arrayBuffers, rss: m.rss };
}

const mb = (b) => (b / 1024 / 1024).toFixed(1);
const counts = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
console.log(`node ${process.version}, ${PAGE} Shoots per LIST page`);
for (const n of counts.length > 0 ? counts : [10_000, 100_000]) {
  for (const keep of ['trimmed', 'full']) {
    const before = settle();
    const held = fill(n, keep);
    const after = settle();
    const heap = after.heap - before.heap;
    const rss = after.rss - before.rss;
    const check =
      keep === 'trimmed'
        ? `, index: ${held.index.count('Shoot')} Shoots, ${held.index.kubernetesVersionUsers({ kind: 'CloudProfile', name: 'aws' }, K8S[0]).length} users of ${K8S[0]} on aws`
        : '';
    console.log(
      `${String(n).padStart(7)} Shoots ${keep.padEnd(7)}: heap +${mb(heap)} MB (${Math.round(heap / n)} B/Shoot, ${mb((heap / n) * 10_000)} MB per 10,000), rss +${mb(rss)} MB; JSON as served ${Math.round(held.pageBytes / n)} B/Shoot${check}`,
    );
    held.index = undefined;
    held.full.length = 0;
  }
}
