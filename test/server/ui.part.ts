// GET /profiles: the timeline pages from the running server's cluster state. Off by default; on
// the probe port when there is one, else on the HTTPS port; read-only, strict CSP, nosniff, 404
// for unknown profiles, 503 while the state is not synced, and nothing but what the page draws.
import { createServer } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from '../helpers/parts.js';
import { ClusterIndex } from '../../src/cluster/cluster-index.js';
import { loadStaticState } from '../../src/cluster/static-state.js';
import { buildProbeServer } from '../../src/server/app.js';
import { createMetrics } from '../../src/server/metrics.js';
import { Readiness } from '../../src/server/probes.js';
import { createLogger } from '../../src/server/logging.js';
import { ForecastRefresher } from '../../src/server/forecast-refresh.js';
import { ListenError, startWebhook } from '../../src/server/run.js';
import { attr, byClass, elements, hasClass, one, parsePage, textOf } from '../helpers/html-dom.js';
import { config } from '../helpers/objects.js';
import { request, startServer } from '../helpers/server.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const DEMO = fixture('demo-state.yaml');
const UI_ON = { server: { ui: { enabled: true } } };

t.test('off by default: no /profiles on either port', async (t) => {
  const s = await startServer({ state: await loadStaticState([DEMO]) });
  t.teardown(s.close);
  const hint = 'the timeline pages are off: turn them on with server.ui.enabled: true in the config (docs/timeline.md)';
  for (const path of ['/profiles', '/profiles/aws']) {
    const r = await s.get(path);
    t.equal(r.status, 404);
    t.equal(r.json().message, `no route for GET ${path}: ${hint}`, 'the 404 says how to turn the pages on');
  }
  t.equal((await s.get('/profilesx')).json().message, 'no route for GET /profilesx', 'other paths: the plain 404');
  const probes = buildProbeServer({
    readiness: s.server.readiness,
    metrics: s.server.metrics,
    logger: createLogger('silent'),
  });
  t.teardown(() => probes.close());
  const probe = await probes.inject({ method: 'GET', url: '/profiles' });
  t.equal(probe.statusCode, 404);
  t.equal(probe.json<{ message: string }>().message, `no route for GET /profiles: ${hint}`);

  // GET / on the probe port lists what it serves, and says the pages are off.
  const root = await probes.inject({ method: 'GET', url: '/' });
  t.equal(root.statusCode, 200);
  t.match(root.headers['content-type'], /^text\/html; charset=utf-8/);
  const doc = parsePage(root.body).document;
  t.same(
    elements(doc, (e) => e.tagName === 'a').map((a) => attr(a, 'href')),
    ['healthz', 'readyz', 'metrics'],
  );
  t.match(textOf(doc), 'The timeline pages are off: turn them on with server.ui.enabled: true');
  t.equal((await s.get('/')).status, 404, 'the HTTPS port without the pages: a plain 404');
});

