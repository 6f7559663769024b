// The image cannot be built here (no registry), so this checks the Dockerfile's facts and runs its
// ENTRYPOINT the way the runtime stage would: from a production-only install of package.json,
// package-lock.json and dist/, read-only, as the image's non-root user.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, chown, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import https from 'node:https';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { ROOT } from '../helpers/helm.js';

const run = promisify(execFile);
const NPM_CI_TIMEOUT_MS = 90_000;

interface Stage {
  from: string;
  name?: string;
  instructions: { op: string; args: string }[];
}

/** The Dockerfile as stages of (instruction, arguments), with ARG defaults substituted into FROM. */
function parseDockerfile(text: string): Stage[] {
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  for (const line of lines.map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))) {
    const [, op = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const upper = op.toUpperCase();
    if (upper === 'ARG' && stages.length === 0) {
      const [k, v = ''] = rest.split('=');
      args.set(k!, v);
    } else if (upper === 'FROM') {
      const [image = '', , name] = rest.replace(/\$\{(\w+)\}/g, (_m, k: string) => args.get(k) ?? '').split(/\s+/);
      stages.push({ from: image, name, instructions: [] });
    } else {
      stages.at(-1)?.instructions.push({ op: upper, args: rest });
    }
  }
  return stages;
}

const dockerfile = readFile(join(ROOT, 'Dockerfile'), 'utf8').then(parseDockerfile);

async function runtimeStage(): Promise<Stage> {
  const stages = await dockerfile;
  return stages.at(-1)!;
}

function last(stage: Stage, op: string): string | undefined {
  return stage.instructions.filter((i) => i.op === op).at(-1)?.args;
}

async function entrypoint(): Promise<string[]> {
  return JSON.parse(last(await runtimeStage(), 'ENTRYPOINT') ?? '[]') as string[];
}

t.test('the Dockerfile is multi-stage on a slim official Node 20 base', async (t) => {
  const stages = await dockerfile;
  t.ok(stages.length >= 2, `${stages.length} stages`);
  for (const s of stages) t.match(s.from, /^node:20(\.[\d.]+)?-[a-z]+-slim(@sha256:[a-f0-9]{64})?$/, `${s.name ?? 'runtime'} is FROM ${s.from}`);
  const build = stages.find((s) => s.instructions.some((i) => i.op === 'RUN' && /npm run build/.test(i.args)));
  t.ok(build?.instructions.some((i) => i.op === 'RUN' && /npm ci(?!.*--omit=dev)/.test(i.args)), 'the build stage installs dev dependencies');
  t.ok(stages.some((s) => s.instructions.some((i) => i.op === 'RUN' && /npm ci .*--omit=dev/.test(i.args))), 'a stage installs production dependencies only');
});

t.test('the runtime stage has production dependencies and compiled output only, as a numeric non-root user', async (t) => {
  const stage = await runtimeStage();
  t.notOk(stage.instructions.some((i) => i.op === 'RUN'), 'nothing is installed or built in the runtime stage');
  const copies = stage.instructions.filter((i) => i.op === 'COPY').map((i) => i.args.replace(/\s+/g, ' '));
  t.same(copies.sort(), ['--from=build /src/dist ./dist', '--from=deps /app/node_modules ./node_modules', 'package.json ./'].sort());
  const user = last(stage, 'USER') ?? '';
  t.match(user, /^\d+(:\d+)?$/, 'USER is numeric, so the kubelet can verify runAsNonRoot');
  t.not(Number(user.split(':')[0]), 0, 'and not root');
  const ep = last(stage, 'ENTRYPOINT') ?? '';
  t.doesNotThrow(() => void JSON.parse(ep), 'ENTRYPOINT is exec form: node is PID 1 and gets SIGTERM itself');
  t.same((await entrypoint()).slice(-1), ['serve']);
});

t.test('.dockerignore keeps dependencies, git and keys out of the build context', async (t) => {
  const ignored = (await readFile(join(ROOT, '.dockerignore'), 'utf8')).split('\n').map((l) => l.trim());
  for (const entry of ['node_modules/', 'dist/', '.git/', '*.key', 'certs/']) t.ok(ignored.includes(entry), entry);
});

function appPath(app: string, p: string): string {
  return p.startsWith('/app/') ? join(app, p.slice('/app/'.length)) : p;
}

/**
 * `env -i` arguments that run `cmd` with the image's environment only. Besides fidelity, this drops
 * the NODE_OPTIONS tap adds to every child, whose exit hooks would handle SIGTERM for the server.
 */
function inContainerEnv(cmd: string, args: string[]): string[] {
  return ['-i', `PATH=${process.env.PATH ?? '/usr/bin:/bin'}`, 'HOME=/nonexistent', 'NODE_ENV=production', cmd, ...args];
}

async function makeReadOnly(dir: string): Promise<void> {
  await run('chmod', ['-R', 'a-w', dir]);
}

/** Runs the image's user (from USER) when we are root; otherwise ourselves. */
async function imageUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const [uid = '0', gid = uid] = (last(await runtimeStage(), 'USER') ?? '0').split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  return port;
}

function healthz(port: number, ca: string): Promise<number> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port, path: '/healthz', ca, servername: 'localhost', timeout: 2000 }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject)
      .on('timeout', function (this: { destroy(e: Error): void }) {
        this.destroy(new Error('timeout'));
      });
  });
}

