// Preloaded (node --expose-gc --import ./bench/memory-probe.js …) into a process whose memory a
// benchmark measures. On the message "measure" over the IPC channel, it collects garbage and
// answers with the heap and RSS, and the peak RSS since start (VmHWM). Benchmarks only.
import { readFileSync } from 'node:fs';

const kB = (status, field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;

if (process.send && typeof globalThis.gc === 'function') {
  process.on('message', (message) => {
    if (message !== 'measure') return;
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
