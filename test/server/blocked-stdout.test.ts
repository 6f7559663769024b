// Logs never block (issue 24): `serve` with its stdout into a pipe that nobody reads (a stuck node
// log pipeline) keeps answering, drops the lines its bounded buffer cannot hold and counts them,
// and on SIGTERM exits 0 within its grace period. pino's default destination buffered without a
// bound and flushed synchronously at exit, so memory grew and the process never exited.
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { tempDir } from '../helpers/run-cli.js';
import { spawnServer } from '../helpers/serve-process.js';
import { request } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { freePort } from '../helpers/free-port.js';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const STATE = fileURLToPath(new URL('../fixtures/demo-state.yaml', import.meta.url));
const REVIEW = readFileSync(
  fileURLToPath(new URL('../fixtures/review-remove-version-in-use.json', import.meta.url)),
  'utf8',
);

function get(port: number, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', () => resolve({ status: 0, text: '' }));
  });
}

t.test('with stdout blocked, reviews are answered, lost lines are counted, and SIGTERM exits 0', async (t) => {
  const dir = await tempDir(t, 'vp-blocked-');
  const [port, probePort] = [await freePort(), await freePort()];
  // 1 s: serve gives a blocked stdout what is left of the grace period (at most 2 s) before it exits.
  const graceSeconds = 1;
  const config = {
    server: { port, probePort, shutdownDelaySeconds: 0, shutdownGraceSeconds: graceSeconds },
    logLevel: 'debug',
    logBufferBytes: 16384,
  };
  await writeFile(join(dir, 'config.json'), JSON.stringify(config));
  // stdout is a pipe this test never reads: once the kernel's 64 KiB are full, every write would block.
  const { child, exit } = spawnServer(t, [MAIN, 'serve', '--config', 'config.json', '--state', STATE], {
    cwd: dir,
    stdout: 'unread',
  });
  // Ready once the forecast worker has the state: a second thread loading the modules, slow at load.
  await until('ready', async () => (await get(probePort, '/readyz')).status === 200, 120_000, 50);
  const ca = await readFile(join(dir, '.dev-certs', 'ca.crt'), 'utf8');

  // About 400 bytes a line: 1,000 reviews are past the pipe (64 KiB), what this process buffers of
  // it, and the 16 KiB the server may hold.
  // Over ten kept-alive connections: what is proven is the log, not 1,000 TLS handshakes.
  const agent = new https.Agent({ keepAlive: true, maxSockets: 10 });
  t.teardown(() => agent.destroy());
  const statuses = new Map<number, number>();
  for (let batch = 0; batch < 100; batch++) {
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => request(port, 'POST', '/validate', REVIEW, { ca, agent })),
    );
    for (const r of replies) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  }
  t.same([...statuses], [[200, 1000]], 'every review answered, though no log line can be written');
  const metrics = await get(probePort, '/metrics');
  const dropped = Number(/^version_policy_log_lines_dropped_total (\d+)$/m.exec(metrics.text)?.[1]);
  t.ok(
    dropped > 0,
    `the lines the buffer could not hold are counted: version_policy_log_lines_dropped_total ${dropped}`,
  );
  t.match(
    metrics.text,
    /^version_policy_admission_requests_total\{webhook="validate",code="403"\} 1000$/m,
    'and every review is in the metrics',
  );

  // A server that waited on stdout would never exit: the file's timeout catches that, no clock does.
  agent.destroy();
  child.kill('SIGTERM');
  t.same(await exit, { code: 0, signal: null }, 'exit 0, on its own');
});
