// The differential test's scenarios: the state files of test/fixtures/maintenance/, each naming in
// its leading comments when the forecast starts and how far it looks:
//   # now: 2026-12-01T00:00:00Z
//   # days: 180
//   # state: ../demo-state.yaml ../forecast-aws-proposed.yaml   (optional)
// With `state:`, the scenario is those files (paths relative to the scenario), then its own
// objects; a later object replaces an earlier one of the same kind, namespace and name, as
// `forecast --proposed` replaces the state's profile. The other leading comments say what the
// scenario shows.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

export interface Scenario {
  name: string;
  /** What it shows: its leading comment lines other than the settings. */
  about: string;
  /** The files, in the order their objects apply. */
  files: string[];
  now: string;
  days: number;
}

export async function loadScenarios(dir: string): Promise<Scenario[]> {
  const names = (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort();
  return Promise.all(names.map((n) => loadScenario(join(dir, n))));
}

export async function loadScenario(file: string): Promise<Scenario> {
  const text = await readFile(file, 'utf8');
  const settings = new Map<string, string>();
  const about: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('#')) break;
    const m = /^#\s*(now|days|state):\s*(.*)$/.exec(line);
    if (m) settings.set(m[1]!, m[2]!.trim());
    else about.push(line.replace(/^#\s?/, ''));
  }
  const name = file.replace(/^.*\//, '').replace(/\.yaml$/, '');
  const now = settings.get('now');
  const days = Number(settings.get('days'));
  if (!now || Number.isNaN(Date.parse(now)) || !/Z$/.test(now))
    throw new Error(`${file}: the leading comments need "# now: <RFC 3339 instant in UTC>"`);
  if (!Number.isInteger(days) || days < 1)
    throw new Error(`${file}: the leading comments need "# days: <whole number>"`);
  const state = (settings.get('state') ?? '')
    .split(/\s+/)
    .filter((s) => s !== '')
    .map((s) => resolve(dirname(file), s));
  const ownObjects = /^(apiVersion|kind):/m.test(text);
  return { name, about: about.join(' ').trim(), files: [...state, ...(ownObjects ? [file] : [])], now, days };
}
