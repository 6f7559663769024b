// The timeline page: one self-contained HTML document (inline CSS and SVG, no script, no fetch)
// with, per profile, a chart per version list with the forecast's steps on it, the warnings, each
// Shoot's maintenance chain, the expiries a NamespacedCloudProfile extends, and the forced
// updates inside the window. A pure function of the profiles, the cluster state, now and the window, shared by
// `explain --output html` and the server's /profiles pages.
import { clip as clipWarning, MAX_WARNING_BYTES, MAX_WARNINGS } from '../policy/warnings/budget.js';
import { EMPTY_STATE, type ClusterState } from '../api/cluster-state.js';
import type { ForcedUpdateRow, ProfileReport } from './version-report.js';
import { formatInstant } from '../gardener/versions.js';
import { clip, html, type Markup } from './html-template.js';
import { explainProfile, type ExplainedProfile, type Profile } from './profile.js';
import { LEGEND, PATTERNS, swatch } from './stages.js';
import { forcedTarget, forcedWhen, profileTitle } from './text.js';
import { profileRefKey } from '../api/types.js';
import { chainSection, chainsOf, chainsUntil, listedChains } from './chains.js';
import type { ShootChain } from './step-marks.js';
import { buildTimelines, type ProfileTimelines, type Timeline } from './timeline.js';
import { plural, renderChart } from './timeline-svg.js';
import { PAGE_CSS } from './timeline-style.js';
import type { TimelineWindow } from './window.js';

/** The webhook's warning budget (policy/warnings/budget.ts): the page shows what a review would carry. */
export const WARNING_BUDGET = { count: MAX_WARNINGS, bytes: MAX_WARNING_BYTES } as const;
/** The Content-Security-Policy the page needs: its own inline style, nothing else. */
export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

export interface PageInput {
  profiles: readonly ExplainedProfile[];
  now: number;
  window: TimelineWindow;
  /** False without `--state` or `--cluster`: there are no Shoots to count. */
  stateKnown: boolean;
  /**
   * A fleet forecast made before (the server's, remade in the background), or `pending` until the
   * first is made; absent: the page forecasts the profile's Shoots itself (`explain`).
   */
  forecast?: MadeForecast | 'pending';
}

export interface MadeForecast {
  at: number;
  until: number;
  /** Per profile key (`CloudProfile/aws`). */
  chains: ReadonlyMap<string, readonly ShootChain[]>;
}

/**
 * The page for `profiles` at `now`. `state` null: no cluster state, so no counts (a
 * NamespacedCloudProfile then cannot be merged: MissingParentError).
 */
export function renderProfilesPage(
  profiles: readonly Profile[],
  state: ClusterState | null,
  now: number,
  window: TimelineWindow,
  forecast?: MadeForecast | 'pending',
): string {
  const known = state ?? EMPTY_STATE;
  return renderTimelinePage({
    profiles: profiles.map((p) => explainProfile(p, known, now)),
    now,
    window,
    stateKnown: state !== null,
    ...(forecast ? { forecast } : {}),
  });
}

