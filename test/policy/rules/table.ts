// A rule test reads as a table: request, expected violations of the rule under test (field paths,
// exactly) and words their messages must contain. decide() runs the real evaluate().
import type { Test } from 'tap';
import type { RuleId, Violation } from '../../../src/policy/decision.js';
import type { ErrorType } from '../../../src/api/field.js';
import type { DecideInput } from '../../helpers/objects.js';
import { decide } from '../../helpers/objects.js';

export interface Expected {
  field: string;
  /** Lower-case words the message must contain. */
  words?: string[];
  /** The error's type, where it matters. */
  type?: ErrorType;
}

export interface Row {
  name: string;
  input: DecideInput;
  /** Every violation of the rule under test; [] = the rule finds nothing. */
  want: Expected[];
}

/** Violations of `rule` for `input`. */
export function violationsOf(rule: RuleId, input: DecideInput): Violation[] {
  return decide(input).violations.filter((v) => v.rule === rule);
}

export function runTable(t: Test, rule: RuleId, rows: readonly Row[]): void {
  for (const row of rows) {
    t.test(row.name, async (t) => {
      const got = violationsOf(rule, row.input);
      t.same(got.map((v) => v.field).sort(), row.want.map((w) => w.field).sort(), 'fields');
      for (const w of row.want) {
        const at = got.filter((v) => v.field === w.field);
        if (w.type)
          t.ok(
            at.some((v) => v.type === w.type),
            `${w.field} is ${w.type}`,
            { types: at.map((v) => v.type) },
          );
        const messages = at.map((v) => v.message.toLowerCase());
        for (const word of w.words ?? []) {
          t.ok(
            messages.some((m) => m.includes(word)),
            `message at ${w.field} mentions "${word}"`,
            { messages },
          );
        }
      }
      for (const v of got)
        t.equal(v.message[0], v.message[0]?.toLowerCase(), `message starts lower-case: ${v.message}`);
    });
  }
}
