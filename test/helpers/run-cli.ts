// Runs the built CLI (`npm test` builds dist/ before tap) as a child process, the way a CI job
// would, and writes its input files to a temporary directory.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';

export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment a CI job would give the CLI: without tap's loaders, which triple its start-up time. */
export const CLEAN_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS' && !/^_?TAP/.test(k)));

export function runCli(args: readonly string[], cwd?: string): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd, maxBuffer: 64 * 1024 * 1024, env: CLEAN_ENV }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A fresh directory under the OS temp dir; removed when `t` ends. */
export async function tempDir(t: { teardown(fn: () => Promise<void>): void }, prefix = 'version-policy-'): Promise<string> {
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
      await writeFile(path, text);
      return path;
    }),
  );
}
