// Mutation as a diff: the defaulted copy against the original, never hand-built operations
// (controller-runtime's PatchResponseFromRaw idiom). fast-json-patch escapes paths (RFC 6901) and
// emits add/remove/replace that kube-apiserver applies to the object exactly as it sent it.
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
