// Parse at the edge: the shape of every object we police is checked once, here, with ajv
// (compiled once at load), so rules can trust the types. Semantics (enums, orders, dates in the
// past) are the rules' business; this only guarantees that fields have the right JSON types.
import { Ajv, type ErrorObject } from 'ajv';
import type { FieldError } from './field.js';
import { instantOf } from './instant.js';
import { allowanceFor, limitErrors } from './limits.js';
import { memo } from '../util/memo.js';
import { formatCount } from '../util/text.js';
import type { Kind, PolicedObject } from './types.js';
import { GROUP_VERSION } from './types.js';

const timestamp = { type: 'string', format: 'date-time' } as const;
const str = { type: 'string' } as const;

const lifecycle = {
  type: 'array',
  items: {
    type: 'object',
    required: ['classification'],
    properties: { classification: str, startTime: timestamp },
  },
} as const;

const expirableVersion = {
  type: 'object',
  required: ['version'],
  properties: { version: str, classification: str, expirationDate: timestamp, lifecycle },
} as const;

const machineImageVersion = {
  type: 'object',
  required: ['version'],
  properties: {
    ...expirableVersion.properties,
    cri: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name'],
        properties: {
          name: str,
          containerRuntimes: {
            type: 'array',
            items: { type: 'object', required: ['type'], properties: { type: str } },
          },
        },
      },
    },
    architectures: { type: 'array', items: str },
    kubeletVersionConstraint: str,
    inPlaceUpdates: { type: 'object', properties: { supported: { type: 'boolean' }, minVersionForUpdate: str } },
    capabilityFlavors: { type: 'array' },
  },
} as const;

const machineImageProperties = {
  name: str,
  updateStrategy: str,
  versions: { type: 'array', items: machineImageVersion },
} as const;

const machineImage = { type: 'object', required: ['name', 'versions'], properties: machineImageProperties } as const;

// docs/rules.md MACHINE-IMAGES: an NCP's image entry may list no versions. It may override a parent
// image's updateStrategy alone; an image of the NCP's own needs versions, which MACHINE-IMAGES says.
const namespacedMachineImage = { type: 'object', required: ['name'], properties: machineImageProperties } as const;

const kubernetes = {
  type: 'object',
  required: ['versions'],
  properties: { versions: { type: 'array', items: expirableVersion } },
} as const;

const metadata = (namespaced: boolean) =>
  ({
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 1 },
      namespace: namespaced ? { type: 'string', minLength: 1 } : str,
      deletionTimestamp: timestamp,
      annotations: { type: 'object', additionalProperties: str },
    },
  }) as const;

const envelope = (kind: Kind, namespaced: boolean, spec: object) => ({
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  properties: {
    apiVersion: { const: GROUP_VERSION },
    kind: { const: kind },
    metadata: metadata(namespaced),
    spec,
  },
});

const schemas: Record<Kind, object> = {
  CloudProfile: envelope('CloudProfile', false, {
    type: 'object',
    required: ['kubernetes', 'machineImages'],
    properties: {
      kubernetes,
      machineImages: { type: 'array', items: machineImage },
      // What BASTION-IMAGE reads; Gardener requires the names it checks.
      machineTypes: { type: 'array', items: { type: 'object', properties: { name: str, architecture: str } } },
      bastion: {
        type: 'object',
        properties: {
          machineImage: { type: 'object', required: ['name'], properties: { name: str, version: str } },
          machineType: { type: 'object', required: ['name'], properties: { name: str } },
        },
      },
    },
  }),
  NamespacedCloudProfile: envelope('NamespacedCloudProfile', true, {
    type: 'object',
    required: ['parent'],
    properties: {
      parent: { type: 'object', required: ['kind', 'name'], properties: { kind: str, name: str } },
      kubernetes,
      machineImages: { type: 'array', items: namespacedMachineImage },
    },
  }),
  Shoot: envelope('Shoot', true, {
    type: 'object',
    required: ['kubernetes'],
    properties: {
      cloudProfileName: str,
      cloudProfile: { type: 'object', required: ['name'], properties: { kind: str, name: str } },
      kubernetes: { type: 'object', required: ['version'], properties: { version: str } },
      provider: {
        type: 'object',
        properties: {
          workers: {
            type: 'array',
            items: {
              type: 'object',
              required: ['name'],
              properties: {
                name: str,
                kubernetes: { type: 'object', properties: { version: str } },
                machine: {
                  type: 'object',
                  properties: {
                    image: { type: 'object', required: ['name'], properties: { name: str, version: str } },
                  },
                },
              },
            },
          },
        },
      },
    },
  }),
};

const ajv = new Ajv({ allErrors: true, strict: false });
// A timestamp is what Gardener's metav1.Time decodes (Go's RFC 3339), no more and no less.
ajv.addFormat('date-time', { type: 'string', validate: (s: string) => typeof instantOf(s) === 'number' });
// Compiled on first use: most CLI runs judge one kind, and a compile is a tenth of a CLI start.
const validatorOf = memo(3, (kind: Kind) => ajv.compile(schemas[kind]));

