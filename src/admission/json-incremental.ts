// JSON.parse for big bodies, in pieces that each block the event loop for a few milliseconds
// (issue 13: no review may block it for 100 ms; JSON.parse of a 7 MiB body takes 50 to 110 ms).
//
// Why not a streaming JSON library: a tokenizer written in JavaScript builds every value by hand
// and runs 3 to 10 times slower than V8's JSON.parse, and its strings, numbers and duplicate keys
// would have to be proven equal to JSON.parse's. Here V8 still parses every value: only the
// containers too big to parse in one piece are opened by hand, and their members are handed to
// JSON.parse in batches of about BATCH_CHARS characters. So the value is JSON.parse's own, and the
// hand-written part is only the grammar of big containers (brackets, commas, colons, keys).
//
//   1. A scan of the whole text, resumable, with nestsDeeperThan's exact semantics (so a body
//      too deep is refused as too deep whatever else is wrong with it), that also notes every
//      container spanning more than BATCH_CHARS, and every container never closed.
//   2. The parse: from the root, a big container is opened; its members are cut at top-level
//      commas into batches, each parsed as `{members}` or `[members]` and merged in order (so a
//      duplicate key keeps its first place and its last value, as in JSON.parse); a member whose
//      value is itself big is opened in turn.
//
// Between pieces the parser yields (setImmediate) once it has run for `budgetMs`.
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  CLOSE_BRACE,
  CLOSE_BRACKET,
  endOfString,
  OPEN_BRACE,
  OPEN_BRACKET,
  ownPrototypeKey,
  prototypeKey,
  QUOTE,
} from './json-text.js';

/** Members handed to JSON.parse at once: about 1 ms of work. */
export const BATCH_CHARS = 64 * 1024;
/** How long one turn may run before yielding. */
export const TURN_BUDGET_MS = 8;
/** Characters scanned between looks at the clock. */
const SCAN_STEP = 64 * 1024;

export interface IncrementalOptions {
  /** Deeper nesting than this (counted as nestsDeeperThan counts) is refused as `tooDeep`. */
  maxDepth: number;
  budgetMs?: number;
  batchChars?: number;
}

/**
 * `ok: true`: the value JSON.parse would return. `prototypeSuspect` is false only when no object
 * of the value has an own `__proto__` key or a `constructor` object with an own `prototype` key.
 * `ok: false`: not JSON (`tooDeep`: nests deeper than allowed, whether JSON or not).
 */
export type IncrementalResult =
  { ok: true; value: unknown; prototypeSuspect: boolean } | { ok: false; tooDeep: boolean };

const COMMA = 0x2c;
const COLON = 0x3a;
const NO_CLOSE = -1;

class Invalid extends Error {}

function skipSpace(text: string, at: number): number {
  for (;;) {
    const c = text.charCodeAt(at);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return at;
    at++;
  }
}

class Clock {
  private start = performance.now();
  constructor(private readonly budgetMs: number) {}
  async pace(): Promise<void> {
    if (performance.now() - this.start < this.budgetMs) return;
    await nextTurn();
    this.start = performance.now();
  }
}

/**
 * Phase 1: whether the text nests deeper than `maxDepth` (exactly as nestsDeeperThan), and if not,
 * where each container longer than `minSpan` closes (NO_CLOSE: never).
 */
async function scanContainers(
  text: string,
  maxDepth: number,
  minSpan: number,
  clock: Clock,
): Promise<Map<number, number> | undefined> {
  const big = new Map<number, number>();
  const opens: number[] = [];
  const n = text.length;
  let depth = 0;
  for (let i = 0; i < n;) {
    const stop = Math.min(n, i + SCAN_STEP);
    for (; i < stop; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) i = endOfString(text, i);
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (++depth > maxDepth) return undefined;
        opens.push(i);
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        const open = opens.pop();
        if (open !== undefined && i - open > minSpan) big.set(open, i);
      }
    }
    await clock.pace();
  }
  for (const open of opens) big.set(open, NO_CLOSE);
  return big;
}

/** Whether the value JSON.parse made of `text` holds a prototype key anywhere. */
const holdsPrototypeKey = (text: string, root: unknown): boolean => prototypeKey(text, root) !== undefined;

/** Sets a key as JSON.parse does: an own data property, even for `__proto__`. */
function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

interface Frame {
  isObject: boolean;
  value: Record<string, unknown> | unknown[];
  /** Whether a member has been taken in (the first batch may become the value itself). */
  filled: boolean;
  /** Where the container closes, NO_CLOSE if it never does. */
  close: number;
  /** The key this container has in its parent object. */
  key: string;
}

/**
 * JSON.parse(text), in pieces. Invalid JSON is refused like JSON.parse refuses it; the value
 * (key order, duplicate keys, numbers, strings) is JSON.parse's own.
 */
