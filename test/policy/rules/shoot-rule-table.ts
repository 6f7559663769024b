// One table runner for the SHOOT-* rules: each row is a request, the state it meets, and the
// violations of the rule under test it must produce (field, words of the message); an empty list
// means the rule allows it.
import type { Test } from 'tap';
import type { ErrorType } from '../../../src/api/field.js';
import type { PolicedObject, Shoot } from '../../../src/api/types.js';
import { decide } from '../../helpers/objects.js';
import { AWS, NCP } from './shoot-profile.js';

export interface RuleRow {
  name: string;
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  object?: Shoot;
  oldObject?: Shoot;
  /** Defaults to the `aws` profile and its NamespacedCloudProfile `garden-dev/team`. */
  state?: PolicedObject[];
  synced?: boolean;
  /** [field, ...words the message contains]; one entry per expected violation. */
  want: Array<[string, ...string[]]>;
  /** Words no message of the rule may contain. */
  absent?: string[];
  /** The error type of every violation of the row, where it matters. */
  type?: ErrorType;
}

export function runRows(t: Test, rule: string, rows: readonly RuleRow[]): void {
  for (const row of rows) {
    t.test(row.name, async (t) => {
      const d = decide({
        operation: row.operation,
        ...(row.object ? { object: row.object } : {}),
        ...(row.oldObject ? { oldObject: row.oldObject } : {}),
        state: row.state ?? [AWS, NCP, ...(row.oldObject ? [row.oldObject] : [])],
        ...(row.synced === false ? { synced: false } : {}),
      });
      const got = d.violations.filter((v) => v.rule === rule);
      t.same(got.map((v) => v.field).sort(), row.want.map(([field]) => field).sort(), 'violation fields');
      if (row.type)
        t.same(
          got.map((v) => v.type),
          got.map(() => row.type),
          `each is ${row.type}`,
        );
      for (const [field, ...words] of row.want) {
        const message = got.find((v) => v.field === field)?.message ?? '';
        for (const word of words) t.match(message, word, `${field || '(object)'} says ${JSON.stringify(word)}`);
      }
      for (const word of row.absent ?? [])
        t.notMatch(got.map((v) => v.message).join('\n'), word, `no message says ${JSON.stringify(word)}`);
    });
  }
}
