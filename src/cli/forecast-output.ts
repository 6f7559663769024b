// `forecast` output: text grouped by date, profile and version; JSON; and iCalendar (RFC 5545),
// one event per forced update, for an operator's or a team's calendar.
import { createHash } from 'node:crypto';
import {
  componentText,
  type ForecastChange,
  type Forecast,
  type ForecastEvent,
  RANDOM_WINDOW,
} from '../gardener/forecast/index.js';
import { formatInstant } from '../gardener/versions.js';

export const FORECAST_FORMATS = ['text', 'json', 'ics'] as const;
export type ForecastFormat = (typeof FORECAST_FORMATS)[number];

const DAY_MS = 86_400_000;

interface Row {
  shoot: string;
  profile: string;
  event: ForecastEvent;
  change?: ForecastChange;
  /** From `otherwise`: the outcome when Gardener runs late in the window. */
  late?: boolean;
  /** The Shoot sets no window: the API server gave it a random one. */
  randomWindow?: boolean;
}

/** ics: an event per automatic update too (`forecast --include-auto`). */
export interface RenderOptions {
  includeAuto?: boolean;
}

export function renderForecast(f: Forecast, format: ForecastFormat, opts: RenderOptions = {}): string {
  const rows: Row[] = f.shoots.flatMap((s) => {
    const random = s.window === RANDOM_WINDOW ? { randomWindow: true } : {};
    return [
      ...s.events.map((event) => ({ shoot: s.shoot, profile: s.profile, event, ...random })),
      ...(s.otherwise ?? []).map((event) => ({ shoot: s.shoot, profile: s.profile, event, late: true, ...random })),
    ];
  });
  if (format === 'json') return `${JSON.stringify(forecastJson(f), null, 2)}\n`;
  if (format === 'ics') return renderIcs(rows, f.now, opts);
  // The counts are those of the chain at the windows' begins; the late outcomes are shown beside it.
  const chain = rows.filter((r) => !r.late);
  const forced = chain.filter((r) => r.event.mode === 'forced' && r.event.to).length;
  const failures = chain.filter((r) => r.event.failure).length;
  const trapped = new Set(chain.filter((r) => r.event.trap).map((r) => r.shoot)).size;
  const uncertain = chain.filter((r) => r.event.uncertain).length;
  const head = `Forecast ${formatInstant(f.now)} to ${formatInstant(f.until)} (${Math.round((f.until - f.now) / DAY_MS)} days): ${f.shoots.length} Shoots, ${chain.length - failures} steps (${forced} forced), ${failures} failures, ${trapped} Shoots trapped${uncertain ? `, ${uncertain} uncertain (~, with the outcome of a late run)` : ''}`;
  return `${head}\n${skippedText(f)}${grouped(rows)}`;
}

export function renderChanges(
  current: Forecast,
  changes: readonly ForecastChange[],
  format: ForecastFormat,
  opts: RenderOptions = {},
): string {
  const random = new Set(current.shoots.filter((s) => s.window === RANDOM_WINDOW).map((s) => s.shoot));
  const rows: Row[] = changes.map((change) => ({
    shoot: change.shoot,
    profile: change.profile,
    event: change.event,
    change,
    ...(change.late ? { late: true } : {}),
    ...(random.has(change.shoot) ? { randomWindow: true } : {}),
  }));
  if (format === 'json') {
    return `${JSON.stringify({ now: formatInstant(current.now), until: formatInstant(current.until), changes: changes.map((c) => ({ kind: c.kind, shoot: c.shoot, profile: c.profile, ...(c.before !== undefined ? { before: formatInstant(c.before) } : {}), ...(c.late ? { late: true } : {}), ...eventJson(c.event) })) }, null, 2)}\n`;
  }
  // The calendar of a proposal: the forced updates it adds or moves.
  if (format === 'ics')
    return renderIcs(
      rows.filter((r) => r.change?.kind !== 'gone'),
      current.now,
      opts,
    );
  const head = `Changes of the proposed profile, ${formatInstant(current.now)} to ${formatInstant(current.until)}: ${changes.length === 0 ? 'none' : `${changes.length} (${countBy(changes)})`}`;
  return `${head}\n${grouped(rows)}`;
}

