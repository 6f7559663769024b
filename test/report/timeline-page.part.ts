// The timeline page, read back by a real HTML parser (test/helpers/html-dom.ts): which timelines
// and rows it has, where each stage segment starts and ends, where "now" and the month ticks are,
// and which Shoot counts, Shoot names and maintenance steps it shows. Fixed profile, state, now and window.
import t from '../helpers/parts.js';
import { staticState } from '../../src/cluster/static-state.js';
import type { Shoot } from '../../src/api/types.js';
import { renderProfilesPage } from '../../src/report/timeline-page.js';
import { resolveWindow, type TimelineWindow } from '../../src/report/window.js';
import {
  attr,
  byClass,
  byTag,
  type Element,
  elements,
  hasClass,
  num,
  one,
  parsePage,
  SVG_NS,
  textOf,
  titleOf,
} from '../helpers/html-dom.js';
import { cloudProfile, image, NOW, shoot } from '../helpers/objects.js';

const at = (iso: string) => Date.parse(iso);
const WINDOW = resolveWindow(NOW); // -90d .. +365d: 2026-06-03 .. 2027-09-01

const profile = cloudProfile({
  name: 'local',
  kubernetes: [
    { version: '1.34.0', lifecycle: [{ classification: 'preview', startTime: '2026-12-01T00:00:00Z' }] },
    {
      version: '1.33.0',
      lifecycle: [{ classification: 'preview' }, { classification: 'supported', startTime: '2026-10-01T00:00:00Z' }],
    },
    {
      version: '1.32.1',
      lifecycle: [
        { classification: 'supported' },
        { classification: 'deprecated', startTime: '2026-11-01T00:00:00Z' },
        { classification: 'expired', startTime: '2027-01-01T00:00:00Z' },
      ],
    },
    { version: '1.32.0', classification: 'deprecated', expirationDate: '2026-08-01T00:00:00Z' },
    '1.31.5',
  ],
  images: [
    image(
      'gardenlinux',
      ['1592.2.0', { version: '1592.1.0', classification: 'deprecated', expirationDate: '2026-10-15T00:00:00Z' }],
      'minor',
    ),
  ],
});

const withWindow = (s: Shoot, begin: string, end: string): Shoot => ({
  ...s,
  spec: { ...s.spec, maintenance: { timeWindow: { begin, end } } },
});
const shoots = [
  withWindow(
    shoot({
      name: 'a',
      profile: 'local',
      version: '1.32.1',
      workers: [{ name: 'w', image: ['gardenlinux', '1592.1.0'] }],
    }),
    '030000+0000',
    '040000+0000',
  ),
  shoot({
    name: 'b',
    profile: 'local',
    version: '1.32.1',
    workers: [{ name: 'w', image: ['gardenlinux', '1592.2.0'] }],
  }),
  shoot({
    name: 'gone',
    profile: 'local',
    version: '1.31.5',
    deletionTimestamp: '2026-08-30T00:00:00Z',
    workers: [{ name: 'w', image: ['gardenlinux', '1592.2.0'] }],
  }),
];
const state = staticState([profile, ...shoots]);

function render(window: TimelineWindow = WINDOW, withState = true) {
  const { document, errors } = parsePage(renderProfilesPage([profile], withState ? state : null, NOW, window));
  return { document, errors };
}

function timeline(
  root: Element | ReturnType<typeof render>['document'],
  kind: string,
  minor: string,
  image = '',
): Element {
  return one(
    root,
    (e) =>
      hasClass(e, 'timeline') &&
      attr(e, 'data-kind') === kind &&
      attr(e, 'data-minor') === minor &&
      attr(e, 'data-image') === image,
    `timeline ${kind} ${image} ${minor}`,
  );
}

function row(tl: Element, version: string): Element {
  return one(tl, (e) => hasClass(e, 'row') && attr(e, 'data-version') === version, `row ${version}`);
}

