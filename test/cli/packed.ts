// `npm pack` of this checkout, and npm run as a CI job would run it: for package.test.ts (what the
// tarball holds) and package-install.e2e.ts (the tarball installed from the registry and run).
import { execFile } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLEAN_ENV, tempDir, untracked } from '../helpers/run-cli.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Node 22 first on PATH: npm and npx start `node` from there.
export const ENV = {
  ...CLEAN_ENV,
  PATH: `${dirname(process.execPath)}:${CLEAN_ENV.PATH ?? ''}`,
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
};

export function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = ENV,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(...untracked(command, args), { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr }),
    );
  });
}

export interface Packed {
  code: number;
  stderr: string;
  /** The directory the tarball is in. */
  dir: string;
  filename: string;
  files: string[];
}

/** The tarball of dist/ as it is (built before tap): --ignore-scripts keeps prepack from rebuilding it under other tests' feet. */
export async function pack(t: { teardown(fn: () => Promise<void>): void }): Promise<Packed> {
  const dir = await tempDir(t);
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], ROOT);
  const manifest = (
    JSON.parse(packed.stdout || '[]') as Array<{ filename: string; files: Array<{ path: string }> }>
  )[0];
  return {
    code: packed.code,
    stderr: packed.stderr,
    dir,
    filename: manifest?.filename ?? 'missing.tgz',
    files: manifest?.files.map((f) => f.path) ?? [],
  };
}
