// A cache that is never older than it says, against the fake API server: after an outage the
// backoff does not delay the relist a 410 asks for; a watch that goes silent is reopened, so the
// age stays bounded with or without bookmarks; a connection that dies without a word turns the
// state stale (not synced, /readyz 503 with the reason, removals denied) and it recovers alone.
import t from '../../helpers/parts.js';
import { served } from '../../helpers/api-objects.js';
import { cloudProfile, config, NOW, request, ruleIds } from '../../helpers/objects.js';
import { startServer } from '../../helpers/server.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { until } from '../../helpers/until.js';
import { evaluate } from '../../../src/policy/evaluate.js';
import { onAws, PROFILE, setup, uses, VERSIONS } from './setup.js';

const removing130 = (state: Parameters<typeof evaluate>[1]['state']) =>
  evaluate(
    request({
      operation: 'UPDATE',
      object: cloudProfile({ name: 'aws', kubernetes: VERSIONS.slice(1) }),
      oldObject: cloudProfile({ name: 'aws', kubernetes: VERSIONS }),
    }),
    {
      now: NOW,
      config: config({ defaulting: { lifecycle: { enabled: false } } }),
      state,
    },
  );

for (const goneAsHttpStatus of [false, true]) {
  t.test(
    `after an outage, the 410 ${goneAsHttpStatus ? '(HTTP status)' : '(watch ERROR event)'} relists at once, not after the outage's backoff, which then starts over`,
    async (t) => {
      const { fake, index, informers, lines, metric, logged, watching } = await setup(t, {
        objects: [PROFILE, onAws('a', '1.30.1')],
        fake: { goneAsHttpStatus },
        informer: { backoff: { initialMs: 10, maxMs: 400 } },
      });
      await informers.whenSynced();
      await watching();

      await fake.down();
      // Until the backoff has grown to 8 steps: the next delay would be at least that long.
      await until('a built-up backoff', () =>
        logged('watch of shoots failed; retrying', 'shoots').some((l) => Number(l.delayMs) >= 80),
      );
      fake.remove('Shoot', 'garden-dev', 'a');
      fake.add(served(onAws('b', '1.31.0')));
      fake.compact();
      const upAt = Date.now();
      const linesBefore = lines.length;
      await fake.up();

      await until(
        'the relist',
        async () => (await metric('version_policy_cluster_lists_total', { kind: 'Shoot' })) === 2,
      );
      t.same(
        [uses(index, '1.30.1'), uses(index, '1.31.0')],
        [[], ['b']],
        'the relist brought the changes made during the outage',
      );
      const shoots = fake.requests.filter((r) => r.path.endsWith('/shoots') && r.at >= upAt);
      const gone = shoots.find((r) => r.watch);
      const relist = shoots.find((r) => !r.watch);
      t.ok(gone && relist && relist.at >= gone.at, 'a watch answered 410, then a LIST');
      const expired = lines
        .slice(linesBefore)
        .filter((l) => l.resource === 'shoots' && l.msg === 'watch ended; reopening');
      t.same(
        expired.map((l) => [l.reason, l.delayMs]),
        [['expired', 0]],
        'the 410 is followed by the relist at once (delay 0), though the backoff had built up to 80 ms or more',
      );
      t.ok(index.synced, 'synced');

      // The backoff starts over once the server is back: a dropped watch is retried within the first step.
      fake.add(served(onAws('c', '1.32.0')));
      await until('an event on the new watch', () => uses(index, '1.32.0').length === 1);
      const before = lines.length;
      fake.dropWatches();
      const reopened = await until('the dropped watch reopened', () =>
        lines
          .slice(before)
          .find((l) => l.resource === 'shoots' && l.msg === 'watch ended; reopening' && l.reason === 'dropped'),
      );
      t.ok(
        Number(reopened.delayMs) <= 10,
        `retried after ${String(reopened.delayMs)} ms, the first step of the backoff`,
      );
    },
  );
}

// The bounds below (a 50 ms silence, a 500 ms or 1 s staleness bound) are read on a clock the test
// moves: on a loaded machine the event loop can stall longer than any of them.

/**
 * Waits until every informer has a watch open and waits on the clock for its acceptance and its
 * silence, beside the staleness check's interval: the informers are between two steps.
 */
const watchTimersSet = (clock: ManualClock) =>
  until('three open watches waiting on the clock', () => clock.waiting === 3 * 2 + 1);

t.test(
  'a watch that stays silent is reopened from its resourceVersion: the age stays bounded without bookmarks',
  async (t) => {
    const clock = new ManualClock();
    const { fake, index, informers, metric, watching } = await setup(t, {
      objects: [PROFILE, onAws('a', '1.30.1')],
      informer: { maxStaleMs: 500, silenceMs: 50, clock },
    });
    await informers.whenSynced();
    await watching();
    await watchTimersSet(clock);
    const rv = fake.resourceVersion;
    const ages: number[] = [];
    // Twelve rounds of 50 ms of silence and the 25 ms it takes to accept a watch: 900 ms, past the
    // 500 ms bound that the age would pass without the reopens.
    for (let round = 0; round < 12; round++) {
      await clock.advance(50);
      await watchTimersSet(clock);
      await clock.advance(25);
      ages.push(await metric('version_policy_cluster_state_age_seconds', { kind: 'CloudProfile' }));
    }
    t.same(
      ages.map((a) => a <= 0.075),
      ages.map(() => true),
      `age stayed within 75 ms (silence and acceptance), under the 0.5 s bound: ${ages.join(', ')} s`,
    );
    t.ok(index.synced, 'still synced');
    t.equal(
      await metric('version_policy_cluster_watch_restarts_total', { kind: 'CloudProfile', reason: 'silent' }),
      12,
      'twelve silent watches reopened',
    );
    t.equal(await metric('version_policy_cluster_lists_total', { kind: 'CloudProfile' }), 1, 'no relist');
    const rewatches = fake.requests.filter((r) => r.watch && r.path.endsWith('/cloudprofiles'));
    t.ok(
      rewatches.length === 13 && rewatches.every((r) => r.query.resourceVersion === rv),
      'each reopened from the last resourceVersion',
    );
  },
);

