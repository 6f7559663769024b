// One load measurement, in a process of its own: the load generator's work (TLS, requests,
// latency records) never shares an event loop with the orchestrator or with a server.
//
//   node bench/load-client.js '{"mode":"max",...}'   → one line of JSON on stdout
//
// mode "max": autocannon, closed loop, `connections` keep-alive connections, for `durationS`.
//   The throughput this reaches is the server's maximum on this machine.
// mode "paced": an open loop at a fixed `rate`, over keep-alive connections (at most
//   `maxSockets`). Latency counts from the moment a request was due, not from when it was sent,
//   so a server that falls behind is charged for the wait. autocannon is not used here: its
//   rate limit sends each second's quota in one burst at the start of the second (which measures
//   a burst at full concurrency, not a steady 50% load), and its latency correction assumes a
//   1 ms interval between requests whatever the rate.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import autocannon from 'autocannon';

const REQUEST_TIMEOUT_MS = 10_000;

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function max({ url, bodyFile, connections, durationS }) {
  const body = readFileSync(bodyFile);
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        connections,
        pipelining: 1,
        duration: durationS,
        timeout: REQUEST_TIMEOUT_MS / 1000,
        // autocannon always connects with rejectUnauthorized: false; the target is 127.0.0.1.
      },
      (err, res) => {
        if (err) return reject(err);
        resolve({
          rps: res.requests.total / res.duration,
          requests: res.requests.total,
          p50: res.latency.p50,
          p99: res.latency.p99,
          errors: res.errors + res.timeouts,
          non2xx: res.non2xx,
        });
      },
    );
  });
}

async function paced({ url, bodyFile, caFile, rate, durationS, maxSockets = 32, warmupS = 1 }) {
  const body = readFileSync(bodyFile);
  const agent = new Agent({ keepAlive: true, maxSockets, ca: readFileSync(caFile) });
  const target = new URL(url);
  const options = {
    agent,
    host: target.hostname,
    port: target.port,
    path: target.pathname,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': body.length },
    timeout: REQUEST_TIMEOUT_MS,
  };

  /** Sends `total` requests, one every 1000/rate ms; resolves to the latencies (ms) of the measured ones. */
  const run = (total) =>
    new Promise((resolve) => {
      const interval = 1000 / rate;
      const latencies = [];
      let errors = 0;
      let non2xx = 0;
      let sent = 0;
      let finished = 0;
      const t0 = performance.now();
      const finish = () => {
        if (++finished === total) resolve({ latencies, errors, non2xx, elapsedMs: performance.now() - t0 });
      };
      const send = (due) => {
        const req = request(options, (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 200) latencies.push(performance.now() - due);
            else non2xx++;
            finish();
          });
        });
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.on('error', () => {
          errors++;
          finish();
        });
        req.end(body);
      };
      const tick = () => {
        const now = performance.now();
        while (sent < total && t0 + sent * interval <= now) send(t0 + sent++ * interval);
        if (sent < total) setTimeout(tick, Math.max(0, t0 + sent * interval - performance.now()));
      };
      tick();
    });

  // Opens the connections and warms both ends up; not measured.
  await run(Math.max(1, Math.round(rate * warmupS)));
  const { latencies, errors, non2xx, elapsedMs } = await run(Math.max(1, Math.round(rate * durationS)));
  agent.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  return {
    rate,
    rps: (sorted.length / elapsedMs) * 1000,
    requests: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1),
    errors,
    non2xx,
  };
}

const opts = JSON.parse(process.argv[2] ?? '{}');
const result = opts.mode === 'paced' ? await paced(opts) : await max(opts);
process.stdout.write(`${JSON.stringify(result)}\n`);
