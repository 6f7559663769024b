// Helpers of the `check` tests: the CLI with standard input and an environment of the test's
// choosing, in this process (`runCheckCli`) or as the built CLI in a child process (`spawnCheckCli`,
// for what only a process shows), and runs a few at a time.
import { spawn } from 'node:child_process';
import type { CheckResult, SkippedResult, Summary } from '../../src/cli/check-output.js';
import { CLEAN_ENV, CLI, type CliRun, inProcess, untracked } from '../helpers/run-cli.js';

export interface RunOptions {
  cwd?: string;
  /** Written to the CLI's standard input, then closed; without it stdin is empty and closed. */
  input?: string;
  env?: NodeJS.ProcessEnv;
}

/** `version-policy check ARGS…`'s main() in this process. */
export function runCheckCli(args: readonly string[], opts: RunOptions = {}): Promise<CliRun> {
  return inProcess(args, opts);
}

/** The built CLI as a child process. */
export function spawnCheckCli(args: readonly string[], opts: RunOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(...untracked(process.execPath, [CLI, ...args]), {
      cwd: opts.cwd,
      env: opts.env ?? CLEAN_ENV,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code: code ?? -1,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
    child.stdin.end(opts.input ?? '');
  });
}

/** Runs `work` over `items`, at most `width` at a time, keeping the order of the answers. */
export async function fewAtATime<T, R>(
  items: readonly T[],
  work: (item: T, index: number) => Promise<R>,
  width = 3,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await work(items[i] as T, i);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}

export interface JsonReport {
  results: CheckResult[];
  skipped: SkippedResult[];
  summary: Summary;
  error?: { message: string; file?: string; line?: number };
}

export function parseReport(run: CliRun): JsonReport {
  try {
    return JSON.parse(run.stdout) as JsonReport;
  } catch {
    throw new Error(`not JSON (exit ${run.code}): ${run.stdout}\n${run.stderr}`);
  }
}

/** The verdict lines of text output, without their place: `DENIED Shoot ns/name (UPDATE)`. */
export const verdicts = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => /^(ALLOWED|DENIED) /.test(l))
    .map((l) => l.replace(/ at \S+:\d+ \(document \d+\)$/, ''));

/** `OPERATION Kind ns/name`, `-` for no namespace. */
export const operations = (results: readonly CheckResult[]) =>
  results.map((r) => `${r.operation} ${r.kind} ${r.namespace ?? '-'}/${r.name}`);

export const rulesOf = (r: CheckResult | undefined) => [...new Set(r?.violations.map((v) => v.rule))];
