// The timelines of one profile, as data: one per Kubernetes minor and one per machine image and
// minor, a row per version with its stages as time segments, the forecast's steps that fall in
// the window (step-marks.ts), and those steps as the report lists them, in time order. Pure, and
// bounded whatever the profile's size: rows, timelines, segments and listed steps are capped, and
// what is left out is counted so the page can say so.
import type { CloudProfileSpec, ExpirableVersion, Shoot } from '../api/types.js';
import { objectKey } from '../api/types.js';
import { versionUsesOf } from '../gardener/version-uses.js';
import type { ProfileReport, VersionRow } from './version-report.js';
import { type StepRow, stepsOf } from './steps.js';
import { versionKey } from '../gardener/forecast/index.js';
import { minorKey, stagesOf } from '../gardener/versions.js';
import { type ShootChain, type StepMark, stepMarks } from './step-marks.js';
import type { TimelineWindow } from './window.js';

/** The caps keep the page under about 1 MB however large the profile (test/report/timeline-bounds.part.ts). */
export const LIMITS = {
  rowsPerTimeline: 20,
  timelines: 40,
  segmentsPerRow: 12,
  updates: 100,
  updateMarksPerRow: 8,
  /** Shoots named under a chart per version; the rest are counted. */
  namesPerRow: 3,
} as const;

/** An expiry a NamespacedCloudProfile extends against its parent's (extended.ts finds them). */
export interface ExtendedExpiry {
  kind: 'kubernetes' | 'machine-image';
  image: string | null;
  version: string;
  /** When the parent's version expires (epoch ms). */
  parent: number;
  /** When it expires in the NamespacedCloudProfile; Infinity: never. */
  extended: number;
}

export interface Segment {
  /** The classification as written (an unknown one too), or `unavailable` before the first stage. */
  stage: string;
  /** Epoch ms, exclusive; -Infinity: since always. */
  start: number;
  /** Epoch ms, inclusive; Infinity: for ever. */
  end: number;
}

export interface TimelineRow {
  version: string;
  shoots: number;
  /** The stages that overlap the window, in time order, not clipped to it. */
  segments: Segment[];
  /** More stage changes inside the window than are drawn: how many, and where drawing stops. */
  undrawn: { changes: number; from: number } | null;
  /** The forecast's steps and failures away from this version inside the window. */
  marks: StepMark[];
  /** Marks beyond the cap. */
  marksLeft: number;
  /** A NamespacedCloudProfile moves this version's expiry later than its parent's. */
  extended: ExtendedExpiry | null;
  /** The first Shoots (by key) that use the version, for the page to name, and how many more do. */
  users: { names: string[]; more: number };
}

export interface Left {
  versions: number;
  shoots: number;
}

export interface Timeline {
  kind: 'kubernetes' | 'machine-image';
  image: string | null;
  /** `1.32`; `other` holds the versions that do not parse. */
  minor: string;
  rows: TimelineRow[];
  /** Rows beyond the cap. */
  left: Left;
}

export interface ProfileTimelines {
  timelines: Timeline[];
  /** Timelines beyond the cap. */
  leftTimelines: Left & { timelines: number };
  /** The forecast's steps and failures inside the window, in time order: the same as the chains and the marks. */
  updates: StepRow[];
  /** Steps before the window (one that starts after now). */
  updatesBefore: number;
  /** Steps in the window beyond the cap. */
  updatesLeft: number;
}

interface Group {
  kind: Timeline['kind'];
  image: string | null;
  minor: string;
  rows: VersionRow[];
  versions: ReadonlyMap<string, ExpirableVersion>;
  shoots: number;
}

export interface TimelineInputs {
  /** The forecast of the profile's Shoots; empty without a cluster state. */
  chains: readonly ShootChain[];
  extended: readonly ExtendedExpiry[];
  /** The profile's Shoots (not being deleted), to name on their versions' rows. */
  shoots: readonly Shoot[];
}

export function buildTimelines(
  spec: CloudProfileSpec,
  report: ProfileReport,
  window: TimelineWindow,
  inputs: TimelineInputs = { chains: [], extended: [], shoots: [] },
): ProfileTimelines {
  const groups = [
    ...groupByMinor('kubernetes', null, report.kubernetes, spec.kubernetes.versions),
    ...report.machineImages.flatMap((image) => {
      const versions = spec.machineImages.find((m) => m.name === image.name)?.versions ?? [];
      return groupByMinor('machine-image', image.name, image.versions, versions);
    }),
  ];
  const { kept, left } = keepInUseFirst(groups, LIMITS.timelines, (g) => g.shoots > 0);
  const steps = stepsOf(report);
  const inside = steps.filter((r) => Date.parse(r.event.at) >= window.from && Date.parse(r.event.at) <= window.to);
  const rows: RowExtras = {
    marks: stepMarks(inputs.chains, window, LIMITS.updateMarksPerRow),
    extended: new Map(inputs.extended.map((e) => [useKey(e.kind, e.image, e.version), e])),
    users: usersByVersion(inputs.shoots),
  };
  return {
    timelines: kept.map((g) => timelineOf(g, window, rows)),
    leftTimelines: {
      timelines: left.length,
      versions: sum(left, (g) => g.rows.length),
      shoots: sum(left, (g) => g.shoots),
    },
    updates: inside.slice(0, LIMITS.updates),
    updatesBefore: steps.filter((r) => Date.parse(r.event.at) < window.from).length,
    updatesLeft: Math.max(0, inside.length - LIMITS.updates),
  };
}

