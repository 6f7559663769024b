// "Did you mean …?" for a misspelt name: the closest of the known names, or none when nothing is
// close. Case is ignored, so `cloudprofile` finds `CloudProfile`.

/**
 * The known name nearest to `name` by edit distance (insert, delete, replace, swap two neighbours),
 * if that distance is small for the name's length: at most a third of it, and at most 4. Else the
 * one known name that starts with `name`, or that `name` starts with (`forced` → `forced-soon`).
 */
export function nearest(name: string, known: Iterable<string>): string | undefined {
  const wanted = name.toLowerCase();
  const names = [...known];
  return closest(wanted, names) ?? onlyPrefix(wanted, names);
}

function onlyPrefix(wanted: string, names: readonly string[]): string | undefined {
  if (wanted.length < 3) return undefined;
  const hits = names.filter((n) => {
    const k = n.toLowerCase();
    return k.startsWith(wanted) || (wanted.startsWith(k) && k.length >= 3);
  });
  return hits.length === 1 ? hits[0] : undefined;
}

function closest(wanted: string, known: readonly string[]): string | undefined {
  const bound = Math.min(4, Math.max(1, Math.floor(wanted.length / 3)));
  let best: string | undefined;
  let bestDistance = bound + 1;
  for (const candidate of known) {
    const d = editDistance(wanted, candidate.toLowerCase(), bestDistance);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

/** ` (did you mean "X"?)`, or '' when no known name is close. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const n = nearest(name, known);
  return n === undefined ? '' : ` (did you mean ${JSON.stringify(n)}?)`;
}

/** Optimal string alignment distance; stops early and returns `limit` once it cannot be below it. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      row.push(d);
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin >= limit) return limit;
    [before, previous] = [previous, row];
  }
  return Math.min(previous[b.length]!, limit);
}
