// The messages between the server's event loop and its landscape worker (worker.ts): plain data,
// copied by structured clone. State deltas and asks travel on one port, in order, so an ask is
// answered on the mirror as it was when the ask was sent.
import type { Kind, PolicedObject } from '../../api/types.js';

/** One change of the mirrored state; `reset` empties it (a new worker, or a feed that starts over). */
export type Delta =
  | { op: 'reset' }
  | { op: 'upsert'; object: PolicedObject }
  | { op: 'remove'; kind: Kind; namespace: string | undefined; name: string };

export type ToWorker =
  { t: 'state'; deltas: Delta[] } | { t: 'ask'; id: number; task: string; input: unknown } | { t: 'ping'; id: number };

export type FromWorker =
  | { t: 'ready' }
  | { t: 'answer'; id: number; value: unknown }
  | { t: 'failed'; id: number; error: string }
  /** A piece of a long answer, sent as it is made, so that no message is large. */
  | { t: 'part'; id: number; value: unknown }
  | { t: 'pong'; id: number };

/** What the worker is started with (workerData): nothing it needs; a test's own entry reads it. */
export type WorkerSetup = Record<string, unknown>;
