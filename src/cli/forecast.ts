// `version-policy forecast [--state FILE...|--cluster] [--proposed FILE|REF:PATH] [--days N]
// [--now T] [--output text|json|ics]`: what Gardener's maintenance will do to every Shoot, window
// by window; with --proposed, only what the proposed profile changes. Input errors exit 2.
import { type Command, InvalidArgumentError, Option } from 'commander';
import { staticState } from '../cluster/static-state.js';
import type { ClusterState } from '../api/cluster-state.js';
import { loadConfig } from '../config.js';
import { diffForecasts, forecastFleet } from '../gardener/forecast/index.js';
import type { PolicedObject } from '../api/types.js';
import { identity, readOld } from './check-inputs.js';
import { UsageError } from './errors.js';
import { asUsageError, loadState } from './explain.js';
import { FORECAST_FORMATS, type ForecastFormat, renderChanges, renderForecast } from './forecast-output.js';
import type { CliIo } from './io.js';
import { collect, parseRfc3339 } from './options.js';

export interface ForecastOptions {
  state: string[];
  cluster?: boolean;
  config?: string;
  proposed?: string;
  days: number;
  now?: number;
  output: ForecastFormat;
}

/** Ten years: a longer horizon says nothing a profile's lifecycles can still decide. */
const MAX_DAYS = 3650;

export function registerForecast(program: Command, io: CliIo): void {
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
    .action(async (opts: ForecastOptions) => {
      io.stdout.write(await forecast(opts, io));
    });
}

export async function forecast(opts: ForecastOptions, io: Pick<CliIo, 'stdin' | 'env'>): Promise<string> {
  const now = opts.now ?? Date.now();
  if (opts.cluster && opts.state.length > 0) throw new UsageError('--state and --cluster exclude each other');
  if (!opts.cluster && opts.state.length === 0)
    throw new UsageError('forecast needs the Shoots: give --state FILE or --cluster');
  const config = await asUsageError(loadConfig(opts.config));
  const state = await loadState(opts, config, io.env);
  const current = forecastFleet(state, now, opts.days);
  if (opts.proposed === undefined) return renderForecast(current, opts.output);
  const proposed = await asUsageError(readOld([opts.proposed], {}, io));
  const objects = proposed.objects.map((o) => o.object).filter((o) => o.kind !== 'Shoot');
  if (objects.length === 0)
    throw new UsageError(`${opts.proposed}: contains no CloudProfile or NamespacedCloudProfile`);
  return renderChanges(
    current,
    diffForecasts(current, forecastFleet(withReplaced(state, objects), now, opts.days)),
    opts.output,
  );
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
