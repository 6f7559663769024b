// The pre-delete hook, as the real helm binary renders it: a Job that runs this image's
// `remove-webhooks` on exactly the two rendered webhook configurations, with RBAC that allows that
// and nothing else, all created before the Job and removed after it. (The command itself is tested
// against the fake API server in test/cli/remove-webhooks.part.ts.)
import t from '../helpers/parts.js';
import {
  NAMESPACE,
  render,
  type Annotated,
  type Deployment,
  type K8sObject,
  type PolicyRule,
  type Service,
  type WebhookConfiguration,
} from '../helpers/helm.js';

interface Job extends Annotated {
  spec: {
    backoffLimit: number;
    activeDeadlineSeconds: number;
    template: {
      metadata: { labels: Record<string, string> };
      spec: Deployment['spec']['template']['spec'] & { restartPolicy: string; automountServiceAccountToken: boolean };
    };
  };
}
interface ClusterRole extends Annotated {
  rules: PolicyRule[];
}
interface Binding extends Annotated {
  roleRef: { kind: string; name: string };
  subjects: { kind: string; name: string; namespace: string }[];
}
interface NetworkPolicy extends Annotated {
  spec: {
    podSelector: { matchLabels: Record<string, string> };
    policyTypes: string[];
    ingress: unknown[];
    egress: { ports: { port: number }[] }[];
  };
}

const defaults = render();
const weight = (o: Annotated) => Number(o.metadata.annotations['helm.sh/hook-weight']);

t.test('every hook piece runs before deletion, RBAC before the Job, and all go once it succeeded', async (t) => {
  const r = await defaults;
  t.same(r.hooks.map((o) => o.kind).sort(), ['ClusterRole', 'ClusterRoleBinding', 'Job', 'ServiceAccount']);
  for (const o of r.hooks as Annotated[]) {
    t.equal(
      o.metadata.annotations['helm.sh/hook'],
      'pre-delete',
      `${o.kind}: pre-delete, so it runs before Helm deletes the Deployment`,
    );
    t.same(
      o.metadata.annotations['helm.sh/hook-delete-policy']?.split(',').sort(),
      ['before-hook-creation', 'hook-succeeded'],
      `${o.kind}: removed on success, replaced on a retry`,
    );
  }
  const job = r.hook<Job>('Job');
  for (const kind of ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding'])
    t.ok(weight(r.hook<Annotated>(kind)) < weight(job), `${kind} exists before the Job starts`);
  t.ok(
    weight(r.hook<Annotated>('ClusterRole')) <= weight(r.hook<Annotated>('ClusterRoleBinding')),
    'the role before its binding',
  );
});

t.test('the Job removes exactly the two rendered webhook configurations, with the webhook image', async (t) => {
  const r = await defaults;
  const job = r.hook<Job>('Job');
  const validating = r.one<WebhookConfiguration>('ValidatingWebhookConfiguration').metadata.name;
  const mutating = r.one<WebhookConfiguration>('MutatingWebhookConfiguration').metadata.name;
  const pod = job.spec.template.spec;
  const [container] = pod.containers;
  t.same(container?.args, ['remove-webhooks', '--validating', validating, '--mutating', mutating]);
  t.notOk(container?.command, "the image's ENTRYPOINT (the version-policy CLI) runs the subcommand");
  t.equal(
    container?.image,
    r.one<Deployment>('Deployment').spec.template.spec.containers[0]?.image,
    'the same image as the webhook',
  );
  t.equal(pod.restartPolicy, 'Never');
  t.ok(
    job.spec.backoffLimit <= 2 && job.spec.activeDeadlineSeconds <= 300,
    'bounded: a hook that cannot finish fails the uninstall rather than hang it',
  );
  t.equal(pod.serviceAccountName, r.hook('ServiceAccount').metadata.name);
  t.equal(pod.automountServiceAccountToken, true, 'it talks to the API server with that account');
  t.equal(job.metadata.namespace, NAMESPACE);
  const sc = container!.securityContext;
  t.match(
    sc,
    {
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    },
    'hardened like the webhook',
  );
});

t.test('its pod is not selected by the Service, the PodDisruptionBudget or the webhook NetworkPolicy', async (t) => {
  const r = await render({ set: ['networkPolicy.enabled=true'] });
  const labels = r.hook<Job>('Job').spec.template.metadata.labels;
  const selects = (selector: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);
  t.notOk(selects(r.one<Service>('Service').spec.selector), 'admission reviews never reach the hook pod');
  t.notOk(
    selects(
      r.one<K8sObject & { spec: { selector: { matchLabels: Record<string, string> } } }>('PodDisruptionBudget').spec
        .selector.matchLabels,
    ),
  );
  t.notOk(selects(r.one<NetworkPolicy>('NetworkPolicy').spec.podSelector.matchLabels));
});

t.test('its RBAC is get and delete on the two named configurations, nothing else', async (t) => {
  const r = await defaults;
  const name = r.one<WebhookConfiguration>('ValidatingWebhookConfiguration').metadata.name;
  const role = r.hook<ClusterRole>('ClusterRole');
  t.same(role.rules, [
    {
      apiGroups: ['admissionregistration.k8s.io'],
      resources: ['validatingwebhookconfigurations'],
      resourceNames: [name],
      verbs: ['get', 'delete'],
    },
    {
      apiGroups: ['admissionregistration.k8s.io'],
      resources: ['mutatingwebhookconfigurations'],
      resourceNames: [name],
      verbs: ['get', 'delete'],
    },
  ]);
  const binding = r.hook<Binding>('ClusterRoleBinding');
  t.same(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name });
  t.same(binding.subjects, [
    { kind: 'ServiceAccount', name: r.hook('ServiceAccount').metadata.name, namespace: NAMESPACE },
  ]);
  t.notOk(
    r.all('ClusterRole').some((c) => c.metadata.name === role.metadata.name),
    "its own role, none of the webhook's",
  );
});

t.test('with a NetworkPolicy, the hook gets its own: DNS and the API server out, nothing in', async (t) => {
  const r = await render({
    set: [
      'networkPolicy.enabled=true',
      'networkPolicy.egress.apiServer.serviceIPs={10.0.0.1}',
      'networkPolicy.egress.apiServer.endpointIPs={10.250.0.10}',
    ],
  });
  const np = r.hook<NetworkPolicy>('NetworkPolicy');
  t.ok(weight(np) < weight(r.hook<Job>('Job')), 'before the Job');
  t.same(np.spec.podSelector.matchLabels, r.hook<Job>('Job').spec.template.metadata.labels);
  t.same(np.spec.policyTypes, ['Ingress', 'Egress']);
  t.same(np.spec.ingress, []);
  t.same(
    np.spec.egress,
    r.one<NetworkPolicy>('NetworkPolicy').spec.egress,
    "the webhook's egress: DNS, the service IP and the endpoints",
  );
});

t.test('uninstallHook.enabled=false renders no hook at all', async (t) => {
  const r = await render({ set: ['uninstallHook.enabled=false'] });
  t.same(r.hooks, []);
});
