import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from '../helpers/parts.js';
import { parse as parseYaml } from 'yaml';
import { ROOT, renderError, render } from '../helpers/helm.js';
import type { DataObject, Deployment, K8sObject, Service } from '../helpers/helm.js';

// One render of the default values, shared by the tests that only read it.
const defaults = render();

function podOf(d: Deployment) {
  const pod = d.spec.template.spec;
  const container = pod.containers[0]!;
  return { pod, container, labels: d.spec.template.metadata.labels ?? {} };
}

t.test('three spread replicas with a priority class', async (t) => {
  const d = (await defaults).one<Deployment>('Deployment');
  const { pod, labels } = podOf(d);
  t.equal(d.spec.replicas, 3);
  t.equal(pod.priorityClassName, 'system-cluster-critical');
  const keys = (pod.topologySpreadConstraints ?? []).map((c) => c.topologyKey);
  t.same(keys, ['topology.kubernetes.io/zone', 'kubernetes.io/hostname']);
  for (const c of pod.topologySpreadConstraints ?? []) {
    for (const [k, v] of Object.entries(c.labelSelector.matchLabels))
      t.equal(labels[k], v, `the spread selector matches the pods (${k})`);
  }
  t.same(
    d.spec.selector.matchLabels,
    Object.fromEntries(Object.keys(d.spec.selector.matchLabels).map((k) => [k, labels[k]])),
  );
});

t.test('requests are set and there is no CPU limit', async (t) => {
  const { container } = podOf((await defaults).one<Deployment>('Deployment'));
  t.ok(container.resources.requests?.cpu);
  t.ok(container.resources.requests?.memory);
  t.notOk(container.resources.limits?.cpu, 'no CPU limit');
  t.ok(container.resources.limits?.memory, 'a memory limit');
});

t.test("the container runs the image's ENTRYPOINT as the image's user", async (t) => {
  const { pod, container } = podOf((await defaults).one<Deployment>('Deployment'));
  t.notOk(container.command, 'no command override: the ENTRYPOINT (the version-policy CLI) runs, with the chart args');
  const dockerfile = await readFile(join(ROOT, 'Dockerfile'), 'utf8');
  const [uid, gid] = (/^USER\s+(\d+):(\d+)\s*$/m.exec(dockerfile) ?? []).slice(1).map(Number);
  t.equal(container.securityContext.runAsUser, uid, 'the UID the image files are meant for');
  t.equal(pod.securityContext.runAsUser, uid);
  t.ok(gid, 'the Dockerfile names a group too');
});

t.test('the pod and container run hardened', async (t) => {
  const { pod, container } = podOf((await defaults).one<Deployment>('Deployment'));
  t.equal(pod.securityContext.runAsNonRoot, true);
  t.equal(pod.securityContext.seccompProfile?.type, 'RuntimeDefault');
  const sc = container.securityContext;
  t.equal(sc.runAsNonRoot, true);
  t.type(sc.runAsUser, 'number');
  t.ok((sc.runAsUser ?? 0) > 0, 'a numeric non-root UID');
  t.equal(sc.readOnlyRootFilesystem, true);
  t.equal(sc.allowPrivilegeEscalation, false);
  t.not(sc.privileged, true);
  t.same(sc.capabilities, { drop: ['ALL'] }, 'drops every capability and adds none');
  t.equal(sc.seccompProfile?.type, 'RuntimeDefault');
});

t.test('probes: /healthz for liveness, /readyz for readiness, on the plain-HTTP probe port', async (t) => {
  const r = await defaults;
  const { container } = podOf(r.one<Deployment>('Deployment'));
  const config = parseYaml(r.one<DataObject>('ConfigMap').data['config.yaml']!) as { server: { probePort: number } };
  t.same(container.livenessProbe.httpGet, { path: '/healthz', port: 'probes', scheme: 'HTTP' });
  t.same(container.readinessProbe.httpGet, { path: '/readyz', port: 'probes', scheme: 'HTTP' });
  t.equal(
    container.ports.find((p) => p.name === 'probes')?.containerPort,
    config.server.probePort,
    'the port the server listens on',
  );
});

t.test('without a probe port the probes use HTTPS on the webhook port, and no metrics port is exposed', async (t) => {
  const r = await render({ set: ['config.server.probePort=0'] });
  const { container } = podOf(r.one<Deployment>('Deployment'));
  t.same(container.livenessProbe.httpGet, { path: '/healthz', port: 'https', scheme: 'HTTPS' });
  t.same(container.readinessProbe.httpGet, { path: '/readyz', port: 'https', scheme: 'HTTPS' });
  t.same(
    r.one<Service>('Service').spec.ports.map((p) => p.name),
    ['https'],
  );
});

