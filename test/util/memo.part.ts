import t from '../helpers/parts.js';
import { memo } from '../../src/util/memo.js';

t.test('computes each key once, undefined results included', async (t) => {
  const calls: string[] = [];
  const lengthOrUndefined = memo(10, (s: string) => (calls.push(s), s === '' ? undefined : s.length));
  t.equal(lengthOrUndefined('abc'), 3);
  t.equal(lengthOrUndefined('abc'), 3);
  t.equal(lengthOrUndefined(''), undefined);
  t.equal(lengthOrUndefined(''), undefined);
  t.same(calls, ['abc', '']);
});

t.test('holds at most `limit` keys, then forgets them all', async (t) => {
  const calls: number[] = [];
  const double = memo(3, (n: number) => (calls.push(n), n * 2));
  for (const n of [1, 2, 3, 1, 2, 3]) double(n);
  t.same(calls, [1, 2, 3], 'three keys fit');
  double(4);
  double(1);
  t.same(calls, [1, 2, 3, 4, 1], 'the fourth key cleared the first three');
  double(4);
  t.same(calls, [1, 2, 3, 4, 1], 'and is itself remembered');
});
