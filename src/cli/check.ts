// `version-policy check`: judge objects from files as the webhook would, against a cluster state
// read from files (--state) or one live LIST (--cluster). Exit 0 all allowed, 1 something denied,
// 2 bad usage or input (main.ts prints the UsageError as one line).
import { type Command, Option } from 'commander';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { InputError, readObjectFiles } from '../cluster/object-files.js';
import { loadStaticState } from '../cluster/static-state.js';
import type { ClusterState } from '../cluster/state.js';
import { evaluate } from '../policy/evaluate.js';
import type { PolicyRequest } from '../policy/rule.js';
import type { PolicedObject } from '../policy/types.js';
import { type CheckResult, type OutputFormat, OUTPUT_FORMATS, render } from './check-output.js';
import { UsageError } from './errors.js';
import { EXIT_DENIED, EXIT_OK } from './exit-codes.js';
import { collect, type FeatureGates, parseFeatureGates, parseRfc3339 } from './options.js';

export interface CheckOptions {
  state?: string[];
  cluster?: boolean;
  delete?: boolean;
  /** Epoch ms, parsed from --now. */
  now?: number;
  featureGates?: Partial<FeatureGates>;
  config?: string;
  output: OutputFormat;
}

export function registerCheck(program: Command): void {
  program
    .command('check')
    .description('judge CloudProfiles, NamespacedCloudProfiles and Shoots in files against the version policy')
    .argument('<file...>', 'YAML or JSON files; multi-document, `kind: List` is unrolled')
    .addOption(new Option('--state <file>', 'objects that exist now (repeatable); an applied object found here is an UPDATE of it').argParser(collect).conflicts('cluster'))
    .option('--cluster', 'read the state from the current kubeconfig instead (read-only)')
    .option('--delete', "judge FILE's objects as DELETE requests")
    .addOption(new Option('--now <rfc3339>', 'evaluate time rules at this instant (default: the clock)').argParser(parseRfc3339))
    .addOption(new Option('--feature-gates <gates>', 'VersionClassificationLifecycle=true|false; overrides the config').argParser(parseFeatureGates))
    .option('--config <file>', 'the same config file as serve')
    .addOption(new Option('--output <format>', 'text or json').choices(OUTPUT_FORMATS).default('text'))
    .action(async (files: string[], opts: CheckOptions) => {
      process.exitCode = await runCheck(files, opts);
    });
}

/** Reads every input, judges each object and prints the verdicts; returns the exit code. */
export async function runCheck(files: readonly string[], opts: CheckOptions, out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const config = await asUsageError(checkConfig(opts));
  const [state, applied] = await asUsageError(stateThenFiles(checkState(opts, config), readObjectFiles(files)));
  const results = judgeAll(
    applied.map((s) => s.object),
    state,
    { config, now: opts.now ?? Date.now(), delete: opts.delete === true },
  );
  out.write(render(results, opts.output));
  return results.every((r) => r.allowed) ? EXIT_OK : EXIT_DENIED;
}

export interface JudgeOptions {
  config: Config;
  now: number;
  delete: boolean;
}

/** Judges each object against the state alone, never against the other objects of the run. */
export function judgeAll(objects: readonly PolicedObject[], state: ClusterState, opts: JudgeOptions): CheckResult[] {
  const stored = storedLookup(state);
  return objects.map((object) => {
    const request = requestFor(object, opts.delete ? undefined : stored(object), opts.delete);
    const decision = evaluate(request, { now: opts.now, config: opts.config, state });
    return {
      kind: object.kind,
      namespace: object.metadata.namespace ?? null,
      name: object.metadata.name,
      operation: request.operation,
      allowed: decision.allowed,
      violations: decision.violations,
      warnings: decision.warnings,
      object: request.operation === 'DELETE' ? null : (decision.object ?? object),
    };
  });
}

function requestFor(object: PolicedObject, existing: PolicedObject | undefined, isDelete: boolean): PolicyRequest {
  const base = {
    kind: object.kind,
    name: object.metadata.name,
    ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
    dryRun: false,
  };
  if (isDelete) return { ...base, operation: 'DELETE', oldObject: object };
  if (existing) return { ...base, operation: 'UPDATE', object, oldObject: existing };
  return { ...base, operation: 'CREATE', object };
}

/** The state's object with the same kind, namespace and name. */
function storedLookup(state: ClusterState): (o: PolicedObject) => PolicedObject | undefined {
  let shoots: Map<string, PolicedObject> | undefined;
  return (o) => {
    switch (o.kind) {
      case 'CloudProfile':
        return state.cloudProfile(o.metadata.name);
      case 'NamespacedCloudProfile':
        return state.namespacedCloudProfile(o.metadata.namespace, o.metadata.name);
      case 'Shoot':
        // ClusterState has no Shoot-by-name lookup; index them once per run.
        shoots ??= new Map([...state.allShoots()].map((s) => [`${s.metadata.namespace}/${s.metadata.name}`, s]));
        return shoots.get(`${o.metadata.namespace}/${o.metadata.name}`);
    }
  };
}

async function checkConfig(opts: CheckOptions): Promise<Config> {
  const config = await loadConfig(opts.config);
  return opts.featureGates ? { ...config, featureGates: { ...config.featureGates, ...opts.featureGates } } : config;
}

async function checkState(opts: CheckOptions, config: Config): Promise<ClusterState> {
  if (!opts.cluster) return loadStaticState(opts.state ?? []);
  try {
    // Loaded on demand: the Kubernetes client costs more start-up time than the whole check.
    const { listClusterState } = await import('../cluster/live-list.js');
    return await listClusterState({ kubeconfig: config.cluster.kubeconfig });
  } catch (err) {
    throw new UsageError(`cannot read the cluster state: ${oneLine((err as Error).message)}`);
  }
}

/** Both reads run at once; if both fail, the state's error is reported, whichever failed sooner. */
async function stateThenFiles<S, F>(state: Promise<S>, files: Promise<F>): Promise<[S, F]> {
  const [s, f] = await Promise.allSettled([state, files]);
  if (s.status === 'rejected') throw s.reason;
  if (f.status === 'rejected') throw f.reason;
  return [s.value, f.value];
}

/** Bad files and configs are the user's input errors: one line, exit code 2. */
async function asUsageError<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof InputError || err instanceof ConfigError) throw new UsageError(oneLine(err.message));
    throw err;
  }
}

function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ');
}