t.test(
  'bookmarks count as current: a watch that gets them more often than the silence bound is never reopened',
  async (t) => {
    const clock = new ManualClock();
    const { fake, informers, logged, metric, watching } = await setup(t, {
      informer: { maxStaleMs: 4000, silenceMs: 500, clock },
    });
    await informers.whenSynced();
    await watching();
    await watchTimersSet(clock);
    // Five bookmarks 400 ms apart span 2 s, four times the 500 ms silence bound.
    for (let i = 0; i < 5; i++) {
      await clock.advance(400);
      const before = logged('bookmark').length;
      fake.bookmark();
      await until('a bookmark on each of the three watches', () => logged('bookmark').length === before + 3);
    }
    const silent = await Promise.all(
      ['CloudProfile', 'NamespacedCloudProfile', 'Shoot'].map((kind) =>
        metric('version_policy_cluster_watch_restarts_total', { kind, reason: 'silent' }),
      ),
    );
    t.same(silent, [0, 0, 0], 'not one silent watch (silence bound 0.5 s)');
    t.equal(
      await metric('version_policy_cluster_state_age_seconds', { kind: 'Shoot' }),
      0,
      'current as of the last bookmark',
    );
    await clock.advance(499);
    t.equal(await metric('version_policy_cluster_watch_restarts_total', { kind: 'Shoot', reason: 'silent' }), 0);
    await clock.advance(1);
    await until(
      'the watch reopened 500 ms after the last bookmark',
      async () =>
        (await metric('version_policy_cluster_watch_restarts_total', { kind: 'Shoot', reason: 'silent' })) === 1,
    );
    t.pass('the watch reopened 500 ms after the last bookmark');
  },
);

t.test(
  'a connection that dies without a word: stale within the bound, not ready with the reason, and back by itself',
  async (t) => {
    const clock = new ManualClock();
    const { fake, index, informers, metric, logged, watching } = await setup(t, {
      objects: [PROFILE, onAws('a', '1.30.1')],
      informer: { maxStaleMs: 1000, clock },
    });
    await informers.whenSynced();
    await watching();
    const server = await startServer({ state: index });
    t.teardown(server.close);
    t.equal((await server.get('/readyz')).status, 200, 'ready while current');
    t.equal(removing130(index).violations[0]?.rule, 'IN-USE', 'a removal is judged against the Shoots');

    fake.stall();
    await clock.advance(999);
    t.ok(index.synced, 'current up to the 1 s bound');
    await clock.advance(301);
    t.notOk(index.synced, 'stale past it');
    t.match(
      index.notReadyReason,
      /^the cached (cloudprofiles|namespacedcloudprofiles|shoots) \(last current \d{4}-\d\d-\d\dT[\d:.]+Z, \d+ s ago\).* older than the 1 s bound \(cluster\.maxStaleSeconds\)/,
    );
    const ready = await server.get('/readyz');
    t.equal(ready.status, 503, '/readyz: 503');
    t.match(
      ready.text,
      /^not ready: cluster state not synced: the cached .* older than the 1 s bound/,
      'with the reason',
    );
    const denied = removing130(index);
    t.same(ruleIds(denied), ['IN-USE']);
    t.match(
      denied.violations[0]?.message,
      /^cluster state not ready: the cached .* older than the 1 s bound/,
      'a removal is denied with the reason',
    );
    const ages = await Promise.all(
      ['CloudProfile', 'NamespacedCloudProfile', 'Shoot'].map((kind) =>
        metric('version_policy_cluster_state_age_seconds', { kind }),
      ),
    );
    t.ok(Math.max(...ages) > 1, `the age metric shows it: ${ages.map((a) => a.toFixed(1)).join(', ')} s`);
    t.ok(
      (await metric('version_policy_cluster_watch_restarts_total', { kind: 'Shoot', reason: 'silent' })) >= 1,
      'the silent watch was given up',
    );
    t.ok(logged(/^cached \w+ are stale/).length > 0, 'the stale warning');

    fake.resume();
    fake.bookmark();
    // The reopened watches are answered now; one whose socket gave up meanwhile (a real 10 s idle
    // timeout, on a slow machine) waits out its backoff on the clock, so the clock moves on too.
    await until('current again', async () => index.synced || (await clock.advance(50), false));
    t.equal((await server.get('/readyz')).status, 200, 'ready again, by itself');
    t.equal(removing130(index).violations[0]?.rule, 'IN-USE');
    t.notMatch(removing130(index).violations[0]?.message ?? '', /not ready/, 'judged against the Shoots again');
    await clock.advance(250);
    t.ok(logged(/^cached \w+ are current again$/).length > 0, 'the recovery logged');
  },
);
