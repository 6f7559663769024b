// Runs the CLI: `runCli` (`inProcess`) calls its main() in this process with streams of its own
// (most tests: a node start per run made the CLI tests most of the suite's time); `spawnCli` starts
// the built CLI (`npm test` builds dist/ before tap) as a child process, the way a CI job would, for
// what only a process shows (exit status, the bin, pipes). Also writes input files to a temporary
// directory.
import { execFile } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';

export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment a CI job would give the CLI: without tap's loaders, which triple its start-up time. */
export const CLEAN_ENV = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS' && !/^_?TAP/.test(k)),
);

/**
 * `command args` to start without tap's loader. tap's processinfo puts its `--import` into every
 * child's NODE_OPTIONS whatever env it is given, and records each module the child loads: a CLI
 * start cost 4x its CPU (6 s against 1.3 s). `env -u` drops it; env execs the command, same pid.
 */
export function untracked(command: string, args: readonly string[]): [string, string[]] {
  return ['env', ['-u', 'NODE_OPTIONS', command, ...args]];
}

/** `version-policy ARGS…`'s main() in this process, in `cwd`. */
export function runCli(args: readonly string[], cwd?: string): Promise<CliRun> {
  return inProcess(args, cwd === undefined ? {} : { cwd });
}

/** The built CLI as a child process. */
export function spawnCli(args: readonly string[], cwd?: string): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      ...untracked(process.execPath, [CLI, ...args]),
      { cwd, maxBuffer: 64 * 1024 * 1024, env: CLEAN_ENV },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export interface InProcessOptions {
  /** The directory relative paths (and `git show`) resolve against; default this process's. */
  cwd?: string;
  /** Standard input, then its end; without it stdin is empty and closed. */
  input?: string;
  env?: NodeJS.ProcessEnv;
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * The CLI's main() on `args`, as `runCli` would run it, with its own stdin, stdout, stderr and
 * environment. Runs one at a time: a `cwd` is the process's working directory for the run, as a CI job's
 * directory is the CLI's (relative paths, `git show`).
 */
export function inProcess(args: readonly string[], opts: InProcessOptions = {}): Promise<CliRun> {
  const run = queue.then(() => runInProcess(args, opts));
  queue = run.catch(() => undefined);
  return run;
}

async function runInProcess(args: readonly string[], opts: InProcessOptions): Promise<CliRun> {
  // Imported on first use: the e2e suites take CLEAN_ENV from here and never run the CLI in-process.
  const { main } = await import('../../src/cli/main.js');
  const stdout = collector();
  const stderr = collector();
  const home = process.cwd();
  if (opts.cwd) process.chdir(opts.cwd);
  try {
    const code = await main([...args], {
      stdin: Readable.from(opts.input ? [Buffer.from(opts.input)] : []),
      stdout: stdout.stream,
      stderr: stderr.stream,
      env: opts.env ?? CLEAN_ENV,
    });
    return { code, stdout: stdout.text(), stderr: stderr.text() };
  } finally {
    process.chdir(home);
  }
}

function collector(): { stream: Writable; text(): string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/**
 * A documented `version-policy WORDS [> FILE]` with no quoting, expansion or glob: the shell would
 * split it on blanks alone, so main() in-process runs it as bash would run the built CLI.
 */
export const plainCommand = (text: string) =>
  /^version-policy ([^'"\\$`*?[\]{}~|;&<>()]+?)(?: > ([^\s'"\\$`*?<>|;&]+))?$/.exec(text);

/** A `plainCommand` through main() in `cwd`, its `> FILE` written there. */
export async function runPlainCommand(text: string, cwd: string): Promise<CliRun> {
  const [, words = '', out] = plainCommand(text) ?? [];
  const run = await inProcess(words.trim().split(/\s+/), { cwd });
  if (out === undefined) return run;
  await writeFile(join(cwd, out), run.stdout);
  return { ...run, stdout: '' };
}

/** A fresh directory under the OS temp dir; removed when `t` ends. */
export async function tempDir(
  t: { teardown(fn: () => Promise<void>): void },
  prefix = 'version-policy-',
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Objects as one multi-document YAML stream. */
export function yamlDocs(...objects: readonly unknown[]): string {
  return objects.map((o) => stringify(o)).join('---\n');
}

/** Writes `files` (name → text) into `dir`; returns their paths in the same order. */
export async function writeFiles(dir: string, files: Record<string, string>): Promise<string[]> {
  return Promise.all(
    Object.entries(files).map(async ([name, text]) => {
      const path = join(dir, name);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text);
      return path;
    }),
  );
}
