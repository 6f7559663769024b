// One copy of each string that many objects repeat (versions, image and profile names, windows,
// reasons). JSON.parse and structured clone give every object its own copies; a landscape has a
// few thousand distinct ones.
import { memo } from './memo.js';

/**
 * A function that returns the first copy it was given of a string equal to this one (anything
 * else as it is). Past `limit` strings it forgets them all (memo.ts): the bound only guards
 * against a stream of unique values.
 */
export function interner(limit: number): <T>(v: T) => T {
  const first = memo(limit, (s: string) => s);
  return <T>(v: T): T => (typeof v === 'string' ? (first(v) as T) : v);
}
