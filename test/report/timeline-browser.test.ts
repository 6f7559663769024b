// The timeline page in a real headless Chromium (Debian's, driven by playwright-core): served by
// the probe server's /profiles pages with their real headers, and as the file explain writes. No
// console error, no request beyond the page itself, and charts with a real rendered size, on
// screen and in print. One browser launch for the file.
//
// Chromium comes from `apt-get install chromium` (.ci/run installs it). Without it the test skips,
// except in CI, where a missing browser is a failed set-up.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { loadStaticState } from '../../src/cluster/static-state.js';
import { readObjectFile } from '../../src/cluster/object-files.js';
import type { Profile } from '../../src/report/profile.js';
import { renderProfilesPage } from '../../src/report/timeline-page.js';
import { resolveWindow } from '../../src/report/window.js';
import { buildProbeServer, urlOf } from '../../src/server/app.js';
import { createLogger } from '../../src/server/logging.js';
import { createMetrics } from '../../src/server/metrics.js';
import { Readiness } from '../../src/server/probes.js';
import { NOW } from '../helpers/objects.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// Without the background-networking flags Chromium dials out at start, which a closed network refuses.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

if (!existsSync(CHROMIUM) && process.env.CI === 'true') {
  t.fail(`no Chromium at ${CHROMIUM}: .ci/run installs it, so CI always runs this test`);
} else if (!existsSync(CHROMIUM)) {
  t.plan(0, `no Chromium at ${CHROMIUM}: apt-get install -y chromium (as .ci/run does), or set CHROMIUM_PATH`);
} else {
  const { chromium } = await import('playwright-core');
  const profileDir = await mkdtemp(join(tmpdir(), 'timeline-chromium-'));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    args: ARGS,
    viewport: { width: 1180, height: 900 },
  });
  t.teardown(async () => {
    await context.close();
    await rm(profileDir, { recursive: true, force: true });
  });

  const state = await loadStaticState([fixture('timeline/demo-state.yaml')]);
  const probes = buildProbeServer({
    readiness: new Readiness(state),
    metrics: createMetrics(),
    logger: createLogger('silent'),
    pages: { state, now: () => NOW },
  });
  await probes.listen({ host: '127.0.0.1', port: 0 });
  t.teardown(() => probes.close());
  const base = urlOf('http', probes);

  /** A fresh tab that records every console message, page error, request and failure. */
  async function watchedPage() {
    const page = await context.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
    page.on('request', (r) => requests.push(r.url()));
    return { page, problems, requests };
  }

  t.test('served by the server: the list, a click, the page', async (t) => {
    const { page, problems, requests } = await watchedPage();
    t.teardown(() => page.close());
    const list = await page.goto(`${base}/profiles`);
    t.equal(list?.status(), 200);
    await page.click('text=gcp');
    await page.waitForURL(`${base}/profiles/gcp`);
    t.equal(await page.title(), 'Version timeline: CloudProfile "gcp"');
    const charts = page.locator('svg.chart');
    t.equal(await charts.count(), 3, 'Kubernetes, gardenlinux, ubuntu');
    for (let i = 0; i < 3; i++) {
      const box = await charts.nth(i).boundingBox();
      t.ok(box && box.width > 500 && box.height > 50, `chart ${i} is drawn: ${box?.width}×${box?.height}`);
    }
    const bar = await page.locator('g.segment rect').first().boundingBox();
    t.ok(bar && bar.width > 0 && bar.height > 0, 'a stage segment has a size');
    const shot = await page.screenshot({ fullPage: true });
    t.ok(shot.length > 20_000, `a screenshot of ${shot.length} bytes`);
    t.same(problems, [], 'no console error, page error or failed request');
    t.same(
      requests,
      [`${base}/profiles`, `${base}/profiles/gcp`],
      'no request but the pages: no font, image or script',
    );
  });

  t.test("a person's visit: / lists the pages, every click is answered, Shoot names are on the page", async (t) => {
    const { page, problems } = await watchedPage();
    t.teardown(() => page.close());
    t.equal((await page.goto(`${base}/`))?.status(), 200);
    await page.click('a[href="profiles"]');
    await page.waitForURL(`${base}/profiles`);
    const statuses: number[] = [];
    page.on('response', (r) => statuses.push(r.status()));
    // Clicks as a person makes them, one after another: a page, back, the same again, another window.
    for (let i = 0; i < 2; i++) {
      await page.click('text=gcp');
      await page.waitForURL(`${base}/profiles/gcp`);
      await page.goBack();
    }
    await page.goto(`${base}/profiles/gcp?to=30d`);
    await page.goto(`${base}/profiles/gcp?from=-7d`);
    t.ok(statuses.length >= 4, `${statuses.length} answers`);
    t.ok(
      statuses.every((s) => s === 200 || s === 304),
      `no 503 for a person's clicks (a browser does not retry it): ${statuses.join(' ')}`,
    );
    // The names are text on the page, not tooltips: visible, with a size.
    for (const locator of [
      page.locator('ul.users a', { hasText: 'garden-finance/ledger' }).first(),
      page.locator('tr.update td.shoot', { hasText: 'garden-finance/ledger' }).first(),
    ]) {
      t.ok(await locator.isVisible(), 'a Shoot name is visible');
      const box = await locator.boundingBox();
      t.ok(box && box.width > 20 && box.height > 5, `drawn: ${box?.width}×${box?.height}`);
    }
    t.same(problems, []);
  });

  t.test('the file explain writes, opened as it is, on screen and in print', async (t) => {
    const { page, problems, requests } = await watchedPage();
    t.teardown(() => page.close());
    const [profile] = (await readObjectFile(fixture('timeline/demo-profile.yaml'))).map((o) => o.object as Profile);
    await page.setContent(renderProfilesPage([profile!], state, NOW, resolveWindow(NOW)), { waitUntil: 'load' });
    const screen = await page.locator('svg.chart').first().boundingBox();
    t.ok(screen && screen.width > 500, 'drawn on screen');
    await page.emulateMedia({ media: 'print' });
    const print = await page.locator('svg.chart').first().boundingBox();
    t.ok(print && print.width > 300 && print.height > 50, `drawn in print: ${print?.width}×${print?.height}`);
    t.same(problems, [], 'no console error: the meta CSP holds only what a meta CSP may');
    t.same(
      requests.filter((u) => !u.startsWith('about:')),
      [],
      'no request at all',
    );
  });

  t.test("the forecast: a click on a step's mark opens that Shoot's chain, with no script", async (t) => {
    const { page, problems } = await watchedPage();
    t.teardown(() => page.close());
    await page.goto(`${base}/profiles/gcp`);
    const closed = page.locator('details.chain:not([open])');
    t.ok((await closed.count()) > 0, 'chains without a failure start closed');
    // The first mark whose chain is closed: its link names the list inside that <details>.
    const marks = page.locator('g.marks a');
    let target = '';
    for (let i = 0; i < (await marks.count()) && !target; i++) {
      const href = (await marks.nth(i).getAttribute('href')) ?? '';
      if (await page.locator(`details.chain:not([open]) ol${href}`).count()) target = href;
    }
    t.not(target, '', 'a mark links into a closed chain');
    const box = await page.locator(`g.marks a[href="${target}"] g.step`).first().boundingBox();
    t.ok(box && box.width > 4 && box.height > 4, `the mark is drawn: ${box?.width}×${box?.height}`);
    await page.locator(`g.marks a[href="${target}"]`).first().click();
    t.equal(new URL(page.url()).hash, target);
    t.ok(
      await page.locator(`details.chain:has(ol${target})`).evaluate((d) => (d as unknown as { open: boolean }).open),
      'the browser opened the chain',
    );
    t.ok(await page.locator(`ol${target}`).isVisible(), 'its steps are visible');
    t.same(problems, []);
  });
}
