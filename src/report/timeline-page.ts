// The timeline page: one self-contained HTML document (inline CSS and SVG, no script, no fetch)
// with, per profile, a chart per version list with the forecast's steps on it, the warnings, each
// Shoot's maintenance chain, the expiries a NamespacedCloudProfile extends, and every maintenance
// step inside the window by date. A pure function of the profiles, the cluster state, now and the
// window, shared by `explain --output html` and the server's /profiles pages. The steps, marks and
// chains are one forecast (the engine's): the page never says forced where the engine says auto.
import { clip as clipWarning, MAX_WARNING_BYTES, MAX_WARNINGS } from '../policy/warnings/budget.js';
import { EMPTY_STATE, type ClusterState } from '../api/cluster-state.js';
import type { ProfileReport } from './version-report.js';
import { formatInstant } from '../gardener/versions.js';
import { clip, html, type Markup } from './html-template.js';
import { explainProfile, type ExplainedProfile, type Profile } from './profile.js';
import { LEGEND, PATTERNS, swatch } from './stages.js';
import { profileTitle } from './text.js';
import { fromOf, placeOf, type StepRow, targetOf, whyOf } from './steps.js';
import { chainSection, listedChains, type MadeForecast } from './chains.js';
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
}

export type { MadeForecast } from './chains.js';

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
    profiles: profiles.map((p) =>
      explainProfile(
        p,
        known,
        now,
        forecast === 'pending' ? 'pending' : { until: window.to, ...(forecast ? { made: forecast } : {}) },
      ),
    ),
    now,
    window,
    stateKnown: state !== null,
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
  const { chains } = p;
  const { until, note } = forecastNote(p, input);
  const listed = listedChains(chains, id);
  const model = buildTimelines(p.spec, report, input.window, { chains, extended: p.extended, shoots: p.shoots });
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
${updatesSection(model, input, until)}
${notes(report)}
</section>`;
}

/** How far the profile's forecast reaches, and where it comes from: made for this page, or the server's fleet forecast. */
function forecastNote(p: ExplainedProfile, input: PageInput): { until: number; note: Markup | null } {
  if (!input.stateKnown) return { until: input.now, note: null };
  if (p.forecast === 'pending')
    return {
      until: input.window.to,
      note: html`<p class="more forecast-pending">The webhook is making its first fleet forecast: reload in a minute.</p>`,
    };
  if (p.forecast.madeAt === null) return { until: p.forecast.until, note: null };
  const note = html`<p class="more forecast-made" data-at="${formatInstant(p.forecast.madeAt)}">From the webhook's fleet forecast of ${formatInstant(p.forecast.madeAt)}, remade every few minutes, up to ${day(p.forecast.until)}.</p>`;
  return { until: p.forecast.until, note };
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
${input.stateKnown ? usersList(timelines, chainOf) : null}
</section>`;
}

/** Who uses each drawn version, by name in plain view (the chart's marks name them only in tooltips). */
function usersList(timelines: readonly Timeline[], chainOf: (shoot: string) => string | null): Markup | null {
  const items = timelines.flatMap((t) =>
    t.rows
      .filter((r) => r.users.names.length > 0)
      .map((r) => {
        const names = r.users.names.map((n, i) => {
          const href = chainOf(n);
          const name = href ? html`<a href="${href}">${clip(n, 200)}</a>` : html`${clip(n, 200)}`;
          return html`${i > 0 ? ', ' : ''}${name}`;
        });
        const more = r.users.more > 0 ? html` <span class="more">and ${r.users.more} more</span>` : null;
        return html`<li data-version="${clip(r.version, 100)}"><span class="version">${clip(r.version, 100)}</span> ${names}${more}</li>`;
      }),
  );
  if (items.length === 0) return null;
  return html`<ul class="users" aria-label="Shoots by version">${items}</ul>`;
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
    ? html`<p class="state">Shoot counts and the maintenance forecast are from the cluster state.</p>`
    : html`<p class="state none" data-no-state="">No cluster state: there are no Shoot counts and no maintenance forecast on this page. Pass <code>--state FILE</code> or <code>--cluster</code> to see them.</p>`;
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

/** The forecast's steps inside the window by date: the chains' steps, with who, where and why in plain view. */
function updatesSection(model: ProfileTimelines, input: PageInput, until: number): Markup {
  const head = html`<h2>Updates in the window, by date</h2>`;
  if (!input.stateKnown)
    return html`<section class="updates">${head}<p>Not known without a cluster state.</p></section>`;
  const before =
    model.updatesBefore > 0
      ? html`<p class="more">${plural(model.updatesBefore, 'more step')} before the window.</p>`
      : null;
  if (model.updates.length === 0)
    return html`<section class="updates">${head}<p>Gardener's maintenance takes no step on this profile's Shoots in the window (forecast up to ${day(until)}).</p>${before}</section>`;
  const left =
    model.updatesLeft > 0
      ? html`<p class="more">and ${plural(model.updatesLeft, 'more step')} in the window: <code>version-policy explain</code> lists every one.</p>`
      : null;
  return html`<section class="updates">${head}<p>Every step of the maintenance forecast up to ${day(until)}, auto and forced, by date. A version's expiry is shown as when it expires: the Shoot is force-updated only if no earlier step has moved it off.</p>
<table><thead><tr><th scope="col">When</th><th scope="col">Shoot</th><th scope="col">Where</th><th scope="col">Step</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Why</th></tr></thead>
<tbody>${model.updates.map(updateRow)}</tbody></table>${left}${before}</section>`;
}

function updateRow(r: StepRow): Markup {
  const e = r.event;
  const kind = e.failure ? 'failure' : e.mode;
  const when = html`${e.at.slice(0, 10)} ${e.at.slice(11, 16)} UTC${e.uncertain ? html` <br><span class="more">or a window earlier</span>` : null}`;
  return html`<tr class="update k-${kind}" data-kind="${kind}" data-shoot="${clip(r.shoot, 200)}" data-from="${clip(e.from ?? '', 100)}" data-to="${clip(e.to ?? '', 100)}" data-at="${e.at}" data-expires="${r.expires ?? ''}">
<td class="date">${when}</td><td class="shoot">${clip(r.shoot, 200)}</td><td>${clip(placeOf(e), 120)}</td><td class="mode">${kind === 'failure' ? `${e.mode}, fails` : e.mode}</td><td>${clip(fromOf(e), 120)}</td><td${e.failure ? html` class="fails"` : null}>${clip(targetOf(e), 160)}</td><td class="details">${clip(whyOf(r), 400)}</td></tr>`;
}

function notes(report: ProfileReport): Markup | null {
  if (report.notes.length === 0) return null;
  const { shown, left } = withinBudget(report.notes);
  return html`<section class="notes"><h2>Notes</h2><ul>${shown.map((n) => html`<li>${clip(n, 1024)}</li>`)}</ul>${left > 0 ? html`<p class="more">and ${plural(left, 'more note')}.</p>` : null}</section>`;
}

function day(t: number): string {
  return formatInstant(t).slice(0, 10);
}