export const POLICED_KINDS: readonly Kind[] = ['CloudProfile', 'NamespacedCloudProfile', 'Shoot'];

export function isPolicedKind(kind: unknown): kind is Kind {
  return typeof kind === 'string' && (POLICED_KINDS as readonly string[]).includes(kind);
}

export { LIMITS } from './limits.js';

export type { FieldError } from './field.js';

export type ParseResult<T> = { ok: true; object: T } | { ok: false; errors: FieldError[] };

/** JSON pointer `/spec/kubernetes/versions/0` → `spec.kubernetes.versions[0]`. */
export function pointerToField(pointer: string): string {
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    out += /^[0-9]+$/.test(seg) ? `[${seg}]` : out ? `.${seg}` : seg;
  }
  return out;
}

function describe(e: ErrorObject, raw: unknown): FieldError {
  const base = pointerToField(e.instancePath);
  if (e.keyword === 'required') {
    const missing = String((e.params as { missingProperty: string }).missingProperty);
    return { field: base ? `${base}.${missing}` : missing, message: 'required field is missing' };
  }
  if (e.keyword === 'const') {
    return { field: base, message: `must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}` };
  }
  if (e.keyword === 'format') {
    const why = instantOf(String(valueAt(raw, e.instancePath)));
    return { field: base, message: `must be an RFC 3339 timestamp as Gardener decodes it: ${String(why)}` };
  }
  return { field: base, message: e.message ?? 'invalid' };
}

/** The value a JSON pointer names in `raw`. */
function valueAt(raw: unknown, pointer: string): unknown {
  let v = raw;
  for (const seg of pointer.split('/').slice(1))
    v = (v as Record<string, unknown> | undefined)?.[seg.replaceAll('~1', '/').replaceAll('~0', '~')];
  return v;
}

/** How many schema or limit errors a result names; the rest are counted. */
export const MAX_FIELD_ERRORS = 20;

export interface ParseOptions {
  /**
   * Hold the object to LIMITS (default). Off for objects read from the API server: they are stored
   * already, and leaving one out of the cache would hide its Shoots or versions from IN-USE.
   */
  limits?: boolean;
  /**
   * The stored object this one replaces (an UPDATE's `oldObject`): the limits rise to what it
   * already holds, so an over-limit profile can be kept or shrunk, never grown.
   */
  stored?: unknown;
}

/**
 * Checks that `raw` is a well-formed object of `kind` within the limits. On success the same
 * object is returned, typed. Errors name the bad fields (at most MAX_FIELD_ERRORS, the rest
 * counted), deepest first by JSON type.
 */
export function parsePolicedObject(kind: Kind, raw: unknown, opts: ParseOptions = {}): ParseResult<PolicedObject> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, errors: [{ field: '', message: `a ${kind} must be an object` }] };
  }
  if (opts.limits !== false) {
    const over = limitErrors(kind, raw, allowanceFor(kind, opts.stored));
    if (over.length > 0) return { ok: false, errors: capped(over) };
  }
  const validate = validatorOf(kind);
  if (kind !== 'Shoot') emptyListsAsGardenerSendsThem(raw);
  if (validate(raw)) return { ok: true, object: raw as PolicedObject };
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const e of validate.errors ?? []) {
    const d = describe(e, raw);
    const key = `${d.field}\u0000${d.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      errors.push(d);
    }
  }
  return { ok: false, errors: capped(errors) };
}

/**
 * gardener-apiserver sends the object as Go serialized it: an empty `kubernetes.versions` is left
 * out (omitempty), and an absent `machineImages` or image `versions` comes as null. Both are the
 * empty list the rules judge (K8S-VERSIONS, MACHINE-IMAGES), not a malformed object; measured
 * through the real gardener-apiserver (docs/gardener-parity.md). Written into `raw` before the
 * schema check, so the typed object and the one a patch is computed against agree.
 */
function emptyListsAsGardenerSendsThem(raw: { spec?: unknown }): void {
  const spec = raw.spec;
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return;
  const s = spec as { kubernetes?: unknown; machineImages?: unknown };
  const k = s.kubernetes as { versions?: unknown } | null | undefined;
  if (k !== null && typeof k === 'object' && !Array.isArray(k) && (k.versions === undefined || k.versions === null))
    k.versions = [];
  if (s.machineImages === null) s.machineImages = [];
  if (!Array.isArray(s.machineImages)) return;
  for (const image of s.machineImages as unknown[]) {
    if (image !== null && typeof image === 'object' && (image as { versions?: unknown }).versions === null)
      (image as { versions?: unknown }).versions = [];
  }
}

function capped(errors: FieldError[]): FieldError[] {
  if (errors.length <= MAX_FIELD_ERRORS) return errors;
  const rest = errors.length - (MAX_FIELD_ERRORS - 1);
  return [...errors.slice(0, MAX_FIELD_ERRORS - 1), { field: '', message: `and ${formatCount(rest)} more problems` }];
}

export function formatFieldErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join('; ');
}
