// Feeds the landscape worker's mirror from the event loop's ClusterIndex: a snapshot at the start,
// then every change in order. What goes to the worker is copied (structured clone), so the copying
// is sliced: at most OBJECTS_PER_TURN objects' worth per turn of the event loop. A relist's swap
// is diffed by identity (the relist keeps unchanged objects), in slices too, sending only what
// changed. Asks go through the same queue, behind the deltas before them: the worker answers on
// the state the event loop judged against.
import type { ClusterIndex, IndexChange, KindStore } from '../../cluster/cluster-index.js';
import type { Kind, PolicedObject } from '../../api/types.js';
import type { Delta, ToWorker } from './protocol.js';

/** Objects copied per turn of the event loop: about 1–3 ms of structured clone for trimmed Shoots. */
export const OBJECTS_PER_TURN = 256;
/** A profile's versions weigh this much less than an object: a profile at 8,000 entries goes alone. */
const ENTRIES_PER_OBJECT = 32;

type Item = { delta: Delta } | { diff: Diff } | { message: ToWorker };

/** A swap to be sent as the changes it made: both stores' objects as they were at the swap. */
interface Diff {
  kind: Kind;
  before: KindStore;
  added: readonly PolicedObject[];
  removed: readonly PolicedObject[];
  /** How far the comparison has got, over `added` then `removed`. */
  at: number;
}

export class StateFeed {
  private readonly queue: Item[] = [];
  private head = 0;
  private scheduled: NodeJS.Immediate | undefined;
  private stopObserving: (() => void) | undefined;
  /** Objects sent since the feed (re)started; tests and the start-up log read it. */
  sent = 0;

  constructor(
    private readonly index: ClusterIndex,
    private readonly post: (m: ToWorker) => void,
  ) {}

  /** Starts over: the worker's mirror is emptied, then given every object, then every change. */
  start(): void {
    this.stop();
    this.queue.length = 0;
    this.head = 0;
    this.push({ delta: { op: 'reset' } });
    for (const kind of ['CloudProfile', 'NamespacedCloudProfile', 'Shoot'] as const)
      for (const object of this.index.store(kind).values()) this.push({ delta: { op: 'upsert', object } });
    this.stopObserving = this.index.observe((c) => this.observed(c));
    this.schedule();
  }

  stop(): void {
    this.stopObserving?.();
    this.stopObserving = undefined;
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
  }

  /** Sends `message` after every delta before it: at once when little is waiting, else in turn. */
  send(message: ToWorker): void {
    this.push({ message });
    if (this.backlog <= OBJECTS_PER_TURN) this.pump();
    else this.schedule();
  }

  /** Items not sent yet. */
  get backlog(): number {
    return this.queue.length - this.head;
  }

  private observed(c: IndexChange): void {
    if (c.op === 'upsert') this.push({ delta: { op: 'upsert', object: c.object } });
    else if (c.op === 'remove')
      this.push({ delta: { op: 'remove', kind: c.kind, namespace: c.namespace, name: c.name } });
    else {
      // Both lists as the swap left them (a copy of references); compared later, in slices.
      this.push({
        diff: { kind: c.kind, before: c.before, added: [...c.after.values()], removed: [...c.before.values()], at: 0 },
      });
    }
    this.schedule();
  }

  private push(item: Item): void {
    this.queue.push(item);
  }

  private schedule(): void {
    this.scheduled ??= setImmediate(() => {
      this.scheduled = undefined;
      this.pump();
    });
  }

  /** Sends up to a turn's worth, in order; schedules the rest. */
  private pump(): void {
    let budget = OBJECTS_PER_TURN;
    let deltas: Delta[] = [];
    const flush = () => {
      if (deltas.length > 0) this.post({ t: 'state', deltas });
      deltas = [];
    };
    while (this.head < this.queue.length && budget > 0) {
      const item = this.queue[this.head]!;
      if ('delta' in item) {
        deltas.push(item.delta);
        budget -= weightOf(item.delta);
        this.sent += item.delta.op === 'upsert' ? 1 : 0;
        this.head++;
      } else if ('message' in item) {
        flush();
        this.post(item.message);
        budget--;
        this.head++;
      } else if (
        this.diffSlice(
          item.diff,
          deltas,
          () => budget--,
          () => budget > 0,
        )
      )
        this.head++;
    }
    flush();
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    if (this.head < this.queue.length) this.schedule();
  }

  /**
   * Part of a swap's diff. An object is sent when the old store did not hold this very object and
   * the index still serves it (a later change is queued behind and wins anyway); an old one is
   * removed when the index no longer holds its name. Returns true when the diff is done.
   */
  private diffSlice(d: Diff, deltas: Delta[], spend: () => void, more: () => boolean): boolean {
    const serving = this.index.store(d.kind);
    const total = d.added.length + d.removed.length;
    // A comparison costs a little even when nothing is copied: 1/8 of an object.
    for (let n = 0; d.at < total && more(); d.at++) {
      if (++n % 8 === 0) spend();
      if (d.at < d.added.length) {
        const o = d.added[d.at]!;
        const { namespace, name } = o.metadata;
        if (d.before.get(namespace, name) === o || serving.get(namespace, name) !== o) continue;
        deltas.push({ op: 'upsert', object: o });
        this.sent++;
        spend();
      } else {
        const { namespace, name } = d.removed[d.at - d.added.length]!.metadata;
        if (serving.get(namespace, name) === undefined) deltas.push({ op: 'remove', kind: d.kind, namespace, name });
      }
    }
    return d.at >= total;
  }
}

/** What copying a delta costs, in objects: a profile by its number of versions. */
function weightOf(d: Delta): number {
  if (d.op !== 'upsert' || d.object.kind === 'Shoot') return 1;
  const spec = d.object.spec as {
    kubernetes?: { versions?: unknown[] };
    machineImages?: Array<{ versions?: unknown[] }>;
  };
  const entries =
    (spec.kubernetes?.versions?.length ?? 0) +
    (spec.machineImages ?? []).reduce((n, i) => n + (i.versions?.length ?? 0), 0);
  return 1 + Math.floor(entries / ENTRIES_PER_OBJECT);
}
