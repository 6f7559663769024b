// Binary search over sorted instants, used by the forecast.

/** Index of the first element ≥ t: how many of the sorted values lie strictly before t. */
export function firstAtOrAfter(sorted: readonly number[], t: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
