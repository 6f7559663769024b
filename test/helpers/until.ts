// Waiting for something asynchronous to become true, with a bound: tests await the event they
// need instead of sleeping and hoping. The bound only tells a hang from a wait, so it is generous:
// on a 2-core machine at load 20 a process gets a tenth of a core, and what takes 1 s alone takes
// 10 s there. It costs nothing when the awaited thing happens.
type Falsy = undefined | null | false;

/** The shortest ceiling `until` takes: shorter ones fail on a loaded machine, not on a broken one. */
export const MIN_CEILING_MS = 60_000;

/** Polls every `intervalMs`; a probe that costs a request (an HTTPS round trip, a child process) wants a longer pause. */
export async function until<T>(
  what: string,
  probe: () => T | Falsy | Promise<T | Falsy>,
  timeoutMs = MIN_CEILING_MS,
  intervalMs = 5,
): Promise<T> {
  if (timeoutMs < MIN_CEILING_MS)
    throw new Error(
      `until(${what}): a ceiling of ${timeoutMs} ms is under ${MIN_CEILING_MS} ms (test/helpers/until.ts)`,
    );
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
