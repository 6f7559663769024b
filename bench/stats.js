// Measurement helpers: alternating rounds, median and spread. Machines here are shared and
// noisy, so every figure is the median of several rounds, and comparisons interleave A and B.

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Spread as the relative half-range of the middle half (IQR / 2 / median), in percent. */
export function spreadPct(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.max(0, Math.round(p * (s.length - 1))))];
  const m = median(s);
  return m === 0 ? 0 : ((q(0.75) - q(0.25)) / 2 / m) * 100;
}

/** Microseconds per call of `fn`, over `iterations` calls. */
export function timePerCall(fn, iterations) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  return Number(process.hrtime.bigint() - start) / 1000 / iterations;
}

/**
 * Runs every variant once per round, in rotating order, for `rounds` rounds, after a warm-up.
 * Returns per-variant samples (µs per call).
 */
export function alternate(variants, { rounds = 9, warmup = 200, targetMs = 150 } = {}) {
  const iterations = {};
  for (const [name, fn] of Object.entries(variants)) {
    for (let i = 0; i < warmup; i++) fn();
    const probe = timePerCall(fn, 20);
    iterations[name] = Math.max(5, Math.round((targetMs * 1000) / Math.max(probe, 0.01)));
  }
  const names = Object.keys(variants);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length]);
    for (const name of order) samples[name].push(timePerCall(variants[name], iterations[name]));
  }
  return samples;
}

export const fmt = (x, digits = 1) => (x >= 100 ? x.toFixed(0) : x.toFixed(digits));