t.test('on the HTTPS port when there is no probe port', async (t) => {
  const s = await startServer({ state: await loadStaticState([DEMO]), config: UI_ON });
  t.teardown(s.close);

  const root = await s.get('/');
  t.equal(root.status, 200, 'GET / lists the pages where they are');
  t.same(
    elements(parsePage(root.text).document, (e) => e.tagName === 'a').map((a) => attr(a, 'href')),
    ['profiles', 'healthz', 'readyz', 'metrics'],
  );

  const list = await s.get('/profiles');
  t.equal(list.status, 200);
  t.match(list.headers['content-type'], /^text\/html; charset=utf-8/);
  const listed = byClass(parsePage(list.text).document, 'profile-link').map((li) => [
    textOf(one(li, (e) => e.tagName === 'a', 'link')),
    attr(
      one(li, (e) => e.tagName === 'a', 'link'),
      'href',
    ),
  ]);
  t.same(listed, [
    ['aws', 'profiles/aws'],
    ['garden-dev/aws-extended', 'profiles/garden-dev/aws-extended'],
  ]);

  const page = await s.get('/profiles/aws');
  t.equal(page.status, 200);
  for (const [name, value] of Object.entries({
    'content-type': /^text\/html; charset=utf-8$/,
    'content-security-policy':
      /^default-src 'none'; style-src 'unsafe-inline'; img-src data:;.*frame-ancestors 'none'$/,
    'x-content-type-options': /^nosniff$/,
    'cache-control': /^no-store$/,
  })) {
    t.match(page.headers[name], value, name);
  }
  const { document, errors } = parsePage(page.text);
  t.same(errors, []);
  const section = one(document, (e) => hasClass(e, 'profile'), 'the profile');
  t.same([attr(section, 'data-kind'), attr(section, 'data-name')], ['CloudProfile', 'aws']);
  const row = one(document, (e) => hasClass(e, 'row') && attr(e, 'data-version') === '1.31.7', 'row 1.31.7');
  t.equal(attr(row, 'data-shoots'), '2', 'counts from the cluster state');
  t.same(
    new Set(byClass(document, 'now').map((g) => attr(g, 'data-at'))),
    new Set(['2026-09-01T00:00:00Z']),
    'now is the server clock',
  );
  // The maintenance steps are the forecast's: both Shoots on 1.31.7 auto-update that first night,
  // and nothing calls 1.31.7's expiry a forced update.
  t.same(
    byClass(document, 'update').map((r) => [attr(r, 'data-shoot'), attr(r, 'data-kind'), attr(r, 'data-at')]),
    [
      ['garden-prod/payments', 'auto', '2026-09-01T02:00:00Z'],
      ['garden-dev/dev-cluster', 'auto', '2026-09-01T22:00:00Z'],
      ['garden-ops/monitoring', 'forced', '2027-05-01T00:00:00Z'],
    ],
  );
  t.match(
    textOf(one(document, (e) => e.tagName === 'li' && attr(e, 'data-version') === '1.31.7', 'Shoots on 1.31.7')),
    /1\.31\.7 garden-dev\/dev-cluster, garden-prod\/payments/,
    'Shoot names in plain view, not only in tooltips',
  );
  // No object bodies: ids, machine types, regions and annotations are not drawn, so not sent.
  for (const absent of [
    '6f1c2a7d-0b3e-4c8a-9d52-1e7f3a9b0c41',
    '48213',
    'm5.large',
    'eu-west-1',
    'credentialsBindingName',
    '10.180.0.0',
  ])
    t.notOk(page.text.includes(absent), `no ${absent}`);

  const ncp = await s.get('/profiles/garden-dev/aws-extended');
  t.equal(ncp.status, 200);
  const merged = parsePage(ncp.text).document;
  t.equal(
    textOf(elements(merged, (e) => e.tagName === 'h1')[0]!),
    `NamespacedCloudProfile 'garden-dev/aws-extended' (parent CloudProfile "aws")`,
  );
  const extended = one(merged, (e) => hasClass(e, 'row') && attr(e, 'data-version') === '1.32.3', 'row 1.32.3');
  t.same(
    byClass(extended, 'segment').map((g) => attr(g, 'data-end')),
    ['2027-06-30T23:59:59Z', ''],
    "the NamespacedCloudProfile's extended expiry",
  );

  const head = await request(s.port, 'HEAD', '/profiles/aws', undefined, { ca: s.authority.ca.certPem });
  t.same(
    [head.status, head.text, head.headers['x-content-type-options']],
    [200, '', 'nosniff'],
    'HEAD: headers, no body',
  );
});

