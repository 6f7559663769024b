#!/usr/bin/env node
// `version-policy serve | check | explain`. Exit codes: 0 all allowed, 1 something denied,
// 2 usage or input error. A user never sees a stack trace.
import { Command, CommanderError } from 'commander';
import { registerCheck } from './check.js';
import { registerExplain } from './explain.js';
import { UsageError } from './errors.js';
import { EXIT_DENIED, EXIT_INPUT, EXIT_OK } from './exit-codes.js';
import { registerServe } from './serve.js';

export { EXIT_DENIED, EXIT_INPUT, EXIT_OK };

export function buildProgram(): Command {
  const program = new Command('version-policy')
    .description('Gardener version policy: admission webhook and offline checks')
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(text) });
  registerServe(program);
  registerCheck(program);
  registerExplain(program);
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    const program = buildProgram();
    await program.parseAsync(argv, { from: 'user' });
    return process.exitCode === undefined ? EXIT_OK : Number(process.exitCode);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; every other parse failure is a usage error.
      return err.exitCode === 0 ? EXIT_OK : EXIT_INPUT;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`version-policy: ${err.message}\n`);
      return EXIT_INPUT;
    }
    process.stderr.write(`version-policy: internal error: ${(err as Error).message}\n`);
    return EXIT_INPUT;
  }
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (invokedDirectly || process.argv[1]?.endsWith('/version-policy')) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    () => {
      process.exitCode = EXIT_INPUT;
    },
  );
}
