#!/usr/bin/env node
// `version-policy serve | check | explain | forecast | state export | remove-webhooks`. Exit codes:
// 0 all allowed, 1 something denied, 2 usage or input error, always as one line on stderr (and, for
// `check --output json|junit`, in that format on stdout too). A user never sees a stack trace.
import { readFileSync, writeFileSync } from 'node:fs';
import { Command, CommanderError, type HelpContext } from 'commander';
import { registerCheck } from './check.js';
import { type OutputFormat, OUTPUT_FORMATS, renderError, type ReportedError } from './check-output.js';
import { registerExplain } from './explain.js';
import { registerForecast } from './forecast.js';
import { UsageError } from './errors.js';
import { EXIT_DENIED, EXIT_INPUT, EXIT_OK } from './exit-codes.js';
import { type CliIo, type Invocation, processIo } from './io.js';
import { registerRemoveWebhooks } from './remove-webhooks.js';
import { registerServe } from './serve.js';
import { registerState } from './state-export.js';

export { EXIT_DENIED, EXIT_INPUT, EXIT_OK };

/**
 * The top level. Where commander would print the whole help as an error (no command, or `help`
 * of an unknown one), it says what is wrong in one line instead; `--help` still prints the help.
 */
class Program extends Command {
  override help(context?: HelpContext | ((text: string) => string)): never {
    if (typeof context === 'function') return super.help(context);
    if (!context?.error) return super.help(context);
    const [first, second] = this.args;
    const names = this.commands.map((c) => c.name()).join(', ');
    this.error(
      first === 'help' && second
        ? `error: unknown command '${second}' (commands: ${names})`
        : `error: missing command: one of ${names} (--help shows what each does)`,
    );
  }
}

export function buildProgram(run: Invocation = { io: processIo(), exitCode: EXIT_OK }): Command {
  const { io } = run;
  const program = new Program(asKubectlPlugin() ? 'kubectl version-policy' : 'version-policy')
    .description('Gardener version policy: admission webhook and offline checks')
    .version(packageVersion(), '-V, --version', 'print the version')
    .exitOverride()
    // Commander puts hints such as "(Did you mean check?)" on a line of their own; a usage error is
    // one line. Set before the commands are added, which copy it.
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: (text, write) => write(`${oneLine(text)}\n`),
    });
  registerServe(program);
  registerCheck(program, run);
  registerExplain(program, io);
  registerForecast(program, run);
  registerRemoveWebhooks(program, run);
  registerState(program, io);
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}

/** Runs one command line; returns its exit code. `serve` alone uses the process itself (signals, exit). */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const format = errorFormat(argv);
  const run: Invocation = { io, exitCode: EXIT_OK };
  try {
    const program = buildProgram(run);
    await program.parseAsync(argv, { from: 'user' });
    return run.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; every other parse failure is a usage error (commander printed its line).
      if (err.exitCode === 0) return EXIT_OK;
      io.stdout.write(renderError({ message: oneLine(err.message) }, format));
      writeErrorReports(argv, { message: oneLine(err.message) });
      return EXIT_INPUT;
    }
    const message =
      err instanceof UsageError ? oneLine(err.message) : `internal error: ${oneLine((err as Error).message)}`;
    io.stderr.write(`version-policy: ${message}\n`);
    io.stdout.write(renderError({ message, ...(err instanceof UsageError ? err.where : {}) }, format));
    writeErrorReports(argv, { message, ...(err instanceof UsageError ? err.where : {}) });
    return EXIT_INPUT;
  }
}

function oneLine(text: string): string {
  return text.trim().replace(/\s*\n\s*/g, ' ');
}

/**
 * `check --output json|junit|sarif|github` reports its errors in that format on stdout as well, so
 * a pipeline that reads stdout always gets a document it can parse. Read before parsing: an
 * unknown flag is an error too.
 */
function errorFormat(argv: readonly string[]): OutputFormat {
  const format = lastValue(argv, '--output');
  return (OUTPUT_FORMATS as readonly string[]).includes(format ?? '') ? (format as OutputFormat) : 'text';
}

/**
 * `check --junit FILE` and `--sarif FILE` get the error as a report too, so that the CI job that
 * uploads FILE shows why nothing was judged. Best effort: the error line on stderr is the answer.
 */
function writeErrorReports(argv: readonly string[], error: ReportedError): void {
  for (const format of ['junit', 'sarif'] as const) {
    const file = lastValue(argv, `--${format}`);
    if (!file) continue;
    try {
      writeFileSync(file, renderError(error, format));
    } catch {
      // The stderr line stands.
    }
  }
}

/** The value of `check`'s last `--flag V` or `--flag=V` (the last wins, as in commander). */
function lastValue(argv: readonly string[], flag: string): string | undefined {
  if (argv[0] !== 'check') return undefined;
  let value: string | undefined;
  for (let i = 1; i < argv.length && argv[i] !== '--'; i++) {
    const arg = argv[i] ?? '';
    if (arg === flag) value = argv[i + 1];
    else if (arg.startsWith(`${flag}=`)) value = arg.slice(flag.length + 1);
  }
  return value;
}

/** Run by kubectl as a plugin: the help says `kubectl version-policy`, as kubectl's plugin guide asks. */
function asKubectlPlugin(): boolean {
  return /(^|\/)kubectl-version_policy$/.test(process.argv[1] ?? '');
}

/** The version of the installed package: package.json sits two levels above dist/cli (and src/cli). */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
}

// npm links both bins to this file: `version-policy`, and `kubectl-version_policy`, which kubectl's
// plugin lookup runs for `kubectl version-policy …` (a dash of the command is an underscore in the file).
const invokedDirectly = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (invokedDirectly || /\/(version-policy|kubectl-version_policy)$/.test(process.argv[1] ?? '')) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    () => {
      process.exitCode = EXIT_INPUT;
    },
  );
}
