// The server's main-thread CPU per review, read from /proc (Linux): what a review costs the event
// loop of a real `serve`, TLS and HTTP included, whatever else the machine runs. Throughput on a
// shared machine moves with the load; the CPU a server spends per review moves far less, and the
// ratio of two servers' figures is what their throughputs would be if the main thread were the
// bound (it is, for ours).
//
//   node bench/server-cpu.js [--shapes h,b] [--count 400] [--connections 4] [--rounds 3]
//                            [--before DIR] [--build NAME=DIR]... [--also NAME=JSON]... [--config JSON]
//
// Servers: the bare baseline, ours (dist/), `before` (an older dist/ DIR) and each --also (dist/
// with these config keys) and each --build (another older dist/), on the static state of bench/load.js. Per shape and round, each server
// in rotating order answers `count` reviews over `connections` keep-alive connections; the
// figure is the median over rounds of (main-thread CPU during the batch) / count.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { scenarios, verify } from './load.js';
import { certificates, startBaseline, startOurs, stop, writeState } from './servers.js';
import { median } from './stats.js';

/** CPU ms of one thread of `pid` (its main thread when `tid` is the pid), from schedstat (ns on CPU). */
export function threadCpuMs(pid, tid = pid) {
  return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

/** CPU ms of the whole process (every thread: GC helpers, libuv's pool, workers), from /proc/PID/stat. */
export function processCpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/**
 * Waits until the server's main thread is idle (under `idleMs` of CPU in a second): after the
 * start, the state's load and the first background fleet forecast would be counted to the reviews.
 */
export async function settle(server, { idleMs = 20, timeoutMs = 600_000 } = {}) {
  const { pid } = server.child;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const before = threadCpuMs(pid);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (threadCpuMs(pid) - before < idleMs || Date.now() > deadline) return;
  }
}

/** POSTs `body` `count` times over `connections` kept-alive connections; resolves to the answers' status codes. */
export async function postMany(url, body, { ca, count, connections }) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections, ca });
  const codes = [];
  const one = () =>
    new Promise((resolve) => {
      const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      });
      req.on('error', () => resolve(0));
      req.end(body);
    });
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next++ < count) codes.push(await one());
    }),
  );
  agent.destroy();
  return codes;
}

/** Main-thread and process CPU ms per review of `count` reviews. */
export async function cpuPerReview(server, url, body, opts) {
  const pid = server.child.pid;
  const main0 = threadCpuMs(pid);
  const all0 = processCpuMs(pid);
  const codes = await postMany(url, body, opts);
  const main = threadCpuMs(pid) - main0;
  const all = processCpuMs(pid) - all0;
  return { main: main / opts.count, all: all / opts.count, failed: codes.filter((c) => c !== 200).length };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
  const count = Number(opt('--count', 400));
  const connections = Number(opt('--connections', 4));
  const rounds = Number(opt('--rounds', 3));
  const before = opt('--before');
  const config = JSON.parse(opt('--config', '{}'));
  const pairs = (flag) => args.flatMap((a, i) => (a === flag ? [args[i + 1].split(/=(.*)/s).slice(0, 2)] : []));
  const also = pairs('--also');
  const builds = pairs('--build');
  const { state, reviews } = scenarios();
  const shapes = opt('--shapes', Object.keys(reviews).join(',')).split(',');
  const certs = await certificates();
  const stateFile = await writeState(certs.dir, 'state.yaml', state);
  const timeoutMs = 600_000;
  const servers = {};
  try {
    servers.base = await startBaseline(certs);
    servers.ours = await startOurs(certs, stateFile, { config, timeoutMs });
    for (const [name, extra] of also)
      servers[name] = await startOurs(certs, stateFile, { config: JSON.parse(extra), timeoutMs });
    if (before) servers.before = await startOurs(certs, stateFile, { main: join(before, 'cli/main.js'), timeoutMs });
    for (const [name, dir] of builds)
      servers[name] = await startOurs(certs, stateFile, { main: join(dir, 'cli/main.js'), timeoutMs });
    const names = Object.keys(servers);
    await Promise.all(Object.values(servers).map((s) => settle(s)));
    for (const key of shapes) {
      const sc = reviews[key];
      const body = JSON.stringify(sc.review);
      for (const n of names) await verify(servers[n], sc, body, certs.caPem, n === 'base' ? 'allowed' : sc.expect);
      const opts = { ca: certs.caPem, count, connections };
      // Warm-up: V8 optimises the review path after some hundred calls.
      for (const n of names) await postMany(servers[n].url + sc.path, body, opts);
      const got = Object.fromEntries(names.map((n) => [n, []]));
      for (let r = 0; r < rounds; r++)
        for (let i = 0; i < names.length; i++) {
          const n = names[(i + r) % names.length];
          got[n].push(await cpuPerReview(servers[n], servers[n].url + sc.path, body, opts));
        }
      const base = median(got.base.map((x) => x.main));
      console.log(`${sc.title} (${(body.length / 1024).toFixed(1)} KB), main-thread CPU ms per review:`);
      for (const n of names) {
        const m = median(got[n].map((x) => x.main));
        const failed = got[n].reduce((a, x) => a + x.failed, 0);
        console.log(
          `  ${n.padEnd(8)} ${m.toFixed(3)} ms [${got[n].map((x) => x.main.toFixed(3)).join(' ')}]  process ${median(got[n].map((x) => x.all)).toFixed(3)} ms  base/this ${(base / m).toFixed(3)}${failed ? `  ${failed} failed` : ''}`,
        );
      }
    }
  } finally {
    await Promise.all(Object.values(servers).map(stop));
  }
}
