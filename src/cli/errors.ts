/** Bad input or usage: exit code 2 with one line, never a stack trace. */
export class UsageError extends Error {
  override name = 'UsageError';
}
