// The two output formats of `check`, on verdicts built by hand so every line kind shows up even
// before any rule denies (the end-to-end tests are in check.test.ts and check-rules.test.ts).
import t from 'tap';
import { type CheckResult, render } from '../../src/cli/check-output.js';
import { cloudProfile, shoot } from '../helpers/objects.js';

const denied: CheckResult = {
  kind: 'Shoot',
  namespace: 'garden-dev',
  name: 'web',
  operation: 'UPDATE',
  allowed: false,
  violations: [
    { rule: 'SHOOT-NO-DOWNGRADE', field: 'spec.kubernetes.version', message: 'kubernetes version must not go down from "1.31.0" to "1.30.0"' },
    { rule: 'IN-USE', field: '', message: 'state not ready' },
  ],
  warnings: ['version "1.31.0" expires on 2026-09-20'],
  object: shoot({ name: 'web', version: '1.30.0' }),
};
const allowed: CheckResult = {
  kind: 'CloudProfile',
  namespace: null,
  name: 'aws',
  operation: 'DELETE',
  allowed: true,
  violations: [],
  warnings: [],
  object: null,
};

t.test('text: a verdict line per object, then its violations and warnings indented', async (t) => {
  t.equal(
    render([denied, allowed], 'text'),
    [
      'DENIED Shoot garden-dev/web (UPDATE)',
      '  [SHOOT-NO-DOWNGRADE] spec.kubernetes.version: kubernetes version must not go down from "1.31.0" to "1.30.0"',
      '  [IN-USE] state not ready',
      '  warning: version "1.31.0" expires on 2026-09-20',
      'ALLOWED CloudProfile aws (DELETE)',
      '',
    ].join('\n'),
  );
  t.equal(render([], 'text'), '', 'no objects, no lines');
});

t.test('json: {"results": [...]} with every key, in order, round-tripping', async (t) => {
  const profile = cloudProfile({ name: 'aws' });
  const text = render([denied, { ...allowed, operation: 'CREATE', object: profile }], 'json');
  t.ok(text.endsWith('}\n'), 'ends with a newline');
  const parsed = JSON.parse(text) as { results: CheckResult[] };
  t.same(parsed, { results: [denied, { ...allowed, operation: 'CREATE', object: profile }] });
  t.same(Object.keys(parsed.results[0] ?? {}), ['kind', 'namespace', 'name', 'operation', 'allowed', 'violations', 'warnings', 'object']);
});
