// `version-policy forecast [--state FILE...|--cluster] [--proposed FILE|REF:PATH] [--days N]
// [--now T] [--output text|json|ics]`: what Gardener's maintenance will do to every Shoot, window
// by window; with --proposed, only what the proposed profile changes. --namespace, --shoot and
// --profile pick the Shoots; --fail-on makes what a pipeline must not let pass exit 1. Input errors exit 2.
import { type Command, InvalidArgumentError, Option } from 'commander';
import { staticState } from '../cluster/static-state.js';
import type { ClusterState } from '../api/cluster-state.js';
import { loadConfig } from '../config.js';
import { diffForecasts, forecastFleet } from '../gardener/forecast/index.js';
import type { PolicedObject } from '../api/types.js';
import { identity, readOld } from './check-inputs.js';
import { UsageError } from './errors.js';
import { EXIT_DENIED, EXIT_OK } from './exit-codes.js';
import { asUsageError, loadState } from './explain.js';
import { FAIL_ON_HELP, type FailOn, failures, parseFailOn } from './forecast-gate.js';
import { type ShootFilter, shootsPicked } from './forecast-filter.js';
import { FORECAST_FORMATS, type ForecastFormat, renderChanges, renderForecast } from './forecast-output.js';
import type { CliIo, Invocation } from './io.js';
import { collect, parseRfc3339 } from './options.js';

export interface ForecastOptions extends ShootFilter {
  state: string[];
  cluster?: boolean;
  config?: string;
  proposed?: string;
  days: number;
  now?: number;
  output: ForecastFormat;
  failOn?: FailOn;
  /** ics: an event per automatic update too. */
  includeAuto?: boolean;
}

/** Ten years: a longer horizon says nothing a profile's lifecycles can still decide. */
const MAX_DAYS = 3650;

export function registerForecast(program: Command, run: Invocation): void {
  program
    .command('forecast')
    .description("Gardener's maintenance, window by window: every Shoot's version steps, and the failures ahead")
    .addOption(
      new Option('--state <file>', 'objects that exist now: profiles, NamespacedCloudProfiles, Shoots (repeatable)')
        .argParser(collect)
        .default([]),
    )
    .option('--cluster', 'read the state from the current kubeconfig instead (read-only)')
    .option('--config <file>', 'the same config file as serve; --cluster reads cluster.kubeconfig from it')
    .option(
      '--proposed <file|ref:path>',
      'a changed profile (a file, or REF:PATH read with git show, as check --old): show only what it changes',
    )
    .addOption(new Option('--days <n>', `the horizon in days (1 to ${MAX_DAYS})`).argParser(parseDays).default(180))
    .addOption(new Option('--now <rfc3339>', 'forecast from this instant (default: the clock)').argParser(parseRfc3339))
    .addOption(
      new Option('--output <format>', 'text, json, or ics: one calendar event per forced update')
        .choices(FORECAST_FORMATS)
        .default('text'),
    )
    .option('--include-auto', 'ics: an event per automatic update too, not only per forced one')
    .option('--namespace <namespace>', 'only the Shoots of this namespace (repeatable)', collect)
    .option('--shoot <name>', 'only this Shoot, NAME or NAMESPACE/NAME (repeatable)', collect)
    .option(
      '--profile <name>',
      'only the Shoots of a CloudProfile NAME (and of its NamespacedCloudProfiles), or of NAMESPACE/NAME (repeatable)',
      collect,
    )
    .addOption(
      new Option('--fail-on <conditions>', 'exit 1 when the forecast meets one (see below)').argParser(parseFailOn),
    )
    .addHelpText('after', FAIL_ON_HELP)
    .action(async (opts: ForecastOptions) => {
      const { text, failed } = await forecastRun(opts, run.io);
      run.io.stdout.write(text);
      if (failed.length > 0) run.io.stderr.write(`version-policy: --fail-on: ${failed.join('; ')}\n`);
      run.exitCode = failed.length > 0 ? EXIT_DENIED : EXIT_OK;
    });
}

/** The forecast as text, JSON or iCalendar. */
export async function forecast(opts: ForecastOptions, io: Pick<CliIo, 'stdin' | 'env'>): Promise<string> {
  return (await forecastRun(opts, io)).text;
}

/** The forecast's output, and the --fail-on conditions it meets (the changes', with --proposed). */
async function forecastRun(
  opts: ForecastOptions,
  io: Pick<CliIo, 'stdin' | 'env'>,
): Promise<{ text: string; failed: string[] }> {
  const now = opts.now ?? Date.now();
  if (opts.cluster && opts.state.length > 0) throw new UsageError('--state and --cluster exclude each other');
  if (!opts.cluster && opts.state.length === 0)
    throw new UsageError('forecast needs the Shoots: give --state FILE or --cluster');
  if (opts.includeAuto && opts.output !== 'ics')
    throw new UsageError('--include-auto is for --output ics: text and json list every step already');
  const config = await asUsageError(loadConfig(opts.config));
  const state = shootsPicked(await loadState(opts, config, io.env), opts);
  const current = forecastFleet(state, now, opts.days);
  const render = { includeAuto: opts.includeAuto === true };
  if (opts.proposed === undefined) {
    const events = current.shoots.flatMap((s) => s.events.map((event) => ({ shoot: s.shoot, event })));
    return { text: renderForecast(current, opts.output, render), failed: failures(opts.failOn, events, now) };
  }
  // Like check, read past other kinds beside the profiles (a ConfigMap in the same file).
  const proposed = await asUsageError(readOld([opts.proposed], { otherKinds: 'skip' }, io));
  const objects = proposed.objects.map((o) => o.object).filter((o) => o.kind !== 'Shoot');
  if (objects.length === 0)
    throw new UsageError(`${opts.proposed}: contains no CloudProfile or NamespacedCloudProfile`);
  const changes = diffForecasts(current, forecastFleet(withReplaced(state, objects), now, opts.days));
  // What the proposal adds or brings forward is what a gate on it judges.
  const added = changes.filter((c) => c.kind === 'new' || c.kind === 'earlier');
  return {
    text: renderChanges(current, changes, opts.output, render),
    failed: failures(opts.failOn, added, now),
  };
}

/** The state with the proposed profiles in place of the ones of the same kind and name. */
function withReplaced(state: ClusterState, replacements: readonly PolicedObject[]): ClusterState {
  const byId = new Map(replacements.map((o) => [identity(o), o]));
  const kept = [...state.allProfiles(), ...state.allShoots()].filter((o) => !byId.has(identity(o)));
  return staticState([...kept, ...replacements]);
}

function parseDays(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > MAX_DAYS)
    throw new InvalidArgumentError(`a whole number of days from 1 to ${MAX_DAYS}: ${JSON.stringify(text)}`);
  return n;
}
