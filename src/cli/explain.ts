// `version-policy explain [--state FILE...|--cluster] [--config FILE] [--now T] [--output text|json] FILE`:
// what happens to the versions of the profile(s) in FILE, and when. Input errors exit 2 (main.ts).
import { type Command, Option } from 'commander';
import { InputError, readObjectFile } from '../cluster/object-files.js';
import { type Config, ConfigError, loadConfig } from '../config.js';
import { loadStaticState } from '../cluster/static-state.js';
import type { ClusterState } from '../cluster/state.js';
import { mergeNamespacedProfile } from '../policy/merge.js';
import type { CloudProfile, NamespacedCloudProfile } from '../policy/types.js';
import { objectKey } from '../policy/types.js';
import { managedVersions } from '../policy/defaulting/managed-annotation.js';
import type { ExplainReport, ProfileReport } from '../policy/version-report.js';
import { buildProfileReport } from '../policy/version-report.js';
import { formatInstant } from '../policy/versions.js';
import { UsageError } from './errors.js';
import { OUTPUT_FORMATS, type OutputFormat, renderExplain } from './explain-output.js';
import { collect, parseRfc3339 } from './options.js';

export interface ExplainOptions {
  state: string[];
  cluster?: boolean;
  /** The same config file as serve and check; explain reads only `cluster.kubeconfig` from it. */
  config?: string;
  /** Epoch ms, parsed from --now. */
  now?: number;
  output: OutputFormat;
}

export function registerExplain(program: Command): void {
  program
    .command('explain')
    .description('what happens to the versions of a profile, and when: classifications, transitions, users, forced updates')
    .argument('<file>', 'a CloudProfile or NamespacedCloudProfile (YAML or JSON); Shoots in it are ignored')
    .addOption(new Option('--state <file>', 'objects that exist now: profiles, NamespacedCloudProfiles, Shoots (repeatable)').argParser(collect).default([]))
    .option('--cluster', 'read the state from the current kubeconfig instead (read-only)')
    .option('--config <file>', 'the same config file as serve; --cluster reads cluster.kubeconfig from it')
    .addOption(new Option('--now <rfc3339>', 'explain at this instant (default: the clock)').argParser(parseRfc3339))
    .addOption(new Option('--output <format>', 'text or json').choices(OUTPUT_FORMATS).default('text'))
    .action(async (file: string, opts: ExplainOptions) => {
      process.stdout.write(renderExplain(await explain(file, opts), opts.output));
    });
}

/** Reads FILE and the state, and reports on every profile in FILE. */
export async function explain(file: string, opts: ExplainOptions): Promise<ExplainReport> {
  const now = opts.now ?? Date.now();
  if (opts.cluster && opts.state.length > 0) throw new UsageError('--state and --cluster exclude each other');
  // Read even without --cluster: a config that is wrong is reported, never silently ignored.
  const config = await asUsageError(loadConfig(opts.config));
  const [state, objects] = await Promise.all([loadState(opts, config), asUsageError(readObjectFile(file))]);
  const profiles = objects.map((o) => o.object).filter((o): o is CloudProfile | NamespacedCloudProfile => o.kind !== 'Shoot');
  if (profiles.length === 0) throw new UsageError(`${file}: contains no CloudProfile or NamespacedCloudProfile to explain`);
  return { now: formatInstant(now), profiles: profiles.map((p) => reportOn(p, state, now, file)) };
}

function reportOn(profile: CloudProfile | NamespacedCloudProfile, state: ClusterState, now: number, file: string): ProfileReport {
  if (profile.kind === 'CloudProfile') {
    return buildProfileReport({ ref: { kind: 'CloudProfile', name: profile.metadata.name }, spec: profile.spec, state, now, managed: managedVersions(profile) });
  }
  const parentName = profile.spec.parent.name;
  const parent = profile.spec.parent.kind === 'CloudProfile' ? state.cloudProfile(parentName) : undefined;
  if (!parent) {
    throw new UsageError(`${file}: the parent CloudProfile "${parentName}" of NamespacedCloudProfile '${objectKey(profile)}' is not in the state; pass it with --state`);
  }
  return buildProfileReport({
    ref: { kind: 'NamespacedCloudProfile', namespace: profile.metadata.namespace, name: profile.metadata.name },
    spec: mergeNamespacedProfile(parent.spec, profile.spec),
    parent: parentName,
    state,
    now,
    // The merged versions are the parent's (or NCP additions, which the defaulting never manages).
    managed: managedVersions(parent),
  });
}

async function loadState(opts: ExplainOptions, config: Config): Promise<ClusterState> {
  if (!opts.cluster) return asUsageError(loadStaticState(opts.state));
  try {
    // The Kubernetes client loads only for --cluster; it costs more than a whole offline run.
    const { listClusterState } = await import('../cluster/live-list.js');
    return await listClusterState({ kubeconfig: config.cluster.kubeconfig });
  } catch (err) {
    throw new UsageError(`cannot read the cluster state: ${(err as Error).message.replace(/\s*\n\s*/g, ' ')}`);
  }
}

/** Unreadable or invalid files and configs are the user's input errors: one line, exit code 2. */
async function asUsageError<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof InputError || err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
}
