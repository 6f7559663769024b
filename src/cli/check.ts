// `version-policy check`: judge objects from files as the webhook would, against a cluster state
// read from files (--state) or one live LIST (--cluster), or, without either, saying on each
// result what could not be checked. Exit codes: EXIT_CODES_HELP below, and docs/ci.md.
import { writeFile } from 'node:fs/promises';
import { type Command, Option } from 'commander';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { InputError, type ParsedFile, type ReadOptions, type SourcedObject } from '../cluster/object-files.js';
import type { ClusterState } from '../api/cluster-state.js';
import { withForecast } from './check-forecast.js';
import { folderTree, gitTree, type Tree } from './check-trees.js';
import { absentState, byIdentity, checkStdinOnce, identity, readInputs, readOld, readState } from './check-inputs.js';
import { judgeAll, located } from './check-judge.js';
import {
  type JudgedObject,
  objectName,
  type OutputFormat,
  OUTPUT_FORMATS,
  render,
  type ReportedError,
  type SkippedResult,
} from './check-output.js';
import { UsageError } from './errors.js';
import { EXIT_DENIED, EXIT_INPUT, EXIT_OK } from './exit-codes.js';
import type { CliIo, Invocation } from './io.js';
import { collect, type FeatureGates, parseFeatureGates, parseRfc3339 } from './options.js';

export interface CheckOptions {
  state?: string[];
  cluster?: boolean;
  old?: string[];
  /** --old-ref REF: the same PATHs at a git revision. */
  oldRef?: string;
  /** --old-root DIR: the same PATHs under a folder (a checkout of the old revision). */
  oldRoot?: string;
  prune?: boolean;
  delete?: boolean;
  /** Epoch ms, parsed from --now. */
  now?: number;
  featureGates?: Partial<FeatureGates>;
  config?: string;
  output: OutputFormat;
  quiet?: boolean;
  strictKinds?: boolean;
  requireState?: boolean;
  /** --junit FILE: the JUnit report, written beside the --output on stdout. */
  junit?: string;
  /** --sarif FILE: the SARIF log, likewise. */
  sarif?: string;
  /** false with --no-mutate. */
  mutate?: boolean;
}

export const EXIT_CODES_HELP = `
Exit codes:
  0  every object is allowed (documents of other kinds are skipped)
  1  at least one object is denied
  2  usage or input error: unknown flag, unreadable file, a file with no object, bad YAML, an
     object of our kinds that fails the schema, a kind core.gardener.cloud does not have, a
     document of another kind with --strict-kinds, a failing git for --old or --old-ref, a PATH
     that names nothing; --require-state without --state or --cluster. 2 wins over 1.

PATH is a file, a folder (every .yaml, .yml and .json below it, hidden folders left out) or a
quoted glob ('profiles/**/*.yaml'), or - for standard input (once). --old-ref REF reads the same
PATHs at a git revision, --old-root DIR under another folder: a file on one side only is new or
removed. --old REF:PATH runs \`git show REF:PATH\` in the current directory (PATH from the
repository's top, or ./PATH from here); a file of that name wins.
Guide: docs/ci.md`;

const OTHER_KIND = 'not a CloudProfile, NamespacedCloudProfile or Shoot of core.gardener.cloud/v1beta1';
const OLD_ONLY = 'on the old side only: its removal was not judged (--prune judges it as a DELETE)';