/** Rows come newest first from the report, so the groups do too; versions that do not parse come last. */
function groupByMinor(
  kind: Timeline['kind'],
  image: string | null,
  rows: readonly VersionRow[],
  versions: readonly ExpirableVersion[],
): Group[] {
  const byVersion = new Map<string, ExpirableVersion>();
  for (const v of versions) if (!byVersion.has(v.version)) byVersion.set(v.version, v);
  const groups = new Map<string, Group>();
  for (const row of rows) {
    const minor = minorKey(row.version) ?? 'other';
    let g = groups.get(minor);
    if (!g) groups.set(minor, (g = { kind, image, minor, rows: [], versions: byVersion, shoots: 0 }));
    g.rows.push(row);
    g.shoots += row.shoots;
  }
  return [...groups.values()];
}

interface RowExtras {
  marks: ReadonlyMap<string, { marks: StepMark[]; left: number }>;
  extended: ReadonlyMap<string, ExtendedExpiry>;
  users: ReadonlyMap<string, string[]>;
}

/** Per version key, the keys of the Shoots that use it anywhere, in key order, each once. */
function usersByVersion(shoots: readonly Shoot[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const keyed = shoots
    .map((s) => ({ s, key: objectKey(s) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const { s, key } of keyed) {
    for (const use of versionUsesOf(s)) {
      const row = useKey(use.kind, use.kind === 'machine-image' ? use.image : null, use.version);
      const names = out.get(row);
      if (!names) out.set(row, [key]);
      else if (names[names.length - 1] !== key) names.push(key);
    }
  }
  return out;
}

function timelineOf(g: Group, window: TimelineWindow, extras: RowExtras): Timeline {
  const { kept, left } = keepInUseFirst(g.rows, LIMITS.rowsPerTimeline, (r) => r.shoots > 0);
  return {
    kind: g.kind,
    image: g.image,
    minor: g.minor,
    rows: kept.map((r) => rowOf(r, g.versions.get(r.version), window, extras, useKey(g.kind, g.image, r.version))),
    left: { versions: left.length, shoots: sum(left, (r) => r.shoots) },
  };
}

function rowOf(
  row: VersionRow,
  version: ExpirableVersion | undefined,
  window: TimelineWindow,
  extras: RowExtras,
  key: string,
): TimelineRow {
  const marks = extras.marks.get(key);
  const base = {
    version: row.version,
    shoots: row.shoots,
    marks: marks?.marks ?? [],
    marksLeft: marks?.left ?? 0,
    extended: extras.extended.get(key) ?? null,
    users: namesOf(extras.users.get(key) ?? []),
  };
  const inWindow = (version ? segmentsOf(version) : []).filter((s) => s.end > window.from && s.start < window.to);
  if (inWindow.length <= LIMITS.segmentsPerRow) return { ...base, segments: inWindow, undrawn: null };
  const drawn = inWindow.slice(0, LIMITS.segmentsPerRow - 1);
  return {
    ...base,
    segments: drawn,
    undrawn: { changes: inWindow.length - drawn.length, from: drawn[drawn.length - 1]!.end },
  };
}

const useKey = versionKey;

function namesOf(all: readonly string[]): TimelineRow['users'] {
  return { names: all.slice(0, LIMITS.namesPerRow), more: Math.max(0, all.length - LIMITS.namesPerRow) };
}

/**
 * The version's classification over all time as consecutive segments, by the rule of
 * classifyStages(): at instant t the last-listed stage that started strictly before t applies, and
 * before any has, the version is unavailable. A version without stages is supported for ever.
 * One sort and one sweep, so a disordered or very long lifecycle costs n log n, not n².
 */
export function segmentsOf(v: ExpirableVersion): Segment[] {
  const all = stagesOf(v);
  if (all.length === 0) return [{ stage: 'supported', start: -Infinity, end: Infinity }];
  const starts = all
    .map((s, index) => ({ start: s.start, index }))
    .filter((s) => !Number.isNaN(s.start))
    .sort((a, b) => (a.start === b.start ? a.index - b.index : a.start - b.start));
  let applied = -1;
  const stageNow = () => (applied < 0 ? 'unavailable' : all[applied]!.classification);
  let k = 0;
  while (k < starts.length && starts[k]!.start === -Infinity) applied = Math.max(applied, starts[k++]!.index);
  const out: Segment[] = [];
  let stage = stageNow();
  let from = -Infinity;
  while (k < starts.length) {
    const at = starts[k]!.start;
    while (k < starts.length && starts[k]!.start === at) applied = Math.max(applied, starts[k++]!.index);
    const next = stageNow();
    if (next === stage) continue;
    out.push({ stage, start: from, end: at });
    stage = next;
    from = at;
  }
  out.push({ stage, start: from, end: Infinity });
  return out;
}

/**
 * At most `cap` items, those `inUse` first, in their original order: a Shoot's version is never
 * the one left out while an unused one is drawn.
 */
function keepInUseFirst<T>(items: readonly T[], cap: number, inUse: (item: T) => boolean): { kept: T[]; left: T[] } {
  if (items.length <= cap) return { kept: [...items], left: [] };
  const keep = new Array<boolean>(items.length).fill(false);
  let n = 0;
  for (let pass = 0; pass < 2; pass++) {
    for (let i = 0; i < items.length && n < cap; i++) {
      if (keep[i] || (pass === 0 && !inUse(items[i]!))) continue;
      keep[i] = true;
      n++;
    }
  }
  return { kept: items.filter((_, i) => keep[i]), left: items.filter((_, i) => !keep[i]) };
}

function sum<T>(items: readonly T[], of: (item: T) => number): number {
  let total = 0;
  for (const item of items) total += of(item);
  return total;
}
