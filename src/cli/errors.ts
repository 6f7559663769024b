/** Bad input or usage: exit code 2 with one line, never a stack trace. */
export class UsageError extends Error {
  override name = 'UsageError';

  /** Where the bad input is, when it is in a file: `check --output json` reports it as data. */
  constructor(
    message: string,
    readonly where: { file?: string; line?: number } = {},
  ) {
    super(message);
  }
}