t.test(
  'the index: each profile with its versions, Shoots, Shoots updated (and forced) within 30 days and predicted failures',
  async (t) => {
    const state = await loadStaticState([DEMO]);
    const cells = (page: string) =>
      byClass(parsePage(page).document, 'profile-link').map((row) => [
        attr(row, 'data-name'),
        ...['versions', 'shoots', 'updated', 'forced', 'failing'].map((c) =>
          attr(
            one(row, (e) => hasClass(e, c), c),
            'data-count',
          ),
        ),
      ]);
    const now = Date.parse('2026-09-01T00:00:00Z');
    const before = buildProbeServer({
      readiness: new Readiness(state),
      metrics: createMetrics(),
      logger: createLogger('silent'),
      pages: { state, now: () => now, fleetForecast: { latest: () => undefined } },
    });
    t.teardown(() => before.close());
    const pending = (await before.inject({ method: 'GET', url: '/profiles' })).body;
    // aws lists 11 versions (Kubernetes and images); the NCP only changes an expiry of its parent's.
    t.same(
      cells(pending),
      [
        ['aws', '11', '3', '', '', ''],
        ['garden-dev/aws-extended', '11', '1', '', '', ''],
      ],
      'before the first forecast: counts of the state, the forecast ones blank',
    );
    t.match(pending, 'The forecast counts come once the first fleet forecast is made');
    const forecast = {
      latest: () => ({
        at: now - 120_000,
        until: now + 30 * 86_400_000,
        byProfile: new Map([['CloudProfile/aws', { updated30d: 3, forced30d: 2, failing: 1 }]]),
        chains: new Map(),
      }),
    };
    const after = buildProbeServer({
      readiness: new Readiness(state),
      metrics: createMetrics(),
      logger: createLogger('silent'),
      pages: { state, now: () => now, fleetForecast: forecast },
    });
    t.teardown(() => after.close());
    const page = (await after.inject({ method: 'GET', url: '/profiles' })).body;
    t.same(cells(page), [
      ['aws', '11', '3', '3', '2', '1'],
      ['garden-dev/aws-extended', '11', '1', '0', '0', '0'],
    ]);
    // From the real fleet forecast of the demo: both Shoots on 1.31.7 auto-update that first night,
    // and the one on the NamespacedCloudProfile the night after; none of them is forced.
    const refresher = new ForecastRefresher({ state, now: () => now });
    await refresher.refresh();
    const real = buildProbeServer({
      readiness: new Readiness(state),
      metrics: createMetrics(),
      logger: createLogger('silent'),
      pages: { state, now: () => now, fleetForecast: refresher },
    });
    t.teardown(() => real.close());
    t.same(cells((await real.inject({ method: 'GET', url: '/profiles' })).body), [
      ['aws', '11', '3', '2', '0', '0'],
      ['garden-dev/aws-extended', '11', '1', '1', '0', '0'],
    ]);
    t.match(page, '(2 min ago)', 'says how old the forecast is');
    // The profile pages take their steps from the same forecast: no request forecasts.
    const aws = parsePage((await after.inject({ method: 'GET', url: '/profiles/aws' })).body).document;
    t.equal(
      attr(
        one(aws, (e) => hasClass(e, 'forecast-made'), 'forecast note'),
        'data-at',
      ),
      '2026-08-31T23:58:00Z',
    );
    t.match(
      textOf(one(aws, (e) => hasClass(e, 'forecast-summary'), 'summary')),
      /^Until 2026-10-01,/,
      "cut to the forecast's horizon",
    );
    const early = parsePage((await before.inject({ method: 'GET', url: '/profiles/aws' })).body).document;
    t.equal(byClass(early, 'forecast-pending').length, 1, 'before the first forecast the page says it is coming');
    t.same(byClass(early, 'marks'), []);
  },
);

