// The trees `check` expands its PATH arguments in: the working tree (the new side), and for the
// old side a git revision (`--old-ref`, read with `git ls-tree` and `git cat-file`, no shell) or
// another folder (`--old-root`, a checkout of the old revision). Each lists the files under the
// arguments' roots, then reads the ones the expansion picked.
import { spawn } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { InputError, readSourceText } from '../cluster/object-files.js';
import { canonical, rootOf } from './check-paths.js';

export interface Tree {
  /** How messages name the side: `the working tree`, `git revision HEAD~1`, `folder .old`. */
  name: string;
  /** Every file under the arguments' roots, as canonical paths relative to the working directory. */
  list(args: readonly string[]): Promise<Set<string>>;
  /** How results name a file of this side. */
  sourceName(path: string): string;
  /** The texts of listed files, by path. */
  read(paths: readonly string[]): Promise<Map<string, string>>;
}

/** `git ls-tree` and `git cat-file` output past this is refused: it bounds the memory of a mistake. */
const GIT_MAX_BYTES = 256 * 1024 * 1024;

export function workingTree(): Tree {
  return {
    name: 'the working tree',
    sourceName: (path) => path,
    list: (args) => listFolder('', args),
    read: async (paths) => new Map(await Promise.all(paths.map(async (p) => [p, await readSourceText(p)] as const))),
  };
}

/** The same paths under another folder: `--old-root DIR`. */
export function folderTree(dir: string): Tree {
  return {
    name: `folder ${dir}`,
    sourceName: (path) => join(dir, path),
    list: (args) => listFolder(dir, relativeOnly(args, `--old-root ${dir}`)),
    read: async (paths) =>
      new Map(await Promise.all(paths.map(async (p) => [p, await readRaw(join(dir, p), join(dir, p))] as const))),
  };
}

/** The same paths at a git revision of the repository in the working directory: `--old-ref REF`. */
export function gitTree(ref: string, env: NodeJS.ProcessEnv): Tree {
  // Never let a revision reach git as an option.
  if (ref.startsWith('-')) throw new InputError(`--old-ref ${ref}: not a git revision`);
  const blobs = new Map<string, string>();
  return {
    name: `git revision ${ref}`,
    sourceName: (path) => `${ref}:${path}`,
    async list(args) {
      const roots = [...new Set(relativeOnly(args, `--old-ref ${ref}`).map((a) => rootOf(a).root))];
      const out = await git(['--literal-pathspecs', 'ls-tree', '-r', '-z', ref, '--', ...roots], env, ref);
      for (const entry of out.toString('utf8').split('\0')) {
        // `<mode> blob <object>\t<path>`; submodules (commit) and links are not manifests.
        const m = /^(100644|100755) blob ([0-9a-f]+)\t(.+)$/s.exec(entry);
        if (m) blobs.set(canonical(m[3] ?? ''), m[2] ?? '');
      }
      return new Set(blobs.keys());
    },
    async read(paths) {
      if (paths.length === 0) return new Map();
      const wanted = paths.map((p) => blobs.get(p) ?? '');
      const out = await git(['cat-file', '--batch'], env, ref, `${wanted.join('\n')}\n`);
      return new Map(batchTexts(out).map((text, i) => [paths[i] ?? '', text]));
    },
  };
}

function relativeOnly(args: readonly string[], side: string): string[] {
  const absolute = args.find((a) => isAbsolute(a));
  if (absolute !== undefined)
    throw new InputError(`${side} reads the same paths on the old side: give them relative, not ${absolute}`);
  return [...args];
}

/** The files under each argument's root below `base` ('' = here), hidden folders left out. */
async function listFolder(base: string, args: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const arg of args) {
    const { root, depth } = rootOf(arg);
    await walk(base, root, depth, out);
  }
  return out;
}

async function walk(base: string, path: string, depth: number, out: Set<string>): Promise<void> {
  const full = base === '' ? path : join(base, path);
  let info;
  try {
    info = await stat(full);
  } catch {
    return;
  }
  if (info.isFile()) {
    out.add(canonical(path));
    return;
  }
  if (!info.isDirectory() || depth <= 0) return;
  const entries = await readdir(full);
  for (const name of entries.sort()) {
    if (name.startsWith('.')) continue;
    await walk(base, path === '.' ? name : join(path, name), depth - 1, out);
  }
}

/** A file of the old side; an empty one is no error there (it held nothing before). */
async function readRaw(path: string, shown: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new InputError(`${shown}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
      file: shown,
    });
  }
}

/** `git cat-file --batch` output: `<object> blob <size>\n<content>\n`, one after another. */
function batchTexts(out: Buffer): string[] {
  const texts: string[] = [];
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(10, at);
    const header = out.subarray(at, eol).toString('utf8');
    const size = Number(/^[0-9a-f]+ blob (\d+)$/.exec(header)?.[1]);
    if (Number.isNaN(size)) throw new InputError(`git cat-file: unexpected answer ${JSON.stringify(header)}`);
    texts.push(out.subarray(eol + 1, eol + 1 + size).toString('utf8'));
    at = eol + 1 + size + 1;
  }
  return texts;
}

function git(args: readonly string[], env: NodeJS.ProcessEnv, ref: string, input?: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { env, windowsHide: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      size += c.length;
      if (size > GIT_MAX_BYTES) {
        child.kill();
        reject(new InputError(`--old-ref ${ref}: git answered more than ${GIT_MAX_BYTES / 1024 / 1024} MiB`));
      } else chunks.push(c);
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', (err: NodeJS.ErrnoException) =>
      reject(
        new InputError(
          err.code === 'ENOENT'
            ? `--old-ref ${ref}: git is not installed or not on PATH (--old-ref reads the revision with git)`
            : `--old-ref ${ref}: cannot run git: ${err.message}`,
        ),
      ),
    );
    child.on('close', (code) => {
      if (code === 0) return resolve(Buffer.concat(chunks));
      const why = (stderr.split('\n').find((l) => l.trim() !== '') ?? `exit code ${code}`).replace(/^fatal: /, '');
      // CI clones are shallow by default: the usual cause of a missing revision.
      const hint = /not a tree object|not a valid object name|invalid object name|unknown revision|bad revision/i.test(
        why,
      )
        ? ' (a shallow clone may lack it: fetch more history, see docs/ci.md)'
        : '';
      reject(new InputError(`--old-ref ${ref}: git ${args.find((a) => !a.startsWith('-'))} failed: ${why}${hint}`));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
  });
}
