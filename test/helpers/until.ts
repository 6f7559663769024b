// Waiting for something asynchronous to become true, with a bound: tests await the event they
// need instead of sleeping and hoping.
type Falsy = undefined | null | false;

/** Polls every `intervalMs`; a probe that costs a request (an HTTPS round trip, a child process) wants a longer pause. */
export async function until<T>(
  what: string,
  probe: () => T | Falsy | Promise<T | Falsy>,
  timeoutMs = 5000,
  intervalMs = 5,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
