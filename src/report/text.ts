// `explain`'s text output: aligned tables per profile, then the maintenance ahead, step by step, as
// the forecast's engine gives it. The step wording is shared with the HTML timeline, so both say
// the same thing about the same step.
import type { ExplainReport, ProfileReport, VersionRow } from './version-report.js';
import { fromOf, placeOf, stepsOf, targetOf, whyOf } from './steps.js';

export function renderExplainText(report: ExplainReport): string {
  return report.profiles.map((p) => renderProfile(p, report.now)).join('\n');
}

/** `CloudProfile "aws"`, `NamespacedCloudProfile 'ns/name' (parent CloudProfile "aws")`. */
export function profileTitle(p: ProfileReport): string {
  return p.kind === 'CloudProfile'
    ? `CloudProfile "${p.name}"`
    : `NamespacedCloudProfile '${p.namespace}/${p.name}' (parent CloudProfile "${p.parent}")`;
}

function renderProfile(p: ProfileReport, now: string): string {
  const sections = [
    `${profileTitle(p)} at ${now}`,
    `Kubernetes versions\n${versionTable(p.kubernetes)}`,
    ...p.machineImages.map(
      (i) => `Machine image "${i.name}" (update strategy ${i.updateStrategy})\n${versionTable(i.versions)}`,
    ),
    maintenanceSection(p),
  ];
  if (p.warnings.length > 0) sections.push(`Warnings\n${p.warnings.map((w) => `- ${w}`).join('\n')}`);
  if (p.notes.length > 0) sections.push(`Notes\n${p.notes.map((n) => `- ${n}`).join('\n')}`);
  return `${sections.join('\n\n')}\n`;
}

function versionTable(rows: readonly VersionRow[]): string {
  return table(
    ['VERSION', 'NOW', 'NEXT', 'EXPIRES', 'MANAGED', 'SHOOTS'],
    rows.map((r) => [
      r.version,
      r.classification,
      r.next ? `${r.next.classification} at ${r.next.at}` : '-',
      r.expiresAt ?? '-',
      r.managed ? 'yes' : 'no',
      String(r.shoots),
    ]),
  );
}

function maintenanceSection(p: ProfileReport): string {
  const m = p.maintenance;
  if (!m) return 'Maintenance\n(the first fleet forecast is being made)';
  const steps = stepsOf(p);
  const forced = steps.filter((s) => s.event.mode === 'forced' && s.event.to).length;
  const failures = steps.filter((s) => s.event.failure).length;
  const from = m.madeAt ? ` (the fleet forecast of ${m.madeAt})` : '';
  const head = `Maintenance until ${m.until}${from}: ${plural(steps.length - failures, 'step')} (${forced} forced) on ${plural(m.shoots.length, 'Shoot')}, ${plural(failures, 'failure')}`;
  const rows = steps.map((s) => [
    `${s.event.uncertain ? '~' : ''}${s.event.at}`,
    s.shoot,
    placeOf(s.event),
    s.event.mode,
    fromOf(s.event),
    targetOf(s.event),
    whyOf(s),
  ]);
  const uncertain = steps.some((s) => s.event.uncertain)
    ? '\n~ a lifecycle change falls in that window or the day before: Gardener picks the run instant at random, so the step may come a window earlier'
    : '';
  return `${head}\n${table(['WHEN', 'SHOOT', 'WHERE', 'STEP', 'FROM', 'TO', 'WHY'], rows)}${uncertain}`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Columns padded to their widest cell, two spaces apart; no trailing blanks. */
function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  if (rows.length === 0) return '(none)';
  const all = [header, ...rows];
  // Reduced, not spread into Math.max: a profile may have more rows than a call takes arguments.
  const widths = header.map((_, i) => all.reduce((w, r) => Math.max(w, (r[i] ?? '').length), 0));
  return all
    .map((r) =>
      r
        .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
