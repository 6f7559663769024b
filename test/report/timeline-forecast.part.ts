// The forecast on the timeline page: forced and auto steps marked on the row of the version they
// leave, failures and the deprecated trap standing out, each Shoot's chain one click away; a
// NamespacedCloudProfile's extended expiries; and marks bounded however many Shoots share a row.
import t from '../helpers/parts.js';
import { staticState } from '../../src/cluster/static-state.js';
import type { ForecastEvent } from '../../src/gardener/forecast/index.js';
import type { Shoot } from '../../src/api/types.js';
import { stepMarks } from '../../src/report/step-marks.js';
import { renderProfilesPage } from '../../src/report/timeline-page.js';
import { resolveWindow } from '../../src/report/window.js';
import {
  attr,
  byClass,
  type Element,
  elements,
  hasClass,
  one,
  parsePage,
  textOf,
  titleOf,
} from '../helpers/html-dom.js';
import { cloudProfile, image, namespacedProfile, NOW, shoot } from '../helpers/objects.js';

const WINDOW = resolveWindow(NOW);
const profile = cloudProfile({
  name: 'local',
  kubernetes: [
    { version: '1.31.2', classification: 'deprecated' },
    { version: '1.31.1', classification: 'supported' },
    { version: '1.30.5', classification: 'deprecated', expirationDate: '2026-09-03T00:00:00Z' },
    { version: '1.29.5', classification: 'deprecated', expirationDate: '2026-08-01T00:00:00Z' },
  ],
  images: [
    image(
      'ubuntu',
      [{ version: '22.4.1', classification: 'deprecated', expirationDate: '2026-09-10T00:00:00Z' }, '24.4.0'],
      'patch',
    ),
  ],
});
const withMaintenance = (s: Shoot, begin: string, autoUpdate?: object): Shoot => ({
  ...s,
  spec: {
    ...s.spec,
    maintenance: {
      timeWindow: { begin, end: `${String(Number(begin.slice(0, 2)) + 1).padStart(2, '0')}0000+0000` },
      ...(autoUpdate ? { autoUpdate } : {}),
    },
  },
});
// trapped: auto-updated from supported 1.31.1 onto the newer deprecated 1.31.2 (gardener/gardener#13647).
// chain: forced 1.29.5 → 1.30.5, then 1.30.5 → 1.31.2 over the supported 1.31.1 (#13703); its
// ubuntu 22.4.1 under patch has nowhere to go (no-target).
const trapped = withMaintenance(
  shoot({ name: 'trapped', profile: 'local', version: '1.31.1', workers: [] }),
  '220000+0000',
);
const chain = withMaintenance(
  shoot({ name: 'chain', profile: 'local', version: '1.29.5', workers: [{ name: 'w', image: ['ubuntu', '22.4.1'] }] }),
  '010000+0000',
  { kubernetesVersion: false, machineImageVersion: false },
);

function page(shoots: Shoot[] = [trapped, chain]) {
  const { document, errors } = parsePage(renderProfilesPage([profile], staticState([profile, ...shoots]), NOW, WINDOW));
  t.same(errors, []);
  return document;
}

const marksOn = (root: Parameters<typeof byClass>[0], version: string) =>
  byClass(root, 'marks')
    .filter((g) => attr(g, 'data-version') === version)
    .flatMap((g) => byClass(g, 'step'))
    .map((m) => ({
      kind: attr(m, 'data-kind'),
      at: attr(m, 'data-at'),
      trap: attr(m, 'data-trap'),
      href: attr(m.parentNode as Element, 'href'),
    }));

