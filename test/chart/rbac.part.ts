import { basename } from 'node:path';
import t from '../helpers/parts.js';
import { CI_VALUES, NAMESPACE, RELEASE, render } from '../helpers/helm.js';
import type { K8sObject, PolicyRule } from '../helpers/helm.js';

interface ClusterRole extends K8sObject {
  rules: PolicyRule[];
}
interface Binding extends K8sObject {
  roleRef: { apiGroup: string; kind: string; name: string };
  subjects: { kind: string; name: string; namespace: string }[];
}

const CI_READER = `${RELEASE}-ci`;

for (const values of [undefined, ...CI_VALUES]) {
  t.test(
    `RBAC is read-only on exactly the three policed resources (${values ? basename(values) : 'defaults'})`,
    async (t) => {
      const r = await render({ values: values ? [values] : [] });
      // Every other rule names its objects (the self-managed certificates' Secret and webhook
      // configurations: test/chart/self-managed.part.ts).
      const others = [
        ...r.all<ClusterRole>('Role'),
        ...r
          .all<ClusterRole>('ClusterRole')
          .filter((c) => c.metadata.name !== RELEASE && c.metadata.name !== CI_READER),
      ];
      t.ok(
        others.flatMap((o) => o.rules).every((rule) => rule.resourceNames?.length),
        'any other role names its objects',
      );
      const role = r.one<ClusterRole>('ClusterRole', RELEASE);
      t.same(role.rules, [
        {
          apiGroups: ['core.gardener.cloud'],
          resources: ['shoots', 'cloudprofiles', 'namespacedcloudprofiles'],
          verbs: ['get', 'list', 'watch'],
        },
      ]);
      const binding = r.one<Binding>('ClusterRoleBinding', RELEASE);
      t.same(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name });
      const sa = r.one('ServiceAccount', RELEASE);
      t.same(binding.subjects, [{ kind: 'ServiceAccount', name: sa.metadata.name, namespace: NAMESPACE }]);
    },
  );
}

t.test('ciReader: a ServiceAccount for CI jobs that may get and list the three resources, nothing more', async (t) => {
  const off = await render();
  t.same(
    off.all('ServiceAccount').map((o) => o.metadata.name),
    [RELEASE],
    'off by default: only the webhook ServiceAccount',
  );

  const r = await render({ set: ['ciReader.enabled=true'] });
  const sa = r.one<K8sObject & { automountServiceAccountToken?: boolean }>('ServiceAccount', CI_READER);
  t.equal(sa.metadata.namespace, NAMESPACE);
  t.equal(
    sa.automountServiceAccountToken,
    false,
    'no token is mounted anywhere; CI asks for one with kubectl create token',
  );
  const role = r.one<ClusterRole>('ClusterRole', CI_READER);
  t.same(
    role.rules,
    [
      {
        apiGroups: ['core.gardener.cloud'],
        resources: ['shoots', 'cloudprofiles', 'namespacedcloudprofiles'],
        verbs: ['get', 'list'],
      },
    ],
    'one LIST per resource: no watch',
  );
  const binding = r.one<Binding>('ClusterRoleBinding', CI_READER);
  t.same(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: CI_READER });
  t.same(binding.subjects, [{ kind: 'ServiceAccount', name: CI_READER, namespace: NAMESPACE }]);
  t.same(
    r.one<Binding>('ClusterRoleBinding', RELEASE).subjects.map((s) => s.name),
    [RELEASE],
    'the webhook binding is untouched',
  );
});