/** The host PID of the process that `unshare --fork` started: PID 1 of its namespace. */
async function childOf(pid: number): Promise<number | undefined> {
  for (let i = 0; i < 50; i++) {
    const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
    const first = children.trim().split(/\s+/)[0];
    if (first) return Number(first);
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

t.test('the ENTRYPOINT runs from a production-only install, read-only, as the image user', async (t) => {
  const base = await mkdtemp(join(tmpdir(), 'vp-image-'));
  t.teardown(async () => {
    await run('chmod', ['-R', 'u+w', base]).catch(() => undefined);
    await rm(base, { recursive: true, force: true });
  });
  await chmod(base, 0o755);
  const app = join(base, 'app');
  for (const f of ['package.json', 'package-lock.json']) await cp(join(ROOT, f), join(app, f));
  await cp(join(ROOT, 'dist'), join(app, 'dist'), { recursive: true });

  // Outside the repository, so nothing resolves from the dev install; bounded, so a missing
  // registry fails the test instead of hanging it.
  const started = Date.now();
  try {
    await run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: app,
      timeout: NPM_CI_TIMEOUT_MS,
      killSignal: 'SIGKILL',
      env: { ...process.env, NODE_ENV: 'production' },
    });
  } catch (err) {
    const e = err as { killed?: boolean; stderr?: string; message: string };
    throw new Error(
      e.killed
        ? `npm ci --omit=dev did not finish in ${NPM_CI_TIMEOUT_MS / 1000}s: is the npm registry reachable?`
        : `npm ci --omit=dev failed: ${e.stderr ?? e.message}`,
    );
  }
  t.comment(`npm ci --omit=dev: ${Date.now() - started} ms`);

  const pkg = JSON.parse(await readFile(join(app, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  for (const dep of Object.keys(pkg.dependencies)) t.ok(existsSync(join(app, 'node_modules', dep)), `${dep} installed`);
  // The lockfile marks what only the dev dependencies need (typescript, tap, helm, ...).
  const lock = JSON.parse(await readFile(join(app, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  const devOnly = Object.entries(lock.packages).filter(([path, p]) => path && p.dev === true);
  t.ok(devOnly.length > 0, `${devOnly.length} dev-only packages in the lockfile`);
  t.same(
    devOnly.map(([path]) => path).filter((path) => existsSync(join(app, path))),
    [],
    'none of them in the runtime install',
  );
  await makeReadOnly(app);
  const user = await imageUser();
  const [cmd = 'node', ...cmdArgs] = (await entrypoint()).map((a) => appPath(app, a));

  const help = await run('env', inContainerEnv(cmd, [...cmdArgs, '--help']), { cwd: app, timeout: 15_000, ...user });
  t.match(help.stdout, /Usage: version-policy serve/, 'the ENTRYPOINT starts the CLI on `serve`');
  const top = await run('env', inContainerEnv(cmd, [cmdArgs[0]!, '--help']), { cwd: app, timeout: 15_000, ...user });
  t.match(top.stdout, /serve[\s\S]*check[\s\S]*explain/, 'every command loads from the production install');

  const skip = /--config/.test(help.stdout) ? false : 'serve does not take --config in this tree yet';
  await t.test('serve answers /healthz with certs/generate.sh certificates and exits on SIGTERM as PID 1', { skip }, async (t) => {
    // Certificates from certs/generate.sh, readable by the image user the way fsGroup makes them in the pod.
    const certs = join(base, 'certs');
    await run(join(ROOT, 'certs/generate.sh'), ['-o', certs], { timeout: 30_000 });
    if (user) for (const f of ['', '/tls.crt', '/tls.key', '/ca.crt']) await chown(certs + f, user.uid, user.gid);
    const port = await freePort();
    const configFile = join(base, 'config.yaml');
    await writeFile(
      configFile,
      [
        'server:',
        '  host: 127.0.0.1',
        `  port: ${port}`,
        '  probePort: 0',
        '  shutdownGraceSeconds: 1',
        `  tls: { certFile: ${certs}/tls.crt, keyFile: ${certs}/tls.key }`,
        'cluster: { enabled: false }',
        'logLevel: warn',
        '',
      ].join('\n'),
    );
    await chmod(configFile, 0o444);

    // As root, in a new PID namespace: node is PID 1 there, as in the container, where a signal
    // without a handler is dropped.
    const pid1 = user !== undefined && existsSync('/usr/bin/unshare') && existsSync('/usr/bin/setpriv');
    // No cluster here and no --state: serve refuses to start unless told to run without state.
    const argv = [...cmdArgs, '--config', configFile, '--without-cluster-state'];
    const server = ['env', ...inContainerEnv(cmd, argv)];
    const child = pid1
      ? spawn('unshare', ['--pid', '--fork', '--kill-child', 'setpriv', `--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', ...server], { cwd: app })
      : spawn(server[0]!, server.slice(1), { cwd: app, ...user });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.resume();
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    t.teardown(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });

    const ca = await readFile(join(certs, 'ca.crt'), 'utf8');
    let status = 0;
    for (let deadline = Date.now() + 15_000; Date.now() < deadline && child.exitCode === null; ) {
      status = await healthz(port, ca).catch(() => 0);
      if (status === 200) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    t.equal(status, 200, `serve answers /healthz over TLS with the generated certificate${status === 200 ? '' : `; stderr: ${stderr}`}`);

    const target = pid1 ? await childOf(child.pid!) : child.pid;
    t.ok(target, 'found the server process');
    if (pid1) t.comment(`server is PID 1 of its namespace (host PID ${target})`);
    process.kill(target!, 'SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const [code, signal] = await exited;
    clearTimeout(timer);
    t.equal(signal, null, 'exits on SIGTERM by itself (as PID 1, node drops a signal it has no handler for), not killed after 10 s');
    t.equal(code, 0, `and exits 0${code === 0 ? '' : `; stderr: ${stderr}`}`);
  });
});