t.test('steps, failures and traps on the rows they leave, each linked to its chain', async (t) => {
  const document = page();
  t.same(marksOn(document, '1.29.5'), [
    { kind: 'forced', at: '2026-09-01T01:00:00Z', trap: '', href: marksOn(document, '1.29.5')[0]!.href },
  ]);
  t.same(
    marksOn(document, '1.30.5').map((m) => [m.kind, m.at, m.trap]),
    [['forced', '2026-09-03T01:00:00Z', 'true']],
    'the second window of the chain, caught by #13703',
  );
  t.same(
    marksOn(document, '1.31.1').map((m) => [m.kind, m.at, m.trap]),
    [['auto', '2026-09-01T22:00:00Z', 'true']],
    'the auto-update onto a deprecated version, caught by #13647',
  );
  t.same(
    marksOn(document, '22.4.1').map((m) => [m.kind, m.at]),
    [['failure', '2026-09-10T01:00:00Z']],
    'the failure stands out on its own mark',
  );
  const failure = one(document, (e) => hasClass(e, 'step') && attr(e, 'data-kind') === 'failure', 'failure mark');
  t.match(
    titleOf(failure),
    /^failed update, 1 Shoot, on 2026-09-10: garden-dev\/chain worker pool "w" image ubuntu 22\.4\.1 fails \(no-target\)/,
  );
  t.ok(byClass(failure, 'bang').length === 1, 'with its "!"');

  // One click away: every mark links to a chain on the page, the chain lists the Shoot's steps in order.
  const chains = byClass(document, 'chain');
  t.same(
    chains.map((c) => attr(c, 'data-shoot')),
    ['garden-dev/chain', 'garden-dev/trapped'],
    'failures first, then traps',
  );
  for (const m of ['1.29.5', '1.30.5', '22.4.1']) {
    const target = one(document, (e) => attr(e, 'id') === marksOn(document, m)[0]!.href?.slice(1), `chain of ${m}`);
    t.equal(attr(target.parentNode as Element, 'data-shoot'), 'garden-dev/chain', `${m} links to garden-dev/chain`);
  }
  const steps = byClass(chains[0]!, 'chain-step').map((li) => [attr(li, 'data-kind'), attr(li, 'data-at')]);
  t.same(
    steps,
    [
      ['forced', '2026-09-01T01:00:00Z'],
      ['forced', '2026-09-03T01:00:00Z'],
      ['failure', '2026-09-10T01:00:00Z'],
    ],
    'the multi-window chain, dated',
  );
  t.match(textOf(chains[0]!), /1\.30\.5 → 1\.31\.2 trap gardener\/gardener#13703/);
  t.ok(attr(chains[0]!, 'open') !== undefined, 'a chain with a failure starts open');
  const summary = one(document, (e) => hasClass(e, 'forecast-summary'), 'summary');
  t.same(
    ['data-forced', 'data-auto', 'data-failures', 'data-trapped'].map((a) => attr(summary, a)),
    ['2', '1', '1', '2'],
  );
});

t.test("a NamespacedCloudProfile marks the expiries it extends: the parent's date and its own", async (t) => {
  const ncp = namespacedProfile({
    name: 'longer',
    parent: 'local',
    kubernetes: [{ version: '1.30.5', expirationDate: '2026-12-31T00:00:00Z' }],
  });
  const { document, errors } = parsePage(renderProfilesPage([ncp], staticState([profile, ncp]), NOW, WINDOW));
  t.same(errors, []);
  const row = one(document, (e) => hasClass(e, 'row') && attr(e, 'data-version') === '1.30.5', 'row 1.30.5');
  const mark = one(row, (e) => hasClass(e, 'extended'), 'extended mark');
  t.same([attr(mark, 'data-parent'), attr(mark, 'data-extended')], ['2026-09-03T00:00:00Z', '2026-12-31T00:00:00Z']);
  t.match(
    titleOf(mark),
    'extended: the parent expires it at 2026-09-03T00:00:00Z, this NamespacedCloudProfile to 2026-12-31T00:00:00Z',
  );
  const table = byClass(document, 'extended-expiry').map((r) => elements(r, (e) => e.tagName === 'td').map(textOf));
  t.same(table, [['Kubernetes 1.30.5', '2026-09-03T00:00:00Z', '2026-12-31T00:00:00Z', 'extended by 119 days']]);
  t.same(byClass(page(), 'extended'), [], 'a CloudProfile extends nothing');
});

t.test(
  'bounded: marks per row are capped, failures kept first, the rest counted; many Shoots share one mark',
  async (t) => {
    const at = (day: number) => NOW + day * 86_400_000 + 3_600_000;
    const events: ForecastEvent[] = Array.from({ length: 12 }, (_, i) => ({
      at: at(i + 1),
      windowEnd: at(i + 1) + 3_600_000,
      component: { kind: 'kubernetes' },
      mode: 'auto',
      from: '1.31.1',
      to: '1.31.2',
      reason: '',
      trigger: '',
    }));
    events.push({
      at: at(20),
      windowEnd: at(20),
      component: { kind: 'kubernetes' },
      mode: 'forced',
      from: '1.31.1',
      reason: '',
      trigger: '',
      failure: { kind: 'no-consecutive-minor', message: 'none' },
    });
    const got = stepMarks([{ shoot: trapped, key: 'garden-dev/trapped', window: '', events }], WINDOW, 8).get(
      'kubernetes\u0000\u00001.31.1',
    )!;
    t.equal(got.marks.length, 8);
    t.equal(got.left, 5);
    t.equal(got.marks.at(-1)!.kind, 'failure', 'the failure is never the one left out');

    const many = Array.from({ length: 2000 }, (_, i) =>
      withMaintenance(
        shoot({ name: `s${String(i).padStart(4, '0')}`, profile: 'local', version: '1.29.5', workers: [] }),
        '010000+0000',
        { kubernetesVersion: false, machineImageVersion: false },
      ),
    );
    const html = renderProfilesPage([profile], staticState([profile, ...many]), NOW, WINDOW);
    const document = parsePage(html).document;
    const first = byClass(document, 'marks')
      .filter((g) => attr(g, 'data-version') === '1.29.5')
      .flatMap((g) => byClass(g, 'step'));
    t.same(
      first.map((m) => attr(m, 'data-shoots')),
      ['2000'],
      'one mark for the 2,000 Shoots of one day',
    );
    t.match(titleOf(first[0]!), /and 1995 more$/);
    t.equal(byClass(document, 'chain').length, 100, 'at most 100 chains');
    t.match(
      textOf(one(document, (e) => hasClass(e, 'forecast'), 'forecast')),
      'and 1900 more Shoots with steps: version-policy forecast lists every one',
    );
    t.ok(html.length < 1_000_000, `${html.length} characters`);
  },
);
