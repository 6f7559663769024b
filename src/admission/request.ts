// AdmissionRequest → PolicyRequest: the typed adapter between the wire and the policy core.
// Kinds and operations we do not police are said to be so; objects of kinds we police are checked
// against their schema here, at the edge, so a malformed one is refused with its fields named.
import type { FieldError, ParseOptions } from '../api/parse.js';
import { isPolicedKind, parsePolicedObject } from '../api/parse.js';
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
  const errors: FieldError[] = [];
  // The limits apply to what a request adds, never to what is stored (issue 24): the oldObject is
  // stored already, and an UPDATE may keep or shrink what it holds. So a profile over the limits
  // can always be repaired or deleted.
  const object = checked(kind, req.object, '', operation !== 'DELETE', errors, {
    stored: operation === 'UPDATE' ? req.oldObject : undefined,
  });
  // A refused object needs no oldObject: skip the work of checking one of any size.
  if (errors.length > 0) return { outcome: 'malformed', errors };
  // The stored object is checked whole, as the rules' own parse checks it: a field they never read
  // can still make it malformed, and a review of a malformed one is refused (issue 34). Only then
  // is the part the rules read taken of it (stored.ts): what it claims buys no rule work.
  const whole = checked(kind, req.oldObject, 'oldObject', operation === 'UPDATE', errors, { limits: false });
  if (errors.length > 0) return { outcome: 'malformed', errors };
  // A DELETE's rules read only the name and namespace of what goes (IN-USE finds its referrers).
  const read = operation === 'UPDATE' && object && whole ? readStored(kind, object, whole) : undefined;

  const meta = (object ?? whole)?.metadata;
  // A DELETE's oldObject is not handed on: its namespace is where IN-USE looks when none is given.
  const namespace =
    req.namespace || meta?.namespace || (operation === 'DELETE' ? whole?.metadata.namespace : undefined);
  return {
    outcome: 'policed',
    request: {
      operation,
      kind,
      name: meta?.name ?? req.name ?? '',
      ...(namespace ? { namespace } : {}),
      ...(object && operation !== 'DELETE' ? { object } : {}),
      ...(read ? { oldObject: read.oldObject } : {}),
      ...(read?.stored ? { stored: read.stored } : {}),
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
