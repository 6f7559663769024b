// Every public case through evaluate(). Cases of rule DEFAULT-LIFECYCLE run with lifecycle
// defaulting on; every other case runs both with and without it and must answer the same.
import t from '../helpers/parts.js';
import { caseInput, loadCases, mismatches } from '../helpers/cases.js';
import { decide } from '../helpers/objects.js';

for (const c of loadCases()) {
  t.test(`${c.id} [${c.rule}]`, async (t) => {
    const modes = c.rule === 'DEFAULT-LIFECYCLE' ? [true] : [false, true];
    for (const defaulting of modes) {
      const decision = decide(caseInput(c, defaulting));
      t.same(mismatches(c, decision), [], `lifecycle defaulting ${defaulting ? 'on' : 'off'}`);
    }
  });
}
