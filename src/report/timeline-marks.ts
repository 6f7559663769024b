// The marks drawn on a version's bar: the forecast's steps (a filled pin above the bar for a
// forced update, a hollow one with "!" for a failure, a blue one under the bar for an auto-update, a
// ring when the deprecated trap catches it), each linking to the first Shoot's chain; and, on a
// NamespacedCloudProfile's page, where the parent's expiry would have been.
import { componentText } from '../gardener/forecast/index.js';
import { formatInstant } from '../gardener/versions.js';
import { clip, html, type Markup } from './html-template.js';
import type { ExtendedExpiry } from './extended.js';
import type { StepMark } from './step-marks.js';

const TITLE_STEPS = 5;
const WORD: Record<StepMark['kind'], string> = {
  forced: 'forced update',
  auto: 'auto-update',
  failure: 'failed update',
};

export interface MarkPlace {
  cx: number;
  barTop: number;
  barBottom: number;
  /** The fragment of the first Shoot's chain on the page, if it is listed. */
  href: string | null;
}

export function stepMark(m: StepMark, p: MarkPlace): Markup {
  const { cx, barTop, barBottom } = p;
  const above = m.kind !== 'auto';
  const cy = above ? barTop - 3.5 : barBottom + 3;
  const shape =
    m.kind === 'auto'
      ? html`<path d="${risingPin(cx, barBottom)}"/>`
      : html`<path d="${pin(cx, barTop)}"/>${m.kind === 'failure' ? html`<text class="bang" x="${cx}" y="${barTop - 2.5}">!</text>` : null}`;
  const ring = m.trap ? html`<circle class="trap-ring" cx="${cx}" cy="${cy}" r="7"/>` : null;
  const count =
    m.shoots > 1
      ? html`<text class="step-count" x="${round(cx + 8)}" y="${above ? barTop - 1 : barBottom + 6}">×${m.shoots}</text>`
      : null;
  const body = html`<title>${titleOf(m)}</title>${ring}${shape}${count}`;
  const g = html`<g class="step k-${m.kind}${m.trap ? ' trap' : ''}" data-kind="${m.kind}" data-at="${formatInstant(m.at)}" data-shoots="${m.shoots}" data-trap="${m.trap ? 'true' : ''}">${body}</g>`;
  return p.href === null ? g : html`<a href="${p.href}">${g}</a>`;
}

function titleOf(m: StepMark): string {
  const who = m.steps.slice(0, TITLE_STEPS).map(({ shoot, event: e }) => {
    const to = e.failure ? `fails (${e.failure.kind}): ${clip(e.failure.message, 160)}` : `→ ${clip(e.to ?? '', 60)}`;
    const trap = e.trap ? ` [trap ${e.trap.issue}]` : '';
    return `${clip(shoot, 120)} ${clip(componentText(e.component), 80)} ${clip(e.from ?? '', 60)} ${to}${trap} at ${formatInstant(e.at).slice(11, 16)} UTC`;
  });
  if (m.steps.length > TITLE_STEPS) who.push(`and ${m.steps.length - TITLE_STEPS} more`);
  const n = m.shoots === 1 ? '1 Shoot' : `${m.shoots} Shoots`;
  return `${WORD[m.kind]}, ${n}, on ${formatInstant(m.at).slice(0, 10)}: ${who.join('; ')}`;
}

/** Where the parent would expire the version: a dashed line, and a strip of the expired colour up to the extended expiry. */
export function extendedMark(
  e: ExtendedExpiry,
  x: (t: number) => number,
  barTop: number,
  barBottom: number,
  version: string,
): Markup {
  const x0 = x(e.parent);
  const x1 = x(e.extended);
  const until = Number.isFinite(e.extended) ? `to ${formatInstant(e.extended)}` : 'for ever (no expiry)';
  return html`<g class="extended" data-parent="${formatInstant(e.parent)}" data-extended="${Number.isFinite(e.extended) ? formatInstant(e.extended) : ''}"><title>${clip(version, 100)}: extended: the parent expires it at ${formatInstant(e.parent)}, this NamespacedCloudProfile ${until}</title><rect class="extended-strip" x="${x0}" y="${barBottom - 3}" width="${round(Math.max(0, x1 - x0))}" height="3"/><line x1="${x0}" y1="${barTop - 2}" x2="${x0}" y2="${barBottom + 2}"/><text class="extended-label" x="${round(x0 + 3)}" y="${barTop + 1}">extended</text></g>`;
}

/** An upward triangle under the bar, its tip on the bar's bottom edge at x = cx. */
export function risingPin(cx: number, baseY: number): string {
  return `M${round(cx - 5)} ${baseY + 7}L${round(cx + 5)} ${baseY + 7}L${round(cx)} ${baseY - 1}Z`;
}

/** A downward triangle whose tip touches the bar's top edge at x = cx. */
export function pin(cx: number, tipY: number): string {
  return `M${round(cx - 5)} ${tipY - 8}L${round(cx + 5)} ${tipY - 8}L${round(cx)} ${tipY + 1}Z`;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
