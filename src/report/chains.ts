// The forecast on the page: each Shoot's chain of maintenance runs as a <details> (no script: the
// chart's marks link to it, and the browser opens it), the Shoots with failures and traps first,
// and a summary line. Bounded: at most MAX_CHAINS Shoots and MAX_STEPS steps each.
import { componentText, type ForecastEvent, forecastShoot } from '../gardener/forecast/index.js';
import { formatWindow, maintenanceWindowOf } from '../gardener/maintenance.js';
import type { CloudProfileSpec, Shoot } from '../api/types.js';
import { objectKey } from '../api/types.js';
import { formatInstant } from '../gardener/versions.js';
import { clip, html, type Markup } from './html-template.js';
import { kindOf, type ShootChain } from './step-marks.js';
import { plural } from './timeline-svg.js';

export const MAX_CHAINS = 100;
const MAX_STEPS = 30;
/** Chains with a failure or a trap start open, up to this many. */
const OPEN_CHAINS = 5;

/** A fleet forecast made before (the server's, remade in the background), as the pages take it. */
export interface MadeForecast {
  at: number;
  until: number;
  /** Per profile key (`CloudProfile/aws`). */
  chains: ReadonlyMap<string, readonly ShootChain[]>;
}

/** The forecast of the profile's Shoots from now to `until`, each on the effective spec. */
export function chainsOf(spec: CloudProfileSpec, shoots: readonly Shoot[], now: number, until: number): ShootChain[] {
  if (until <= now) return [];
  return shoots
    .map((shoot) => {
      const { events, otherwise } = forecastShoot(shoot, spec, now, until);
      return chainOf(shoot, events, otherwise);
    })
    .sort(byKey);
}

/** Chains in the order of their keys' code units: cheap, and the same on the CLI and the server. */
export function byKey(a: ShootChain, b: ShootChain): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

export function chainOf(shoot: Shoot, events: ForecastEvent[], otherwise?: ForecastEvent[]): ShootChain {
  const w = maintenanceWindowOf(shoot);
  const window = w ? formatWindow(w) : 'no window: any time of day';
  return { shoot, key: objectKey(shoot), window, events, ...(otherwise ? { otherwise } : {}) };
}

/** A forecast made before, cut to `until`: what the page shows of the server's background forecast. */
export function chainsUntil(chains: readonly ShootChain[], until: number): ShootChain[] {
  return chains.map((c) => ({
    ...c,
    events: c.events.filter((e) => e.at <= until),
    ...(c.otherwise ? { otherwise: c.otherwise.filter((e) => e.at <= until) } : {}),
  }));
}

/** The listed Shoots in page order: failures, then traps, then forced steps, then the rest; each with its element id. */
export function listedChains(
  chains: readonly ShootChain[],
  idPrefix: string,
): Map<string, { chain: ShootChain; id: string }> {
  const rank = (c: ShootChain) =>
    c.events.some((e) => e.failure)
      ? 0
      : c.events.some((e) => e.trap)
        ? 1
        : c.events.some((e) => e.mode === 'forced')
          ? 2
          : 3;
  const listed = chains
    .filter((c) => c.events.length > 0)
    .sort((a, b) => rank(a) - rank(b))
    .slice(0, MAX_CHAINS);
  return new Map(listed.map((chain, i) => [chain.key, { chain, id: `${idPrefix}-chain-${i}` }]));
}

export function chainSection(
  chains: readonly ShootChain[],
  listed: ReadonlyMap<string, { chain: ShootChain; id: string }>,
  until: number,
  id: string,
  note: Markup | null,
): Markup {
  const head = html`<h2>Maintenance forecast</h2>`;
  const events = chains.flatMap((c) => c.events);
  const count = (k: string) => events.filter((e) => kindOf(e) === k).length;
  const trapped = chains.filter((c) => c.events.some((e) => e.trap)).length;
  const quiet = chains.length - chains.filter((c) => c.events.length > 0).length;
  const summary = html`<p class="forecast-summary" data-forced="${count('forced')}" data-auto="${count('auto')}" data-failures="${count('failure')}" data-trapped="${trapped}">Until ${formatInstant(until).slice(0, 10)}, Gardener's maintenance takes ${plural(count('forced'), 'forced update')} and ${plural(count('auto'), 'auto-update')} on ${plural(chains.length - quiet, 'Shoot')}; <span${count('failure') > 0 ? html` class="fails"` : null}>${plural(count('failure'), 'predicted failure')}</span>; <span${trapped > 0 ? html` class="fails"` : null}>${plural(trapped, 'Shoot')} caught by the deprecated trap</span>. ${quiet > 0 ? `${plural(quiet, 'Shoot')} without a step. ` : ''}Each Shoot's chain, run by run (a mark on the chart opens it):</p>`;
  let open = 0;
  const items = [...listed.values()].map(({ chain, id: chainId }) => {
    const flagged = chain.events.some((e) => e.failure || e.trap);
    return chainDetails(chain, chainId, flagged && open++ < OPEN_CHAINS);
  });
  const left = chains.filter((c) => c.events.length > 0).length - listed.size;
  const more =
    left > 0
      ? html`<p class="more">and ${plural(left, 'more Shoot')} with steps: <code>version-policy forecast</code> lists every one.</p>`
      : null;
  return html`<section class="forecast" id="${id}">${head}${note}${summary}${items}${more}</section>`;
}

function chainDetails(c: ShootChain, id: string, open: boolean): Markup {
  const failures = c.events.filter((e) => e.failure).length;
  const traps = c.events.filter((e) => e.trap).length;
  const badges = [
    failures > 0 ? html` <span class="badge fails">${plural(failures, 'failure')}</span>` : null,
    traps > 0 ? html` <span class="badge trap">trap</span>` : null,
  ];
  const steps = c.events.slice(0, MAX_STEPS).map(stepItem);
  const more =
    c.events.length > MAX_STEPS
      ? html`<li class="more">and ${c.events.length - MAX_STEPS} more: <code>version-policy forecast</code> lists every one</li>`
      : null;
  return html`<details class="chain" data-shoot="${clip(c.key, 300)}"${open ? html` open` : null}><summary><strong>${clip(c.key, 300)}</strong> <span class="more">${clip(c.window, 80)}, ${plural(c.events.length, 'step')}</span>${badges}</summary><ol id="${id}">${steps}${more}</ol></details>`;
}

function stepItem(e: ForecastEvent): Markup {
  const kind = kindOf(e);
  const when = `${formatInstant(e.at).slice(0, 10)} ${formatInstant(e.at).slice(11, 16)} UTC${e.uncertain ? ' (or a window earlier)' : ''}`;
  const move = e.failure
    ? html`<span class="fails">fails (${e.failure.kind})</span>: ${clip(e.failure.message, 400)}`
    : html`${clip(e.from ?? '', 100)} → <strong>${clip(e.to ?? '', 100)}</strong>`;
  const trap = e.trap ? html` <span class="badge trap">trap ${e.trap.issue}</span> ${clip(e.trap.detail, 300)}` : null;
  return html`<li class="chain-step k-${kind}" data-kind="${kind}" data-at="${formatInstant(e.at)}"><span class="date">${when}</span> <span class="mode">${kind === 'failure' ? e.mode : kind}</span> ${clip(componentText(e.component), 200)}: ${move}${trap} <span class="more">(${clip(e.trigger, 300)})</span></li>`;
}
