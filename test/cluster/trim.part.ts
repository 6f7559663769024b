// What the cache keeps of an object from the API server.
import t from 'tap';
import { trimObject } from '../../src/cluster/trim.js';
import { served } from '../helpers/api-objects.js';
import { cloudProfile, namespacedProfile, shoot } from '../helpers/objects.js';

t.test('a Shoot keeps only what the rules read', async (t) => {
  const raw = served(
    shoot({
      name: 'a',
      profile: { kind: 'NamespacedCloudProfile', name: 'dev' },
      version: '1.31.1',
      workers: [{ name: 'p1', kubernetes: '1.30.2', image: ['gardenlinux', '1.0.0'] }],
    }),
  );
  const listItem = { ...raw } as Record<string, unknown>;
  delete listItem.apiVersion;
  delete listItem.kind;
  const trimmed = trimObject('Shoot', {
    ...listItem,
    metadata: { ...raw.metadata, resourceVersion: '7', deletionTimestamp: '2026-01-01T00:00:00Z' },
  });
  t.same(trimmed, {
    ok: true,
    object: {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      metadata: { name: 'a', namespace: 'garden-dev', resourceVersion: '7', deletionTimestamp: '2026-01-01T00:00:00Z' },
      spec: {
        cloudProfile: { kind: 'NamespacedCloudProfile', name: 'dev' },
        kubernetes: { version: '1.31.1' },
        provider: {
          workers: [
            {
              name: 'p1',
              kubernetes: { version: '1.30.2' },
              machine: { image: { name: 'gardenlinux', version: '1.0.0' } },
            },
          ],
        },
        maintenance: { timeWindow: { begin: '220000+0100', end: '230000+0100' } },
      },
    },
  });
});

t.test(
  'profiles keep their whole spec and useful annotations; status, managedFields and last-applied go',
  async (t) => {
    const cp = served(
      cloudProfile({ name: 'aws', annotations: { 'version-policy.gardener.cloud/managed': '["1.31.0"]' } }),
    );
    const trimmed = trimObject('CloudProfile', cp);
    t.ok(trimmed.ok);
    if (!trimmed.ok) return;
    t.same(trimmed.object.spec, cp.spec);
    t.same(trimmed.object.metadata, {
      name: 'aws',
      generation: 3,
      annotations: { 'version-policy.gardener.cloud/managed': '["1.31.0"]' },
    });
    t.notOk('status' in trimmed.object);
    const ncp = trimObject(
      'NamespacedCloudProfile',
      served(namespacedProfile({ name: 'dev', parent: 'aws', kubernetes: ['1.31.0'] })),
    );
    t.ok(
      ncp.ok &&
        ncp.object.kind === 'NamespacedCloudProfile' &&
        !('status' in ncp.object) &&
        ncp.object.spec.parent.name === 'aws',
    );
  },
);

t.test('a wrongly typed field fails the schema instead of vanishing', async (t) => {
  const raw = served(shoot({ name: 'a', workers: [{ name: 'p1', kubernetes: '1.30.2' }] })) as unknown as {
    spec: { provider: { workers: Array<Record<string, unknown>> } };
  };
  (raw.spec.provider.workers[0] as { kubernetes: unknown }).kubernetes = { version: 1.3 };
  t.same(trimObject('Shoot', raw), {
    ok: false,
    errors: [{ field: 'spec.provider.workers[0].kubernetes.version', message: 'must be string' }],
  });
  t.same(trimObject('Shoot', 'nope'), { ok: false, errors: [{ field: '', message: 'a Shoot must be an object' }] });
});
