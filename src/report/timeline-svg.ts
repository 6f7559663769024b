// One chart per version list (the Kubernetes versions, or one machine image): a shared month axis,
// then each minor's timeline as a band of rows, a bar per version made of its stage segments, the
// Shoot count at the row's end and a line at "now". Positions are plain numbers in user units
// (no transforms), so what a test reads off an element is where it is drawn.
import { formatInstant } from '../gardener/versions.js';
import { clip, html, type Markup } from './html-template.js';
import { styleOf, type StageStyle, UNDRAWN } from './stages.js';
import type { Segment, Timeline, TimelineRow } from './timeline.js';
import { extendedMark, stepMark } from './timeline-marks.js';
import type { TimelineWindow } from './window.js';

/** The geometry, in user units of a 1000-wide viewBox; the SVG scales to the page. */
export const GEOMETRY = {
  width: 1000,
  chartX: 160,
  chartWidth: 730,
  countX: 904,
  axisHeight: 36,
  bandHeight: 22,
  rowHeight: 24,
  barInset: 4,
  moreHeight: 20,
} as const;
const G = GEOMETRY;
/** Versions longer than this are cut on the row label (the segment titles carry more). */
const LABEL_CHARS = 22;
const TITLE_CHARS = 100;
/** A rough width per character of the 11-unit sans-serif labels, to decide whether a word fits. */
const CHAR_WIDTH = 6.4;

export interface ChartInput {
  /** Used in element ids; unique on the page. */
  id: string;
  title: string;
  timelines: readonly Timeline[];
  window: TimelineWindow;
  now: number;
  /** Without a cluster state there are no counts to draw. */
  counts: boolean;
  /** The page fragment of a Shoot's chain, if the page lists it. */
  chainOf?: (shoot: string) => string | null;
}

export function renderChart(input: ChartInput): Markup {
  const { window, now } = input;
  const x = (t: number) =>
    round(G.chartX + ((clamp(t, window) - window.from) / (window.to - window.from)) * G.chartWidth);
  let y = G.axisHeight;
  const bands: Markup[] = [];
  // The forecast's marks go over the "now" line, where the next window's steps sit.
  const marks: Markup[] = [];
  for (const timeline of input.timelines) {
    bands.push(band(timeline, y, x, input, window, marks));
    y += G.bandHeight + timeline.rows.length * G.rowHeight + (timeline.left.versions > 0 ? G.moreHeight : 0);
  }
  const height = y + 6;
  const nowLine =
    now >= window.from && now <= window.to
      ? html`<g class="now" data-at="${formatInstant(now)}"><line x1="${x(now)}" y1="13" x2="${x(now)}" y2="${height - 2}"/><text class="now-label" x="${x(now)}" y="10">now</text></g>`
      : null;
  return html`<svg class="chart" viewBox="0 0 ${G.width} ${height}" role="img" aria-labelledby="${input.id}-title" data-from="${formatInstant(window.from)}" data-to="${formatInstant(window.to)}" data-chart-x="${G.chartX}" data-chart-width="${G.chartWidth}">
<title id="${input.id}-title">${clip(input.title, TITLE_CHARS)}: versions over time, ${day(window.from)} to ${day(window.to)}</title>
${axis(window, x, height)}
${bands}
${nowLine}
${marks}
</svg>`;
}

