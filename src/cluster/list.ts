// One complete, consistent LIST of a resource, page by page (`limit` + `continue`). Every page is
// trimmed as it arrives, so a 100,000-Shoot list never sits in memory as raw JSON. The pages of
// one list share the first page's snapshot; the list's resourceVersion is where a watch resumes.
// `check --cluster` takes the whole list at once (listAll); the informers page by page (listPages).
import type { FieldError } from '../api/parse.js';
import type { PolicedObject } from '../api/types.js';
import type { ApiConnection } from './api-client.js';
import { ApiError, getJson } from './api-client.js';
import type { Resource } from './resources.js';
import { trimObject } from './trim.js';

/** 500 objects per page is client-go's reflector default: a page of full Shoots stays a few MB. */
export const DEFAULT_PAGE_SIZE = 500;

export interface ListResult {
  items: PolicedObject[];
  resourceVersion: string;
  /** Objects the schema rejected, by `namespace/name`. */
  rejected: Array<{ name: string; errors: FieldError[] }>;
}

interface ListPage {
  metadata?: { resourceVersion?: unknown; continue?: unknown };
  items?: unknown;
}

export interface RawPage {
  /** The objects as the API server sent them. */
  items: unknown[];
  /** The list's resourceVersion: the first page's, which every later page is read from. */
  resourceVersion: string;
  /** When the first page was asked for: the list's snapshot is no older than this. */
  requestedAt: number;
}

/** The pages of one LIST, raw; the caller trims them (the informers in slices, see informer.ts). */
export async function* listPages(
  conn: ApiConnection,
  resource: Resource,
  pageSize = DEFAULT_PAGE_SIZE,
  signal?: AbortSignal,
  now: () => number = Date.now,
): AsyncGenerator<RawPage> {
  const requestedAt = now();
  let resourceVersion = '';
  let cont = '';
  do {
    const page = (await getJson(conn, resource.path, { limit: pageSize, continue: cont }, signal)) as ListPage;
    if (!Array.isArray(page.items)) throw new ApiError(`GET ${resource.path}: the response is not a list`, 0);
    if (!cont)
      resourceVersion = typeof page.metadata?.resourceVersion === 'string' ? page.metadata.resourceVersion : '';
    cont = typeof page.metadata?.continue === 'string' ? page.metadata.continue : '';
    yield { items: page.items as unknown[], resourceVersion, requestedAt };
  } while (cont);
}

export async function listAll(
  conn: ApiConnection,
  resource: Resource,
  pageSize = DEFAULT_PAGE_SIZE,
  signal?: AbortSignal,
): Promise<ListResult> {
  const result: ListResult = { items: [], resourceVersion: '', rejected: [] };
  for await (const page of listPages(conn, resource, pageSize, signal)) {
    for (const raw of page.items) {
      const trimmed = trimObject(resource.kind, raw);
      if (trimmed.ok) result.items.push(trimmed.object);
      else result.rejected.push({ name: nameOf(raw), errors: trimmed.errors });
    }
    result.resourceVersion = page.resourceVersion;
  }
  return result;
}

export function nameOf(raw: unknown): string {
  const m = (raw as { metadata?: { name?: unknown; namespace?: unknown } } | null)?.metadata;
  const name = typeof m?.name === 'string' ? m.name : '?';
  return typeof m?.namespace === 'string' && m.namespace ? `${m.namespace}/${name}` : name;
}
