// The body worker's thread (body-worker.ts says why it exists): one body at a time, decoded and
// mapped by the admission layer's own functions, handed back as plain data.
import { parentPort } from 'node:worker_threads';
import {
  type BodyHeaders,
  contentCodings,
  decodeBody,
  decodeBodyIncrementally,
  decodeEncodedBody,
  INCREMENTAL_BODY_BYTES,
} from '../admission/body.js';
import { toPlain } from '../admission/decoded.js';
import { toPolicyRequest } from '../admission/request.js';

export interface DecodeTask {
  id: number;
  bytes: Uint8Array;
  headers: BodyHeaders;
  /** The body limit: how far an encoded body is inflated while its uid is looked for. */
  limit: number;
}

export async function decodeTask(task: DecodeTask) {
  const bytes = Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength);
  const plain = contentCodings(task.headers.contentEncoding).length === 0;
  // The same path as on the event loop: the same verdict on the same bytes (a big body's nesting
  // scan in pieces is also the one that stays linear on 7 MiB of brackets).
  const decoded = !plain
    ? await decodeEncodedBody(bytes, task.headers, task.limit)
    : bytes.length <= INCREMENTAL_BODY_BYTES
      ? decodeBody(bytes, task.headers)
      : await decodeBodyIncrementally(bytes, task.headers);
  const mapped = decoded.ok && decoded.problems.length === 0 ? toPolicyRequest(decoded.review.request) : undefined;
  return toPlain(decoded, mapped);
}

// Its modules are loaded: the body's deadline starts now (body-worker.ts).
parentPort?.postMessage({ ready: true });
parentPort?.on('message', (task: DecodeTask) => {
  decodeTask(task).then(
    (result) => parentPort!.postMessage({ id: task.id, result }),
    (err: unknown) => parentPort!.postMessage({ id: task.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