function countBy(changes: readonly ForecastChange[]): string {
  const n = new Map<string, number>();
  for (const c of changes) n.set(c.kind, (n.get(c.kind) ?? 0) + 1);
  const trapped = new Set(changes.filter((c) => c.kind === 'new' && c.event.trap).map((c) => c.shoot)).size;
  const late = changes.filter((c) => c.late).length;
  return [
    ...[...n].map(([k, v]) => `${v} ${k}`),
    ...(trapped ? [`${trapped} Shoots newly trapped`] : []),
    ...(late ? [`${late} of them the outcome of a late run`] : []),
  ].join(', ');
}

function forecastJson(f: Forecast): unknown {
  return {
    now: formatInstant(f.now),
    until: formatInstant(f.until),
    shoots: f.shoots.map((s) => ({
      ...s,
      events: s.events.map(eventJson),
      ...(s.otherwise ? { otherwise: s.otherwise.map(eventJson) } : {}),
    })),
    skipped: f.skipped,
  };
}

function eventJson(e: ForecastEvent): Record<string, unknown> {
  return { ...e, at: formatInstant(e.at), windowEnd: formatInstant(e.windowEnd) };
}

function skippedText(f: Forecast): string {
  return f.skipped.map((s) => `skipped ${s.shoot}: ${s.why}\n`).join('');
}

/** Date, then profile, then the version a step leaves, then time and Shoot. */
function grouped(rows: readonly Row[]): string {
  const sorted = [...rows].sort(
    (a, b) =>
      day(a.event.at).localeCompare(day(b.event.at)) ||
      a.profile.localeCompare(b.profile) ||
      versionOf(a.event).localeCompare(versionOf(b.event)) ||
      a.event.at - b.event.at ||
      a.shoot.localeCompare(b.shoot) ||
      Number(a.late ?? false) - Number(b.late ?? false),
  );
  const out: string[] = [];
  let [lastDay, lastProfile, lastVersion] = ['', '', ''];
  for (const r of sorted) {
    const d = day(r.event.at);
    if (d !== lastDay) {
      [lastDay, lastProfile, lastVersion] = [d, '', ''];
      out.push('', d);
    }
    if (r.profile !== lastProfile) {
      [lastProfile, lastVersion] = [r.profile, ''];
      out.push(`  ${r.profile}`);
    }
    const v = versionOf(r.event);
    if (v !== lastVersion) {
      lastVersion = v;
      out.push(`    ${v}`);
    }
    out.push(`      ${lineOf(r)}`);
  }
  return `${out.join('\n')}\n`;
}

function lineOf(r: Row): string {
  const e = r.event;
  const time = formatInstant(e.at).slice(11, 16);
  const change = r.change
    ? `${r.change.kind}${r.change.before !== undefined ? ` (was ${formatInstant(r.change.before)})` : ''} `
    : '';
  const what = e.to
    ? `${e.mode} ${e.from} → ${e.to}${e.toClassification ? ` (${e.toClassification})` : ''}`
    : `${e.mode} update FAILS [${e.failure?.kind}]: ${e.failure?.message}`;
  const trap = e.trap ? `; TRAP ${e.trap.issue}: ${e.trap.detail}` : '';
  const quirk = e.quirk ? `; QUIRK ${e.quirk.kind}: ${e.quirk.detail}` : '';
  const asleep = e.hibernated ? '; hibernated: written to the spec now, rolled out at wake-up' : '';
  return `${e.uncertain ? '~' : ''}${time} UTC  ${change}${r.shoot} ${componentText(e.component)}: ${what}; ${e.trigger}${trap}${quirk}${asleep}${whenText(r)}`;
}

/** Which outcome of an uncertain window a row is. */
function whenText(r: Row): string {
  if (!r.event.uncertain) return '';
  return `; ${outcomeText(r)}`;
}

