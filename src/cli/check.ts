// `version-policy check`.
import type { Command } from 'commander';

// Placeholder until implemented.
export function registerCheck(program: Command): void {
  program.command('check').description('not implemented yet');
}
