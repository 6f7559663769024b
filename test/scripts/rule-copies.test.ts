// The copies of the rule list are what scripts/rule-copies.ts makes of it, and a rule added to
// the list (here a test-only one, declared the way every rule is) reaches evaluate() and each copy.
import { readFile } from 'node:fs/promises';
import t from 'tap';
import { COPIES, LISTED, pathOf } from '../../scripts/rule-copies.js';
import type { RuleId } from '../../src/policy/decision.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { fieldPath, forbidden } from '../../src/api/field.js';
import { defineRule, type Rule } from '../../src/policy/rule.js';
import { RULES } from '../../src/policy/rules/index.js';
import { staticState } from '../../src/cluster/static-state.js';
import { cloudProfile, config, NOW, shoot } from '../helpers/objects.js';

for (const copy of COPIES) {
  t.test(`${copy.file} lists the rule list as it is`, async (t) => {
    const current = await readFile(pathOf(copy.file), 'utf8');
    t.equal(current, copy.make(current, LISTED), 'out of date: run npm run generate');
  });
}

// A rule as docs/development.md "Adding a rule" writes one: its file, then one line in the list.
const judged: string[] = [];
const shootDeletion = defineRule({
  id: 'TEST-SHOOT-DELETION',
  kinds: ['Shoot'],
  operations: ['DELETE'],
  summary: 'deleting a Shoot (a test-only rule)',
  check(ctx) {
    judged.push(`${ctx.kind} ${ctx.operation}`);
    return [forbidden(fieldPath(), `shoot ${ctx.request.name} is being deleted`)];
  },
});

t.test(
  'a rule added to the list is called for its kinds and operations only, and its violations carry its ID and type',
  async (t) => {
    // Its ID is not a RuleId until the rule is in src/policy/rules/index.ts; here the config names it by hand.
    const rules = [...RULES, shootDeletion as unknown as Rule<RuleId>];
    const base = config();
    const cfg = { ...base, rules: { ...base.rules, 'TEST-SHOOT-DELETION': { enabled: true } } };
    const state = staticState([]);
    const sh = shoot({ name: 'web', namespace: 'garden-dev' });
    const run = (kind: 'Shoot' | 'CloudProfile', operation: 'CREATE' | 'DELETE') => {
      const object = kind === 'Shoot' ? sh : cloudProfile();
      const request = {
        kind,
        operation,
        name: object.metadata.name,
        dryRun: false,
        ...(operation === 'DELETE' ? { oldObject: object } : { object }),
      };
      return evaluate(request, { now: NOW, config: cfg, state, rules });
    };
    const deleted = run('Shoot', 'DELETE');
    t.same(
      deleted.violations.filter((v) => (v.rule as string) === 'TEST-SHOOT-DELETION'),
      [{ rule: 'TEST-SHOOT-DELETION', field: '', message: 'shoot web is being deleted', type: 'Forbidden' }],
    );
    run('Shoot', 'CREATE');
    run('CloudProfile', 'DELETE');
    t.same(judged, ['Shoot DELETE'], 'never called for another kind or operation');
  },
);

t.test('a rule added to the list reaches every copy', async (t) => {
  for (const copy of COPIES) {
    const current = await readFile(pathOf(copy.file), 'utf8');
    const next = copy.make(current, [...LISTED, shootDeletion]);
    t.match(next, 'TEST-SHOOT-DELETION', copy.file);
    t.equal(next.length > current.length, true, `${copy.file}: only grows`);
  }
  const readme = COPIES.find((c) => c.file === 'README.md')!;
  t.match(
    readme.make(await readFile(pathOf('README.md'), 'utf8'), [...LISTED, shootDeletion]),
    '- [`TEST-SHOOT-DELETION`](docs/rules.md#test-shoot-deletion) (Shoot DELETE): deleting a Shoot (a test-only rule)',
  );
});
