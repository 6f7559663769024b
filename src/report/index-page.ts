// The /profiles index: every CloudProfile, then every NamespacedCloudProfile as namespace/name,
// each linked to its timeline with its counts: versions, Shoots, and from the server's last fleet
// forecast the Shoots that maintenance updates within 30 days (auto or forced), those of them
// with a forced update, and those with a predicted failure.
import type { ClusterState } from '../api/cluster-state.js';
import { mergeNamespacedProfile } from '../gardener/merge.js';
import type { CloudProfile, CloudProfileSpec, NamespacedCloudProfile, ProfileRef } from '../api/types.js';
import { profileRefKey } from '../api/types.js';
import { isDeleting } from '../gardener/usage.js';
import { formatInstant } from '../gardener/versions.js';
import { clip, html, type Markup } from './html-template.js';
import { PAGE_CSS } from './timeline-style.js';

/** The list shows at most this many profiles; a landscape has tens. */
export const MAX_LISTED = 2000;

/** What the index needs of a fleet forecast (server/forecast-refresh.ts makes one). */
export interface ForecastCounts {
  /** The forecast's now. */
  at: number;
  byProfile: ReadonlyMap<string, { updated30d: number; forced30d: number; failing: number }>;
}

interface Entry {
  href: string;
  text: string;
  kind: string;
  ref: ProfileRef;
  spec: CloudProfileSpec | undefined;
}

export function renderIndexPage(state: ClusterState, forecast: ForecastCounts | undefined, now: number): string {
  const entries = entriesOf(state);
  const rows = entries.slice(0, MAX_LISTED).map((e) => rowOf(e, state, forecast));
  const more = entries.length > MAX_LISTED ? html`<p class="more">and ${entries.length - MAX_LISTED} more</p>` : null;
  const table = html`<table class="index"><thead><tr><th scope="col">Profile</th><th scope="col">Kind</th><th scope="col" class="n">Versions</th><th scope="col" class="n">Shoots</th><th scope="col" class="n">Shoots updated within 30 days</th><th scope="col" class="n">of them forced</th><th scope="col" class="n">Predicted failures</th></tr></thead><tbody>${rows}</tbody></table>`;
  return `<!doctype html>\n${
    html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Profiles</title><style>${PAGE_CSS}</style></head>
<body><main><h1>Profiles</h1><p class="meta">The version timeline of each CloudProfile and NamespacedCloudProfile in the cluster state. ${forecastLine(forecast, now)}</p>
${entries.length === 0 ? html`<p>No profiles in the cluster state.</p>` : html`${table}${more}`}</main></body></html>`
      .value
  }\n`;
}

function forecastLine(forecast: ForecastCounts | undefined, now: number): Markup {
  if (!forecast)
    return html`<span class="forecast-age" data-age="">The forecast counts come once the first fleet forecast is made, shortly after start.</span>`;
  const minutes = Math.max(0, Math.round((now - forecast.at) / 60_000));
  return html`<span class="forecast-age" data-age="${minutes}">Shoot counts are Shoots (not steps); the forecast is from ${formatInstant(forecast.at)} (${minutes} min ago), counting failures within 180 days.</span>`;
}

function entriesOf(state: ClusterState): Entry[] {
  const cloud: CloudProfile[] = [];
  const namespaced: NamespacedCloudProfile[] = [];
  for (const p of state.allProfiles()) {
    if (p.kind === 'CloudProfile') cloud.push(p);
    else namespaced.push(p);
  }
  cloud.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  namespaced.sort(
    (a, b) =>
      a.metadata.namespace.localeCompare(b.metadata.namespace) || a.metadata.name.localeCompare(b.metadata.name),
  );
  return [
    ...cloud.map((p) => ({
      href: `profiles/${encodeURIComponent(p.metadata.name)}`,
      text: p.metadata.name,
      kind: 'CloudProfile',
      ref: { kind: 'CloudProfile' as const, name: p.metadata.name },
      spec: p.spec,
    })),
    ...namespaced.map((p) => {
      const parent = p.spec.parent.kind === 'CloudProfile' ? state.cloudProfile(p.spec.parent.name) : undefined;
      return {
        href: `profiles/${encodeURIComponent(p.metadata.namespace)}/${encodeURIComponent(p.metadata.name)}`,
        text: `${p.metadata.namespace}/${p.metadata.name}`,
        kind: 'NamespacedCloudProfile',
        ref: { kind: 'NamespacedCloudProfile' as const, namespace: p.metadata.namespace, name: p.metadata.name },
        spec: parent ? mergeNamespacedProfile(parent.spec, p.spec) : undefined,
      };
    }),
  ];
}

function rowOf(e: Entry, state: ClusterState, forecast: ForecastCounts | undefined): Markup {
  const versions = e.spec
    ? e.spec.kubernetes.versions.length + e.spec.machineImages.reduce((n, i) => n + i.versions.length, 0)
    : null;
  const shoots = state.shootsUsing(e.ref).filter((s) => !isDeleting(s)).length;
  const ahead = forecast
    ? (forecast.byProfile.get(profileRefKey(e.ref)) ?? { updated30d: 0, forced30d: 0, failing: 0 })
    : undefined;
  const cell = (n: number | undefined, cls: string) =>
    html`<td class="n ${cls}${n ? ' nonzero' : ''}" data-count="${n ?? ''}">${n === undefined ? '–' : n}</td>`;
  return html`<tr class="profile-link" data-kind="${e.kind}" data-name="${clip(e.text, 300)}"><td><a href="${e.href}">${clip(e.text, 300)}</a></td><td class="more">${e.kind}</td>${cell(versions ?? undefined, 'versions')}${cell(shoots, 'shoots')}${cell(ahead?.updated30d, 'updated')}${cell(ahead?.forced30d, 'forced')}${cell(ahead?.failing, 'failing')}</tr>`;
}
