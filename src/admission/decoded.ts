// A decoded body as another thread hands it over: plain data (structured clone keeps no class),
// turned back into what the event loop's code reads.
import type { DecodedBody } from './body.js';
import { type ErrorName, WebhookError } from './errors.js';
import type { MappedRequest } from './request.js';
import type { AdmissionRequest } from './review.js';
import { SortedStrings } from '../util/sorted-strings.js';
import type { RemovedVersions } from '../policy/rule.js';

/** A decoded body, and its request already mapped (toPolicyRequest) when it is one to judge. */
export interface PlainDecoded {
  decoded: DecodedBody;
  mapped?: MappedRequest;
}

/**
 * The decoded body with the request's objects left out (the mapped request holds what is read
 * of them) but their names, and each error as its code and message: what crosses the threads.
 */
export function toPlain(decoded: DecodedBody, mapped: MappedRequest | undefined): PlainDecoded {
  if (!decoded.ok) {
    const { error } = decoded;
    return {
      decoded: { ...decoded, error: { code: error.code, message: error.message } as unknown as WebhookError },
    };
  }
  const request: AdmissionRequest = { ...decoded.review.request };
  for (const key of ['object', 'oldObject'] as const) {
    const o = request[key] as { metadata?: { name?: unknown; namespace?: unknown } } | null | undefined;
    if (o === undefined) continue;
    request[key] =
      o !== null && typeof o === 'object' && o.metadata !== null && typeof o.metadata === 'object'
        ? { metadata: { name: o.metadata.name, namespace: o.metadata.namespace } }
        : null;
  }
  return { decoded: { ...decoded, review: { ...decoded.review, request } }, ...(mapped ? { mapped } : {}) };
}

/** `toPlain` undone: the error a WebhookError again, removed versions a SortedStrings again. */
export function fromPlain(plain: PlainDecoded): PlainDecoded {
  const { decoded, mapped } = plain;
  if (!decoded.ok) {
    const { code, message } = decoded.error as unknown as { code: string; message: string };
    return { decoded: { ...decoded, error: new WebhookError(code.replace(/^VP_ERR_/, '') as ErrorName, message) } };
  }
  const stored = mapped?.outcome === 'policed' ? mapped.request.stored : undefined;
  const r = stored?.removed;
  if (stored && r) {
    stored.removed = {
      count: r.count,
      kubernetes: SortedStrings.from(r.kubernetes),
      imageVersions: SortedStrings.from(r.imageVersions),
      images: SortedStrings.from(r.images),
    } satisfies RemovedVersions;
  }
  return plain;
}
