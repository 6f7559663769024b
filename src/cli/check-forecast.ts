// What a profile UPDATE changes in the maintenance of its Shoots, Shoot by Shoot, as
// `forecast --proposed` shows it: the forced updates it adds or brings forward, the failures and
// the traps. `check` names them as warnings (forecast.warn, on by default); the gate is
// forecast.deny, judged by the FORECAST rule. Without a state there are no Shoots to forecast.
import type { ClusterState } from '../api/cluster-state.js';
import type { CloudProfile, NamespacedCloudProfile, PolicedObject, ProfileRef, Shoot } from '../api/types.js';
import type { SourcedObject } from '../cluster/object-files.js';
import { staticState } from '../cluster/static-state.js';
import type { Config } from '../config.js';
import { componentText, diffForecasts, type ForecastChange, forecastFleet } from '../gardener/forecast/index.js';
import { formatInstant } from '../gardener/versions.js';
import { identity } from './check-inputs.js';
import type { ForecastFinding, JudgedObject } from './check-report.js';

type Profile = CloudProfile | NamespacedCloudProfile;

/** Shoots a warning names before it counts the rest. */
const NAMED = 3;

/** The findings for `proposed` against `previous`, on the Shoots of the state that use the profile. */
export function forecastFindings(
  proposed: Profile,
  previous: Profile,
  state: ClusterState,
  config: Config,
  now: number,
): ForecastFinding[] {
  if (!state.synced || !config.forecast.warn) return [];
  const around = surroundings(proposed, state);
  if (around.shoots.length === 0) return [];
  const days = config.forecast.horizonDays;
  const before = forecastFleet(staticState([...around.profiles, previous, ...around.shoots]), now, days);
  const after = forecastFleet(staticState([...around.profiles, proposed, ...around.shoots]), now, days);
  return diffForecasts(before, after)
    .filter(
      (c) =>
        (c.kind === 'new' || c.kind === 'earlier') && (c.event.mode === 'forced' || c.event.failure || c.event.trap),
    )
    .map((c) => finding(c, proposed));
}