export function registerCheck(program: Command, run: Invocation): void {
  program
    .command('check')
    .description('judge CloudProfiles, NamespacedCloudProfiles and Shoots in files against the version policy')
    .argument(
      '<path...>',
      'YAML or JSON files, folders or quoted globs, or - for standard input; multi-document, `kind: List` is unrolled',
    )
    .addOption(
      new Option(
        '--state <file>',
        'objects that exist now (repeatable); an applied object found here is an UPDATE of it',
      )
        .argParser(collect)
        .conflicts('cluster'),
    )
    .option('--cluster', 'read the state from the current kubeconfig instead (read-only)')
    .addOption(
      new Option(
        '--old <file|ref:path>',
        'the objects before the change (repeatable): each FILE object found here is an UPDATE of it; wins over --state',
      )
        .argParser(collect)
        .conflicts(['oldRef', 'oldRoot']),
    )
    .addOption(
      new Option('--old-ref <ref>', 'the objects before the change: the same PATHs at this git revision').conflicts(
        'oldRoot',
      ),
    )
    .option('--old-root <dir>', 'the objects before the change: the same PATHs under this folder')
    .option('--prune', 'judge the --old objects that no FILE holds as DELETE requests (without --old: none)')
    .addOption(
      new Option('--delete', "judge FILE's objects as DELETE requests").conflicts(['old', 'oldRef', 'oldRoot']),
    )
    .addOption(
      new Option('--now <rfc3339>', 'evaluate time rules at this instant (default: the clock)').argParser(parseRfc3339),
    )
    .addOption(
      new Option(
        '--feature-gates <gates>',
        'VersionClassificationLifecycle=true|false; overrides the config',
      ).argParser(parseFeatureGates),
    )
    .option('--config <file>', 'the same config file as serve')
    .addOption(
      new Option('--output <format>', 'text, json, junit, sarif, or github (workflow annotations, then text)')
        .choices(OUTPUT_FORMATS)
        .default('text'),
    )
    .option(
      '--junit <file>',
      'also write the JUnit report to FILE, whatever --output is: one run gives CI both the report and the exit code',
    )
    .option('--sarif <file>', 'also write the SARIF 2.1.0 log to FILE, whatever --output is')
    .option('--quiet', 'text output: print only the denied objects')
    .option('--strict-kinds', 'a document of another kind is an error (exit 2), not skipped')
    .option('--require-state', 'exit 2 unless --state or --cluster gives the landscape, and every rule was checked')
    .option('--no-mutate', 'judge the objects as written, without the mutating path')
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (files: string[], opts: CheckOptions) => {
      run.exitCode = await runCheck(files, opts, run.io);
    });
}

/** Reads every input, judges each object and prints the verdicts; returns the exit code. */
export async function runCheck(files: readonly string[], opts: CheckOptions, io: CliIo): Promise<number> {
  if (opts.requireState && !opts.state && !opts.cluster)
    throw new UsageError(
      '--require-state: no landscape to judge against: give --state FILE (e.g. from `version-policy state export`) or --cluster',
    );
  inputErrorsAsUsage(() => checkStdinOnce([...files, ...(opts.old ?? [])]));
  const config = await asUsageError(checkConfig(opts));
  const read: ReadOptions = { otherKinds: opts.strictKinds ? 'error' : 'skip' };
  const oldTree = inputErrorsAsUsage(() => oldTreeOf(opts, io.env));
  const [state, { inputs, old: oldOfTree }, oldFiles] = await asUsageError(
    firstFailureInOrder(
      checkState(opts, config, io.env),
      readInputs(files, read, io, oldTree),
      opts.old ? readOld(opts.old, read, io) : Promise.resolve(undefined),
    ),
  );
  const old = oldFiles ?? oldOfTree;
  const oldObjects = inputErrorsAsUsage(() => byIdentity(old?.objects ?? []));
  const judge = { config, now: opts.now ?? Date.now(), delete: opts.delete === true, mutate: opts.mutate !== false };
  const removed = onlyInOld(oldObjects, inputs);
  const results = located(
    [
      ...withForecast(judgeAll(inputs.objects, state, oldObjects, judge), inputs.objects, state, oldObjects, judge),
      ...(opts.prune ? judgeAll(removed, state, new Map(), { ...judge, delete: true }) : []),
    ],
    inputs.texts,
  );
  const skipped = [
    ...inputs.skipped.map((s) => ({ ...s, reason: OTHER_KIND })),
    ...(opts.prune ? [] : removed.map(skippedOld)),
  ];
  const error = opts.requireState ? requireStateError(results) : undefined;
  const report = { results, skipped, ...(error ? { error } : {}) };
  if (opts.junit) await asUsageError(writeReport(opts.junit, render(report, 'junit'), '--junit'));
  if (opts.sarif) await asUsageError(writeReport(opts.sarif, render(report, 'sarif'), '--sarif'));
  io.stdout.write(render(report, opts.output, { quiet: opts.quiet === true }));
  if (error) {
    io.stderr.write(`version-policy: ${error.message}\n`);
    return EXIT_INPUT;
  }
  return results.every((r) => r.allowed) ? EXIT_OK : EXIT_DENIED;
}