t.test(
  'the grace period outlasts the shutdown delay and the drain, and the chart refuses one that does not',
  async (t) => {
    const r = await defaults;
    const { pod } = podOf(r.one<Deployment>('Deployment'));
    const { server } = parseYaml(r.one<DataObject>('ConfigMap').data['config.yaml']!) as {
      server: { shutdownDelaySeconds: number; shutdownGraceSeconds: number };
    };
    t.ok(
      server.shutdownDelaySeconds >= 5,
      `the pod keeps serving ${server.shutdownDelaySeconds}s after SIGTERM while endpoints drop it`,
    );
    const needed = server.shutdownDelaySeconds + server.shutdownGraceSeconds + 5;
    t.ok(pod.terminationGracePeriodSeconds >= needed, `${pod.terminationGracePeriodSeconds}s >= ${needed}s`);

    // Both sides of the template check, at the boundary: JSON Schema cannot compare two values.
    const fits = await render({
      set: [
        'terminationGracePeriodSeconds=35',
        'config.server.shutdownDelaySeconds=5',
        'config.server.shutdownGraceSeconds=25',
      ],
    });
    t.equal(
      fits.one<Deployment>('Deployment').spec.template.spec.terminationGracePeriodSeconds,
      35,
      'delay + drain + 5 s exactly is accepted',
    );
    const message =
      /terminationGracePeriodSeconds \(34\) must be at least config\.server\.shutdownDelaySeconds \(5\) \+ config\.server\.shutdownGraceSeconds \(25\) \+ 5 seconds of margin = 35/;
    t.match(
      await renderError({
        set: [
          'terminationGracePeriodSeconds=34',
          'config.server.shutdownDelaySeconds=5',
          'config.server.shutdownGraceSeconds=25',
        ],
      }),
      message,
    );
    t.match(
      await renderError({ set: ['config.server.shutdownDelaySeconds=30'] }),
      /terminationGracePeriodSeconds \(40\) must be at least/,
      'a longer delay alone is refused too',
    );
  },
);

t.test(
  'the certificate Secret is mounted as a directory (modes with files), the config from the ConfigMap',
  async (t) => {
    const r = await render({ values: [join(ROOT, 'charts/version-policy/ci/cert-manager-values.yaml')] });
    const { pod, container } = podOf(r.one<Deployment>('Deployment'));
    for (const m of container.volumeMounts)
      t.notOk(m.subPath, `${m.name} is not a subPath mount (a subPath never sees rotation)`);
    const tls = pod.volumes.find((v) => v.name === 'tls');
    t.ok(tls?.secret?.secretName, 'tls is a Secret volume');
    const configMap = r.one<DataObject>('ConfigMap');
    t.equal(pod.volumes.find((v) => v.name === 'config')?.configMap?.name, configMap.metadata.name);
    const configMount = container.volumeMounts.find((m) => m.name === 'config')!;
    const tlsMount = container.volumeMounts.find((m) => m.name === 'tls')!;
    t.same(container.args, ['serve', '--config', `${configMount.mountPath}/config.yaml`]);
    t.ok(configMap.data['config.yaml'], 'the ConfigMap has the key the args name');
    const config = parseYaml(configMap.data['config.yaml']!) as {
      server: { tls: { certFile: string; keyFile: string } };
    };
    t.same(config.server.tls, { certFile: `${tlsMount.mountPath}/tls.crt`, keyFile: `${tlsMount.mountPath}/tls.key` });
    t.equal(pod.serviceAccountName, r.one('ServiceAccount').metadata.name);
  },
);

t.test('the Service maps 443 to the container port 9443', async (t) => {
  const r = await defaults;
  const { container, labels } = podOf(r.one<Deployment>('Deployment'));
  const svc = r.one<Service>('Service');
  const https = svc.spec.ports.find((p) => p.port === 443)!;
  t.equal(container.ports.find((p) => p.name === https.targetPort)?.containerPort, 9443);
  for (const [k, v] of Object.entries(svc.spec.selector)) t.equal(labels[k], v, `the Service selects the pods (${k})`);
});

t.test('a PodDisruptionBudget lets one replica go at a time', async (t) => {
  const r = await defaults;
  const pdb = r.one<
    K8sObject & {
      spec: { maxUnavailable: number; minAvailable?: unknown; selector: { matchLabels: Record<string, string> } };
    }
  >('PodDisruptionBudget');
  t.equal(pdb.apiVersion, 'policy/v1');
  t.equal(pdb.spec.maxUnavailable, 1);
  t.notOk(pdb.spec.minAvailable);
  t.same(pdb.spec.selector.matchLabels, r.one<Deployment>('Deployment').spec.selector.matchLabels);
});

t.test('ServiceMonitor and NetworkPolicy are off by default and render when enabled', async (t) => {
  const off = await render();
  t.equal(off.all('ServiceMonitor').length + off.all('NetworkPolicy').length, 0);
  const on = await render({ set: ['serviceMonitor.enabled=true', 'networkPolicy.enabled=true'] });
  const sm = on.one<K8sObject & { spec: { endpoints: { port: string; path: string }[] } }>('ServiceMonitor');
  t.same(
    sm.spec.endpoints.map((e) => [e.port, e.path]),
    [['metrics', '/metrics']],
  );
  t.ok(
    on.one<Service>('Service').spec.ports.some((p) => p.name === 'metrics'),
    'the Service exposes the port the ServiceMonitor scrapes',
  );
  const np = on.one<K8sObject & { spec: { ingress: { ports: { port: number }[] }[] } }>('NetworkPolicy');
  t.same(np.spec.ingress.flatMap((i) => i.ports.map((p) => p.port)).sort(), [8080, 9443]);
  t.match(
    await renderError({ set: ['serviceMonitor.enabled=true', 'config.server.probePort=0'] }),
    /serviceMonitor\.enabled needs config\.server\.probePort/,
  );
});
