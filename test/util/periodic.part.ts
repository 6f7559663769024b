// The periodic runner (src/util/periodic.ts) on a clock the test moves: each next run after the
// delay its outcome chose, one run at a time, nothing after stop().
import t from '../helpers/parts.js';
import { Periodic, type Settled } from '../../src/util/periodic.js';
import { ManualClock } from '../helpers/manual-clock.js';

const deferred = () => {
  let resolve!: (v: string) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<string>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
};

t.test('runs after the start delay, then after the delay each outcome chose', async (t) => {
  const clock = new ManualClock(0);
  const runs: number[] = [];
  const seen: Settled<string>[] = [];
  let fail = false;
  const p = new Periodic<string>({
    run: async () => {
      runs.push(clock.now());
      if (fail) throw new Error('down');
      return 'ok';
    },
    delayAfter: (o) => (seen.push(o), o.ok ? 100 : 10),
    clock,
  });
  p.start(5);
  await clock.advance(4);
  t.same(runs, [], 'not before the start delay');
  await clock.advance(1);
  t.same(runs, [5]);
  await clock.advance(99);
  t.same(runs, [5], 'the interval counts from the run');
  fail = true;
  await clock.advance(1);
  t.same(runs, [5, 105]);
  await clock.advance(10);
  t.same(runs, [5, 105, 115], 'after a failure, the retry delay');
  t.same(
    seen.map((o) => (o.ok ? o.value : (o.error as Error).message)),
    ['ok', 'down', 'down'],
  );
  await p.stop();
});

t.test('one run at a time: runNow joins the run under way, and the next waits for it', async (t) => {
  const clock = new ManualClock(0);
  let started = 0;
  let current = deferred();
  const p = new Periodic<string>({
    run: () => (started++, current.promise),
    delayAfter: () => 50,
    clock,
  });
  p.start();
  await clock.advance(0);
  t.equal(started, 1);
  const joined = p.runNow();
  t.equal(started, 1, 'joined, not started again');
  await clock.advance(500);
  t.equal(started, 1, 'no timer runs while one is under way');
  t.equal(clock.waiting, 0);
  current.resolve('first');
  t.equal(await joined, 'first');
  current = deferred();
  await clock.advance(49);
  t.equal(started, 1);
  await clock.advance(1);
  t.equal(started, 2, 'the next after the delay, counted from the end of the run');
  current.resolve('second');
  await p.stop();
});

t.test('stop: waits for the run under way and starts none after it', async (t) => {
  const clock = new ManualClock(0);
  let started = 0;
  const d = deferred();
  const p = new Periodic<string>({ run: () => (started++, d.promise), delayAfter: () => 10, clock });
  p.start();
  await clock.advance(0);
  let stopped = false;
  const stopping = p.stop().then(() => (stopped = true));
  await new Promise((r) => setImmediate(r));
  t.notOk(stopped, 'still running');
  d.reject(new Error('late failure'));
  await stopping;
  t.ok(stopped);
  await clock.advance(1000);
  t.equal(started, 1);
  t.equal(clock.waiting, 0, 'no timer left');
  p.start();
  await clock.advance(1000);
  t.equal(started, 1, 'a stopped runner does not start again');
});