t.test('unknown profiles, bad windows, writes and an unsynced state', async (t) => {
  const state = await loadStaticState([DEMO]);
  const s = await startServer({ state, config: UI_ON });
  t.teardown(s.close);
  const cases: Array<[string, number, RegExp]> = [
    ['/profiles/gcp', 404, /^no CloudProfile "gcp" in the cluster state/],
    ['/profiles/garden-dev/aws', 404, /^no NamespacedCloudProfile "garden-dev\/aws" in the cluster state/],
    ['/profiles/%3Cscript%3E', 404, /^no CloudProfile "<script>"/],
    ['/profiles/aws?from=yesterday', 400, /^from\/to: not a day offset/],
    ['/profiles/aws?from=10d&to=5d', 400, /at least one day after it starts/],
  ];
  for (const [path, status, text] of cases) {
    const res = await s.get(path);
    t.equal(res.status, status, path);
    t.match(res.text, text, path);
    t.match(res.headers['content-type'], /^text\/plain/, `${path}: plain text, never HTML`);
    t.equal(res.headers['x-content-type-options'], 'nosniff');
  }
  const window = parsePage((await s.get('/profiles/aws?from=-30d&to=2027-01-01')).text).document;
  const chart = elements(window, (e) => e.tagName === 'svg' && hasClass(e, 'chart'))[0]!;
  t.same(
    [attr(chart, 'data-from'), attr(chart, 'data-to')],
    ['2026-08-02T00:00:00Z', '2027-01-01T00:00:00Z'],
    '?from= and ?to= set the window',
  );

  const post = await s.post('/profiles/aws', {});
  t.same([post.status, post.headers.allow], [405, 'GET, HEAD'], 'read-only');

  const unsynced = new ClusterIndex(false);
  const u = await startServer({ state: unsynced, config: UI_ON });
  t.teardown(u.close);
  for (const path of ['/profiles', '/profiles/aws']) {
    const res = await u.get(path);
    t.equal(res.status, 503, `${path} while not synced`);
    t.match(res.text, /^cluster state not synced/);
  }
});

t.test('a NamespacedCloudProfile whose parent is not in the state: 404 that says why', async (t) => {
  const state = await loadStaticState([DEMO]);
  const s = await startServer({
    state: [...state.allProfiles()].filter((p) => p.kind === 'NamespacedCloudProfile'),
    config: UI_ON,
  });
  t.teardown(s.close);
  const res = await s.get('/profiles/garden-dev/aws-extended');
  t.equal(res.status, 404);
  t.match(
    res.text,
    /the parent CloudProfile "aws" of NamespacedCloudProfile 'garden-dev\/aws-extended' is not in the state/,
  );
});

t.test('slow builds hold the next back, and a request waits its turn rather than being refused', async (t) => {
  const state = await loadStaticState([fixture('timeline/demo-state.yaml')]);
  // The page's clock moves a second per build, so two builds never give the same page.
  let pageNow = Date.parse('2026-09-01T00:00:00Z');
  // The monotonic clock moves only when the server waits; every build costs `cost` ms of CPU.
  let clock = 0;
  let cpu = 0;
  let cost = 200;
  const waits: number[] = [];
  let gate: Promise<void> = Promise.resolve();
  const probes = buildProbeServer({
    readiness: new Readiness(state),
    metrics: createMetrics(),
    logger: createLogger('silent'),
    pages: {
      state,
      now: () => (pageNow += 1000),
      monotonic: () => clock,
      cpu: () => (cpu += cost),
      sleep: async (ms) => {
        waits.push(ms);
        await gate;
        clock += ms;
      },
    },
  });
  t.teardown(() => probes.close());
  const get = async (url: string) => {
    const res = await probes.inject({ method: 'GET', url });
    return { status: res.statusCode, retry: res.headers['retry-after'], body: res.body };
  };
  const first = await get('/profiles/gcp');
  t.same([first.status, waits], [200, []], 'built at once');
  const other = await get('/profiles/gcp?to=30d');
  t.same([other.status, waits], [200, [800]], 'the next build waited four times as long as the last took, then came');
  const again = await get('/profiles/gcp');
  t.equal(again.body, first.body, 'the same page from the cache, without waiting (a new build would have another now)');
  t.same(waits, [800]);
  clock += 10_000;
  waits.length = 0;
  const later = await get('/profiles/gcp');
  t.same([later.status, waits], [200, []], 'after 10 s the cached page is gone, and the pause long over: rebuilt');
  t.not(later.body, first.body);

  // A flood: the first 16 wait their turn, the rest are told to come back.
  let open!: () => void;
  gate = new Promise((resolve) => (open = resolve));
  const flood = Array.from({ length: 20 }, (_, i) => get(`/profiles/gcp?to=${40 + i}d`));
  await new Promise((resolve) => setImmediate(resolve));
  open();
  const answers = await Promise.all(flood);
  t.same(
    answers.map((a) => a.status),
    [...Array<number>(16).fill(200), ...Array<number>(4).fill(503)],
  );
  t.ok(
    answers.slice(16).every((a) => Number(a.retry) >= 1),
    '503 only past 16 waiting, with Retry-After',
  );

  // A build under 100 ms of CPU holds nothing back: a small profile never waits.
  cost = 60;
  clock += 60_000;
  await get('/profiles/gcp?to=90d');
  waits.length = 0;
  const quick = await Promise.all([get('/profiles/gcp?to=91d'), get('/profiles/gcp?to=92d')]);
  t.same([quick.map((q) => q.status), waits], [[200, 200], []]);
});

