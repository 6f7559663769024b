// A case file in the format of shared/cases/public-cases.json, read for the replay: the case's
// objects, shifted to the real clock, and what the replay reports for each case.
import { readFile } from 'node:fs/promises';
import type { K8sObject } from '../lib/webhook.js';

export interface ReplayCase {
  id: string;
  rule?: string;
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  kind: 'CloudProfile' | 'NamespacedCloudProfile' | 'Shoot';
  now: string;
  featureGates?: { VersionClassificationLifecycle?: boolean };
  object: K8sObject | null;
  oldObject: K8sObject | null;
  shoots?: K8sObject[];
  parentCloudProfile?: K8sObject;
  namespacedCloudProfiles?: K8sObject[];
  expect: { allowed: boolean; rules: string[]; reasonContains?: string[] };
  gardenerAllowed?: boolean;
}

export function gateOf(c: ReplayCase): boolean {
  return c.featureGates?.VersionClassificationLifecycle ?? false;
}

export async function loadCaseFile(path: string): Promise<ReplayCase[]> {
  const data = JSON.parse(await readFile(path, 'utf8')) as { cases?: ReplayCase[] };
  if (!Array.isArray(data.cases))
    throw new Error(`${path}: no "cases" array (the format of shared/cases/public-cases.json)`);
  for (const c of data.cases) {
    if (
      typeof c.id !== 'string' ||
      !['CREATE', 'UPDATE', 'DELETE'].includes(c.operation) ||
      typeof c.now !== 'string' ||
      Number.isNaN(Date.parse(c.now))
    ) {
      throw new Error(`${path}: case ${JSON.stringify(c.id)} needs an id, an operation and an RFC 3339 now`);
    }
  }
  return data.cases;
}

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * How far after the real clock the case's `now` is put. No write is judged at the instant it was
 * sent, so an instant equal to `now` cannot stay equal: it is put on the side where the judge's
 * comparison puts "equal". Our rules count an instant at or before `now` as reached, so with the
 * webhook `now` falls on the clock (rounded down to the second): by the time the write arrives the
 * instant is just past. Gardener's checks count an instant as past only when it is strictly before
 * `now`, so without the webhook `now` falls a minute ahead of the clock: the instant is just ahead,
 * as equal is for Gardener. No case instant lies within a minute of `now` other than on it.
 */
export const GARDENER_ALONE_LEAD_MS = 60_000;

/**
 * The case with every RFC 3339 instant in its objects moved by the same whole number of seconds,
 * so that the case's `now` falls on `realNow + leadMs`.
 */
export function shifted(c: ReplayCase, realNow: number, leadMs = 0): { c: ReplayCase; shiftMs: number } {
  const shiftMs = Math.floor((realNow + leadMs - Date.parse(c.now)) / 1000) * 1000;
  const move = (v: unknown): unknown => {
    if (typeof v === 'string' && INSTANT.test(v))
      return new Date(Date.parse(v) + shiftMs).toISOString().replace('.000Z', 'Z');
    if (Array.isArray(v)) return v.map(move);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, move(x)]));
    return v;
  };
  const out = structuredClone(c);
  for (const key of ['object', 'oldObject', 'shoots', 'parentCloudProfile', 'namespacedCloudProfiles'] as const) {
    if (out[key] !== undefined) (out as unknown as Record<string, unknown>)[key] = move(out[key]);
  }
  out.now = new Date(Date.parse(c.now) + shiftMs).toISOString();
  return { c: out, shiftMs };
}

export type DeniedBy = 'webhook' | 'gardener' | null;

export interface Got {
  allowed: boolean;
  /** Rule IDs in the denial, `[RULE-ID]` as the webhook writes them. */
  rules: string[];
  /** kubectl's message (stderr) on a denial. */
  message: string;
  /** The stored object after the write (undefined: none, e.g. after a DELETE). */
  stored?: unknown;
}

export interface CaseResult {
  id: string;
  rule?: string;
  kind: string;
  operation: string;
  gate: boolean;
  /** With the webhook: the case's `expect`; without: `gardenerAllowed`. */
  expected: { allowed: boolean; rules: string[] };
  got: Got;
  deniedBy: DeniedBy;
  matched: boolean;
  /** How far the case's instants were moved (ms). */
  shiftMs: number;
  /** What the setup could not create as the case has it (a state Gardener refuses), if anything. */
  setupNotes: string[];
}

// kubectl prints `admission webhook "mutate.version-policy.gardener.cloud" denied the request: …`.
const OURS = /admission webhook "[^"]*version-policy\.gardener\.cloud" denied the request/;

export function deniedBy(allowed: boolean, message: string): DeniedBy {
  if (allowed) return null;
  return OURS.test(message) ? 'webhook' : 'gardener';
}

export function rulesIn(message: string): string[] {
  // Rule IDs are upper case with hyphens or without (CLASSIFICATION); field indexes are digits.
  return [...new Set([...message.matchAll(/\[([A-Z][A-Z0-9-]*)\]/g)].map((m) => m[1]!))].sort();
}

export function expectedOf(c: ReplayCase, withWebhook: boolean): { allowed: boolean; rules: string[] } {
  if (withWebhook) return { allowed: c.expect.allowed, rules: [...c.expect.rules].sort() };
  return { allowed: c.gardenerAllowed ?? c.expect.allowed, rules: [] };
}

/**
 * The outcome agrees, and every expected rule ID is in the denial. When Gardener's own admission
 * denies before any webhook is asked (its admission plugins run first), no rule ID can be read: the
 * outcome alone decides, and the offline check's rule IDs stand in (docs/gardener-parity.md).
 */
export function matches(expected: { allowed: boolean; rules: string[] }, got: Got, by: DeniedBy): boolean {
  if (expected.allowed !== got.allowed) return false;
  return by === 'gardener' || expected.rules.every((r) => got.rules.includes(r));
}