export async function parseIncrementally(text: string, options: IncrementalOptions): Promise<IncrementalResult> {
  // Reading the body and decoding its text took a turn already.
  await nextTurn();
  const clock = new Clock(options.budgetMs ?? TURN_BUDGET_MS);
  const batchChars = options.batchChars ?? BATCH_CHARS;
  const big = await scanContainers(text, options.maxDepth, batchChars, clock);
  if (!big) return { ok: false, tooDeep: true };
  try {
    const parsed = await parseWithin(text, big, batchChars, clock);
    // What follows (schema, policy) starts in a turn of its own.
    await nextTurn();
    return { ok: true, ...parsed };
  } catch (e) {
    if (e instanceof Invalid || e instanceof SyntaxError) return { ok: false, tooDeep: false };
    throw e;
  }
}

async function parseWithin(
  text: string,
  big: Map<number, number>,
  batchChars: number,
  clock: Clock,
): Promise<{ value: unknown; prototypeSuspect: boolean }> {
  const n = text.length;
  const root = skipSpace(text, 0);
  if (!big.has(root)) {
    // No container to open (a big string, or a small value in much space): JSON.parse alone.
    const value: unknown = JSON.parse(text);
    return { value, prototypeSuspect: holdsPrototypeKey(text, value) };
  }
  let suspect = false;
  const stack: Frame[] = [];
  const open = (at: number, key: string): Frame => {
    const isObject = text.charCodeAt(at) === OPEN_BRACE;
    return { isObject, value: isObject ? {} : [], filled: false, close: big.get(at)!, key };
  };
  let frame = open(root, '');
  let at = root + 1;
  for (;;) {
    // At the start of a member (after the opening bracket or a comma): cut a batch of members.
    let depth = 0;
    let lastComma = -1;
    let bigAt = -1;
    let j = at;
    const enough = at + batchChars;
    for (; j < n; j++) {
      const c = text.charCodeAt(j);
      if (c === QUOTE) j = endOfString(text, j);
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (depth === 0 && big.has(j)) {
          bigAt = j;
          break;
        }
        depth++;
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        if (depth === 0) break;
        depth--;
      } else if (c === COMMA && depth === 0) {
        lastComma = j;
        if (j >= enough) break;
      }
    }
    if (j >= n) throw new Invalid('unterminated');
    const end = bigAt >= 0 ? lastComma : j;
    if (end >= 0) {
      // Members at..end, none of them big.
      const members = text.slice(at, end);
      if (skipSpace(members, 0) === members.length) {
        // No member: only `{ }` or `[ ]` itself may be empty.
        if (!(end === j && j === frame.close && !frame.filled)) throw new Invalid('missing member');
      } else {
        const wrapped = frame.isObject ? `{${members}}` : `[${members}]`;
        const part: unknown = JSON.parse(wrapped);
        if (!suspect && holdsPrototypeKey(members, part)) suspect = true;
        if (!frame.filled) frame.value = part as Frame['value'];
        else if (Array.isArray(part)) for (const item of part) (frame.value as unknown[]).push(item);
        else
          for (const key in part as Record<string, unknown>)
            setKey(frame.value as Record<string, unknown>, key, (part as Record<string, unknown>)[key]);
        frame.filled = true;
      }
      at = end + 1;
      if (end === lastComma) {
        await clock.pace();
        continue;
      }
    } else {
      // The first member's value is big: open it.
      let key = '';
      let v = skipSpace(text, at);
      if (frame.isObject) {
        if (text.charCodeAt(v) !== QUOTE) throw new Invalid('key expected');
        const keyEnd = endOfString(text, v);
        key = JSON.parse(text.slice(v, keyEnd + 1)) as string;
        v = skipSpace(text, keyEnd + 1);
        if (text.charCodeAt(v) !== COLON) throw new Invalid('colon expected');
        v = skipSpace(text, v + 1);
      }
      if (v !== bigAt) throw new Invalid('value expected');
      stack.push(frame);
      frame = open(bigAt, key);
      at = bigAt + 1;
      await clock.pace();
      continue;
    }
    // At a closing bracket (j): the container ends, and so may its parents.
    for (;;) {
      if (j !== frame.close || text.charCodeAt(j) !== (frame.isObject ? CLOSE_BRACE : CLOSE_BRACKET))
        throw new Invalid('mismatched bracket');
      if (frame.isObject && ownPrototypeKey(frame.value) !== undefined) suspect = true;
      const done = frame;
      const parent = stack.pop();
      if (!parent) {
        if (skipSpace(text, j + 1) !== n) throw new Invalid('text after the value');
        return { value: done.value, prototypeSuspect: suspect };
      }
      if (parent.isObject) setKey(parent.value as Record<string, unknown>, done.key, done.value);
      else (parent.value as unknown[]).push(done.value);
      parent.filled = true;
      frame = parent;
      const next = skipSpace(text, j + 1);
      if (text.charCodeAt(next) === COMMA) {
        at = next + 1;
        break;
      }
      j = next;
    }
    await clock.pace();
  }
}
