// Where `check` reads objects from: files, standard input (`-`), and for --old also a git
// `REF:PATH`, read with `git show` (no shell). Every failure is an InputError naming the source.
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import {
  InputError,
  nonEmpty,
  type ParsedFile,
  parseDocuments,
  type ReadOptions,
  readSourceText,
  type SourcedObject,
} from '../cluster/object-files.js';
import { ClusterIndex } from '../cluster/cluster-index.js';
import { staticState } from '../cluster/static-state.js';
import { canonical, expandOne, isGlob } from './check-paths.js';
import { type Tree, workingTree } from './check-trees.js';
import type { ClusterState } from '../api/cluster-state.js';
import type { PolicedObject } from '../api/types.js';

/** The source name that means standard input. */
export const STDIN = '-';
/** How results and errors name standard input. */
export const STDIN_NAME = '<stdin>';

/** `git show` output past this is refused: a profile file is kilobytes; this bounds the memory of a mistake. */
const GIT_MAX_BYTES = 256 * 1024 * 1024;

export interface InputStreams {
  stdin: NodeJS.ReadableStream;
  /** `git show`'s environment (PATH, GIT_DIR and the like). */
  env: NodeJS.ProcessEnv;
}

/** The new side's objects, and the text of each source (the SARIF and GitHub outputs find lines in it). */
export interface InputFiles extends ParsedFile {
  texts: Map<string, string>;
}

/**
 * Reads the PATH arguments: files, directories, globs (check-paths.ts), `-` for standard input.
 * With an old tree (--old-ref, --old-root) the same arguments are expanded there too, and a path
 * may exist on one side only: a new or a removed file. The error reported is the first source's.
 */
export async function readInputs(
  args: readonly string[],
  opts: ReadOptions,
  io: InputStreams,
  oldTree?: Tree,
): Promise<{ inputs: InputFiles; old?: ParsedFile }> {
  if (oldTree && args.includes(STDIN))
    throw new InputError(`${oldTree.name} is read at the same paths as the new side: standard input (-) has none`);
  const paths = args.filter((a) => a !== STDIN);
  const [newListing, oldListing] = await Promise.all([workingTree().list(paths), oldTree?.list(paths)]);
  const newFiles: string[] = [];
  const oldFiles: string[] = [];
  for (const arg of args) {
    if (arg === STDIN) {
      newFiles.push(STDIN);
      continue;
    }
    const found = expandOne(arg, newListing);
    const before = oldListing ? expandOne(arg, oldListing) : [];
    if (found.length === 0 && before.length === 0) await nothingAt(arg, oldTree);
    // A file named as such keeps the name it was given; what a folder or glob finds is named canonically.
    for (const f of found.length === 1 && found[0] === canonical(arg) && !isGlob(arg) ? [arg] : found) newFiles.push(f);
    for (const f of before) oldFiles.push(f);
  }
  const [read, oldTexts] = await Promise.all([
    readNew(unique(newFiles), opts, io),
    oldTree ? oldTree.read(unique(oldFiles)) : undefined,
  ]);
  const texts = new Map(read.map((r) => [r.name, r.text]));
  const inputs = merged(read.map((r) => r.parsed));
  const old = oldTexts
    ? merged(
        [...oldTexts].map(([path, text]) =>
          parsed({ name: oldTree?.sourceName(path) ?? path, text }, { ...opts, allowNoObjects: true }),
        ),
      )
    : undefined;
  return { inputs: { ...inputs, texts }, ...(old ? { old } : {}) };
}

/** An argument that names nothing on either side: the error says what it looked for, and where. */
async function nothingAt(arg: string, oldTree: Tree | undefined): Promise<never> {
  const sides = oldTree ? ` (neither in the working tree nor in ${oldTree.name})` : '';
  if (isGlob(arg)) throw new InputError(`${arg}: matches no file${sides}`, { file: arg });
  if (await isDirectory(arg))
    throw new InputError(`${arg}: a folder with no .yaml, .yml or .json file${sides}`, { file: arg });
  if (!oldTree) await readSourceText(arg); // the reason a file cannot be read: no such file, permission
  throw new InputError(`${arg}: no such file or folder${sides}`, { file: arg });
}

/** Each file read and parsed; the error reported is the first file's, reading or parsing. */
function readNew(
  files: readonly string[],
  opts: ReadOptions,
  io: InputStreams,
): Promise<Array<{ name: string; text: string; parsed: ParsedFile }>> {
  return inOrder(
    files.map(async (f) => {
      const source = f === STDIN ? await readStdin(io.stdin) : { name: f, text: await readSourceText(f) };
      return { ...source, parsed: parsed(source, opts) };
    }),
  );
}

