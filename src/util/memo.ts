// Results remembered per argument, for the pure functions the hot path calls with the same few
// strings on every review (versions, timestamps, constraints).

/**
 * `compute`, remembered per key. Once `limit` keys are held the next new key forgets them all:
 * a bound on memory that costs nothing per hit, and a review's working set refills it at once.
 */
export function memo<K, V>(limit: number, compute: (key: K) => V): (key: K) => V {
  const known = new Map<K, V>();
  return (key) => {
    let value = known.get(key);
    if (value === undefined && !known.has(key)) {
      value = compute(key);
      if (known.size >= limit) known.clear();
      known.set(key, value);
    }
    return value as V;
  };
}