t.test("a person's clicks on the demo are all answered, none with 503", async (t) => {
  const s = await startServer({ state: await loadStaticState([DEMO]), config: UI_ON });
  t.teardown(s.close);
  const paths = ['/profiles', '/profiles/aws', '/profiles/garden-dev/aws-extended', '/profiles/aws?to=30d'];
  const one = [];
  for (const path of [...paths, ...paths.map((p) => (p.includes('?') ? `${p}&from=-7d` : `${p}?from=-7d`))])
    one.push((await s.get(path)).status);
  const together = await Promise.all(paths.map((p) => s.get(`${p}${p.includes('?') ? '&' : '?'}from=-8d`)));
  t.same([...one, ...together.map((r) => r.status)], Array<number>(12).fill(200));
});

/** A port that was free a moment ago; startWebhook is retried if another test took it since. */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

t.test('serve: on the plain-HTTP probe port when there is one, and not on the HTTPS port', async (t) => {
  const startedAt = Date.now();
  const dir = await mkdtemp(join(tmpdir(), 'vp-ui-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  let running: Awaited<ReturnType<typeof startWebhook>> | undefined;
  for (let attempt = 0; !running && attempt < 3; attempt++) {
    const cfg = config({ server: { host: '127.0.0.1', port: 0, probePort: await freePort(), ui: { enabled: true } } });
    try {
      running = await startWebhook({
        config: cfg,
        stateFiles: [DEMO],
        logger: createLogger('silent'),
        devCertDir: dir,
      });
    } catch (err) {
      if (!(err instanceof ListenError)) throw err;
    }
  }
  t.ok(running?.probeUrl, 'probe port open');
  t.teardown(() => running!.stop(1000));
  const page = await fetch(`${running!.probeUrl}/profiles/aws`);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-security-policy'), /^default-src 'none'/);
  const { document } = parsePage(await page.text());
  const drawnNow = Date.parse(attr(byClass(document, 'now')[0]!, 'data-at') ?? '');
  t.ok(
    startedAt <= drawnNow && drawnNow <= Date.now(),
    'now is the server clock: drawn between the start of this test and the answer',
  );
  const https = await request(Number(new URL(running!.url).port), 'GET', '/profiles', undefined, {
    ca: await readFile(join(dir, 'ca.crt'), 'utf8'),
  });
  t.equal(https.status, 404, 'the HTTPS port serves no pages: the probe port does');
  t.match(
    https.json().message,
    /^no route for GET \/profiles: the timeline pages are on the probe port \(server\.probePort \d+\), over plain HTTP$/,
  );
});
