// The two requests the cluster layer makes: a GET of a JSON document (a LIST page) and a GET that
// streams watch events. client-node's KubeConfig supplies the server, TLS and credentials (token
// files and exec plugins are refreshed per request); the HTTP is node's own, so a watch is a plain
// chunked response we read line by line and can abort at once.
import * as http from 'node:http';
import * as https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/** A Kubernetes `Status` failure, or a transport failure (status 0). */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    message: string,
    readonly status: number,
    readonly reason = '',
    /** From a 429/503 `Retry-After`, in milliseconds. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }

  /** 410: the resourceVersion or continue token is older than the server's history. */
  get gone(): boolean {
    return this.status === 410;
  }
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Record<string, unknown>;
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface ApiConnection {
  readonly server: string;
  /** Fresh request options (agent with the cluster CA and client cert, auth header). */
  requestOptions(): Promise<https.RequestOptions>;
}

export function connectionFrom(kc: KubeConfig): ApiConnection {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  return {
    server: cluster.server.replace(/\/+$/, ''),
    async requestOptions() {
      const opts: https.RequestOptions = {};
      await kc.applyToHTTPSOptions(opts);
      return opts;
    },
  };
}

/** Until the server answers with headers; a LIST page or a watch that takes longer is treated as hung. */
const CONNECT_TIMEOUT_MS = 30_000;

function urlOf(conn: ApiConnection, path: string, query: Query): URL {
  const url = new URL(conn.server + path);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
  return url;
}

async function send(
  conn: ApiConnection,
  url: URL,
  signal: AbortSignal | undefined,
  idleMs: number,
): Promise<http.IncomingMessage> {
  const base = await conn.requestOptions();
  const transport = url.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    const req = transport.request(url, {
      ...base,
      method: 'GET',
      headers: { ...base.headers, Accept: 'application/json' },
      ...(signal ? { signal } : {}),
    });
    // Timers run before I/O in an event-loop turn: after the loop was busy (a loaded machine, a
    // big parse), an answer already read by the kernel would lose to the timer. setImmediate runs
    // after this turn's I/O, so the deadline only fires when no answer has come in.
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (!answered)
            req.destroy(new ApiError(`no response from ${conn.server} within ${CONNECT_TIMEOUT_MS / 1000}s`, 0));
        }),
      CONNECT_TIMEOUT_MS,
    );
    let answered = false;
    req.setTimeout(idleMs, () =>
      req.destroy(new ApiError(`connection to ${conn.server} idle for ${Math.round(idleMs / 1000)}s`, 0)),
    );
    req.once('response', (res) => {
      answered = true;
      clearTimeout(timer);
      resolve(res);
    });
    req.once('error', (err) => {
      clearTimeout(timer);
      reject(transportError(conn, err));
    });
    req.end();
  });
}

function transportError(conn: ApiConnection, err: Error): Error {
  if (err instanceof ApiError || err.name === 'AbortError') return err;
  const code = (err as NodeJS.ErrnoException).code;
  return new ApiError(`cannot reach the API server ${conn.server}: ${code ? `${code} ` : ''}${err.message}`, 0);
}

async function readBody(res: http.IncomingMessage): Promise<string> {
  res.setEncoding('utf8');
  let body = '';
  for await (const chunk of res) body += chunk as string;
  return body;
}

/** Turns a non-2xx response (a `Status` body, usually) into an ApiError. */
async function failure(res: http.IncomingMessage, what: string): Promise<ApiError> {
  const body = await readBody(res).catch(() => '');
  let message = '';
  let reason = '';
  try {
    const status = JSON.parse(body) as { message?: unknown; reason?: unknown };
    if (typeof status.message === 'string') message = status.message;
    if (typeof status.reason === 'string') reason = status.reason;
  } catch {
    message = body.slice(0, 200);
  }
  const code = res.statusCode ?? 0;
  const retryAfter = Number(res.headers['retry-after']);
  return new ApiError(
    `${what}: ${code} ${reason || http.STATUS_CODES[code] || ''}${message ? `: ${message}` : ''}`.trim(),
    code,
    reason,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,
  );
}

export async function getJson(conn: ApiConnection, path: string, query: Query, signal?: AbortSignal): Promise<unknown> {
  const url = urlOf(conn, path, query);
  const res = await send(conn, url, signal, CONNECT_TIMEOUT_MS * 2);
  if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) throw await failure(res, `GET ${path}`);
  let body: string;
  try {
    body = await readBody(res);
  } catch (err) {
    throw transportError(conn, err as Error);
  }
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw new ApiError(`GET ${path}: the response is not JSON (cut off?)`, 0);
  }
}

/**
 * Opens a watch. Resolves once the server has answered 200; the events are then read from the
 * returned iterable, which ends when the server closes the stream cleanly and throws when the
 * connection drops. `idleMs`: the longest silence tolerated (bookmarks arrive about every minute).
 */
export async function openWatch(
  conn: ApiConnection,
  path: string,
  query: Query,
  idleMs: number,
  signal?: AbortSignal,
): Promise<AsyncIterable<WatchEvent>> {
  const url = urlOf(conn, path, { ...query, watch: 1 });
  const res = await send(conn, url, signal, idleMs);
  if (res.statusCode !== 200) throw await failure(res, `WATCH ${path}`);
  return watchEvents(conn, res);
}

async function* watchEvents(conn: ApiConnection, res: http.IncomingMessage): AsyncIterable<WatchEvent> {
  res.setEncoding('utf8');
  let pending = '';
  try {
    for await (const chunk of res) {
      pending += chunk as string;
      let start = 0;
      let nl: number;
      while ((nl = pending.indexOf('\n', start)) >= 0) {
        const line = pending.slice(start, nl).trim();
        start = nl + 1;
        if (line) yield parseEvent(line);
      }
      pending = pending.slice(start);
    }
  } catch (err) {
    throw transportError(conn, err as Error);
  } finally {
    res.destroy();
  }
  if (pending.trim()) yield parseEvent(pending.trim());
}

function parseEvent(line: string): WatchEvent {
  let ev: unknown;
  try {
    ev = JSON.parse(line);
  } catch {
    throw new ApiError('watch stream carried a line that is not JSON', 0);
  }
  const e = ev as Partial<WatchEvent>;
  if (typeof e.type !== 'string' || typeof e.object !== 'object' || e.object === null)
    throw new ApiError('watch stream carried an event without type or object', 0);
  return e as WatchEvent;
}