/** Each file once, by its canonical path, under the first name it was given. */
function unique(items: readonly string[]): string[] {
  const seen = new Set<string>();
  return items.filter((i) => {
    const key = i === STDIN ? i : canonical(i);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The --old sources: a file, `-`, or `REF:PATH` of the git repository in the working directory.
 * An existing file wins over a git spec of the same spelling.
 */
export async function readOld(sources: readonly string[], opts: ReadOptions, io: InputStreams): Promise<ParsedFile> {
  return merged(
    await inOrder(
      sources.map(async (s) => parsed(await oldText(s, io), { ...opts, allowEmptyList: true, stored: true })),
    ),
  );
}

/** --state files: only objects of our kinds, and an empty List stands for "none". Always synced. */
export async function readState(files: readonly string[]): Promise<ClusterState> {
  const parsedFiles = await inOrder(
    files.map(async (f) => parsed({ name: f, text: await readSourceText(f) }, { allowEmptyList: true, stored: true })),
  );
  return staticState(parsedFiles.flatMap((f) => f.objects.map((o) => o.object)));
}

/**
 * The state of a run without --state or --cluster: empty and not synced, so that a rule that needs
 * the landscape says it was not checked instead of judging against nothing.
 */
export function absentState(): ClusterState {
  const state = new ClusterIndex();
  state.reportNotReadyBy(() => 'no --state or --cluster was given');
  return state;
}

/** Standard input may be named once in a run: it can be read only once. */
export function checkStdinOnce(sources: readonly string[]): void {
  if (sources.filter((s) => s === STDIN).length > 1)
    throw new InputError('standard input (-) can be read only once: name it in FILE or in --old, once');
}

/** The --old objects by kind, namespace and name; the same object twice would make the UPDATE ambiguous. */
export function byIdentity(objects: readonly SourcedObject[]): Map<string, SourcedObject> {
  const out = new Map<string, SourcedObject>();
  for (const o of objects) {
    const key = identity(o.object);
    const first = out.get(key);
    if (first) {
      throw new InputError(
        `--old holds ${describe(o.object)} twice (${first.file}:${first.line} and ${o.file}:${o.line}); an UPDATE needs one old object`,
        { file: o.file, line: o.line },
      );
    }
    out.set(key, o);
  }
  return out;
}

export function identity(o: PolicedObject): string {
  return `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
}

export function describe(o: PolicedObject): string {
  return `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
}

async function oldText(spec: string, io: InputStreams): Promise<{ name: string; text: string }> {
  if (spec === STDIN) return readStdin(io.stdin);
  const git = /^([^:]+):(.+)$/.exec(spec);
  if (!git || (await exists(spec))) return { name: spec, text: await readSourceText(spec) };
  const [, ref = '', path = ''] = git;
  // Never let a spec reach git as an option.
  if (ref.startsWith('-'))
    throw new InputError(`${spec}: not a file, and "${ref}" is not a git revision`, { file: spec });
  return { name: spec, text: nonEmpty(await gitShow(ref, path, spec, io.env), spec) };
}

function gitShow(ref: string, path: string, spec: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['show', `${ref}:${path}`],
      { encoding: 'utf8', env, maxBuffer: GIT_MAX_BYTES, windowsHide: true },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT')
          return reject(
            new InputError(
              `${spec}: cannot read from git: git is not installed or not on PATH (--old REF:PATH runs \`git show REF:PATH\`)`,
              { file: spec },
            ),
          );
        if (code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER')
          return reject(new InputError(`${spec}: larger than ${GIT_MAX_BYTES / 1024 / 1024} MiB`, { file: spec }));
        const why = (stderr.split('\n').find((l) => l.trim() !== '') ?? err.message).replace(/^fatal: /, '');
        // CI clones are shallow by default: the usual cause of a missing revision.
        const hint = /invalid object name|unknown revision|bad revision/.test(why)
          ? ' (a shallow clone may lack it: fetch more history, see docs/ci.md)'
          : '';
        reject(new InputError(`${spec}: git show ${ref}:${path} failed: ${why}${hint}`, { file: spec }));
      },
    );
  });
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

async function readStdin(stdin: NodeJS.ReadableStream): Promise<{ name: string; text: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return { name: STDIN_NAME, text: nonEmpty(Buffer.concat(chunks).toString('utf8'), STDIN_NAME) };
}

function parsed(source: { name: string; text: string }, opts: ReadOptions): ParsedFile {
  return parseDocuments(source.text, source.name, opts);
}

function merged(files: readonly ParsedFile[]): ParsedFile {
  return { objects: files.flatMap((f) => f.objects), skipped: files.flatMap((f) => f.skipped) };
}

/** Promise.all, except that the rejection reported is the first in list order, not in time. */
async function inOrder<T>(work: ReadonlyArray<Promise<T>>): Promise<T[]> {
  const settled = await Promise.allSettled(work);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}
