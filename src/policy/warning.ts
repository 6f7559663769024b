// Warnings as the core builds them: what a warning is about (its item), which group it belongs to
// (its key) and how to say it, alone or with the rest of its group. No text is built here: the
// budget (warnings/budget.ts) asks for the texts it says, and only for those.
import { compareVersions } from '../gardener/versions.js';

export interface WarningKind<T> {
  /** One warning, in full. */
  one(item: T): string;
  /** Two or more warnings of one group, as one warning. */
  many(items: readonly T[]): string;
}

export interface Warning {
  /** Warnings with equal keys are said as one when the budget needs the room. Keys start with the kind's name. */
  readonly key: string;
  readonly item: unknown;
  readonly kind: WarningKind<unknown>;
}

export function warningOf<T>(kind: WarningKind<T>, key: string, item: T): Warning {
  return { key, item, kind };
}

/** The warning alone, in full. */
export function sayWarning(w: Warning): string {
  return w.kind.one(w.item);
}

/** Repeats of the same text are said once. */
const textKind: WarningKind<string> = {
  one: (text) => text,
  many: (texts) => `${texts[0]} (said ${texts.length} times)`,
};

/** A warning that forms no group with others. */
export function textWarning(text: string): Warning {
  return warningOf(textKind, `text\u0000${text}`, text);
}

/** `1.30.1`, `1.30.1 and 1.31.0`, or `1.25.0…1.28.5`: the span of a group's versions, in one pass. */
export function versionSpan(versions: readonly string[]): string {
  if (versions.length === 0) return '';
  if (versions.length === 1) return versions[0]!;
  let low = versions[0]!;
  let high = low;
  for (const v of versions) {
    if (compareVersions(v, low) < 0) low = v;
    if (compareVersions(v, high) > 0) high = v;
  }
  return versions.length === 2 ? `${low} and ${high}` : `${low}…${high}`;
}

/** `1 Kubernetes version`, `3 versions of machine image gardenlinux`. */
export function countOf(n: number, image: string | undefined): string {
  const versions = n === 1 ? 'version' : 'versions';
  return image === undefined
    ? `${n.toLocaleString('en-US')} Kubernetes ${versions}`
    : `${n.toLocaleString('en-US')} ${versions} of machine image ${image}`;
}

/** `Kubernetes version "1.31.2"`, `machine image version "gardenlinux/1592.1.0"`. */
export function versionLabel(image: string | undefined, version: string): string {
  return image === undefined ? `Kubernetes version "${version}"` : `machine image version "${image}/${version}"`;
}

/** `1 Shoot`, `1,200 Shoots`. */
export function shootsText(n: number): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? 'Shoot' : 'Shoots'}`;
}

/** The total of `n` over `items`. */
export function sumOf<T>(items: readonly T[], n: (item: T) => number): number {
  return items.reduce((total, item) => total + n(item), 0);
}

/** The day of an RFC 3339 instant: `2027-03-24`. */
export function dayOf(instant: string): string {
  return instant.slice(0, 10);
}
