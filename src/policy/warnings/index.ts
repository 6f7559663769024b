// Warnings do not deny; they are said in the admission response and the CLI output.
import type { RuleContext } from '../rule.js';
import type { Warning } from '../warning.js';
import { forecastWarningsOf } from './forecast.js';
import { profileWarnings } from './profile.js';
import { shootWarnings } from './shoot.js';

/** A check that says what is worth saying about a request without denying it. */
export type WarningCheck = (ctx: RuleContext) => Warning[];

export const WARNINGS: readonly WarningCheck[] = [profileWarnings, shootWarnings, forecastWarningsOf];
