// Child processes of the end-to-end suites (etcd, kube-apiserver, the webhook), with one promise:
// none outlives the suite. Each is killed when the suite stops it, when the test process exits
// (a failure, an exception) or is interrupted, and test/e2e/run.sh kills whatever pid is still
// written in E2E_PID_DIR when tap itself was killed.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const running = new Set<ChildProcess>();
/** Grandchildren a child reported (gardener-envtest's etcd and kube-apiserver): killed with it. */
const adopted = new Set<number>();

function killAll(): void {
  for (const child of running) child.kill('SIGKILL');
  for (const pid of adopted) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    killAll();
    process.kill(process.pid, signal);
  });
}

export interface Started {
  name: string;
  child: ChildProcess;
  /** The file its stdout and stderr go to. */
  logFile: string;
  /** Resolves with the exit code (or the signal's name) once it has exited. */
  exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
  stop(graceMs?: number): Promise<number | string>;
}

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Where its output goes (default: <logDir>/<name>.log). */
  logDir: string;
}

export function startProcess(name: string, command: string, args: readonly string[], opts: StartOptions): Started {
  const logFile = join(opts.logDir, `${name}.log`);
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(command, args, {
    env: opts.env ?? process.env,
    cwd: opts.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  running.add(child);
  const pidDir = process.env.E2E_PID_DIR;
  const pidFile = pidDir && child.pid !== undefined ? join(pidDir, String(child.pid)) : undefined;
  if (pidFile) void writeFile(pidFile, `${name}\n`).catch(() => undefined);
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      if (pidFile) void rm(pidFile, { force: true });
      resolve(code ?? signal ?? 'unknown');
    });
    child.once('error', (err) => {
      running.delete(child);
      log.write(`spawn failed: ${err.message}\n`);
      resolve(`spawn failed: ${err.message}`);
    });
  });
  void exited.then(() => log.end());
  return {
    name,
    child,
    logFile,
    exited,
    async stop(graceMs = 10_000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        const result = await exited;
        clearTimeout(timer);
        return result;
      }
      return exited;
    },
  };
}

/**
 * Kills `pid` (a process a child started, in a process group of its own) with the suite's children
 * when the suite dies before stopping them, and lists it in E2E_PID_DIR for test/e2e/run.sh. Call
 * the function it returns once the child has stopped it.
 */
export function adoptPid(name: string, pid: number): () => void {
  adopted.add(pid);
  const pidDir = process.env.E2E_PID_DIR;
  const pidFile = pidDir ? join(pidDir, String(pid)) : undefined;
  if (pidFile) void writeFile(pidFile, `${name}\n`).catch(() => undefined);
  return () => {
    adopted.delete(pid);
    if (pidFile) void rm(pidFile, { force: true });
  };
}
