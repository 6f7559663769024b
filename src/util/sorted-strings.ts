// A set of strings held as one sorted text, one string a line: what a worker thread hands back
// whole at the cost of one copy (an array of 240,000 strings costs its receiver 35 ms to
// deserialize, and a Set of them 190 ms to build), with membership by binary search.

/** Strings sorted by code unit, without repeats, as one text. */
export class SortedStrings {
  /** The strings joined by '\n', sorted (the empty set: ''). */
  readonly text: string;
  readonly size: number;

  private constructor(text: string, size: number) {
    this.text = text;
    this.size = size;
  }

  /** The set of `values`. */
  static of(values: Iterable<string>): SortedStrings {
    const unique = [...new Set([...values].map(line))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return new SortedStrings(unique.join('\n'), unique.length);
  }

  /** The set as another thread handed it over (`text` and `size` of one made by `of`). */
  static from(plain: { text: string; size: number }): SortedStrings {
    return new SortedStrings(plain.text, plain.size);
  }

  static readonly EMPTY = new SortedStrings('', 0);

  /** Whether `value` is in the set: O(log n) line reads. */
  has(raw: string): boolean {
    if (this.size === 0) return false;
    const value = line(raw);
    const text = this.text;
    let lo = 0;
    let hi = text.length;
    // Invariant: every line that starts before `lo` is < value, every line that starts at or after `hi` is > value.
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const start = text.lastIndexOf('\n', mid - 1) + 1;
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      const line = text.slice(start, end);
      if (line === value) return true;
      if (line < value) lo = end + 1;
      else hi = start;
    }
    return false;
  }

  /** Every string, in the set's order. */
  *values(): Iterable<string> {
    if (this.size === 0) return;
    for (const l of this.text.split('\n')) yield l.startsWith(ESCAPED) ? (JSON.parse(l.slice(1)) as string) : l;
  }
}

/** A value that could break the lines (a line break, or this mark first) is held as the mark and its JSON. */
const ESCAPED = '\u0001';
const line = (v: string): string => (v.includes('\n') || v.startsWith(ESCAPED) ? ESCAPED + JSON.stringify(v) : v);
