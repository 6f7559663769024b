// How long a relist of 100,000 changed Shoots holds the event loop, how long it takes, and what
// the second snapshot costs in memory while it is built. The informers (dist/) run in this
// process, exactly as in `serve`; the list server runs in a child process (so its JSON.stringify
// of the pages does not count against us) and serves full API Shoots (api-objects.js) in pages of
// 500. After the first sync it ends the Shoot watch with a 410 and serves every Shoot changed (a
// new resourceVersion and Kubernetes version), so the informer relists all of them.
//
//   npm run build && node --expose-gc bench/relist.js [shoots=100000] [--dist DIR]
//
// --dist runs another build of the informers (for an A/B against an older commit). Event-loop
// block = the longest event-loop delay perf_hooks saw (1 ms resolution) while the relist ran; on
// a shared machine it includes time the OS gave to other processes (the load average is printed).
// Not part of `npm test`.
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pino } from 'pino';
import { apiShoot, K8S } from './api-objects.js';

const args = process.argv.slice(2);

if (args[0] === '--serve') {
  serveLists(args[1], Number(args[2]));
} else {
  const distArg = args.indexOf('--dist');
  const dist = resolve(distArg >= 0 ? args[distArg + 1] : new URL('../dist', import.meta.url).pathname);
  const shoots = Number(args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== '--dist') ?? 100_000);
  await measure(dist, shoots);
}

/** The child: a list/watch endpoint whose Shoots all change on 'expire'. */
async function serveLists(certDir, shoots) {
  let generation = 1;
  const watches = new Set();
  const shootOf = (i) => {
    const s = apiShoot(i);
    s.metadata.resourceVersion = String(generation * 10_000_000 + i);
    s.spec.kubernetes.version = K8S[(i + generation) % K8S.length];
    return s;
  };
  const server = createServer(
    { key: readFileSync(join(certDir, 'tls.key')), cert: readFileSync(join(certDir, 'tls.crt')) },
    (req, res) => {
      const url = new URL(req.url, 'https://127.0.0.1');
      const plural = url.pathname.split('/').at(-1);
      if (url.searchParams.get('watch')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        if (plural === 'shoots') watches.add(res);
        res.on('close', () => watches.delete(res));
        return;
      }
      const items = [];
      let next = '';
      if (plural === 'shoots') {
        const from = Number(url.searchParams.get('continue') || 0);
        const to = Math.min(shoots, from + Number(url.searchParams.get('limit') || shoots));
        for (let i = from; i < to; i++) items.push(shootOf(i));
        if (to < shoots) next = String(to);
      }
      const metadata = { resourceVersion: String(generation * 10_000_000), ...(next ? { continue: next } : {}) };
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ apiVersion: 'core.gardener.cloud/v1beta1', kind: 'List', metadata, items }));
    },
  );
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.on('message', (msg) => {
    if (msg !== 'expire') return;
    generation++;
    const gone = {
      type: 'ERROR',
      object: {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'Expired',
        code: 410,
        message: 'too old resource version',
      },
    };
    for (const res of watches) res.end(`${JSON.stringify(gone)}\n`);
  });
  process.on('disconnect', () => process.exit(0));
}

/** Event-loop delay while it runs: perf_hooks samples it every millisecond without busy-waiting. */
function gapWatcher() {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  return () => {
    h.disable();
    const ms = (ns) => ns / 1e6;
    return { longest: ms(h.max), p99: ms(h.percentile(99)), p50: ms(h.percentile(50)) };
  };
}

async function measure(dist, shoots) {
  const { certificates } = await import('./servers.js');
  const { ClusterIndex } = await import(pathToFileURL(join(dist, 'cluster/cluster-index.js')).href);
  const { startClusterInformers } = await import(pathToFileURL(join(dist, 'cluster/informers/index.js')).href);
  const certs = await certificates();
  const child = fork(new URL(import.meta.url).pathname, ['--serve', certs.dir, String(shoots)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { port } = await new Promise((ok) => child.once('message', ok));
  const kubeconfigFile = join(certs.dir, 'kubeconfig');
  const { writeFile } = await import('node:fs/promises');
  await writeFile(
    kubeconfigFile,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'b',
          cluster: {
            server: `https://127.0.0.1:${port}`,
            'certificate-authority-data': certs.caPem.toString('base64'),
          },
        },
      ],
      users: [{ name: 'b', user: { token: 'x' } }],
      contexts: [{ name: 'b', context: { cluster: 'b', user: 'b' } }],
      'current-context': 'b',
    }),
  );

  const listed = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of chunk.toString().split('\n'))
        if (line.includes('"listed shoots"')) listed.push(JSON.parse(line));
      done();
    },
  });
  const index = new ClusterIndex(false);
  const mb = (b) => (b / 2 ** 20).toFixed(0);
  const gc = () => globalThis.gc?.();
  const heap = () => process.memoryUsage().heapUsed;
  console.log(
    `node ${process.version}, informers from ${dist}, ${shoots.toLocaleString('en')} Shoots in pages of 500, load average ${loadavg()[0].toFixed(1)}`,
  );

  let stopGaps = gapWatcher();
  let t0 = performance.now();
  const informers = startClusterInformers({ index, kubeconfig: kubeconfigFile, logger: pino({ level: 'info' }, sink) });
  await informers.whenSynced();
  let gaps = stopGaps();
  const loop = (g) =>
    `event-loop delay: longest ${g.longest.toFixed(1)} ms, p99 ${g.p99.toFixed(1)} ms, median ${g.p50.toFixed(1)} ms`;
  console.log(`first sync:  ${((performance.now() - t0) / 1000).toFixed(1)} s; ${loop(gaps)}`);

  await new Promise((ok) => setTimeout(ok, 500));
  gc();
  const steady = heap();
  let peak = steady;
  const sampler = setInterval(() => (peak = Math.max(peak, heap())), 20);
  stopGaps = gapWatcher();
  t0 = performance.now();
  child.send('expire');
  while (listed.length < 2) await new Promise((ok) => setTimeout(ok, 5));
  const seconds = (performance.now() - t0) / 1000;
  gaps = stopGaps();
  clearInterval(sampler);
  gc();
  const after = heap();
  const changed = index.kubernetesVersionShootCount({ kind: 'CloudProfile', name: 'aws' }, K8S[2 % K8S.length]);
  console.log(`relist:      ${seconds.toFixed(1)} s; ${loop(gaps)}`);
  console.log(
    `memory:      heap ${mb(steady)} MB synced, peak ${mb(peak)} MB during the relist (+${mb(peak - steady)} MB), ${mb(after)} MB after it (GC'd); every Shoot changed (${changed.toLocaleString('en')} on ${K8S[2 % K8S.length]} on aws now)`,
  );
  console.log(`load average ${loadavg()[0].toFixed(1)} at the end`);
  await informers.stop();
  child.disconnect();
}
