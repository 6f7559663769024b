// Issue 34, items 1 and 2, for real: `serve` (this tree's dist/) at a cap of 50, a kube-apiserver-
// like client sending a review every 100 ms on its kept-alive connection, /healthz polled on the
// probe port, and an attacker process. Under slow bodies (50 connections, headers complete, the
// body never sent) and under connection churn (full TLS handshakes, and bare TCP connections that
// never start one), not one review may fail, the client's connection is never closed, and
// /healthz answers within the kubelet's 3 s. Before the gate's change, slow bodies failed most
// reviews and TCP churn closed the client's connection under it (bench/results/CONNECTIONS.md).
//   npm run test:faults   (builds first; about two minutes)
import t, { type Test } from 'tap';
import { runScenario, type ScenarioResult } from './connection-attack.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const SECONDS = Number(process.env.FAULT_SECONDS ?? 20);

function holds(t: Test, r: ScenarioResult): void {
  const { client, health } = r;
  t.ok(client.sent >= 20, `the good client sent ${client.sent} reviews`);
  t.same(client.failures, [], `every review answered (${client.answered} of ${client.sent})`);
  t.equal(client.connections, 1, 'on one connection: the server never closed it');
  t.equal(health.failed, 0, `/healthz answered ${health.polls} polls within 3 s (max ${Math.round(health.maxMs)} ms)`);
}

t.test('slow bodies: a request with complete headers and no body holds no slot kube-apiserver needs', async (t) => {
  const r = await runScenario({ root: ROOT, kind: 'slow-body', seconds: SECONDS });
  holds(t, r);
  t.ok(r.attacker.handshakes >= 50, `the attacker held its ${r.attacker.handshakes} connections`);
  // Within the run (shorter than the 30 s request timeout): the minimum body rate closed them.
  t.ok((r.metrics.slow_body ?? 0) >= 50, `${r.metrics.slow_body} closed for a body below the minimum rate`);
});

t.test('TLS handshake churn at the cap: unused connections make room, not the one in use', async (t) => {
  const r = await runScenario({
    root: ROOT,
    kind: 'churn',
    seconds: SECONDS,
    rate: 344,
    connections: 100,
    processes: 4,
  });
  holds(t, r);
  t.ok(
    (r.metrics['evicted{state="unused"}'] ?? 0) >= 100,
    `the cap was reached: ${r.metrics['evicted{state="unused"}']} unused connections closed for new ones (${r.attacker.handshakes} handshakes)`,
  );
});

t.test('TCP churn at the cap: connections that never start a handshake make room', async (t) => {
  const r = await runScenario({ root: ROOT, kind: 'tcp-churn', seconds: SECONDS, rate: 1500, connections: 100 });
  holds(t, r);
  t.ok(
    (r.metrics['evicted{state="unused"}'] ?? 0) >= 1000,
    `the cap was reached: ${r.metrics['evicted{state="unused"}']} unused connections closed for new ones`,
  );
});
