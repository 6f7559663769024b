// Scanning JSON text without parsing it: shared by body.ts (nesting, uid recovery, prototype keys)
// and json-incremental.ts (cutting big containers into pieces).

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;

/** The index of the quote that closes the string opened at `start` (or the text's length). */
export function endOfString(text: string, start: number): number {
  for (let at = text.indexOf('"', start + 1); at >= 0; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return text.length;
}

// A JSON escape (\u0070) of any letter of "__proto__", "constructor" or "prototype".
export const ESCAPED_NAME_LETTER = /\\u00(?:5[fF]|6[35eEfF]|7[0-59])/;
// In valid JSON a literal quote cannot stand inside a string, so these match keys only.
export const PROTO_KEY = /"__proto__"\s*:/;
export const CONSTRUCTOR_OBJECT = /"constructor"\s*:\s*\{/;
export const PROTOTYPE_KEY = /"prototype"\s*:/;

/** The prototype key an object has as its own (`__proto__`, or a `constructor` object's `prototype`). */
export function ownPrototypeKey(node: object): string | undefined {
  if (Object.hasOwn(node, '__proto__')) return '"__proto__"';
  if (!Object.hasOwn(node, 'constructor')) return undefined;
  const ctor = (node as Record<string, unknown>).constructor;
  return ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')
    ? '"constructor.prototype"'
    : undefined;
}

/**
 * A prototype key in the parsed `value` of valid JSON `text`, if any. The text decides alone
 * unless a key could be spelled with escapes, or both "constructor" and "prototype" are keys:
 * only then is the tree walked.
 */
export function prototypeKey(text: string, value: unknown): string | undefined {
  if (PROTO_KEY.test(text)) return '"__proto__"';
  if (!ESCAPED_NAME_LETTER.test(text) && !(CONSTRUCTOR_OBJECT.test(text) && PROTOTYPE_KEY.test(text))) return undefined;
  return walkTree(value, Number.POSITIVE_INFINITY).first;
}

/** What one walk of a parsed value found: nesting past the limit, and the first prototype key. */
export interface TreeFindings {
  tooDeep: boolean;
  /** The first prototype key met (depth first, the last child of each container first), if any. */
  first?: string;
  /** Whether some object has an own `__proto__`. */
  proto: boolean;
}

/**
 * Nesting depth and prototype keys of a parsed value in one walk, without recursion (the value
 * may nest 1,000 deep): for a body with more brackets than the limit, in place of the slower
 * character scan and the text searches; with an infinite depth, the walk `prototypeKey` falls back
 * to. A container at the top is depth 1, as in the text. Stops at the first container past `maxDepth`.
 */
export function walkTree(root: unknown, maxDepth: number): TreeFindings {
  const found: TreeFindings = { tooDeep: false, proto: false };
  if (root === null || typeof root !== 'object') return found;
  // Two parallel stacks rather than a pair per node: nothing is allocated per container.
  const pending: object[] = [root];
  const depths: number[] = [1];
  while (pending.length > 0) {
    const node = pending.pop()!;
    const depth = depths.pop()!;
    if (depth > maxDepth) {
      found.tooDeep = true;
      return found;
    }
    if (Array.isArray(node)) {
      for (const child of node) {
        if (child === null || typeof child !== 'object') continue;
        pending.push(child as object);
        depths.push(depth + 1);
      }
      continue;
    }
    if (found.first === undefined || !found.proto) {
      const own = ownPrototypeKey(node);
      if (own !== undefined) {
        found.first ??= own;
        if (own === '"__proto__"') found.proto = true;
      }
    }
    const record = node as Record<string, unknown>;
    // for...in allocates no array of values (half the time on a 100,000-key map).
    for (const key in record) {
      const child = record[key];
      if (child === null || typeof child !== 'object') continue;
      pending.push(child);
      depths.push(depth + 1);
    }
  }
  return found;
}

/**
 * The prototype key `prototypeKey(text, value)` names, from a walk of `value` already made (same
 * answer: the text's unescaped `"__proto__"` first, else the first the walk met).
 */
export function prototypeKeyFound(text: string, found: TreeFindings): string | undefined {
  if (found.first === undefined) return undefined;
  return found.proto && PROTO_KEY.test(text) ? '"__proto__"' : found.first;
}