/** A minor's timeline: its header band, its rows, and how many rows were left out. */
function band(
  t: Timeline,
  top: number,
  x: (t: number) => number,
  input: ChartInput,
  window: TimelineWindow,
  layer: Markup[],
): Markup {
  const counts = input.counts;
  const rows = t.rows.map((r, i) => row(r, top + G.bandHeight + i * G.rowHeight, i, x, input, window, layer, t));
  const bottom = top + G.bandHeight + t.rows.length * G.rowHeight;
  const shoots = t.rows.reduce((n, r) => n + r.shoots, 0) + t.left.shoots;
  const label = `${t.image === null ? 'Kubernetes' : clip(t.image, 40)} ${t.minor}`;
  const more =
    t.left.versions > 0
      ? html`<text class="more" x="${G.chartX}" y="${bottom + 14}">and ${t.left.versions} more version${t.left.versions === 1 ? '' : 's'}${counts ? ` (${plural(t.left.shoots, 'Shoot')})` : ''}: version-policy explain lists every one</text>`
      : null;
  return html`<g class="timeline" data-kind="${t.kind}" data-image="${clip(t.image ?? '', TITLE_CHARS)}" data-minor="${t.minor}" data-left="${t.left.versions}">
<rect class="band" x="0" y="${top}" width="${G.width}" height="${G.bandHeight}"/><text class="band-label" x="8" y="${top + 15}">${label}</text>${counts ? html`<text class="band-count" x="${G.countX}" y="${top + 15}">${plural(shoots, 'Shoot')}</text>` : null}
${rows}${more}</g>`;
}

function row(
  r: TimelineRow,
  top: number,
  index: number,
  x: (t: number) => number,
  input: ChartInput,
  window: TimelineWindow,
  layer: Markup[],
  t: Timeline,
): Markup {
  const counts = input.counts;
  const barTop = top + G.barInset;
  const barHeight = G.rowHeight - 2 * G.barInset;
  const segments = r.segments.map((s) => segment(r.version, s, x, barTop, barHeight));
  const undrawn = r.undrawn ? undrawnSegment(r, x, barTop, barHeight) : null;
  const extended =
    r.extended && r.extended.parent >= window.from && r.extended.parent <= window.to
      ? extendedMark(r.extended, x, barTop, barTop + barHeight, r.version)
      : null;
  const marks = r.marks.map((m) =>
    stepMark(m, {
      cx: x(m.at),
      barTop,
      barBottom: barTop + barHeight,
      href: input.chainOf?.(m.steps[0]!.shoot) ?? null,
    }),
  );
  if (marks.length > 0)
    layer.push(
      html`<g class="marks" data-kind="${t.kind}" data-image="${clip(t.image ?? '', TITLE_CHARS)}" data-version="${clip(r.version, TITLE_CHARS)}">${marks}</g>`,
    );
  const marksLeft =
    r.marksLeft > 0
      ? html`<text class="marks-left" x="${G.chartX + G.chartWidth + 2}" y="${top + 9}">+${r.marksLeft}<title>${plural(r.marksLeft, 'more day')} with steps from ${clip(r.version, TITLE_CHARS)}: version-policy forecast lists every one</title></text>`
      : null;
  const count = counts
    ? html`<g class="count${r.shoots > 0 ? ' in-use' : ''}" data-shoots="${r.shoots}">${r.shoots > 0 ? html`<rect x="${G.countX - 4}" y="${top + 3}" width="${pillWidth(r.shoots)}" height="${G.rowHeight - 6}" rx="9"/>` : null}<text x="${G.countX + 4}" y="${top + 16}">${plural(r.shoots, 'Shoot')}</text></g>`
    : null;
  return html`<g class="row" data-version="${clip(r.version, TITLE_CHARS)}" data-shoots="${counts ? r.shoots : ''}">
${index % 2 === 1 ? html`<rect class="stripe" x="0" y="${top}" width="${G.width}" height="${G.rowHeight}"/>` : null}<text class="version" x="${G.chartX - 10}" y="${top + 16}">${clip(r.version, LABEL_CHARS)}<title>${clip(r.version, TITLE_CHARS)}</title></text>
${segments}${undrawn}${extended}${marksLeft}${count}</g>
`;
}

