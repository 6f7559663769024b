// JSON Patch for `check`'s report: the difference between the object sent and the one stored.
// The webhook's own patch is built by the mutating path from the levels defaulting writes
// (policy/defaulting/patch.ts); both are checked against each other in test/policy/defaulting.
// fast-json-patch escapes paths (RFC 6901) and emits add/remove/replace.
import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';

export type PatchOperation = Operation;

/** The RFC 6902 operations that turn `original` into `mutated`. */
export function jsonPatch(original: unknown, mutated: unknown): PatchOperation[] {
  if (original === mutated) return [];
  return jsonpatch.compare(original as object, mutated as object);
}

/** The base64 form kube-apiserver expects in `response.patch`. */
export function encodePatch(ops: readonly PatchOperation[]): string {
  return Buffer.from(JSON.stringify(ops), 'utf8').toString('base64');
}
