// The image cannot be built here (no Docker engine, no registry), so this checks the Dockerfile's
// facts and runs its ENTRYPOINT and CMD the way the runtime stage would: from a production-only
// install of package.json, package-lock.json and dist/, read-only, as the image's non-root user.
// The `docker run` lines in the Dockerfile's header are run too, translated flag by flag (see
// `dockerRun`). What cannot be run here: the build itself and its base image, --read-only (the app
// directory is made unwritable instead), the container's own network namespace (-p: the server
// gets a free port, and the example's curl is pointed at it), and --rm/--name/-d bookkeeping.
// The install takes the dependencies from the npm registry: `npm run test:package` runs this, not
// npm test; the Dockerfile's facts are dockerfile.test.ts's.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, chown, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { freePort } from '../helpers/free-port.js';
import { ROOT } from '../helpers/helm.js';
import { cmd, entrypoint, last, runtimeStage } from './dockerfile.js';

const run = promisify(execFile);
const NPM_CI_TIMEOUT_MS = 90_000;

function appPath(app: string, p: string): string {
  return p.startsWith('/app/') ? join(app, p.slice('/app/'.length)) : p;
}

/**
 * `env -i` arguments that run `cmd` with the image's environment only. Besides fidelity, this drops
 * the NODE_OPTIONS tap adds to every child, whose exit hooks would handle SIGTERM for the server.
 */