/** Where the chart puts instant `t`: read the chart's frame from the SVG itself and check it is the window's. */
function positionIn(svg: Element, window: TimelineWindow): (t: number) => number {
  const x0 = num(svg, 'data-chart-x');
  const width = num(svg, 'data-chart-width');
  if (at(attr(svg, 'data-from')!) !== window.from || at(attr(svg, 'data-to')!) !== window.to)
    throw new Error('chart frame is not the window');
  return (t) =>
    x0 + ((Math.min(Math.max(t, window.from), window.to) - window.from) / (window.to - window.from)) * width;
}

function chartOf(e: Element): Element {
  let n: Element | undefined = e;
  while (n && n.tagName !== 'svg') n = n.parentNode as Element | undefined;
  if (!n) throw new Error('not inside an svg');
  return n;
}

interface SegmentSeen {
  stage: string;
  start: string;
  end: string;
  x: number;
  width: number;
  title: string;
  label: string;
}

function segments(r: Element): SegmentSeen[] {
  return byClass(r, 'segment').map((g) => {
    const rect = one(g, (e) => e.tagName === 'rect', 'segment rect');
    return {
      stage: attr(g, 'data-stage')!,
      start: attr(g, 'data-start')!,
      end: attr(g, 'data-end')!,
      x: num(rect, 'x'),
      width: num(rect, 'width'),
      title: titleOf(g) ?? '',
      label: byClass(g, 'seg-label').map(textOf).join(''),
    };
  });
}

