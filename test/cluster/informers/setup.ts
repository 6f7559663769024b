// The informers against the fake API server (test/helpers/fake-apiserver.ts, the one fake) over
// real HTTPS, with a registry and a log the tests read. Shared by the informer test files.
import type { Test } from 'tap';
import { Registry } from 'prom-client';
import { ClusterIndex } from '../../../src/cluster/cluster-index.js';
import type { InformerOptions } from '../../../src/cluster/informers/index.js';
import { startClusterInformers } from '../../../src/cluster/informers/index.js';
import type { PolicedObject } from '../../../src/api/types.js';
import { capturedLogger, served } from '../../helpers/api-objects.js';
import type { FakeApiServerOptions, Fault } from '../../helpers/fake-apiserver.js';
import { FakeApiServer } from '../../helpers/fake-apiserver.js';
import { cloudProfile, image, shoot } from '../../helpers/objects.js';
import { until } from '../../helpers/until.js';

export const VERSIONS = ['1.30.1', '1.31.0', '1.32.0'];
export const PROFILE = cloudProfile({
  name: 'aws',
  kubernetes: VERSIONS,
  images: [image('gardenlinux', ['1.0.0', '2.0.0'])],
});
export const CP = { kind: 'CloudProfile', name: 'aws' } as const;
export const onAws = (name: string, version: string, namespace = 'garden-dev') =>
  shoot({ name, namespace, profile: 'aws', version, workers: [{ name: 'pool', image: ['gardenlinux', '1.0.0'] }] });

export const uses = (index: ClusterIndex, version: string) =>
  index
    .kubernetesVersionUsers(CP, version)
    .map((u) => u.shoot.metadata.name)
    .sort();

export interface Setup {
  objects?: PolicedObject[];
  fake?: FakeApiServerOptions;
  /** Injected before the informers start. */
  faults?: Fault[];
  informer?: Partial<InformerOptions>;
}

export async function setup(t: Test, s: Setup = {}) {
  const fake = await FakeApiServer.start(s.fake);
  for (const o of s.objects ?? [PROFILE]) fake.add(served(o));
  fake.injectFault(...(s.faults ?? []));
  const index = new ClusterIndex(false);
  const registry = new Registry();
  const { logger, lines } = capturedLogger();
  const informers = startClusterInformers({
    index,
    kubeconfig: fake.kubeconfigPath,
    registry,
    logger,
    pageSize: 2,
    backoff: { initialMs: 10, maxMs: 100 },
    ...s.informer,
  });
  t.teardown(async () => {
    await informers.stop();
    await fake.close();
  });
  const metric = async (name: string, labels: Record<string, string>) =>
    (await registry.getSingleMetric(name)?.get())?.values.find((v) =>
      Object.entries(labels).every(([k, l]) => v.labels[k] === l),
    )?.value ?? 0;
  const watching = () => until('a watch on every resource', () => fake.watchCount() === 3);
  const logged = (msg: string | RegExp, resource?: string) =>
    lines.filter(
      (l) =>
        (resource === undefined || l.resource === resource) &&
        (typeof msg === 'string' ? l.msg === msg : msg.test(String(l.msg))),
    );
  return { fake, index, informers, registry, lines, logged, metric, watching };
}
