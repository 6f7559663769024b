// Preloaded (node --expose-gc --import ./bench/memory-probe.js …) into a process whose memory a
// benchmark measures. On the message "measure" over the IPC channel, it collects garbage and
// answers with the heap and RSS, and the peak RSS since start (VmHWM). On "heaps", it collects
// nothing and answers with the used and total heap of the event loop and of each worker thread
// alive, by the name of its entry module. Benchmarks only.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';

const kB = (status, field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;

// Every Worker the process starts is kept (weakly) with its entry's file name, to ask its heap.
const threads = createRequire(import.meta.url)('node:worker_threads');
const workers = new Set();
if (threads.isMainThread) {
  const Original = threads.Worker;
  threads.Worker = class extends Original {
    constructor(entry, options) {
      super(entry, options);
      const name = String(entry).split('/').at(-1);
      const ref = new WeakRef(this);
      workers.add({ name, ref });
      this.once('exit', () => workers.forEach((w) => w.ref === ref && workers.delete(w)));
    }
  };
  syncBuiltinESMExports();
}

async function heaps() {
  const of = (h) => ({ used: h.used_heap_size, total: h.total_heap_size, limit: h.heap_size_limit });
  const out = { main: of(getHeapStatistics()) };
  for (const { name, ref } of workers) {
    const w = ref.deref();
    if (!w) continue;
    try {
      out[name] = of(await w.getHeapStatistics());
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

if (process.send) {
  process.on('message', (message) => {
    if (message === 'heaps') {
      void heaps().then((h) => process.send({ heaps: h }));
      return;
    }
    if (message !== 'measure' || typeof globalThis.gc !== 'function') return;
    for (let i = 0; i < 3; i++) globalThis.gc();
    const m = process.memoryUsage();
    const status = readFileSync('/proc/self/status', 'utf8');
    process.send({
      rss: m.rss,
      heapUsed: m.heapUsed,
      heapTotal: m.heapTotal,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
      peakRss: kB(status, 'VmHWM'),
    });
  });
  // The probe must not keep a process alive that is asked to stop.
  process.channel?.unref();
}