/** The findings as warnings: one per kind of step, version and day, naming a few Shoots; each with its first finding. */
export function forecastWarnings<F extends ForecastFinding>(
  findings: readonly F[],
): Array<{ text: string; finding: F }> {
  const groups = new Map<string, F[]>();
  for (const f of findings) {
    const key = [f.change, f.mode, f.field, f.from, f.to, f.failure?.kind, f.trap?.issue, f.at.slice(0, 10)].join('\0');
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  return [...groups.values()].map((group) => {
    const f = group[0] as F;
    const n = group.length;
    const shoots = group.slice(0, NAMED).map((g) => `${g.shoot} ${g.component}`);
    const more = n > NAMED ? `, and ${n - NAMED} more` : '';
    const day = f.at.slice(0, 10);
    const when = f.change === 'earlier' ? `earlier, on ${day} (was ${f.before?.slice(0, 10)})` : `on ${day}`;
    const update = `${f.mode === 'forced' ? 'forced' : 'automatic'} update of ${f.list}`;
    const what = f.failure
      ? `${update} ${f.from ?? ''} FAILS ${when} [${f.failure.kind}]`.replace('  ', ' ')
      : `${update} ${f.from} → ${f.to} ${when}${f.trap ? ` is a TRAP (${f.trap.issue})` : ''}`;
    const why = f.failure?.message ?? f.trap?.detail ?? f.trigger;
    const text = `forecast: ${what} for ${n} Shoot${n === 1 ? '' : 's'}: ${shoots.join(', ')}${more} (${why}); forecast --proposed shows each step, forecast.deny gates`;
    return { text, finding: f };
  });
}

/** The profiles a forecast of `profile`'s Shoots reads (its parent, or its NamespacedCloudProfiles), and those Shoots. */
function surroundings(profile: Profile, state: ClusterState): { profiles: Profile[]; shoots: Shoot[] } {
  if (profile.kind === 'NamespacedCloudProfile') {
    const parent = state.cloudProfile(profile.spec.parent.name);
    const ref: ProfileRef = {
      kind: 'NamespacedCloudProfile',
      namespace: profile.metadata.namespace,
      name: profile.metadata.name,
    };
    return { profiles: parent ? [parent] : [], shoots: state.shootsUsing(ref) };
  }
  const children = state.namespacedProfilesOf(profile.metadata.name);
  const refs: ProfileRef[] = [
    { kind: 'CloudProfile', name: profile.metadata.name },
    ...children.map((c) => ({
      kind: 'NamespacedCloudProfile' as const,
      namespace: c.metadata.namespace,
      name: c.metadata.name,
    })),
  ];
  return { profiles: children, shoots: refs.flatMap((r) => state.shootsUsing(r)) };
}

function finding(c: ForecastChange, proposed: PolicedObject): ForecastFinding {
  const e = c.event;
  return {
    change: c.kind as 'new' | 'earlier',
    shoot: c.shoot,
    component: componentText(e.component),
    list:
      e.component.kind === 'machine-image'
        ? `machine image ${e.component.image}`
        : e.component.kind === 'run'
          ? 'the maintenance run'
          : 'Kubernetes',
    at: formatInstant(e.at),
    ...(c.before !== undefined ? { before: formatInstant(c.before) } : {}),
    mode: e.mode,
    ...(e.from !== undefined ? { from: e.from } : {}),
    ...(e.to !== undefined ? { to: e.to } : {}),
    trigger: e.trigger,
    ...(e.failure ? { failure: e.failure } : {}),
    ...(e.trap ? { trap: e.trap } : {}),
    field: versionField(proposed, e.component.kind === 'machine-image' ? e.component.image : undefined, e.from),
  };
}

/** `spec.kubernetes.versions[3]` or `spec.machineImages[0].versions[2]`: the entry of `version`, else its list. */
function versionField(object: PolicedObject, image: string | undefined, version: string | undefined): string {
  if (object.kind === 'Shoot') return 'spec';
  const spec = object.spec;
  if (image === undefined) {
    const i = (spec.kubernetes?.versions ?? []).findIndex((v) => v.version === version);
    return i < 0 ? 'spec.kubernetes.versions' : `spec.kubernetes.versions[${i}]`;
  }
  const j = (spec.machineImages ?? []).findIndex((m) => m.name.toLowerCase() === image.toLowerCase());
  if (j < 0) return 'spec.machineImages';
  const k = (spec.machineImages?.[j]?.versions ?? []).findIndex((v) => v.version === version);
  return k < 0 ? `spec.machineImages[${j}]` : `spec.machineImages[${j}].versions[${k}]`;
}

/** Each profile UPDATE with what it changes in its Shoots' maintenance, as warnings (check-forecast.ts). */
export function withForecast(
  results: JudgedObject[],
  inputs: readonly SourcedObject[],
  state: ClusterState,
  old: ReadonlyMap<string, SourcedObject>,
  judge: { config: Config; now: number },
): JudgedObject[] {
  return results.map((r, i) => {
    const input = inputs[i]?.object;
    if (r.operation !== 'UPDATE' || r.kind === 'Shoot' || !input || !r.object || r.object.kind === 'Shoot') return r;
    const previous = old.get(identity(input))?.object ?? storedProfile(state, r.object);
    if (!previous || previous.kind === 'Shoot') return r;
    const forecast = forecastFindings(r.object, previous, state, judge.config, judge.now);
    const said = forecastWarnings(forecast).map((w) => w.text);
    return { ...r, forecast, warnings: [...r.warnings, ...said], shownWarnings: [...r.shownWarnings, ...said] };
  });
}

function storedProfile(state: ClusterState, o: PolicedObject): PolicedObject | undefined {
  if (o.kind === 'CloudProfile') return state.cloudProfile(o.metadata.name);
  if (o.kind === 'NamespacedCloudProfile') return state.namespacedCloudProfile(o.metadata.namespace, o.metadata.name);
  return undefined;
}