function outcomeText(r: Row): string {
  if (r.randomWindow)
    return r.late
      ? 'if its random window (none set) is 22:00-23:00 UTC'
      : 'if its random window (none set) is 00:00-01:00 UTC';
  return r.late ? 'if Gardener runs late in the window' : 'if Gardener runs early in the window';
}

function versionOf(e: ForecastEvent): string {
  const c = e.component;
  if (c.kind === 'run') return 'whole run';
  return c.kind === 'kubernetes' ? `kubernetes ${e.from}` : `machine image ${c.image} ${e.from}`;
}

function day(ms: number): string {
  return formatInstant(ms).slice(0, 10);
}

/** RFC 5545: CRLF line ends, lines folded at 75 octets, UTC date-times, one VEVENT per forced (or any) update. */
function renderIcs(rows: readonly Row[], now: number, opts: RenderOptions): string {
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//gardener-version-policy//forecast//EN',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
  ];
  for (const r of rows) {
    const e = r.event;
    if (e.mode !== 'forced' && !opts.includeAuto) continue;
    const what = e.to ? `${e.from} → ${e.to}` : `${e.from}: ${e.mode} update fails (${e.failure?.kind})`;
    const uid = createHash('sha256')
      .update(
        [
          r.shoot,
          componentText(e.component),
          e.from ?? '',
          e.to ?? '',
          e.failure?.kind ?? '',
          e.at,
          ...(r.late ? ['late'] : []),
        ].join('\u0000'),
      )
      .digest('hex')
      .slice(0, 32);
    lines.push(
      'BEGIN:VEVENT',
      `UID:${uid}@forecast.version-policy.gardener.cloud`,
      `DTSTAMP:${icsTime(now)}`,
      `DTSTART:${icsTime(e.at)}`,
      `DTEND:${icsTime(e.windowEnd)}`,
      `SUMMARY:${icsText(`${e.uncertain ? `Possible ${e.mode === 'forced' ? 'forced' : 'automatic'}` : e.mode === 'forced' ? 'Forced' : 'Automatic'} update ${r.shoot} ${componentText(e.component)} ${what}`)}`,
      `DESCRIPTION:${icsText([`Profile: ${r.profile}`, `Reason: ${e.reason}`, `Trigger: ${e.trigger}`, ...(e.failure ? [`Failure: ${e.failure.message}`] : []), ...(e.trap ? [`Trap ${e.trap.issue}: ${e.trap.detail}`] : []), ...(e.quirk ? [`Quirk ${e.quirk.kind}: ${e.quirk.detail}`] : []), ...(e.hibernated ? ['Hibernated: written to the spec in the window, rolled out at wake-up'] : []), ...(e.uncertain ? [`Uncertain: Gardener runs at a random instant of the window${r.randomWindow ? ', and the Shoot sets none, so the window is random too' : ''}; this is the outcome ${outcomeText(r)}`] : []), ...(r.change ? [`Change: ${r.change.kind}`] : [])].join('\n'))}`,
      `CATEGORIES:${e.failure ? 'FAILURE' : e.mode === 'forced' ? 'FORCED-UPDATE' : 'AUTO-UPDATE'}${e.uncertain ? ',UNCERTAIN' : ''}`,
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR');
  return lines.map(fold).join('\r\n') + '\r\n';
}

function icsTime(ms: number): string {
  return formatInstant(Math.floor(ms / 1000) * 1000).replace(/[-:]/g, '');
}

function icsText(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\n/g, '\\n');
}

/** Splits a content line into lines of at most 75 octets, never inside a UTF-8 character; continuations start with a space. */
function fold(line: string): string {
  if (Buffer.byteLength(line) <= 75) return line;
  const parts: string[] = [];
  let current = '';
  let limit = 75;
  for (const ch of line) {
    if (Buffer.byteLength(current + ch) > limit) {
      parts.push(current);
      current = '';
      limit = 74; // the leading space counts
    }
    current += ch;
  }
  parts.push(current);
  return parts.join('\r\n ');
}
