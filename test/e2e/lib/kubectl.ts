// The real kubectl (built with the control plane), and helm for rendering the chart, as child processes.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { binDir } from './control-plane.js';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function run(
  command: string,
  args: readonly string[],
  opts: { stdin?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      args,
      { timeout: opts.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024, env: opts.env ?? process.env },
      (err, stdout, stderr) => {
        if (err !== null && typeof err.code !== 'number')
          reject(new Error(`${command} ${args.join(' ')}: did not run or timed out: ${err.message}\n${stderr}`));
        else resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
      },
    );
    child.stdin?.end(opts.stdin);
  });
}

export class Kubectl {
  constructor(
    readonly kubeconfig: string,
    /** Extra flags on every call (e.g. --as for impersonation). */
    readonly flags: readonly string[] = [],
  ) {}

  /** The same kubectl, acting as `user` (impersonated by the admin). */
  as(user: string): Kubectl {
    return new Kubectl(this.kubeconfig, [...this.flags, `--as=${user}`]);
  }

  run(args: readonly string[], stdin?: string, timeoutMs?: number): Promise<Run> {
    return run(join(binDir(), 'kubectl'), [`--kubeconfig=${this.kubeconfig}`, ...this.flags, ...args], {
      stdin,
      timeoutMs,
    });
  }

  /** Runs and throws unless kubectl exits 0. */
  async ok(args: readonly string[], stdin?: string): Promise<string> {
    const res = await this.run(args, stdin);
    if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
    return res.stdout;
  }

  /** `kubectl apply -f -` of the objects given; returns the run (not thrown on failure). */
  apply(objects: readonly unknown[], extra: readonly string[] = []): Promise<Run> {
    return this.run(['apply', '-f', '-', ...extra], objects.map((o) => stringify(o)).join('---\n'));
  }

  /** `kubectl create -f -`. */
  create(objects: readonly unknown[], extra: readonly string[] = []): Promise<Run> {
    return this.run(['create', '-f', '-', ...extra], objects.map((o) => stringify(o)).join('---\n'));
  }

  /** The stored object as JSON, or undefined when there is none. */
  async get<T = Record<string, unknown>>(resource: string, name: string, namespace?: string): Promise<T | undefined> {
    const res = await this.run(['get', resource, name, '-o', 'json', ...(namespace ? ['-n', namespace] : [])]);
    if (res.code !== 0) {
      if (/NotFound|not found/.test(res.stderr)) return undefined;
      throw new Error(`kubectl get ${resource} ${name}: ${res.stderr}`);
    }
    return JSON.parse(res.stdout) as T;
  }
}

/** `helm template` with the Go-built helm 4 (helm3 with `major: 3`); returns the YAML stream. */
export async function helmTemplate(
  chart: string,
  release: string,
  namespace: string,
  args: readonly string[] = [],
  major: 3 | 4 = 4,
): Promise<string> {
  const res = await run(join(binDir(), `helm${major}`), [
    'template',
    release,
    chart,
    '--namespace',
    namespace,
    ...args,
  ]);
  if (res.code !== 0) throw new Error(`helm${major} template: ${res.stderr}`);
  return res.stdout;
}
