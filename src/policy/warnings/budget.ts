// The warning budget (docs/rules.md, "Reading a denial"): what one review may say. kube-apiserver asks webhooks
// for warnings of at most 120 characters where possible, truncates longer than 256, and drops what
// goes past a few KiB in total; kubectl prints each on its own line. So a review says at most 10
// warnings in at most 4 KiB, each at most 256 characters. Everything fits as it is when there are
// at most 10 warnings: 10 × 256 characters of ASCII is 2.5 KiB. Past that, warnings of one group
// are said as one, and what still does not fit is counted in a closing line. The full list is
// Decision.allWarnings, built only when someone reads it.
import type { Warning } from '../warning.js';
import { sayWarning } from '../warning.js';

export const MAX_WARNINGS = 10;
export const MAX_WARNING_BYTES = 4096;
export const MAX_WARNING_LENGTH = 256;

// The UTF-8 length without encoding the text into a new array.
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** A text cut to MAX_WARNING_LENGTH characters; no warning needs more, and kube-apiserver would cut it anyway. */
export function clip(text: string): string {
  return text.length <= MAX_WARNING_LENGTH ? text : `${text.slice(0, MAX_WARNING_LENGTH - 1)}…`;
}

function closing(unsaid: number, total: number): string {
  return `and ${unsaid.toLocaleString('en-US')} more ${unsaid === 1 ? 'warning' : 'warnings'} (${total.toLocaleString('en-US')} in total); see version-policy explain or check --output json`;
}

/** The lines a review says, within the budget. */
export function budgetWarnings(warnings: readonly Warning[]): string[] {
  if (warnings.length <= MAX_WARNINGS) {
    const said = warnings.map((w) => clip(sayWarning(w)));
    if (said.reduce((n, s) => n + bytes(s), 0) <= MAX_WARNING_BYTES) return said;
  }
  const groups = new Map<string, Warning[]>();
  for (const w of warnings) {
    const members = groups.get(w.key);
    if (members) members.push(w);
    else groups.set(w.key, [w]);
  }
  const out: string[] = [];
  let used = 0;
  let said = 0;
  // Room for the closing line, which is at most a short line of ASCII.
  const room = MAX_WARNING_BYTES - 160;
  for (const members of groups.values()) {
    if (out.length === MAX_WARNINGS - 1 && said + members.length < warnings.length) break;
    const first = members[0]!;
    const text = clip(members.length === 1 ? sayWarning(first) : first.kind.many(members.map((m) => m.item)));
    const size = bytes(text);
    if (used + size > room) break;
    out.push(text);
    used += size;
    said += members.length;
  }
  if (said < warnings.length) out.push(closing(warnings.length - said, warnings.length));
  return out;
}

/** Every warning in full, in order. */
export function allWarningTexts(warnings: readonly Warning[]): string[] {
  return warnings.map(sayWarning);
}
