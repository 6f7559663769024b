// `version-policy explain`.
import type { Command } from 'commander';

// Placeholder until implemented.
export function registerExplain(program: Command): void {
  program.command('explain').description('not implemented yet');
}
