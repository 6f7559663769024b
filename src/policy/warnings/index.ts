// Warnings do not deny; they are said in the admission response and the CLI output.
import type { RuleContext } from '../rule.js';
import type { Warning } from '../warning.js';
import { profileWarnings } from './profile.js';
import { shootWarnings } from './shoot.js';

export const WARNINGS: ReadonlyArray<(ctx: RuleContext) => Warning[]> = [profileWarnings, shootWarnings];
