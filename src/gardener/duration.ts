// Go-style durations (`2880h`, `90m`, `1h30m`), as Gardener operators write them.
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

export const DURATION_PATTERN = '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$';
const PART = /([0-9]+(?:\.[0-9]+)?)(ns|us|µs|ms|s|m|h)/g;

/** Milliseconds in a Go-style duration; throws on anything else. */
export function parseDuration(text: string): number {
  if (!new RegExp(DURATION_PATTERN).test(text))
    throw new Error(`invalid duration ${JSON.stringify(text)}: use Go syntax such as 2880h or 90m`);
  let total = 0;
  for (const m of text.matchAll(PART)) total += Number(m[1]) * UNIT_MS[m[2]!]!;
  return total;
}
