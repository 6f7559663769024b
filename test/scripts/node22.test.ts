// The README's commands on a machine whose Node is older than 22: `npm ci` installs Node 22 for
// the npm scripts (scripts/node22, on linux-x64), so `npm start` runs the webhook on it, and the
// `prepare` guard that `npm ci` runs stops an old Node with one line that names the fix. The
// machine's own Node and npm are found on PATH, outside node_modules/ and the Node running tap;
// without one older than 22 there is nothing to prove and the test says so.
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { parse, stringify } from 'yaml';
import { CLEAN_ENV, tempDir } from '../helpers/run-cli.js';
import { request } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ours = dirname(process.execPath);

/** PATH as the machine has it: no node_modules/.bin of an npm script, no Node 22 put first for tap. */
const machinePath = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => dir !== '' && dir !== ours && !dir.includes('node_modules'))
  .join(delimiter);

async function olderNode(): Promise<{ dir: string; version: string } | undefined> {
  for (const dir of machinePath.split(delimiter)) {
    if (!existsSync(join(dir, 'node')) || !existsSync(join(dir, 'npm'))) continue;
    const version = (await exec(join(dir, 'node'), ['-p', 'process.versions.node'])).stdout.trim();
    return Number(version.split('.')[0]) < 22 ? { dir, version } : undefined;
  }
  return undefined;
}

const old = await olderNode();
// npm's own variables would tell the child npm it runs inside `npm test`.
const machineEnv = {
  ...Object.fromEntries(Object.entries(CLEAN_ENV).filter(([k]) => !/^npm_/i.test(k))),
  PATH: machinePath,
};
const skip = old ? false : 'no Node older than 22 on PATH (only the machine-Node path needs proving)';

t.test(
  'the prepare guard: an old Node stops npm ci with one line naming the fix; Node 22 passes',
  { skip },
  async (t) => {
    const guard = join(ROOT, 'scripts/require-node22.cjs');
    const refused = await exec(join(old!.dir, 'node'), [guard]).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    );
    t.equal(refused.code, 1);
    t.match(
      refused.stderr,
      /^version-policy: the npm scripts need Node\.js 22, but run on v\d+[^\n]*install Node 22[^\n]*\n$/,
    );
    await t.resolves(exec(process.execPath, [guard]), 'Node 22 passes');
  },
);

t.test(
  `npm start's server runs on Node 22 from npm ci, with the machine's Node ${old?.version ?? ''} and npm`,
  { skip },
  async (t) => {
    t.ok(existsSync(join(ROOT, 'node_modules/.bin/node')), 'npm ci linked node_modules/.bin/node (linux-x64)');
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    t.equal(pkg.scripts.start, 'npm run build && npm run demo', 'npm start is the build, then the demo run here');
    // The demo's own config, on a free port; the dev certificate in a temp dir.
    const dir = await tempDir(t);
    const demoConfig = parse(await readFile(join(ROOT, 'test/fixtures/demo-config.yaml'), 'utf8')) as {
      server: Record<string, unknown>;
    };
    await writeFile(
      join(dir, 'config.yaml'),
      stringify({ ...demoConfig, server: { ...demoConfig.server, port: 0, probePort: 0 } }),
    );

    const child = spawn(
      join(old!.dir, 'npm'),
      ['run', '--silent', 'demo', '--', '--config', join(dir, 'config.yaml')],
      {
        cwd: ROOT,
        detached: true, // its own process group: npm, its shell and the server stop together
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...machineEnv, VERSION_POLICY_DEV_CERT_DIR: dir },
      },
    );
    t.teardown(() => {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let url: string | undefined;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const record = JSON.parse(line) as { msg?: string; url?: string };
      if (record.msg === 'webhook listening') url = record.url;
    });
    const listening = await until(`the demo to listen (stderr: ${stderr})`, () => url, 60_000, 50);
    const port = Number(new URL(listening).port);
    const ca = await readFile(join(dir, 'ca.crt'), 'utf8');

    const metrics = await request(port, 'GET', '/metrics', undefined, { ca });
    t.match(metrics.text, /^nodejs_version_info\{version="v22\.[^"]+",major="22"/m, 'the server runs on Node 22');
    const pages = await request(port, 'GET', '/profiles', undefined, { ca });
    t.equal(pages.status, 200, 'the demo serves the timeline pages the README shows');
    t.match(pages.text, /href="profiles\/aws"/);
  },
);
