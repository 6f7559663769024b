import t from '../helpers/parts.js';
import { InvalidArgumentError } from 'commander';
import { collect, parseFeatureGates, parseRfc3339 } from '../../src/cli/options.js';

t.test('--now accepts RFC 3339 instants with any offset', async (t) => {
  const utc = Date.UTC(2026, 8, 1);
  t.equal(parseRfc3339('2026-09-01T00:00:00Z'), utc);
  t.equal(parseRfc3339('2026-09-01t00:00:00z'), utc, 'RFC 3339 allows lower-case T and Z');
  t.equal(parseRfc3339('2026-09-01T02:00:00+02:00'), utc);
  t.equal(parseRfc3339('2026-08-31T23:30:00.5-00:30'), utc + 500);
  t.equal(parseRfc3339('2024-02-29T00:00:00Z'), Date.UTC(2024, 1, 29), 'a leap day');
});

t.test('--now rejects what is not RFC 3339', async (t) => {
  for (const bad of [
    'now',
    '2026-09-01',
    '2026-09-01T00:00:00',
    '2026-09-01 00:00:00Z',
    '2026-02-30T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-09-01T24:00:00Z',
    '2026-09-01T00:00:00+24:00',
    '1788220800000',
  ]) {
    t.throws(() => parseRfc3339(bad), InvalidArgumentError, bad);
  }
});

t.test('--feature-gates reads Kubernetes gate syntax and merges repeats', async (t) => {
  t.same(parseFeatureGates('VersionClassificationLifecycle=false'), { VersionClassificationLifecycle: false });
  t.same(parseFeatureGates(' VersionClassificationLifecycle = true '), { VersionClassificationLifecycle: true });
  t.same(
    parseFeatureGates('VersionClassificationLifecycle=true', { VersionClassificationLifecycle: false }),
    { VersionClassificationLifecycle: true },
    'the later flag wins',
  );
  t.throws(() => parseFeatureGates('Lifecycle=true'), { message: /unknown feature gate "Lifecycle"/ });
  t.throws(() => parseFeatureGates('VersionClassificationLifecycle=yes'), { message: /needs =true or =false/ });
  t.throws(() => parseFeatureGates('VersionClassificationLifecycle'), { message: /needs =true or =false/ });
  t.throws(() => parseFeatureGates('VersionClassificationLifecycle=true=false'), { message: /needs =true or =false/ });
});

t.test('a repeatable option collects every occurrence', async (t) => {
  t.same(collect('b.yaml', collect('a.yaml')), ['a.yaml', 'b.yaml']);
});
