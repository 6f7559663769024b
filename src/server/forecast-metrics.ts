// The fleet forecast as gauges, per profile and version: Shoots with a forced update within 7 and
// 30 days, Shoots with a predicted failure, and how old the forecast is. Read from the refresher's
// last result at scrape time; never computed by a scrape.
import { Gauge, type Registry } from 'prom-client';
import type { ForecastRefresher, VersionCounts } from './forecast-refresh.js';

/**
 * At most this many label sets per gauge (profiles × versions with something ahead), those with
 * the most Shoots first; the rest are counted in version_policy_forecast_series_left.
 */
export const MAX_SERIES = 500;

export function registerForecastMetrics(
  registry: Registry,
  refresher: Pick<ForecastRefresher, 'latest' | 'since'>,
  now: () => number = Date.now,
): void {
  const registers = [registry];
  const labelNames = ['profile', 'image', 'version'] as const;
  // Capped once per forecast, not once per gauge and scrape.
  let memo: { of: VersionCounts[] | undefined; rows: { kept: VersionCounts[]; left: number } } = {
    of: undefined,
    rows: { kept: [], left: 0 },
  };
  const rows = () => {
    const all = refresher.latest()?.byVersion;
    if (all !== memo.of) memo = { of: all, rows: capped(all ?? []) };
    return memo.rows;
  };
  const forced = new Gauge({
    name: 'version_policy_forecast_forced_update_shoots',
    help: 'Shoots whose maintenance forcibly updates them away from this version within the next 7 or 30 days (within), by profile, image ("" for Kubernetes) and version; versions with none are not exported.',
    labelNames: [...labelNames, 'within'],
    registers,
    collect() {
      this.reset();
      for (const r of rows().kept) {
        if (r.forced7d > 0) forced.set({ ...labels(r), within: '7d' }, r.forced7d);
        if (r.forced30d > 0) forced.set({ ...labels(r), within: '30d' }, r.forced30d);
      }
    },
  });
  new Gauge({
    name: 'version_policy_forecast_failure_shoots',
    help: 'Shoots whose maintenance is predicted to fail on this version within the forecast horizon (180 days): no target, no consecutive minor, end of life, pool constraints, a rejected run.',
    labelNames,
    registers,
    collect() {
      this.reset();
      for (const r of rows().kept) if (r.failing > 0) this.set(labels(r), r.failing);
    },
  });
  new Gauge({
    name: 'version_policy_forecast_series_left',
    help: `Label sets (profile, image, version) not exported by the forecast gauges: each exports at most ${MAX_SERIES}, those with the most Shoots first.`,
    registers,
    collect() {
      this.set(rows().left);
    },
  });
  new Gauge({
    name: 'version_policy_forecast_age_seconds',
    help: 'Seconds since the forecast behind the version_policy_forecast_* gauges was made (it is remade every 5 minutes); before the first one, since the server started.',
    registers,
    collect() {
      this.set(Math.max(0, (now() - (refresher.latest()?.at ?? refresher.since)) / 1000));
    },
  });
  new Gauge({
    name: 'version_policy_forecast_duration_seconds',
    help: 'CPU time the last fleet forecast took in the landscape worker thread, off the event loop that answers admission reviews; 0 before the first.',
    registers,
    collect() {
      this.set((refresher.latest()?.busyMs ?? 0) / 1000);
    },
  });
}

function capped(all: readonly VersionCounts[]): { kept: VersionCounts[]; left: number } {
  if (all.length <= MAX_SERIES) return { kept: [...all], left: 0 };
  const weight = (r: VersionCounts) => r.failing + r.forced30d;
  return { kept: [...all].sort((a, b) => weight(b) - weight(a)).slice(0, MAX_SERIES), left: all.length - MAX_SERIES };
}

function labels(r: VersionCounts): { profile: string; image: string; version: string } {
  return { profile: r.profile, image: r.image, version: r.version };
}
