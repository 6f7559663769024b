#!/usr/bin/env node
// Renders the timeline page of a profile with the built CLI and takes a screenshot of it in headless
// Chromium: docs/timeline.png. Regenerate after a change of the page:
//   npm run build && node scripts/screenshot-timeline.js
// Options: --profile FILE --state FILE --now RFC3339 --out PNG --width PX (defaults: the demo).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Without the background-networking flags Chromium dials out at start, which a closed network refuses. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const { values } = parseArgs({
  options: {
    profile: { type: 'string', default: 'test/fixtures/timeline/demo-profile.yaml' },
    state: { type: 'string', default: 'test/fixtures/timeline/demo-state.yaml' },
    now: { type: 'string', default: '2026-09-01T00:00:00Z' },
    out: { type: 'string', default: 'docs/timeline.png' },
    width: { type: 'string', default: '1180' },
  },
});

if (!existsSync(CHROMIUM))
  throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium, or set CHROMIUM_PATH`);
const cli = join(ROOT, 'dist/cli/main.js');
if (!existsSync(cli)) throw new Error('dist/ is missing: run `npm run build` first');

const page = execFileSync(
  process.execPath,
  [cli, 'explain', '--output', 'html', '--state', values.state, '--now', values.now, values.profile],
  { cwd: ROOT, encoding: 'utf8' },
);
const profileDir = mkdtempSync(join(tmpdir(), 'timeline-chromium-'));
const context = await chromium.launchPersistentContext(profileDir, {
  executablePath: CHROMIUM,
  args: CHROMIUM_ARGS,
  viewport: { width: Number(values.width), height: 800 },
  deviceScaleFactor: 1,
});
try {
  const tab = await context.newPage();
  await tab.setContent(page, { waitUntil: 'load' });
  await tab.screenshot({ path: resolve(ROOT, values.out), fullPage: true });
  console.log(`${values.out}: ${values.profile} at ${values.now}`);
} finally {
  await context.close();
  rmSync(profileDir, { recursive: true, force: true });
}
