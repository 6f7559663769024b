// Polls a URL every 10 ms from a process of its own, a fresh connection each time as a kubelet
// probe makes, and records when each poll started (epoch ms) and how long its answer took. Prints
// the records as JSON lines of [start, ms, status] when its parent closes its stdin, or on SIGTERM.
// Used by bench/forecast-worker.js: the latency of /healthz while the server works.
//
//   node bench/healthz-poll.js URL [EVERY_MS]
import { get } from 'node:http';

const [url, every = '10'] = process.argv.slice(2);
const records = [];
let stopping = false;

function poll() {
  if (stopping) return;
  const start = Date.now();
  const t0 = performance.now();
  const req = get(url, { agent: false, timeout: 10_000 }, (res) => {
    res.resume();
    res.on('end', () => records.push([start, performance.now() - t0, res.statusCode]));
  });
  req.on('error', () => records.push([start, performance.now() - t0, 0]));
  req.on('timeout', () => req.destroy());
  // The next poll 10 ms after this one started, or at once when it answered later than that.
  req.on('close', () => setTimeout(poll, Math.max(0, Number(every) - (Date.now() - start))));
}

function finish() {
  stopping = true;
  process.stdout.write(records.map((r) => JSON.stringify(r)).join('\n') + '\n', () => process.exit(0));
}
process.stdin.on('end', finish);
process.stdin.resume();
process.on('SIGTERM', finish);
poll();
