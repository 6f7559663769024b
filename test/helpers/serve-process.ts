// `version-policy serve` (or any long-running command) as a child process that a test owns: its exit
// awaited, its stderr kept for failure messages, its JSON log lines handed over as they come, and a
// SIGKILL at teardown if it is still running, so that no test leaves a server behind.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Test } from 'tap';
import { CLEAN_ENV, untracked } from './run-cli.js';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildServer {
  child: ChildProcessByStdio<null, Readable | null, Readable>;
  /** Settles when the process has exited, with its code or signal. */
  exit: Promise<Exit>;
  /** What it wrote to stderr so far. */
  stderr: () => string;
}

export interface ChildServerOptions {
  cwd: string;
  /** Default: CLEAN_ENV, the environment a CI job would give it. */
  env?: NodeJS.ProcessEnv;
  /**
   * Each stdout line, parsed as JSON (the log). 'unread': stdout is a pipe nobody reads, so that
   * the kernel's buffer fills and writes block. 'ignore': no stdout at all.
   */
  stdout: ((line: Record<string, unknown>) => void) | 'unread' | 'ignore';
}

/** Starts `node args…` without tap's loader (run-cli.ts `untracked`). */
export function spawnServer(t: Test, args: readonly string[], opts: ChildServerOptions): ChildServer {
  const out = opts.stdout === 'ignore' ? 'ignore' : 'pipe';
  const child = spawn(...untracked(process.execPath, args), {
    cwd: opts.cwd,
    env: opts.env ?? CLEAN_ENV,
    stdio: ['ignore', out, 'pipe'],
  }) as ChildServer['child'];
  const exit = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exit;
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const onLine = opts.stdout;
  if (typeof onLine === 'function' && child.stdout)
    createInterface({ input: child.stdout }).on('line', (line) => onLine(JSON.parse(line) as Record<string, unknown>));
  return { child, exit, stderr: () => stderr };
}
