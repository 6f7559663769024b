// Liveness and readiness. Live = the process answers. Ready = TLS is loaded, the cluster state
// has synced (static state always has), and the server is not shutting down: kube-apiserver
// should only be sent here when a policed request can be judged with full knowledge.
import type { FastifyInstance } from 'fastify';
import type { ClusterState } from '../cluster/state.js';

export class Readiness {
  tlsLoaded = false;
  shuttingDown = false;
  /** Further conditions, each giving why not ready or undefined (e.g. the certificate source's). */
  readonly conditions: Array<() => string | undefined> = [];

  constructor(private readonly state: ClusterState) {}

  /** Why the server is not ready; empty when it is. */
  reasons(): string[] {
    const out: string[] = [];
    if (this.shuttingDown) out.push('shutting down');
    if (!this.tlsLoaded) out.push('serving certificate not loaded');
    if (!this.state.synced) out.push('cluster state not synced');
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
    return reply.code(503).type('text/plain').send(`not ready: ${reasons.join('; ')}`);
  });
}