function segment(version: string, s: Segment, x: (t: number) => number, top: number, height: number): Markup {
  const style = styleOf(s.stage);
  const x0 = x(s.start);
  const x1 = x(s.end);
  const title = `${clip(version, TITLE_CHARS)}: ${clip(style.label, 40)} ${since(s.start)} ${until(s.end)}`;
  return html`<g class="segment" data-stage="${clip(s.stage, 40)}" data-start="${instant(s.start)}" data-end="${instant(s.end)}"><title>${title}</title><rect class="seg s-${style.key}" x="${x0}" y="${top}" width="${round(x1 - x0)}" height="${height}" fill="url(#vp-${style.key})"/>${label(style, x0, x1, top)}</g>`;
}

function undrawnSegment(r: TimelineRow, x: (t: number) => number, top: number, height: number): Markup {
  const x0 = x(r.undrawn!.from);
  const x1 = x(Infinity);
  const title = `${clip(r.version, TITLE_CHARS)}: ${r.undrawn!.changes} more stage changes from ${formatInstant(r.undrawn!.from)} not drawn`;
  return html`<g class="segment undrawn" data-stage="" data-start="${instant(r.undrawn!.from)}" data-end=""><title>${title}</title><rect class="seg s-undrawn" x="${x0}" y="${top}" width="${round(x1 - x0)}" height="${height}" fill="url(#vp-undrawn)"/>${label(UNDRAWN, x0, x1, top)}</g>`;
}

/** The stage's word where it fits, else its letter: the stage reads without the legend. */
function label(style: StageStyle, x0: number, x1: number, top: number): Markup | null {
  const width = x1 - x0;
  const text =
    style.label.length * CHAR_WIDTH + 8 <= width ? clip(style.label, 40) : CHAR_WIDTH + 4 <= width ? style.short : null;
  return text === null
    ? null
    : html`<text class="seg-label" x="${round((x0 + x1) / 2)}" y="${top + 12}">${text}</text>`;
}

/** Month ticks: every month, or every 2, 3, 6 or 12 so that at most 16 are drawn. */
function axis(window: TimelineWindow, x: (t: number) => number, height: number): Markup {
  const first = new Date(window.from);
  const months =
    (new Date(window.to).getUTCFullYear() - first.getUTCFullYear()) * 12 +
    new Date(window.to).getUTCMonth() -
    first.getUTCMonth() +
    1;
  const step = [1, 2, 3, 6, 12, 24, 60].find((s) => months / s <= 16) ?? 120;
  const ticks: Markup[] = [];
  let labelled = false;
  for (let m = 0; m <= months; m++) {
    const at = Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + m, 1);
    if (at <= window.from || at > window.to) continue;
    const d = new Date(at);
    if (d.getUTCMonth() % step !== 0) continue;
    const name = MONTHS[d.getUTCMonth()]!;
    const text = !labelled || d.getUTCMonth() === 0 ? `${name} ${d.getUTCFullYear()}` : name;
    labelled = true;
    ticks.push(
      html`<line class="tick" data-month="${d.toISOString().slice(0, 7)}" x1="${x(at)}" y1="16" x2="${x(at)}" y2="${height - 4}"/><text class="tick-label" x="${x(at) + 3}" y="28">${text}</text>`,
    );
  }
  return html`<g class="axis"><line class="axis-line" x1="${G.chartX}" y1="${G.axisHeight - 2}" x2="${G.chartX + G.chartWidth}" y2="${G.axisHeight - 2}"/>${ticks}</g>`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function pillWidth(shoots: number): number {
  return plural(shoots, 'Shoot').length * CHAR_WIDTH + 12;
}

export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function since(start: number): string {
  return start === -Infinity ? 'from the start' : `from ${formatInstant(start)}`;
}

function until(end: number): string {
  return end === Infinity ? 'onwards' : `until ${formatInstant(end)}`;
}

/** An instant for a data attribute; empty for an open end. */
function instant(t: number): string {
  return Number.isFinite(t) ? formatInstant(t) : '';
}

function day(t: number): string {
  return formatInstant(t).slice(0, 10);
}

function clamp(t: number, w: TimelineWindow): number {
  return Math.min(Math.max(t, w.from), w.to);
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
