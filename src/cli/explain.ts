// `version-policy explain [--state FILE...|--cluster] [--config FILE] [--now T] [--output text|json|html]
// [--from WHEN --to WHEN] FILE`: what happens to the versions of the profile(s) in FILE, and when.
// Input errors exit 2 (main.ts).
import { type Command, InvalidArgumentError, Option } from 'commander';
import { InputError, readObjectFile } from '../cluster/object-files.js';
import { type Config, ConfigError, loadConfig } from '../config.js';
import { loadStaticState } from '../cluster/static-state.js';
import type { ClusterState } from '../api/cluster-state.js';
import { explainProfile, type ExplainedProfile, MissingParentError, type Profile } from '../report/profile.js';
import {
  DEFAULT_FROM,
  DEFAULT_TO,
  parseWindowBound,
  resolveWindow,
  type TimelineWindow,
  type WindowBound,
  WindowError,
} from '../report/window.js';
import { UsageError } from './errors.js';
import { type Explained, OUTPUT_FORMATS, type OutputFormat, renderExplain } from './explain-output.js';
import type { CliIo } from './io.js';
import { collect, parseRfc3339 } from './options.js';

export interface ExplainOptions {
  state: string[];
  cluster?: boolean;
  /** The same config file as serve and check; explain reads only `cluster.kubeconfig` from it. */
  config?: string;
  /** Epoch ms, parsed from --now. */
  now?: number;
  output: OutputFormat;
  /** The timeline's window (--output html); `to` also ends the maintenance forecast, in every format. */
  from?: WindowBound;
  to?: WindowBound;
}

export function registerExplain(program: Command, io: CliIo): void {
  program
    .command('explain')
    .description(
      'what happens to the versions of a profile, and when: classifications, transitions, users, forced updates',
    )
    .argument('<file>', 'a CloudProfile or NamespacedCloudProfile (YAML or JSON); Shoots in it are ignored')
    .addOption(
      new Option('--state <file>', 'objects that exist now: profiles, NamespacedCloudProfiles, Shoots (repeatable)')
        .argParser(collect)
        .default([]),
    )
    .option('--cluster', 'read the state from the current kubeconfig instead (read-only)')
    .option('--config <file>', 'the same config file as serve; --cluster reads cluster.kubeconfig from it')
    .addOption(new Option('--now <rfc3339>', 'explain at this instant (default: the clock)').argParser(parseRfc3339))
    .addOption(
      new Option('--output <format>', 'text, json, or html: a self-contained timeline page')
        .choices(OUTPUT_FORMATS)
        .default('text'),
    )
    .addOption(
      new Option(
        '--from <when>',
        `html: where the timeline starts, days from now or a date (default ${DEFAULT_FROM})`,
      ).argParser(windowBound),
    )
    .addOption(
      new Option(
        '--to <when>',
        `where the maintenance forecast (and the timeline) ends, days from now or a date (default ${DEFAULT_TO})`,
      ).argParser(windowBound),
    )
    .action(async (file: string, opts: ExplainOptions) => {
      opts.now ??= Date.now();
      const window = timelineWindow(opts);
      io.stdout.write(renderExplain(await explain(file, opts, io.env, window.to), opts.output, window));
    });
}

/** Reads FILE and the state, and explains every profile in FILE, with its Shoots' maintenance up to `until`. */
export async function explain(
  file: string,
  opts: ExplainOptions,
  env: NodeJS.ProcessEnv,
  until: number,
): Promise<Explained> {
  const now = opts.now ?? Date.now();
  if (opts.cluster && opts.state.length > 0) throw new UsageError('--state and --cluster exclude each other');
  // Read even without --cluster: a config that is wrong is reported, never silently ignored.
  const config = await asUsageError(loadConfig(opts.config));
  const [state, objects] = await Promise.all([loadState(opts, config, env), asUsageError(readObjectFile(file))]);
  const profiles = objects.map((o) => o.object).filter((o): o is Profile => o.kind !== 'Shoot');
  if (profiles.length === 0)
    throw new UsageError(`${file}: contains no CloudProfile or NamespacedCloudProfile to explain`);
  return {
    now,
    profiles: profiles.map((p) => explainOne(p, state, now, until, file)),
    stateKnown: opts.cluster === true || opts.state.length > 0,
  };
}

function explainOne(profile: Profile, state: ClusterState, now: number, until: number, file: string): ExplainedProfile {
  try {
    return explainProfile(profile, state, now, { until });
  } catch (err) {
    if (err instanceof MissingParentError) throw new UsageError(`${file}: ${err.message}; pass it with --state`);
    throw err;
  }
}

/** The window is checked before anything is read; its end is the forecast's, its start only shapes the page. */
function timelineWindow(opts: ExplainOptions): TimelineWindow {
  if (opts.output !== 'html' && opts.from)
    throw new UsageError('--from shapes the timeline page: use it with --output html');
  try {
    return resolveWindow(opts.now ?? Date.now(), opts.from, opts.to);
  } catch (err) {
    if (err instanceof WindowError) throw new UsageError(`--from/--to: ${err.message}`);
    throw err;
  }
}

function windowBound(text: string): WindowBound {
  try {
    return parseWindowBound(text);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

export async function loadState(
  opts: Pick<ExplainOptions, 'cluster' | 'state'>,
  config: Config,
  env: NodeJS.ProcessEnv,
): Promise<ClusterState> {
  if (!opts.cluster) return asUsageError(loadStaticState(opts.state));
  try {
    // The Kubernetes client loads only for --cluster; it costs more than a whole offline run.
    const { listClusterState } = await import('../cluster/live-list.js');
    return await listClusterState({ kubeconfig: config.cluster.kubeconfig, env });
  } catch (err) {
    throw new UsageError(`cannot read the cluster state: ${(err as Error).message.replace(/\s*\n\s*/g, ' ')}`);
  }
}

/** Unreadable or invalid files and configs are the user's input errors: one line, exit code 2. */
export async function asUsageError<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof InputError || err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
}
