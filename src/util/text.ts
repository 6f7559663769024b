// Lists in messages are capped: a message names a few items and counts the rest, whatever the
// input's size, so no denial or warning grows with it.

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** A few items of a list for a message, e.g. `1.30.0, 1.31.0 and 3 more`. Reads only the items it names. */
export function listSome(items: readonly string[], max = 5): string {
  if (items.length <= max) return items.join(', ');
  return `${items.slice(0, max).join(', ')} and ${formatCount(items.length - max)} more`;
}

/** `a`, `a and b`, `a, b and c`, or `a, b, c, d, e and 7 more`: a few items in words, the rest counted. */
export function inWords(items: readonly string[], max = 5): string {
  if (items.length <= 1) return items.join('');
  if (items.length <= max) return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
  return listSome(items, max);
}

/** The `count` smallest items by `key`, in order, without sorting the whole list: O(n log count). */
export function smallest<T>(items: Iterable<T>, count: number, key: (item: T) => string): T[] {
  const kept: Array<{ k: string; item: T }> = [];
  for (const item of items) {
    const k = key(item);
    if (kept.length === count && k >= kept[count - 1]!.k) continue;
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (kept[mid]!.k <= k) lo = mid + 1;
      else hi = mid;
    }
    kept.splice(lo, 0, { k, item });
    if (kept.length > count) kept.pop();
  }
  return kept.map((e) => e.item);
}