t.test('the page parses without a single HTML parse error, and is self-contained', async (t) => {
  const html = renderProfilesPage([profile], state, NOW, WINDOW);
  const { document, errors } = parsePage(html);
  t.same(errors, [], 'no parse errors');
  t.same(byTag(document, 'script'), [], 'no script');
  t.same(byTag(document, 'link'), [], 'no stylesheet to fetch');
  t.same(
    elements(document, (e) => e.attrs.some((a) => a.name === 'src' || (a.name === 'href' && !a.value.startsWith('#')))),
    [],
    'no src or external href',
  );
  t.notMatch(html, /https?:\/\//, 'no URL anywhere (fonts, images, namespaces in markup)');
  const csp = one(
    document,
    (e) => e.tagName === 'meta' && attr(e, 'http-equiv') === 'Content-Security-Policy',
    'CSP meta',
  );
  t.match(attr(csp, 'content'), /default-src 'none'/);
  t.ok(
    byTag(document, 'style').length === 1 && textOf(byTag(document, 'style')[0]!).includes('@media print'),
    'one inline stylesheet, with print rules',
  );
});

t.test('one timeline per Kubernetes minor and per machine image and minor, newest first', async (t) => {
  const { document } = render();
  const seen = byClass(document, 'timeline').map(
    (e) => `${attr(e, 'data-image') || 'kubernetes'} ${attr(e, 'data-minor')}`,
  );
  t.same(seen, [
    'kubernetes 1.34',
    'kubernetes 1.33',
    'kubernetes 1.32',
    'kubernetes 1.31',
    'gardenlinux 1592.2',
    'gardenlinux 1592.1',
  ]);
  t.same(
    byClass(timeline(document, 'kubernetes', '1.32'), 'row').map((r) => attr(r, 'data-version')),
    ['1.32.1', '1.32.0'],
    'a row per version of the minor, newest first',
  );
  for (const svg of byTag(document, 'svg').filter(hasChart))
    t.equal(svg.namespaceURI, SVG_NS, 'the chart is SVG content');
});

const hasChart = (e: Element) => hasClass(e, 'chart');

t.test('stage segments start and end at their stages, placed on the window', async (t) => {
  const { document } = render();
  const cases: Array<
    [minor: string, version: string, expected: Array<[stage: string, start: string, end: string, label: RegExp]>]
  > = [
    [
      '1.34',
      '1.34.0',
      [
        ['unavailable', '', '2026-12-01T00:00:00Z', /^unavailable$/],
        ['preview', '2026-12-01T00:00:00Z', '', /^preview$/],
      ],
    ],
    [
      '1.33',
      '1.33.0',
      [
        ['preview', '', '2026-10-01T00:00:00Z', /^preview$/],
        ['supported', '2026-10-01T00:00:00Z', '', /^supported$/],
      ],
    ],
    [
      '1.32',
      '1.32.1',
      [
        ['supported', '', '2026-11-01T00:00:00Z', /^supported$/],
        ['deprecated', '2026-11-01T00:00:00Z', '2027-01-01T00:00:00Z', /^deprecated$/],
        ['expired', '2027-01-01T00:00:00Z', '', /^expired$/],
      ],
    ],
    // Expired before now, inside the window: both stages show; the deprecated one is short, so a letter.
    [
      '1.32',
      '1.32.0',
      [
        ['deprecated', '', '2026-08-01T00:00:00Z', /^(deprecated|D)$/],
        ['expired', '2026-08-01T00:00:00Z', '', /^expired$/],
      ],
    ],
    // No lifecycle, no classification: supported for ever.
    ['1.31', '1.31.5', [['supported', '', '', /^supported$/]]],
  ];
  for (const [minor, version, expected] of cases) {
    const r = row(timeline(document, 'kubernetes', minor), version);
    const pos = positionIn(chartOf(r), WINDOW);
    const got = segments(r);
    t.same(
      got.map((s) => [s.stage, s.start, s.end]),
      expected.map(([stage, start, end]) => [stage, start, end]),
      `${version}: stages and dates`,
    );
    for (const [i, s] of got.entries()) {
      const [stage, start, end, label] = expected[i]!;
      const from = start === '' ? -Infinity : at(start);
      const to = end === '' ? Infinity : at(end);
      t.ok(
        Math.abs(s.x - pos(from)) < 0.01,
        `${version} ${stage}: starts at ${start || 'the window start'} (x ${s.x} vs ${pos(from)})`,
      );
      t.ok(Math.abs(s.x + s.width - pos(to)) < 0.02, `${version} ${stage}: ends at ${end || 'the window end'}`);
      t.match(s.label, label, `${version} ${stage}: labelled without the legend`);
      t.match(
        s.title,
        new RegExp(`^${version.replaceAll('.', '\\.')}: ${stage} `),
        `${version} ${stage}: an SVG title names the stage`,
      );
      if (start) t.match(s.title, start, 'the title has the start date');
      if (end) t.match(s.title, end, 'the title has the end date');
    }
    // Consecutive segments tile the window without gaps.
    t.ok(
      Math.abs(got[0]!.x - pos(WINDOW.from)) < 0.01 &&
        Math.abs(got.at(-1)!.x + got.at(-1)!.width - pos(WINDOW.to)) < 0.02,
      `${version}: the bar spans the window`,
    );
  }
});

t.test('the now line and the month ticks sit where their instants are', async (t) => {
  const { document } = render();
  const charts = byTag(document, 'svg').filter(hasChart);
  t.equal(charts.length, 2, 'a chart for Kubernetes, one for gardenlinux');
  for (const svg of charts) {
    const pos = positionIn(svg, WINDOW);
    const now = one(svg, (e) => hasClass(e, 'now'), 'now line');
    t.equal(attr(now, 'data-at'), '2026-09-01T00:00:00Z');
    const line = one(now, (e) => e.tagName === 'line', 'now line element');
    t.ok(
      Math.abs(num(line, 'x1') - pos(NOW)) < 0.01 && num(line, 'x1') === num(line, 'x2'),
      `vertical at now (${num(line, 'x1')})`,
    );
    t.equal(textOf(one(now, (e) => e.tagName === 'text', 'now label')), 'now');
    const ticks = byClass(svg, 'tick');
    t.same(
      ticks.map((e) => attr(e, 'data-month')),
      [
        '2026-07',
        '2026-08',
        '2026-09',
        '2026-10',
        '2026-11',
        '2026-12',
        '2027-01',
        '2027-02',
        '2027-03',
        '2027-04',
        '2027-05',
        '2027-06',
        '2027-07',
        '2027-08',
        '2027-09',
      ],
      'a tick on the first of every month inside the window',
    );
    for (const tick of ticks)
      t.ok(
        Math.abs(num(tick, 'x1') - pos(at(`${attr(tick, 'data-month')}-01T00:00:00Z`))) < 0.01,
        `tick ${attr(tick, 'data-month')}`,
      );
  }
});

t.test('Shoot counts are drawn on their version rows; Shoots being deleted are not counted', async (t) => {
  const { document } = render();
  const counts: Array<[kind: string, image: string, minor: string, version: string, shoots: number]> = [
    ['kubernetes', '', '1.32', '1.32.1', 2],
    ['kubernetes', '', '1.32', '1.32.0', 0],
    ['kubernetes', '', '1.31', '1.31.5', 0],
    ['kubernetes', '', '1.34', '1.34.0', 0],
    ['machine-image', 'gardenlinux', '1592.1', '1592.1.0', 1],
    ['machine-image', 'gardenlinux', '1592.2', '1592.2.0', 1],
  ];
  for (const [kind, img, minor, version, shoots] of counts) {
    const r = row(timeline(document, kind, minor, img), version);
    t.equal(attr(r, 'data-shoots'), String(shoots), `${version}: data-shoots`);
    const count = one(r, (e) => hasClass(e, 'count'), `${version} count`);
    t.equal(textOf(count), `${shoots} Shoot${shoots === 1 ? '' : 's'}`, `${version}: the count is drawn`);
    t.equal(hasClass(count, 'in-use'), shoots > 0, `${version}: a version in use stands out`);
  }
  t.equal(byClass(document, 'state').length, 1);
  t.same(
    elements(document, (e) => attr(e, 'data-no-state') !== undefined),
    [],
    'no "no state" message',
  );
});

t.test('updates by date: every step of the forecast, auto and forced, with who, where and why', async (t) => {
  const { document } = render();
  const rows = byClass(document, 'update').map((r) => ({
    kind: attr(r, 'data-kind'),
    shoot: attr(r, 'data-shoot'),
    from: attr(r, 'data-from'),
    to: attr(r, 'data-to'),
    at: attr(r, 'data-at'),
    expires: attr(r, 'data-expires'),
    date: textOf(one(r, (e) => hasClass(e, 'date'), 'date cell')),
  }));
  t.same(rows, [
    // a's deprecated 1592.1.0 expires 2026-10-15, but a's auto-update moves it off in its first
    // window (03:00 UTC): an auto-update, never a forced one; the expiry is shown as such.
    {
      kind: 'auto',
      shoot: 'garden-dev/a',
      from: '1592.1.0',
      to: '1592.2.0',
      at: '2026-09-01T03:00:00Z',
      expires: '2026-10-15T00:00:00Z',
      date: '2026-09-01 03:00 UTC',
    },
    // 1.32.1 expires 2027-01-01, and 1.32 has no other live patch: the next minor's latest. a
    // runs at 03:00 that day; b, without a window, at 00:00, when it is not expired yet (a stage
    // applies strictly after its start), so the next day.
    {
      kind: 'forced',
      shoot: 'garden-dev/a',
      from: '1.32.1',
      to: '1.33.0',
      at: '2027-01-01T03:00:00Z',
      expires: '2027-01-01T00:00:00Z',
      date: '2027-01-01 03:00 UTC',
    },
    {
      kind: 'forced',
      shoot: 'garden-dev/b',
      from: '1.32.1',
      to: '1.33.0',
      at: '2027-01-02T00:00:00Z',
      expires: '2027-01-01T00:00:00Z',
      date: '2027-01-02 00:00 UTC or a window earlier',
    },
  ]);
  const first = byClass(document, 'update')[0]!;
  t.match(
    textOf(first),
    /garden-dev\/a.*worker pool "w".*auto.*gardenlinux 1592\.1\.0.*1592\.2\.0.*auto-update on, 1592\.1\.0 is deprecated \(1592\.1\.0 expires 2026-10-15T00:00:00Z, after this step\)/,
    'the Shoot, the place and why, in plain view; the expiry comes after the step',
  );
  t.notOk(
    rows.some((r) => r.shoot === 'garden-dev/gone'),
    'a Shoot being deleted is not updated',
  );

  // On the chart: the forecast's steps, a mark per day and kind on the row of the version they leave.
  const marks = (kind: string, image: string, version: string) =>
    byClass(document, 'marks')
      .filter(
        (g) => attr(g, 'data-kind') === kind && attr(g, 'data-image') === image && attr(g, 'data-version') === version,
      )
      .flatMap((g) => byClass(g, 'step'))
      .map((m) => {
        const path = one(m, (e) => e.tagName === 'path', 'mark shape');
        const xs = (attr(path, 'd') ?? '')
          .match(/-?\d+(\.\d+)?/g)!
          .map(Number)
          .filter((_, i) => i % 2 === 0);
        return {
          kind: attr(m, 'data-kind'),
          at: attr(m, 'data-at'),
          shoots: attr(m, 'data-shoots'),
          centre: (Math.min(...xs) + Math.max(...xs)) / 2,
          title: titleOf(m) ?? '',
          link: attr(m.parentNode as Element, 'href'),
        };
      });
  // 1.32.1 expires 2027-01-01T00:00: a's run at 03:00 that day sees it expired; b runs at 00:00,
  // when it is not yet (a stage applies strictly after its start), so the next day.
  const k8s = marks('kubernetes', '', '1.32.1');
  t.same(
    k8s.map((m) => [m.kind, m.at, m.shoots]),
    [
      ['forced', '2027-01-01T03:00:00Z', '1'],
      ['forced', '2027-01-02T00:00:00Z', '1'],
    ],
    'one forced mark per day',
  );
  const pos = positionIn(chartOf(row(timeline(document, 'kubernetes', '1.32'), '1.32.1')), WINDOW);
  t.ok(Math.abs(k8s[0]!.centre - pos(at('2027-01-01T03:00:00Z'))) < 0.02, 'placed at the run');
  t.match(
    k8s[0]!.title,
    /^forced update, 1 Shoot, on 2027-01-01: garden-dev\/a control plane 1\.32\.1 → 1\.33\.0 at 03:00 UTC$/,
  );
  // The image: a's deprecated 1592.1.0 is auto-updated in its first window, long before it expires.
  const img = marks('machine-image', 'gardenlinux', '1592.1.0');
  t.same(
    img.map((m) => [m.kind, m.at]),
    [['auto', '2026-09-01T03:00:00Z']],
  );
  const chain = one(
    document,
    (e) => e.tagName === 'ol' && attr(e, 'id') === img[0]!.link?.slice(1),
    'the chain the mark links to',
  );
  t.equal(attr(chain.parentNode as Element, 'data-shoot'), 'garden-dev/a', "a click on the mark opens a's chain");
  t.same(marks('kubernetes', '', '1.31.5'), [], 'no mark where nothing moves');

  // The forecast runs to the window's end: a window that ends before 1.32.1 expires lists only
  // the image update; one that starts after it counts it as before the window.
  const short = render(resolveWindow(NOW, { days: -30 }, { days: 60 })).document;
  t.same(
    byClass(short, 'update').map((r) => attr(r, 'data-from')),
    ['1592.1.0'],
  );
  const later = render(resolveWindow(NOW, { days: 30 }, { days: 200 })).document;
  t.same(
    byClass(later, 'update').map((r) => attr(r, 'data-at')),
    ['2027-01-01T03:00:00Z', '2027-01-02T00:00:00Z'],
  );
  t.match(textOf(one(later, (e) => hasClass(e, 'updates'), 'updates section')), '1 more step before the window');
});

t.test('Shoot names in plain view: under each chart, the Shoots on each version', async (t) => {
  const { document } = render();
  const users = byClass(document, 'users').flatMap((u) =>
    elements(u, (e) => e.tagName === 'li').map((li) => [attr(li, 'data-version'), textOf(li)]),
  );
  t.same(users, [
    ['1.32.1', '1.32.1 garden-dev/a, garden-dev/b'],
    ['1592.2.0', '1592.2.0 garden-dev/b'],
    ['1592.1.0', '1592.1.0 garden-dev/a'],
  ]);
  t.same(byClass(render(WINDOW, false).document, 'users'), [], 'none without a cluster state');
});

t.test('without a cluster state the page says so and draws no counts', async (t) => {
  const { document, errors } = render(WINDOW, false);
  t.same(errors, []);
  const message = one(document, (e) => attr(e, 'data-no-state') !== undefined, 'no-state message');
  t.match(textOf(message), /No cluster state: there are no Shoot counts/);
  t.same(byClass(document, 'count'), [], 'no counts');
  t.ok(
    byClass(document, 'row').every((r) => attr(r, 'data-shoots') === ''),
    'no row claims a count',
  );
  t.same(byClass(document, 'update'), [], 'no maintenance steps');
  t.match(textOf(one(document, (e) => hasClass(e, 'updates'), 'updates section')), 'Not known without a cluster state');
  t.equal(byClass(document, 'segment').length, 13, 'the stages are drawn all the same');
});

t.test('a window in the future: no now line, stages clipped to it', async (t) => {
  const window = resolveWindow(NOW, { days: 30 }, { days: 200 });
  const { document } = render(window);
  t.same(byClass(document, 'now'), [], 'now is outside the window');
  const r = row(timeline(document, 'kubernetes', '1.32'), '1.32.1');
  const pos = positionIn(chartOf(r), window);
  const got = segments(r);
  t.same(
    got.map((s) => s.stage),
    ['supported', 'deprecated', 'expired'],
  );
  t.ok(Math.abs(got[0]!.x - pos(window.from)) < 0.01, 'the first stage is cut at the window start');
  const old = row(timeline(document, 'kubernetes', '1.32'), '1.32.0');
  t.same(
    segments(old).map((s) => s.stage),
    ['expired'],
    'a stage that ended before the window is not drawn',
  );
});

t.test("warnings: the text output's, within the webhook's budget", async (t) => {
  // Eleven Shoots on an image version that expires with nowhere to go: eleven warnings.
  const stuck = cloudProfile({
    name: 'local',
    kubernetes: ['1.31.5'],
    images: [
      image(
        'ubuntu',
        [{ version: '22.4.1', classification: 'deprecated', expirationDate: '2026-10-01T00:00:00Z' }, '24.4.0'],
        'patch',
      ),
    ],
  });
  const many = Array.from({ length: 11 }, (_, i) =>
    shoot({
      name: `s${String(i).padStart(2, '0')}`,
      profile: 'local',
      version: '1.31.5',
      workers: [{ name: 'w', image: ['ubuntu', '22.4.1'] }],
    }),
  );
  const { document } = parsePage(renderProfilesPage([stuck], staticState([stuck, ...many]), NOW, WINDOW));
  const section = one(document, (e) => hasClass(e, 'warnings'), 'warnings');
  const items = byTag(section, 'li').map(textOf);
  t.equal(items.length, 10, 'at most 10 warnings');
  t.match(
    items[0],
    /^forced update will fail at 2026-10-02T00:00:00Z: shoot 'garden-dev\/s00' worker pool "w": machine image version 'ubuntu:22\.4\.1': no newer /,
  );
  t.ok(
    items.every((i) => i.length <= 256),
    'each at most 256 characters, as the webhook says them',
  );
  t.ok(Buffer.byteLength(items.join('')) <= 4096, 'within 4 KiB');
  t.match(textOf(section), 'and 1 more warning: version-policy explain prints every one');
});
