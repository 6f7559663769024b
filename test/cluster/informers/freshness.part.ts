// A cache that is never older than it says, against the fake API server: after an outage the
// backoff does not delay the relist a 410 asks for; a watch that goes silent is reopened, so the
// age stays bounded with or without bookmarks; a connection that dies without a word turns the
// state stale (not synced, /readyz 503 with the reason, removals denied) and it recovers alone.
import t from '../../helpers/parts.js';
import { served } from '../../helpers/api-objects.js';
import { cloudProfile, config, NOW, request, ruleIds } from '../../helpers/objects.js';
import { startServer } from '../../helpers/server.js';
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
      await until(
        'a built-up backoff',
        () => logged('watch of shoots failed; retrying', 'shoots').some((l) => Number(l.delayMs) >= 80),
        10_000,
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
        10_000,
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

t.test(
  'a watch that stays silent is reopened from its resourceVersion: the age stays bounded without bookmarks',
  async (t) => {
    // Reopened every 50 ms, for longer than the 500 ms bound: without the reopens the age would pass it.
    const { fake, index, informers, metric, watching } = await setup(t, {
      objects: [PROFILE, onAws('a', '1.30.1')],
      informer: { maxStaleMs: 500, silenceMs: 50 },
    });
    await informers.whenSynced();
    await watching();
    const rv = fake.resourceVersion;
    const ages: number[] = [];
    const sampler = setInterval(
      () => void metric('version_policy_cluster_state_age_seconds', { kind: 'CloudProfile' }).then((a) => ages.push(a)),
      10,
    );
    t.teardown(() => clearInterval(sampler));
    await until(
      'twelve silent watches reopened (600 ms of silence)',
      async () =>
        (await metric('version_policy_cluster_watch_restarts_total', { kind: 'CloudProfile', reason: 'silent' })) >= 12,
      10_000,
      10,
    );
    clearInterval(sampler);
    t.ok(
      ages.length > 10 && Math.max(...ages) < 0.5,
      `age stayed under the 0.5 s bound: at most ${Math.max(...ages).toFixed(2)} s`,
    );
    t.ok(index.synced, 'still synced');
    t.equal(await metric('version_policy_cluster_lists_total', { kind: 'CloudProfile' }), 1, 'no relist');
    const rewatches = fake.requests.filter((r) => r.watch && r.path.endsWith('/cloudprofiles'));
    t.ok(
      rewatches.length >= 12 && rewatches.every((r) => r.query.resourceVersion === rv),
      'each reopened from the last resourceVersion',
    );
  },
);

t.test(
  'bookmarks count as current: a watch that gets them more often than the silence bound is never reopened',
  async (t) => {
    const { informers, logged, metric, watching } = await setup(t, {
      fake: { bookmarkIntervalMs: 20 },
      informer: { maxStaleMs: 4000, silenceMs: 500 },
    });
    await informers.whenSynced();
    await watching();
    const bookmarks = () => logged('bookmark').filter((l) => l.resource === 'shoots').length;
    const before = bookmarks();
    // 35 bookmarks 20 ms apart span 700 ms, longer than the 500 ms silence bound.
    await until('35 bookmarks on the Shoot watch', () => bookmarks() >= before + 35, 10_000, 10);
    t.equal(
      await metric('version_policy_cluster_watch_restarts_total', { kind: 'Shoot', reason: 'silent' }),
      0,
      'not one silent watch (silence bound 0.5 s)',
    );
    const age = await metric('version_policy_cluster_state_age_seconds', { kind: 'Shoot' });
    t.ok(age < 0.5, `age ${age.toFixed(2)} s: the last bookmark`);
  },
);

t.test(
  'a connection that dies without a word: stale within the bound, not ready with the reason, and back by itself',
  async (t) => {
    const { fake, index, informers, metric, logged, watching } = await setup(t, {
      objects: [PROFILE, onAws('a', '1.30.1')],
      informer: { maxStaleMs: 1000 },
    });
    await informers.whenSynced();
    await watching();
    const server = await startServer({ state: index });
    t.teardown(server.close);
    t.equal((await server.get('/readyz')).status, 200, 'ready while current');
    t.equal(removing130(index).violations[0]?.rule, 'IN-USE', 'a removal is judged against the Shoots');

    fake.stall();
    await until('the state to go stale', () => !index.synced, 10_000);
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
    await until('the stale warning', () => logged(/^cached \w+ are stale/).length > 0, 10_000);

    fake.resume();
    fake.bookmark();
    await until('current again', () => index.synced, 10_000);
    t.equal((await server.get('/readyz')).status, 200, 'ready again, by itself');
    t.equal(removing130(index).violations[0]?.rule, 'IN-USE');
    t.notMatch(removing130(index).violations[0]?.message ?? '', /not ready/, 'judged against the Shoots again');
    await until('the recovery logged', () => logged(/^cached \w+ are current again$/).length > 0, 10_000);
  },
);
