// Liveness and readiness. Live = the process answers. Ready = TLS is loaded, the cluster state
// can be judged against (synced once and not stale; static state always is), and the server is
// not shutting down: kube-apiserver should only be sent here when a policed request can be judged
// with full knowledge. While this replica is unready, kube-apiserver sends requests to the
// replicas that are ready; with none ready, failurePolicy Fail denies what the webhook covers.
import type { FastifyInstance } from 'fastify';
import type { ClusterState } from '../api/cluster-state.js';

export class Readiness {
  tlsLoaded = false;
  shuttingDown = false;
  /**
   * False when the server runs without cluster state by choice (`serve --without-cluster-state`):
   * the state is never synced, which denies what needs it, but that is the mode, not a failure
   * to wait out.
   */
  waitsForState = true;
  /** Further conditions, each giving why not ready or undefined (e.g. the certificate source's). */
  readonly conditions: Array<() => string | undefined> = [];

  constructor(private readonly state: ClusterState) {}

  /** Why the server is not ready; empty when it is. */
  reasons(): string[] {
    const out: string[] = [];
    if (this.shuttingDown) out.push('shutting down');
    if (!this.tlsLoaded) out.push('serving certificate not loaded');
    if (this.waitsForState && !this.state.synced) {
      const why = this.state.notReadyReason;
      out.push(why ? `cluster state not synced: ${why}` : 'cluster state not synced');
    }
    for (const condition of this.conditions) {
      const why = condition();
      if (why) out.push(why);
    }
    return out;
  }

  get ready(): boolean {
    return this.reasons().length === 0;
  }
}

export function registerProbes(app: FastifyInstance, readiness: Readiness): void {
  app.get('/healthz', (_req, reply) => reply.type('text/plain').send('ok'));
  app.get('/readyz', (_req, reply) => {
    const reasons = readiness.reasons();
    if (reasons.length === 0) return reply.type('text/plain').send('ok');
    return reply
      .code(503)
      .type('text/plain')
      .send(`not ready: ${reasons.join('; ')}`);
  });
}