export function renderTimelinePage(input: PageInput): string {
  const { now } = input;
  const title =
    input.profiles.length === 1 ? `Version timeline: ${profileTitle(input.profiles[0]!.report)}` : 'Version timelines';
  const sections = input.profiles.map((p, i) => profileSection(p, `p${i}`, input));
  return `<!doctype html>\n${
    html`<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${PAGE_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${clip(title, 200)}</title>
<style>${PAGE_CSS}</style>
</head>
<body>
${PATTERNS}
<main>
${sections}
<footer>Made by <code>version-policy</code> at ${formatInstant(now)}. The stages are the profile's <code>lifecycle</code>, or its <code>classification</code> and <code>expirationDate</code>; a version without them is supported.</footer>
</main>
</body>
</html>`.value
  }\n`;
}

function profileSection(p: ExplainedProfile, id: string, input: PageInput): Markup {
  const { report } = p;
  const { chains, until, note } = forecastOf(p, input);
  const listed = listedChains(chains, id);
  const model = buildTimelines(p.spec, report, input.now, input.window, { chains, extended: p.extended });
  const lists = chartsByList(model.timelines);
  const chainOf = (shoot: string) => {
    const l = listed.get(shoot);
    return l ? `#${l.id}` : `#${id}-forecast`;
  };
  return html`<section class="profile" id="${id}" data-kind="${report.kind}" data-name="${clip(report.name, 253)}" data-namespace="${clip(report.namespace ?? '', 253)}">
<header>
<h1>${clip(profileTitle(report), 600)}</h1>
<p class="meta">At <time datetime="${formatInstant(input.now)}">${formatInstant(input.now)}</time>, from <time datetime="${formatInstant(input.window.from)}">${day(input.window.from)}</time> to <time datetime="${formatInstant(input.window.to)}">${day(input.window.to)}</time>.</p>
</header>
${legend(input.stateKnown, p.extended.length > 0)}
${stateLine(input.stateKnown)}
${warnings(report)}
${lists.map((timelines, i) => listSection(timelines, `${id}-c${i}`, input, chainOf))}
${leftTimelines(model)}
${extendedSection(p, report.parent ?? null)}
${input.stateKnown && until > input.now ? chainSection(chains, listed, until, `${id}-forecast`, note) : null}
${forcedSection(model, input)}
${notes(report)}
</section>`;
}

/**
 * The profile's Shoots with their steps up to the window's end: from the fleet forecast the page
 * was given (cut to its horizon), else forecast here. The chart draws what falls inside the window.
 */
function forecastOf(
  p: ExplainedProfile,
  input: PageInput,
): { chains: ShootChain[]; until: number; note: Markup | null } {
  if (!input.stateKnown) return { chains: [], until: input.now, note: null };
  if (input.forecast === 'pending')
    return {
      chains: [],
      until: input.window.to,
      note: html`<p class="more forecast-pending">The webhook is making its first fleet forecast: reload in a minute.</p>`,
    };
  if (!input.forecast)
    return { chains: chainsOf(p.spec, p.shoots, input.now, input.window.to), until: input.window.to, note: null };
  const r = p.report;
  const key = profileRefKey(
    r.kind === 'CloudProfile'
      ? { kind: r.kind, name: r.name }
      : { kind: 'NamespacedCloudProfile', namespace: r.namespace ?? '', name: r.name },
  );
  const until = Math.min(input.window.to, input.forecast.until);
  const note = html`<p class="more forecast-made" data-at="${formatInstant(input.forecast.at)}">From the webhook's fleet forecast of ${formatInstant(input.forecast.at)}, remade every few minutes, up to ${day(input.forecast.until)}.</p>`;
  return { chains: chainsUntil(input.forecast.chains.get(key) ?? [], until), until, note };
}

/** Consecutive timelines of the same list share a chart, so they share its time axis. */
function chartsByList(timelines: readonly Timeline[]): Timeline[][] {
  const out: Timeline[][] = [];
  for (const t of timelines) {
    const last = out[out.length - 1];
    if (last && last[0]!.kind === t.kind && last[0]!.image === t.image) last.push(t);
    else out.push([t]);
  }
  return out;
}

function listSection(
  timelines: readonly Timeline[],
  id: string,
  input: PageInput,
  chainOf: (shoot: string) => string | null,
): Markup {
  const first = timelines[0]!;
  const title = first.image === null ? 'Kubernetes' : `Machine image "${first.image}"`;
  const heading =
    first.image === null ? html`Kubernetes versions` : html`Machine image <q>${clip(first.image, 200)}</q>`;
  return html`<section class="list" data-kind="${first.kind}" data-image="${clip(first.image ?? '', 200)}">
<h2>${heading}</h2>
${renderChart({ id, title, timelines, window: input.window, now: input.now, counts: input.stateKnown, chainOf })}
</section>`;
}

function legend(counts: boolean, extended: boolean): Markup {
  const stages = LEGEND.map((s) => html`<li>${swatch(s)}<span>${s.label}</span></li>`);
  const now = html`<li><svg class="swatch" width="14" height="14" viewBox="0 0 14 14" aria-hidden="true"><line x1="7" y1="0" x2="7" y2="14" stroke="#111" stroke-width="2.5"/></svg><span>now</span></li>`;
  const shoots = counts ? html`<li><span class="pill">2 Shoots</span><span>use the version now</span></li>` : null;
  const icon = (body: Markup) =>
    html`<svg class="swatch" width="16" height="16" viewBox="0 0 16 16" aria-hidden="true">${body}</svg>`;
  const steps = counts
    ? [
        html`<li class="step k-forced">${icon(html`<path d="M3 3L13 3L8 12Z"/>`)}<span>forced update (×N: Shoots that day)</span></li>`,
        html`<li class="step k-auto">${icon(html`<path d="M3 13L13 13L8 4Z"/>`)}<span>auto-update</span></li>`,
        html`<li class="step k-failure">${icon(html`<path d="M3 3L13 3L8 12Z"/><text class="bang" x="8" y="9">!</text>`)}<span>predicted failure</span></li>`,
        html`<li class="step trap">${icon(html`<circle class="trap-ring" cx="8" cy="8" r="6.5"/><circle cx="8" cy="8" r="3"/>`)}<span>deprecated trap</span></li>`,
      ]
    : null;
  const ext = extended
    ? html`<li class="extended">${icon(html`<rect class="extended-strip" x="7" y="9" width="9" height="3"/><line x1="7" y1="2" x2="7" y2="14"/>`)}<span>extended: where the parent expires it</span></li>`
    : null;
  return html`<ul class="legend" aria-label="legend">${stages}${now}${shoots}${steps}${ext}</ul>`;
}

/** A NamespacedCloudProfile's extended expiries: the parent's date next to its own. */
function extendedSection(p: ExplainedProfile, parent: string | null): Markup | null {
  if (p.extended.length === 0) return null;
  const rows = p.extended.map(
    (e) =>
      html`<tr class="extended-expiry" data-version="${clip(e.version, 100)}" data-image="${clip(e.image ?? '', 100)}"><td>${clip(`${e.image ?? 'Kubernetes'} ${e.version}`, 200)}</td><td>${formatInstant(e.parent)}</td><td><strong>${Number.isFinite(e.extended) ? formatInstant(e.extended) : 'never'}</strong></td><td class="extended-by">extended${Number.isFinite(e.extended) ? ` by ${plural(Math.round((e.extended - e.parent) / 86_400_000), 'day')}` : ': no expiry'}</td></tr>`,
  );
  return html`<section class="extended-expiries"><h2>Expiries this NamespacedCloudProfile extends</h2><table><thead><tr><th scope="col">Version</th><th scope="col">Parent${parent ? html` <q>${clip(parent, 200)}</q>` : null} expires it</th><th scope="col">Here it expires</th><th scope="col"></th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

function stateLine(known: boolean): Markup {
  return known
    ? html`<p class="state">Shoot counts, the maintenance forecast and the forced updates are from the cluster state.</p>`
    : html`<p class="state none" data-no-state="">No cluster state: there are no Shoot counts and no forced updates on this page. Pass <code>--state FILE</code> or <code>--cluster</code> to see them.</p>`;
}

function warnings(report: ProfileReport): Markup | null {
  if (report.warnings.length === 0) return null;
  const { shown, left } = withinBudget(report.warnings);
  return html`<section class="warnings"><h2>Warnings</h2><ul>${shown.map((w) => html`<li>${clipWarning(w)}</li>`)}</ul>${left > 0 ? html`<p class="more">and ${plural(left, 'more warning')}: <code>version-policy explain</code> prints every one.</p>` : null}</section>`;
}

/** The warnings in order while they fit the budget; the rest are counted. */
export function withinBudget(all: readonly string[]): { shown: string[]; left: number } {
  const shown: string[] = [];
  let bytes = 0;
  for (const w of all) {
    const size = Buffer.byteLength(clipWarning(w));
    if (shown.length === WARNING_BUDGET.count || bytes + size > WARNING_BUDGET.bytes) break;
    shown.push(clipWarning(w));
    bytes += size;
  }
  return { shown, left: all.length - shown.length };
}

function leftTimelines(model: ProfileTimelines): Markup | null {
  const l = model.leftTimelines;
  if (l.timelines === 0) return null;
  return html`<p class="more left-timelines" data-left="${l.timelines}">and ${plural(l.timelines, 'more minor')} (${plural(l.versions, 'version')}, ${plural(l.shoots, 'Shoot')}) not drawn: <code>version-policy explain</code> lists every version.</p>`;
}

function forcedSection(model: ProfileTimelines, input: PageInput): Markup {
  const head = html`<h2>Forced updates in the window</h2>`;
  if (!input.stateKnown)
    return html`<section class="forced">${head}<p>Not known without a cluster state.</p></section>`;
  const outside =
    model.forcedOutside > 0
      ? html`<p class="more">${plural(model.forcedOutside, 'more forced update')} outside the window.</p>`
      : null;
  if (model.forcedUpdates.length === 0)
    return html`<section class="forced">${head}<p>No Shoot on this profile uses a version that expires by ${day(input.window.to)}.</p>${outside}</section>`;
  const rows = model.forcedUpdates.map((f) => forcedRow(f, input.now));
  const left =
    model.forcedLeft > 0
      ? html`<p class="more">and ${plural(model.forcedLeft, 'more forced update')} in the window: <code>version-policy explain</code> lists every one.</p>`
      : null;
  return html`<section class="forced">${head}<p>Shoots whose version expires by ${day(input.window.to)}: when their maintenance updates them, and to what, if nothing moves them first (the maintenance forecast above has each run, auto-updates included).</p>
<table><thead><tr><th scope="col">Forced update</th><th scope="col">Shoot</th><th scope="col">Where</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Details</th></tr></thead>
<tbody>${rows}</tbody></table>${left}${outside}</section>`;
}

function forcedRow(f: ForcedUpdateRow, now: number): Markup {
  return html`<tr class="forced-update" data-shoot="${clip(f.shoot, 200)}" data-from="${clip(f.from, 100)}" data-to="${clip(f.to ?? '', 100)}" data-at="${f.at ?? ''}" data-expires="${f.expiresAt ?? ''}">
<td class="date">${updateDate(f, now)}</td><td>${clip(f.shoot, 200)}</td><td>${clip(f.place, 120)}</td><td>${clip(`${f.image ?? 'kubernetes'} ${f.from}`, 120)}</td><td${f.to === null ? html` class="fails"` : null}>${clip(forcedTarget(f), 160)}</td><td class="details">${clip(forcedWhen(f, now), 240)}</td></tr>`;
}

/** The day and hour when the Shoot sets a maintenance window; else when its window comes after the expiry. */
function updateDate(f: ForcedUpdateRow, now: number): string {
  if (f.at !== null) return `${f.at.slice(0, 10)} ${f.at.slice(11, 16)} UTC`;
  if (f.expiresAt !== null && Date.parse(f.expiresAt) > now) return `after ${f.expiresAt.slice(0, 10)}`;
  return 'next window';
}

function notes(report: ProfileReport): Markup | null {
  if (report.notes.length === 0) return null;
  const { shown, left } = withinBudget(report.notes);
  return html`<section class="notes"><h2>Notes</h2><ul>${shown.map((n) => html`<li>${clip(n, 1024)}</li>`)}</ul>${left > 0 ? html`<p class="more">and ${plural(left, 'more note')}.</p>` : null}</section>`;
}

function day(t: number): string {
  return formatInstant(t).slice(0, 10);
}
