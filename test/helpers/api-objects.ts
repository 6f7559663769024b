// Objects dressed the way the API server returns them: managed fields, status, labels, and the
// spec fields the policy never reads. The informers must cut all of that away.
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import type { PolicedObject } from '../../src/api/types.js';

export function served<T extends PolicedObject>(o: T): T {
  const copy = structuredClone(o) as T & { status?: unknown };
  copy.metadata = {
    ...copy.metadata,
    labels: { 'shoot.gardener.cloud/status': 'healthy' },
    annotations: {
      ...copy.metadata.annotations,
      'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(o),
    },
    generation: 3,
    managedFields: [
      {
        manager: 'gardener-apiserver',
        operation: 'Update',
        apiVersion: 'core.gardener.cloud/v1beta1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': {} },
      },
    ],
  };
  if (copy.kind === 'Shoot') {
    copy.spec = {
      ...copy.spec,
      networking: { type: 'calico', pods: '100.96.0.0/11', nodes: '10.250.0.0/16' },
      region: 'eu-west-1',
      secretBindingName: 'aws-secret',
      maintenance: {
        autoUpdate: { kubernetesVersion: true },
        timeWindow: { begin: '220000+0100', end: '230000+0100' },
      },
    };
    copy.status = {
      lastOperation: { type: 'Reconcile', state: 'Succeeded', progress: 100 },
      technicalID: 'shoot--dev--x',
      conditions: [{ type: 'APIServerAvailable', status: 'True' }],
    };
  } else {
    copy.status = { observedGeneration: 3 };
  }
  return copy;
}

/** A pino logger whose JSON lines the test can read. */
export function capturedLogger(level = 'trace'): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n'))
        if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level }, sink), lines };
}
