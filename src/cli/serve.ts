// `version-policy serve`.
import type { Command } from 'commander';

// Placeholder until implemented.
export function registerServe(program: Command): void {
  program.command('serve').description('not implemented yet');
}
