// The worker's mirror is fed from the event loop's index: a snapshot, then every change, in order,
// at most OBJECTS_PER_TURN objects per turn of the event loop; a relist's swap sends only what it
// changed; an ask goes after the deltas before it. The mirror here is the worker's own code
// (applyDeltas) on this thread: what crosses the thread boundary is plain data either way.
import t from '../helpers/parts.js';
import type { PolicedObject } from '../../src/api/types.js';
import { ClusterIndex, emptyStore, upsertInto } from '../../src/cluster/cluster-index.js';
import { staticState } from '../../src/cluster/static-state.js';
import type { ToWorker } from '../../src/server/workers/protocol.js';
import { OBJECTS_PER_TURN, StateFeed } from '../../src/server/workers/state-feed.js';
import { applyDeltas } from '../../src/server/workers/worker.js';
import { trimObject } from '../../src/cluster/trim.js';
import { cloudProfile, shoot as wholeShoot } from '../helpers/objects.js';

/** A Shoot as the informers keep it (cluster/trim.ts): the mirror keeps that shape, with its own strings. */
function shoot(s: Parameters<typeof wholeShoot>[0]): PolicedObject {
  const trimmed = trimObject('Shoot', wholeShoot(s));
  if (!trimmed.ok) throw new Error(JSON.stringify(trimmed.errors));
  return trimmed.object;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

function fed(index: ClusterIndex) {
  const mirror = { index: new ClusterIndex(true) };
  const posted: ToWorker[] = [];
  const feed = new StateFeed(index, (m) => {
    posted.push(structuredClone(m));
    if (m.t === 'state') applyDeltas(mirror, structuredClone(m.deltas));
  });
  const settle = async () => {
    for (let i = 0; i < 10_000 && feed.backlog > 0; i++) await turn();
  };
  return { mirror, posted, feed, settle };
}

/** Every object of an index, as JSON by key: the mirror holds copies, never the same objects. */
function contents(index: ClusterIndex): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kind of ['CloudProfile', 'NamespacedCloudProfile', 'Shoot'] as const)
    for (const o of index.store(kind).values())
      out[`${kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`] = JSON.stringify(o);
  return out;
}

const shoots = (n: number, version = '1.31.0') =>
  Array.from({ length: n }, (_, i) => shoot({ name: `s${i}`, namespace: `ns${i % 7}`, version }));

t.test('a snapshot, copied a turn at a time, then every change in order', async (t) => {
  const index = staticState([cloudProfile(), ...shoots(3 * OBJECTS_PER_TURN)]);
  const { mirror, posted, feed, settle } = fed(index);
  feed.start();
  t.equal(posted.length, 0, 'nothing is copied in the call that starts it');
  await turn();
  const first = posted.flatMap((m) => (m.t === 'state' ? m.deltas : []));
  t.ok(
    first.length > 0 && first.length <= OBJECTS_PER_TURN + 1,
    `one turn copies at most a turn's worth: ${first.length}`,
  );
  await settle();
  t.same(contents(mirror.index), contents(index), 'the mirror holds every object');
  t.equal(mirror.index.shootsUsing({ kind: 'CloudProfile', name: 'profile' }).length, 3 * OBJECTS_PER_TURN);

  index.upsert(shoot({ name: 's1', namespace: 'ns1', version: '1.30.0' }));
  index.remove('Shoot', 'ns2', 's2');
  index.upsert(shoot({ name: 'new', namespace: 'x' }));
  await settle();
  t.same(contents(mirror.index), contents(index), 'an upsert, a removal and an addition follow');
  t.equal(mirror.index.kubernetesVersionShootCount({ kind: 'CloudProfile', name: 'profile' }, '1.30.0'), 1);
});

t.test("a relist's swap sends what it changed, not what it kept", async (t) => {
  const index = staticState([cloudProfile(), ...shoots(600)]);
  const { mirror, feed, settle } = fed(index);
  feed.start();
  await settle();
  const sentBefore = feed.sent;
  const serving = index.store('Shoot');
  // The relist keeps an unchanged object as the same object; 10 changed, 5 gone, 3 new.
  const store = emptyStore('Shoot');
  for (const s of serving.values()) {
    const n = Number(s.metadata.name.slice(1));
    if (n < 5) continue;
    upsertInto(
      store,
      n < 15 ? shoot({ name: s.metadata.name, namespace: s.metadata.namespace, version: '1.32.0' }) : s,
    );
  }
  for (const name of ['n1', 'n2', 'n3']) upsertInto(store, shoot({ name, namespace: 'fresh' }));
  index.swap(store);
  // A watch event right after the swap, before the diff has been sent: it wins.
  index.upsert(shoot({ name: 's20', namespace: 'ns6', version: '1.29.0' }));
  index.remove('Shoot', 'fresh', 'n3');
  await settle();
  t.same(contents(mirror.index), contents(index), 'the mirror is the index again');
  // 10 changed, 2 new (n3 went before the diff reached it), and s20 once, as the watch left it.
  t.equal(feed.sent - sentBefore, 10 + 2 + 1, 'only what changed was copied');
});

t.test('an ask goes after the deltas before it, at once when little waits', async (t) => {
  const index = staticState([cloudProfile(), ...shoots(10)]);
  const { posted, feed, settle } = fed(index);
  feed.start();
  await settle();
  posted.length = 0;
  index.upsert(shoot({ name: 'late', namespace: 'x' }));
  feed.send({ t: 'ask', id: 1, task: 'review-forecast', input: {} });
  t.same(
    posted.map((m) => m.t),
    ['state', 'ask'],
    'sent in the same call: the delta, then the ask',
  );
  // A long backlog: the ask waits its turn behind it.
  posted.length = 0;
  const many: PolicedObject[] = shoots(3 * OBJECTS_PER_TURN, '1.30.0');
  for (const s of many) index.upsert(s);
  feed.send({ t: 'ask', id: 2, task: 'review-forecast', input: {} });
  t.equal(posted.length, 0, 'not in this call');
  await settle();
  t.equal(posted.at(-1)?.t, 'ask', 'after every delta');
});
