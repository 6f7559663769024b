// However large the profile, the page is bounded: at most 40 timelines of at most 20 rows, at most
// 12 segments a row, 100 forced updates, and the rest counted in "and N more". Versions in use are
// never the ones left out. (Speed is measured in bench/, this only catches a blow-up.)
import t from '../helpers/parts.js';
import { staticState } from '../../src/cluster/static-state.js';
import type { ExpirableVersion, Shoot } from '../../src/api/types.js';
import { chainsOf } from '../../src/report/chains.js';
import { explainProfile } from '../../src/report/profile.js';
import { renderProfilesPage } from '../../src/report/timeline-page.js';
import { LIMITS } from '../../src/report/timeline.js';
import { resolveWindow } from '../../src/report/window.js';
import { attr, byClass, elements, hasClass, parsePage, textOf } from '../helpers/html-dom.js';
import { cloudProfile, image, NOW, shoot } from '../helpers/objects.js';

const stamp = (days: number) => new Date(NOW + days * 86_400_000).toISOString().replace('.000Z', 'Z');

// 100 minors × 50 patches, most with a three-stage lifecycle; 2,000 image versions in 200 minors.
// The oldest patches never expire: building the report's forced updates costs (uses × versions),
// which is the policy's and not what this test is about.
const kubernetes: ExpirableVersion[] = [];
for (let minor = 0; minor < 100; minor++) {
  for (let patch = 0; patch < 50; patch++) {
    const expires = [
      { classification: 'deprecated', startTime: stamp(patch - 20) },
      { classification: 'expired', startTime: stamp(patch * 3) },
    ];
    kubernetes.push({
      version: `1.${minor}.${patch}`,
      lifecycle: [{ classification: 'supported' }, ...(patch < 10 ? [] : expires)],
    });
  }
}
// A lifecycle that flips between two stages 300 times inside the window.
kubernetes.push({
  version: '1.99.99',
  lifecycle: Array.from({ length: 300 }, (_, i) => ({
    classification: i % 2 ? 'deprecated' : 'supported',
    startTime: stamp(i),
  })),
});
const images = [
  image(
    'gardenlinux',
    Array.from({ length: 2000 }, (_, i) => ({
      version: `${1000 + (i % 200)}.${Math.floor(i / 200)}.0`,
      classification: 'deprecated',
      expirationDate: stamp(i % 400),
    })),
    'major',
  ),
];
const profile = cloudProfile({ name: 'big', kubernetes, images });
// 300 Shoots, all on old patches of old minors: rows a naive "newest first" cap would drop.
const shoots: Shoot[] = Array.from({ length: 300 }, (_, i) =>
  shoot({
    name: `s${i}`,
    profile: 'big',
    version: `1.${i % 3}.${i % 5}`,
    workers: [{ name: 'w', image: ['gardenlinux', `${1000 + (i % 7)}.0.0`] }],
  }),
);

const state = staticState([profile, ...shoots]);
// The forecast made beforehand, as the server makes it in the background: its cost grows with the
// stage starts × versions of such a profile (seconds here), which is the forecast's, not the page's.
const explained = explainProfile(profile, state, NOW, 'pending');
const forecast = {
  at: NOW,
  until: resolveWindow(NOW).to,
  chains: new Map([['CloudProfile/big', chainsOf(explained.spec, explained.shoots, NOW, resolveWindow(NOW).to)]]),
};
// Main-thread CPU, not wall time: a loaded machine stretches the second, not the first.
const cpuBefore = process.threadCpuUsage();
const html = renderProfilesPage([profile], state, NOW, resolveWindow(NOW), forecast);
const cpu = process.threadCpuUsage(cpuBefore);
const ms = (cpu.user + cpu.system) / 1000;
const { document, errors } = parsePage(html);

t.test('the page is bounded', async (t) => {
  t.same(errors, []);
  t.ok(html.length < 1_500_000, `${(html.length / 1e6).toFixed(2)} MB for 7,000 versions and 300 Shoots`);
  t.ok(ms < 20_000, `rendered in ${ms.toFixed(0)} ms of CPU (a blow-up guard, not a benchmark)`);
  const timelines = byClass(document, 'timeline');
  t.equal(timelines.length, LIMITS.timelines, 'at most 40 timelines');
  t.ok(
    timelines.every((tl) => byClass(tl, 'row').length <= LIMITS.rowsPerTimeline),
    'at most 20 rows each',
  );
  t.ok(
    byClass(document, 'row').every((r) => byClass(r, 'segment').length <= LIMITS.segmentsPerRow),
    'at most 12 segments a row',
  );
  t.equal(byClass(document, 'update').length, LIMITS.updates, 'at most 100 steps listed by date');
  t.match(textOf(byClass(document, 'updates')[0]!), /and \d+ more steps in the window/, 'the rest counted');
  t.ok(
    byClass(document, 'users').every((u) =>
      elements(u, (e) => e.tagName === 'li').every(
        (li) => elements(li, (e) => e.tagName === 'a').length <= LIMITS.namesPerRow,
      ),
    ),
    'at most 3 Shoots named a version',
  );
  t.ok(
    byClass(document, 'marks').every((g) => byClass(g, 'step').length <= LIMITS.updateMarksPerRow),
    'at most 8 forecast marks a row',
  );
  t.ok(byClass(document, 'chain').length > 0, 'the forecast is drawn');
});

t.test('what is left out is counted, and versions in use are kept', async (t) => {
  const left = byClass(document, 'left-timelines')[0];
  t.ok(left, 'a line for the timelines not drawn');
  // 100 Kubernetes minors and 2,000 image minors (every image version is a minor of its own), 40 drawn.
  t.equal(attr(left!, 'data-left'), '2060');
  t.match(
    textOf(left!),
    /and 2060 more minors \(\d+ versions, 0 Shoots\) not drawn/,
    'no Shoot is on a minor left out',
  );
  const drawn = byClass(document, 'timeline').map(
    (tl) => `${attr(tl, 'data-image') || 'k8s'} ${attr(tl, 'data-minor')}`,
  );
  for (const minor of ['1.0', '1.1', '1.2'])
    t.ok(drawn.includes(`k8s ${minor}`), `Kubernetes ${minor} is in use and drawn`);
  for (let i = 0; i < 7; i++)
    t.ok(drawn.includes(`gardenlinux ${1000 + i}.0`), `gardenlinux ${1000 + i}.0 is in use and drawn`);
  const k10 = byClass(document, 'timeline').find(
    (tl) => attr(tl, 'data-minor') === '1.0' && attr(tl, 'data-kind') === 'kubernetes',
  )!;
  const versions = byClass(k10, 'row').map((r) => attr(r, 'data-version'));
  for (let p = 0; p < 5; p++) t.ok(versions.includes(`1.0.${p}`), `1.0.${p} has Shoots and is drawn`);
  t.equal(attr(k10, 'data-left'), '30');
  t.match(textOf(byClass(k10, 'more')[0]!), 'and 30 more versions (0 Shoots)');
  const flipping = byClass(document, 'row').find((r) => attr(r, 'data-version') === '1.99.99');
  t.ok(flipping, 'the flipping version is drawn');
  const segs = byClass(flipping!, 'segment');
  t.equal(segs.length, LIMITS.segmentsPerRow);
  t.ok(hasClass(segs.at(-1)!, 'undrawn'), 'the last segment says the rest is not drawn');
  t.match(textOf(segs.at(-1)!), /\d+ more stage changes from .* not drawn/);
});