function inContainerEnv(cmd: string, args: string[]): string[] {
  return [
    '-i',
    `PATH=${process.env.PATH ?? '/usr/bin:/bin'}`,
    'HOME=/nonexistent',
    'NODE_ENV=production',
    'GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072',
    cmd,
    ...args,
  ];
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

/** The example commands in the Dockerfile's header comment, in order, continuation-free. */
async function dockerfileExamples(): Promise<string[]> {
  const text = await readFile(join(ROOT, 'Dockerfile'), 'utf8');
  return text
    .split('\n')
    .filter((l) => /^# {3}\S/.test(l))
    .map((l) => l.slice(4).trim());
}

/** Shell words of one command, with $PWD and $(id -u)/$(id -g) expanded; '…' is literal, "…" expands. */
function shellWords(line: string, vars: { PWD: string; uid: number; gid: number }): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word = (word ?? '') + c;
      continue;
    }
    if (c === '$') {
      const rest = line.slice(i);
      const m = /^\$\(id -u\)|^\$\(id -g\)|^\$PWD/.exec(rest);
      if (!m) throw new Error(`unsupported expansion in example: ${rest.slice(0, 20)}`);
      word = (word ?? '') + (m[0] === '$PWD' ? vars.PWD : m[0] === '$(id -u)' ? String(vars.uid) : String(vars.gid));
      i += m[0].length - 1;
    } else if (c === '"' || c === "'") {
      if (quote === c) quote = undefined;
      else if (quote === undefined) quote = c;
      else word = (word ?? '') + c;
      word ??= '';
    } else if (/\s/.test(c) && quote === undefined) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

interface DockerRun {
  detach: boolean;
  name?: string;
  user?: string;
  workdir?: string;
  env: [string, string][];
  mounts: { host: string; container: string }[];
  ports: string[];
  image: string;
  args: string[];
}

/** `docker run` flags as the examples use them; an unknown flag fails the test instead of being ignored. */
function parseDockerRun(words: string[]): DockerRun {
  if (words[0] !== 'docker' || words[1] !== 'run') throw new Error(`not a docker run: ${words.join(' ')}`);
  const run: DockerRun = { detach: false, env: [], mounts: [], ports: [], image: '', args: [] };
  let i = 2;
  for (; i < words.length && words[i]!.startsWith('-'); i++) {
    const flag = words[i]!;
    const value = () => words[++i] ?? '';
    if (flag === '--rm' || flag === '--read-only') continue;
    else if (flag === '-d') run.detach = true;
    else if (flag === '--name') run.name = value();
    else if (flag === '--user') run.user = value();
    else if (flag === '-w') run.workdir = value();
    else if (flag === '-p') run.ports.push(value());
    else if (flag === '-e') {
      const [k = '', ...v] = value().split('=');
      run.env.push([k, v.join('=')]);
    } else if (flag === '-v') {
      const [host = '', container = ''] = value().split(':');
      run.mounts.push({ host, container });
    } else throw new Error(`docker run flag not emulated here: ${flag}`);
  }
  run.image = words[i] ?? '';
  run.args = words.slice(i + 1);
  return run;
}

interface Served {
  logged(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts a long-running command (serve) whose stdout is JSON log lines; stop() sends SIGTERM. */
async function startServe(t: Test, argv: string[], cwd: string, as?: { uid: number; gid: number }): Promise<Served> {
  const child = spawn(argv[0]!, argv.slice(1), { cwd, ...as });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const lines: Record<string, unknown>[] = [];
  const waiters: { match: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }[] =
    [];
  createInterface({ input: child.stdout }).on('line', (text) => {
    const line = JSON.parse(text) as Record<string, unknown>;
    lines.push(line);
    for (const w of waiters) if (w.match(line)) w.resolve(line);
  });
  return {
    logged: (match) => {
      const seen = lines.find(match);
      if (seen) return Promise.resolve(seen);
      return Promise.race([
        new Promise<Record<string, unknown>>((resolve) => waiters.push({ match, resolve })),
        exited.then(([code]) => Promise.reject(new Error(`exited ${code} before the expected log line: ${stderr}`))),
      ]);
    },
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const [code, signal] = await exited;
      clearTimeout(timer);
      return { code, signal };
    },
  };
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
  const lock = JSON.parse(await readFile(join(app, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  const devOnly = Object.entries(lock.packages).filter(([path, p]) => path && p.dev === true);
  t.ok(devOnly.length > 0, `${devOnly.length} dev-only packages in the lockfile`);
  t.same(
    devOnly.map(([path]) => path).filter((path) => existsSync(join(app, path))),
    [],
    'none of them in the runtime install',
  );
  await makeReadOnly(app);
  const user = await imageUser();
  const [node = 'node', ...entryArgs] = (await entrypoint()).map((a) => appPath(app, a));
  const cmdArgs = [...entryArgs, ...(await cmd())];

  const help = await run('env', inContainerEnv(node, [...cmdArgs, '--help']), { cwd: app, timeout: 15_000, ...user });
  t.match(help.stdout, /Usage: version-policy serve/, 'ENTRYPOINT and CMD start the CLI on `serve`');
  const top = await run('env', inContainerEnv(node, [...entryArgs, '--help']), { cwd: app, timeout: 15_000, ...user });
  t.match(
    top.stdout,
    /serve[\s\S]*check[\s\S]*explain[\s\S]*remove-webhooks/,
    'every command loads from the production install',
  );
  const hook = await run('env', inContainerEnv(node, [...entryArgs, 'remove-webhooks', '--help']), {
    cwd: app,
    timeout: 15_000,
    ...user,
  });
  t.match(
    hook.stdout,
    /--validating <name>[\s\S]*--mutating <name>/,
    "the uninstall hook's command (the chart passes it as args, replacing CMD)",
  );

  const skip = /--config/.test(help.stdout) ? false : 'serve does not take --config in this tree yet';
  await t.test(
    'serve answers /healthz with certs/generate.sh certificates and exits on SIGTERM as PID 1',
    { skip },
    async (t) => {
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
      const server = ['env', ...inContainerEnv(node, argv)];
      const child = pid1
        ? spawn(
            'unshare',
            [
              '--pid',
              '--fork',
              '--kill-child',
              'setpriv',
              `--reuid=${user.uid}`,
              `--regid=${user.gid}`,
              '--clear-groups',
              ...server,
            ],
            { cwd: app },
          )
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
      for (let deadline = Date.now() + 15_000; Date.now() < deadline && child.exitCode === null;) {
        status = await healthz(port, ca).catch(() => 0);
        if (status === 200) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      t.equal(
        status,
        200,
        `serve answers /healthz over TLS with the generated certificate${status === 200 ? '' : `; stderr: ${stderr}`}`,
      );

      const target = pid1 ? await childOf(child.pid!) : child.pid;
      t.ok(target, 'found the server process');
      if (pid1) t.comment(`server is PID 1 of its namespace (host PID ${target})`);
      process.kill(target!, 'SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const [code, signal] = await exited;
      clearTimeout(timer);
      t.equal(
        signal,
        null,
        'exits on SIGTERM by itself (as PID 1, node drops a signal it has no handler for), not killed after 10 s',
      );
      t.equal(code, 0, `and exits 0${code === 0 ? '' : `; stderr: ${stderr}`}`);
    },
  );

  await t.test(
    'serve without certificate files, in the read-only app directory, puts its dev certificate under the OS temp dir',
    async (t) => {
      const port = await freePort();
      const configFile = join(base, 'dev-config.yaml');
      await writeFile(
        configFile,
        `server: { host: 127.0.0.1, port: ${port}, shutdownGraceSeconds: 1 }\nlogLevel: info\n`,
      );
      await chmod(configFile, 0o444);
      const state = join(base, 'demo-state.yaml');
      await cp(join(ROOT, 'test/fixtures/demo-state.yaml'), state);
      await chmod(state, 0o444);
      const served = await startServe(
        t,
        ['env', ...inContainerEnv(node, [...cmdArgs, '--config', configFile, '--state', state])],
        app,
        user,
      );
      const listening = await served.logged((l) => typeof l.caFile === 'string');
      const caFile = String(listening.caFile);
      t.ok(caFile.startsWith(tmpdir()), `the CA was written to ${caFile}, not the unwritable ${app}`);
      t.notOk(existsSync(join(app, '.dev-certs')));
      t.equal(await healthz(port, await readFile(caFile, 'utf8')), 200, 'and it serves with that certificate');
      t.same(await served.stop(), { code: 0, signal: null });
      await rm(dirname(caFile), { recursive: true, force: true });
    },
  );

  await t.test(
    "the Dockerfile's docker run examples: serve the demo, ask it with curl, stop it; check a change",
    async (t) => {
      // $PWD of the examples: a copy of what they read from the repository, writable like a checkout.
      const pwd = join(base, 'checkout');
      await cp(join(ROOT, 'test/fixtures'), join(pwd, 'test/fixtures'), { recursive: true });
      await cp(join(ROOT, 'docs/operations/examples'), join(pwd, 'docs/operations/examples'), { recursive: true });
      await run('chmod', ['-R', 'a+rX', pwd]);
      // --user "$(id -u):$(id -g)": an operator's own, non-root ids; the image's user stands in for them.
      const ids = user ?? { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
      const vars = { PWD: pwd, uid: ids.uid, gid: ids.gid };
      const port = await freePort();
      let served: Served | undefined;
      for (const line of await dockerfileExamples()) {
        for (const command of line.split(' && ')) {
          if (command.startsWith('docker build ')) {
            // No engine to build with; what can be checked is that it passes the label arguments the runtime stage declares.
            const passed = [...command.matchAll(/--build-arg (\w+)=/g)].map((m) => m[1]);
            const declared = (await runtimeStage()).instructions
              .filter((i) => i.op === 'ARG')
              .map((i) => i.args.split('=')[0]);
            t.same(passed.sort(), declared.sort(), 'docker build passes every label argument');
            continue;
          }
          const words = shellWords(command, vars);
          if (words[0] === 'mkdir') {
            await run(words[0], words.slice(1), { cwd: pwd });
            if (user) await chown(join(pwd, words.at(-1)!), user.uid, user.gid);
          } else if (words[0] === 'docker' && words[1] === 'run') {
            const d = parseDockerRun(words);
            t.equal(d.image, 'version-policy', 'the image the build line tags');
            const toHost = (p: string) => {
              const m = d.mounts
                .filter((x) => p === x.container || p.startsWith(`${x.container}/`))
                .sort((a, b) => b.container.length - a.container.length)[0];
              return m ? m.host + p.slice(m.container.length) : appPath(app, p);
            };
            // -p: the container port is published; here the server listens on a free port instead.
            for (const mapping of d.ports) {
              const containerPort = mapping.split(':').at(-1)!;
              for (const m of d.mounts) {
                const config = join(m.host, 'docker-config.yaml');
                if (existsSync(config))
                  await writeFile(
                    config,
                    (await readFile(config, 'utf8')).replace(`port: ${containerPort}`, `port: ${port}`),
                  );
              }
            }
            const env = d.env.map(([k, v]) => `${k}=${v.startsWith('/') ? toHost(v) : v}`);
            const args = [...entryArgs, ...(d.args.length > 0 ? d.args : await cmd())].map((a) =>
              a.startsWith('/') ? toHost(a) : a,
            );
            const [uid, gid] = (d.user ?? last(await runtimeStage(), 'USER') ?? '').split(':').map(Number);
            const as = process.getuid?.() === 0 ? { uid: uid!, gid: gid! } : undefined;
            const argv = [
              'env',
              ...inContainerEnv(node, args).slice(0, 5),
              ...env,
              ...inContainerEnv(node, args).slice(5),
            ];
            const cwd = d.workdir ? toHost(d.workdir) : app;
            if (d.detach) {
              served = await startServe(t, argv, cwd, as);
              await served.logged((l) => l.msg === 'webhook listening');
            } else {
              const res = await run(argv[0]!, argv.slice(1), { cwd, timeout: 30_000, ...as }).then(
                (r) => ({ code: 0, stdout: r.stdout }),
                (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
              );
              t.equal(res.code, 1, `check exits 1: the example change is denied`);
              t.match(res.stdout, /^DENIED CloudProfile aws \(UPDATE\)[^\n]*\n {2}\[IN-USE\]/, 'and says why');
            }
          } else if (words[0] === 'curl') {
            t.ok(served, 'curl runs against the server the example started');
            const res = await run(
              'curl',
              [
                '--silent',
                '--show-error',
                ...words.slice(1).map((w) => w.replace('localhost:9443', `localhost:${port}`)),
              ],
              { cwd: pwd, timeout: 15_000 },
            );
            const review = JSON.parse(res.stdout) as {
              response: { uid: string; allowed: boolean; status: { message: string } };
            };
            t.equal(review.response.uid, '5f0e6c1e-3c4b-4f0e-9b1a-6f1c2a7d9e01');
            t.equal(review.response.allowed, false, 'the demo review is denied');
            t.match(review.response.status.message, /IN-USE/);
          } else if (words[0] === 'docker' && words[1] === 'stop') {
            t.ok(served, 'docker stop sends SIGTERM to the served process');
            t.same(await served!.stop(), { code: 0, signal: null }, 'which exits 0');
            served = undefined;
          } else {
            t.fail(`an example command this test does not run: ${command}`);
          }
        }
      }
      t.notOk(served, 'every server an example started was stopped by an example');
      t.ok(existsSync(join(pwd, 'dev-certs/ca.crt')), 'the dev CA landed in ./dev-certs, as the example says');
    },
  );
});