function oldTreeOf(opts: CheckOptions, env: NodeJS.ProcessEnv): Tree | undefined {
  if (opts.oldRef !== undefined) return gitTree(opts.oldRef, env);
  if (opts.oldRoot !== undefined) return folderTree(opts.oldRoot);
  return undefined;
}

/** Writes a --junit or --sarif report; a file that cannot be written is the user's input error. */
export async function writeReport(file: string, text: string, flag: string): Promise<void> {
  try {
    await writeFile(file, text);
  } catch (err) {
    throw new InputError(`${flag} ${file}: cannot write the report: ${(err as Error).message}`);
  }
}

/** --old objects that no FILE holds: the change removes them (or moves them to a file not given). */
function onlyInOld(old: ReadonlyMap<string, SourcedObject>, inputs: ParsedFile): SourcedObject[] {
  const judged = new Set(inputs.objects.map((o) => identity(o.object)));
  return [...old].filter(([key]) => !judged.has(key)).map(([, o]) => o);
}

function skippedOld({ object: o, file, document, line }: SourcedObject): SkippedResult {
  return {
    file,
    document,
    line,
    apiVersion: o.apiVersion,
    kind: o.kind,
    namespace: o.metadata.namespace ?? null,
    name: o.metadata.name,
    reason: OLD_ONLY,
  };
}

/** Objects listed in a --require-state error before "and N more". */
const UNJUDGED_LISTED = 10;

function requireStateError(results: readonly JudgedObject[]): ReportedError | undefined {
  const unjudged = results.filter((r) => r.notes.length > 0);
  if (unjudged.length === 0) return undefined;
  const listed = unjudged.slice(0, UNJUDGED_LISTED).map((r) => `${objectName(r)} (${r.file}:${r.line})`);
  const more = unjudged.length > UNJUDGED_LISTED ? `, and ${unjudged.length - UNJUDGED_LISTED} more` : '';
  const n = unjudged.length;
  return {
    message: `--require-state: ${n} object${n === 1 ? '' : 's'} could not be fully checked without --state or --cluster: ${listed.join(', ')}${more}`,
  };
}

async function checkConfig(opts: CheckOptions): Promise<Config> {
  const config = await loadConfig(opts.config);
  return opts.featureGates ? { ...config, featureGates: { ...config.featureGates, ...opts.featureGates } } : config;
}

async function checkState(opts: CheckOptions, config: Config, env: NodeJS.ProcessEnv): Promise<ClusterState> {
  if (opts.state) return readState(opts.state);
  if (!opts.cluster) return absentState();
  try {
    // Loaded on demand: the Kubernetes client costs more start-up time than the whole check.
    const { listClusterState } = await import('../cluster/live-list.js');
    return await listClusterState({ kubeconfig: config.cluster.kubeconfig, env });
  } catch (err) {
    throw new UsageError(`cannot read the cluster state: ${oneLine((err as Error).message)}`);
  }
}

/** The reads run at once; when several fail, the error reported is the first in argument order (state, files, old). */
async function firstFailureInOrder<A, B, C>(a: Promise<A>, b: Promise<B>, c: Promise<C>): Promise<[A, B, C]> {
  const [x, y, z] = await Promise.allSettled([a, b, c]);
  for (const s of [x, y, z]) if (s.status === 'rejected') throw s.reason;
  return [
    (x as PromiseFulfilledResult<A>).value,
    (y as PromiseFulfilledResult<B>).value,
    (z as PromiseFulfilledResult<C>).value,
  ];
}

/** Bad files and configs are the user's input errors: one line, exit code 2. */
async function asUsageError<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw usageErrorOf(err);
  }
}

function inputErrorsAsUsage<T>(work: () => T): T {
  try {
    return work();
  } catch (err) {
    throw usageErrorOf(err);
  }
}

function usageErrorOf(err: unknown): unknown {
  if (err instanceof InputError)
    return new UsageError(oneLine(err.message), {
      ...(err.file ? { file: err.file } : {}),
      ...(err.line ? { line: err.line } : {}),
    });
  if (err instanceof ConfigError) return new UsageError(oneLine(err.message));
  return err;
}

function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ');
}
