// formatDenial, the one place a denial message is written, and the per-rule cap on violations.
// kubectl prints the message after `admission webhook "…" denied the request: ` as it is, so the
// tests read it the way a terminal shows it.
import t from '../helpers/parts.js';
import type { Violation } from '../../src/policy/decision.js';
import { capViolations, DENIAL_LIMITS, formatDenial, MAX_VIOLATIONS_PER_RULE } from '../../src/policy/decision.js';
import { fieldPath, invalid } from '../../src/api/field.js';

const KUBECTL =
  'Error from server (Forbidden): error when creating "aws.yaml": admission webhook "validate.version-policy.gardener.cloud" denied the request: ';

const v = (n: number, message = `problem ${n}`): Violation => ({
  rule: 'K8S-VERSIONS',
  field: `spec.kubernetes.versions[${n}]`,
  message,
});

t.test('one violation stays on the line kubectl starts', async (t) => {
  t.equal(formatDenial([v(0)]), '[K8S-VERSIONS] spec.kubernetes.versions[0]: problem 0');
  t.equal(
    formatDenial([{ rule: 'IN-USE', field: '', message: 'still referenced' }]),
    '[IN-USE] still referenced',
    'no field, no colon',
  );
});

t.test('several violations: a count ends the first line, then one per line', async (t) => {
  const message = formatDenial([
    v(0),
    {
      rule: 'PAST-EXPIRATION',
      field: 'spec.kubernetes.versions[1].expirationDate',
      message: 'expiration date for version "1.30.0" is in the past',
    },
  ]);
  t.equal(
    KUBECTL + message,
    [
      `${KUBECTL}2 violations:`,
      '[K8S-VERSIONS] spec.kubernetes.versions[0]: problem 0',
      '[PAST-EXPIRATION] spec.kubernetes.versions[1].expirationDate: expiration date for version "1.30.0" is in the past',
    ].join('\n'),
  );
});

t.test('more lines than fit are counted', async (t) => {
  const lines = formatDenial(Array.from({ length: 30 }, (_, i) => v(i))).split('\n');
  t.equal(lines[0], '30 violations:');
  t.equal(lines.length, 1 + DENIAL_LIMITS.lines + 1);
  t.equal(lines.at(-1), 'and 10 more violations; see version-policy check --output json');
});

t.test('a long line is cut, and the whole message stays within its length', async (t) => {
  const one = formatDenial([v(0, 'x'.repeat(5_000))]);
  t.equal(one.length, DENIAL_LIMITS.lineLength);
  t.ok(one.endsWith('…'));
  const all = formatDenial(Array.from({ length: 19 }, (_, i) => v(i, 'y'.repeat(2_000))));
  t.ok(all.length <= DENIAL_LIMITS.length + 100, `${all.length} characters`);
  t.match(all, /\nand \d+ more violations; see version-policy check --output json$/);
});

t.test('a rule keeps its first violations and counts the rest in one line, which the denial counts too', async (t) => {
  const found = Array.from({ length: MAX_VIOLATIONS_PER_RULE + 25 }, (_, i) =>
    invalid(fieldPath('spec', 'kubernetes', 'versions').index(i), `problem ${i}`),
  );
  const kept = capViolations('K8S-VERSIONS', found);
  t.same(
    kept[0],
    { rule: 'K8S-VERSIONS', field: 'spec.kubernetes.versions[0]', message: 'problem 0', type: 'Invalid' },
    'each carries the rule and its error type',
  );
  t.equal(kept.length, MAX_VIOLATIONS_PER_RULE + 1);
  t.same(kept.at(-1), { rule: 'K8S-VERSIONS', field: '', message: 'and 25 more violations of this rule', omitted: 25 });
  t.same(capViolations('K8S-VERSIONS', found.slice(0, 3)), kept.slice(0, 3), 'a few stay as they are');
  const message = formatDenial(kept);
  t.match(message, /^75 violations:\n/, 'the count is of violations, not of lines');
  t.match(message, /\nand 55 more violations; see version-policy check --output json$/);
});
