// `explain`'s text output: aligned tables per profile. The forced-update wording is shared with
// the HTML timeline, so both say the same thing about the same update.
import type { ExplainReport, ForcedUpdateRow, ProfileReport, VersionRow } from './version-report.js';
import { formatWindow } from '../gardener/maintenance.js';

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
    `Forced updates\n${forcedTable(p.forcedUpdates, Date.parse(now))}`,
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

function forcedTable(rows: readonly ForcedUpdateRow[], now: number): string {
  return table(
    ['SHOOT', 'WHERE', 'FROM', 'TO', 'WHEN'],
    rows.map((r) => [r.shoot, r.place, `${r.image ?? 'kubernetes'} ${r.from}`, forcedTarget(r), forcedWhen(r, now)]),
  );
}

export function forcedTarget(r: ForcedUpdateRow): string {
  if (r.to === null) return 'none: the update will fail';
  return r.toExpired ? `${r.to} (expired too: updated again a window later)` : r.to;
}

/** The window it runs in, when the Shoot sets one; always relative to the expiry. */
export function forcedWhen(r: ForcedUpdateRow, now: number): string {
  const window = r.maintenanceWindow ? ` (${formatWindow(r.maintenanceWindow)})` : '';
  if (r.expiresAt !== null && Date.parse(r.expiresAt) > now) {
    return r.at
      ? `${r.at}, the first window${window} after ${r.expiresAt}`
      : `first maintenance window after ${r.expiresAt}`;
  }
  const expired = r.expiresAt === null ? 'expired from the start' : `expired ${r.expiresAt}`;
  return r.at ? `${r.at}, the next window${window}; ${expired}` : `next maintenance window; ${expired}`;
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
