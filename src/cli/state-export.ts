// `version-policy state export [--cluster | --state FILE...] [--config FILE] > state.yaml`: the
// smallest snapshot of the landscape the rules need, for `check --state` in CI. Profiles and
// NamespacedCloudProfiles keep their spec (every rule reads it); a Shoot keeps its profile, its
// versions (control plane, each pool's Kubernetes and machine image) and its maintenance window,
// and nothing else: no status, no credentials, no annotations, no resource versions. The cut is
// the one the webhook's informers make (cluster/trim.ts), so the snapshot holds what the webhook
// holds.
import type { Command } from 'commander';
import { Option } from 'commander';
import { stringify } from 'yaml';
import { InputError, readObjectFiles } from '../cluster/object-files.js';
import { trimObject } from '../cluster/trim.js';
import { ConfigError, loadConfig } from '../config.js';
import { formatFieldErrors } from '../api/parse.js';
import type { PolicedObject } from '../api/types.js';
import { UsageError } from './errors.js';
import type { CliIo } from './io.js';
import { collect } from './options.js';

export interface StateExportOptions {
  state: string[];
  cluster?: boolean;
  config?: string;
}

export const STATE_HEADER = `# The landscape as version-policy's rules see it, written by \`version-policy state export\`:
# profiles and NamespacedCloudProfiles (spec), and each Shoot's profile, versions and maintenance
# window. For \`version-policy check --state FILE\`.
`;

export function registerState(program: Command, io: CliIo): void {
  const state = program
    .command('state')
    .description('the landscape as the rules need it: `state export` writes a snapshot for check --state');
  state
    .command('export')
    .description(
      "write the smallest snapshot of the landscape the rules need to stdout (YAML): profiles, NamespacedCloudProfiles, each Shoot's profile, versions and maintenance window",
    )
    .addOption(
      new Option(
        '--cluster',
        'read the landscape from the current kubeconfig (read-only: list of the three resources)',
      ).conflicts('state'),
    )
    .addOption(
      new Option(
        '--state <file>',
        'read it from files instead, e.g. kubectl get cloudprofiles,namespacedcloudprofiles,shoots -A -o yaml (repeatable)',
      )
        .argParser(collect)
        .default([]),
    )
    .option('--config <file>', 'the same config file as serve; --cluster reads cluster.kubeconfig from it')
    .action(async (opts: StateExportOptions) => {
      io.stdout.write(renderState(await exportState(opts, io)));
    });
  // Without a subcommand commander would print the whole help as the error; a usage error is one line.
  state.action(() => {
    throw new UsageError('missing command: state export (writes the snapshot; --help says more)');
  });
  state.exitOverride();
}

/** The landscape's objects, cut to what the rules read, in a stable order. */
export async function exportState(
  opts: StateExportOptions,
  io: Pick<CliIo, 'stderr' | 'env'>,
): Promise<PolicedObject[]> {
  if (!opts.cluster && opts.state.length === 0)
    throw new UsageError('state export needs --cluster (the current kubeconfig) or --state FILE');
  const objects = opts.cluster ? await listed(opts, io) : await fromFiles(opts.state);
  return objects.map(minimal).sort(byKindAndName);
}

/** Multi-document YAML under a header; an empty landscape is an empty List, which check --state accepts. */
export function renderState(objects: readonly PolicedObject[]): string {
  if (objects.length === 0) return `${STATE_HEADER}apiVersion: v1\nkind: List\nitems: []\n`;
  return STATE_HEADER + objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
}

async function fromFiles(files: readonly string[]): Promise<PolicedObject[]> {
  try {
    return (await readObjectFiles(files, { allowEmptyList: true, stored: true })).map((o) => o.object);
  } catch (err) {
    if (err instanceof InputError)
      throw new UsageError(err.message, {
        ...(err.file ? { file: err.file } : {}),
        ...(err.line ? { line: err.line } : {}),
      });
    throw err;
  }
}

async function listed(opts: StateExportOptions, io: Pick<CliIo, 'stderr' | 'env'>): Promise<PolicedObject[]> {
  let kubeconfig: string;
  try {
    kubeconfig = (await loadConfig(opts.config)).cluster.kubeconfig;
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  try {
    const { listClusterState } = await import('../cluster/live-list.js');
    const index = await listClusterState({
      kubeconfig,
      env: io.env,
      onRejected: (message) => io.stderr.write(`version-policy: ${message}\n`),
    });
    return [...index.allProfiles(), ...index.allShoots()];
  } catch (err) {
    throw new UsageError(`cannot read the cluster state: ${(err as Error).message.replace(/\s*\n\s*/g, ' ')}`);
  }
}

/** The informers' cut (trimObject), less what only a live object has: uid, resourceVersion, generation. */
function minimal(o: PolicedObject): PolicedObject {
  const trimmed = trimObject(o.kind, o);
  if (!trimmed.ok) throw new UsageError(`${o.kind} ${o.metadata.name}: ${formatFieldErrors(trimmed.errors)}`);
  const { uid: _uid, resourceVersion: _rv, generation: _generation, ...metadata } = trimmed.object.metadata;
  return withoutUndefined({ ...trimmed.object, metadata }) as PolicedObject;
}

const KIND_ORDER = { CloudProfile: 0, NamespacedCloudProfile: 1, Shoot: 2 } as const;

function byKindAndName(a: PolicedObject, b: PolicedObject): number {
  const key = (o: PolicedObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  return KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}

/** A copy without undefined values: the trim leaves absent fields as undefined keys, which YAML would print as null. */
function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefined);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, withoutUndefined(v)]),
  );
}
