import t from '../../helpers/parts.js';
import { Backoff } from '../../../src/cluster/informers/backoff.js';

t.test('doubles from the initial delay up to the cap, jittered within the upper half', async (t) => {
  const low = new Backoff({ initialMs: 100, maxMs: 1000 }, () => 0);
  t.same(
    [1, 2, 3, 4, 5, 6].map(() => low.next()),
    [50, 100, 200, 400, 500, 500],
  );
  const high = new Backoff({ initialMs: 100, maxMs: 1000 }, () => 1);
  t.same(
    [1, 2, 3, 4, 5, 6].map(() => high.next()),
    [100, 200, 400, 800, 1000, 1000],
  );
});

t.test('reset starts over; a server-given Retry-After is a floor', async (t) => {
  const b = new Backoff({ initialMs: 100, maxMs: 1000 }, () => 1);
  b.next();
  b.next();
  b.reset();
  t.equal(b.next(), 100);
  t.equal(b.next(5000), 5000);
});

t.test('defaults: 500 ms, capped at 10 s', async (t) => {
  const b = new Backoff({}, () => 1);
  t.equal(b.next(), 500);
  for (let i = 0; i < 40; i++) b.next();
  t.equal(b.next(), 10_000, 'no overflow after many failures');
});
