// The mutating path's rules: not checks of the rule list, but IDs the config can switch off and
// the rule book describes. A leaf: the rule list and the config both read it.
import type { Kind, Operation } from '../api/types.js';

export const MUTATING_RULES = [
  {
    id: 'DEFAULT-GARDENER',
    kinds: ['CloudProfile'],
    operations: ['CREATE', 'UPDATE'],
    summary: "nothing: fills in Gardener's machine-image defaults (mutating)",
  },
  {
    id: 'DEFAULT-LIFECYCLE',
    kinds: ['CloudProfile'],
    operations: ['CREATE', 'UPDATE'],
    summary: 'nothing: writes lifecycles for plain versions (mutating)',
  },
] as const satisfies ReadonlyArray<{
  id: string;
  kinds: readonly Kind[];
  operations: readonly Operation[];
  summary: string;
}>;

export type MutatingRuleId = (typeof MUTATING_RULES)[number]['id'];
