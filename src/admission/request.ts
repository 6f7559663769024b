// AdmissionRequest → PolicyRequest: the typed adapter between the wire and the policy core.
// Kinds and operations we do not police are said to be so; objects of kinds we police are checked
// against their schema here, at the edge, so a malformed one is refused with its fields named.
import type { FieldError, ParseOptions } from '../api/parse.js';
import { isPolicedKind, parseIdentity, parsePolicedObject } from '../api/parse.js';
import type { PolicyRequest } from '../policy/rule.js';
import type { Kind, Operation, PolicedObject } from '../api/types.js';
import type { AdmissionRequest } from './review.js';
import { readStored } from './stored.js';

export const GARDENER_GROUP = 'core.gardener.cloud';
const OPERATIONS: readonly string[] = ['CREATE', 'UPDATE', 'DELETE'] satisfies Operation[];

export type MappedRequest =
  | { outcome: 'policed'; request: PolicyRequest }
  | { outcome: 'unpoliced'; warning: string }
  | { outcome: 'malformed'; errors: FieldError[] };

export function toPolicyRequest(req: AdmissionRequest): MappedRequest {
  const { group, version, kind } = req.kind;
  if (group !== GARDENER_GROUP || !isPolicedKind(kind)) {
    return {
      outcome: 'unpoliced',
      warning: `version-policy does not police ${group || 'core'}/${version} ${kind}; admitted without checks`,
    };
  }
  if (!OPERATIONS.includes(req.operation)) {
    return {
      outcome: 'unpoliced',
      warning: `version-policy does not judge ${req.operation} requests; admitted without checks`,
    };
  }
  const operation = req.operation as Operation;
  if (operation === 'DELETE') return deletion(kind, req);
  const errors: FieldError[] = [];
  // The limits apply to what a request adds, never to what is stored (issue 24): the oldObject is
  // stored already, and an UPDATE may keep or shrink what it holds. So a profile over the limits
  // can always be repaired or deleted.
  const object = checked(kind, req.object, '', true, errors, {
    stored: operation === 'UPDATE' ? req.oldObject : undefined,
  });
  // A refused object needs no oldObject: skip the work of checking one of any size.
  if (errors.length > 0 || !object) return { outcome: 'malformed', errors };
  // Of the stored object, only what the rules read (stored.ts): what it claims buys no work.
  const stored: unknown = req.oldObject;
  const read =
    operation === 'UPDATE' && stored !== undefined && stored !== null ? readStored(kind, object, stored) : undefined;
  const oldObject = checked(kind, read?.oldObject, 'oldObject', operation === 'UPDATE', errors, { limits: false });
  if (errors.length > 0) return { outcome: 'malformed', errors };

  const meta = object.metadata;
  const namespace = req.namespace || meta.namespace;
  return {
    outcome: 'policed',
    request: {
      operation,
      kind,
      name: meta.name,
      ...(namespace ? { namespace } : {}),
      object,
      ...(oldObject ? { oldObject } : {}),
      ...(read?.stored ? { stored: read.stored } : {}),
      dryRun: req.dryRun === true,
      ...(req.userInfo?.username ? { user: req.userInfo.username } : {}),
    },
  };
}

/**
 * A DELETE needs only the name and namespace of what goes (IN-USE looks up its referrers in the
 * cluster state), read from the stored object and checked as the schema checks them: nothing else
 * of it, nor any object sent along, is read.
 */
function deletion(kind: Kind, req: AdmissionRequest): MappedRequest {
  const old: unknown = req.oldObject;
  if (old === undefined || old === null)
    return {
      outcome: 'malformed',
      errors: [{ field: 'request.oldObject', message: 'required for this operation, but missing' }],
    };
  const identity = parseIdentity(kind, old);
  if (!identity.ok)
    return {
      outcome: 'malformed',
      errors: identity.errors.map((e) => ({
        field: ['oldObject', e.field].filter(Boolean).join('.'),
        message: e.message,
      })),
    };
  const { name, namespace: own } = identity.object.metadata;
  const namespace = req.namespace || own;
  return {
    outcome: 'policed',
    request: {
      operation: 'DELETE',
      kind,
      name,
      ...(namespace ? { namespace } : {}),
      dryRun: req.dryRun === true,
      ...(req.userInfo?.username ? { user: req.userInfo.username } : {}),
    },
  };
}

/** The object if present and well-formed; otherwise records why not. `null` counts as absent (DELETE sends it). */
function checked(
  kind: Kind,
  raw: unknown,
  prefix: string,
  required: boolean,
  errors: FieldError[],
  opts: ParseOptions,
): PolicedObject | undefined {
  if (raw === undefined || raw === null) {
    if (required)
      errors.push({
        field: prefix ? `request.${prefix}` : 'request.object',
        message: `required for this operation, but missing`,
      });
    return undefined;
  }
  const parsed = parsePolicedObject(kind, raw, opts);
  if (parsed.ok) return parsed.object;
  for (const e of parsed.errors)
    errors.push({ field: [prefix, e.field].filter(Boolean).join('.'), message: e.message });
  return undefined;
}
