import { basename } from 'node:path';
import t from 'tap';
import { CI_VALUES, NAMESPACE, RELEASE, render } from '../helpers/helm.js';
import type { K8sObject, PolicyRule } from '../helpers/helm.js';

interface ClusterRole extends K8sObject {
  rules: PolicyRule[];
}
interface Binding extends K8sObject {
  roleRef: { apiGroup: string; kind: string; name: string };
  subjects: { kind: string; name: string; namespace: string }[];
}

for (const values of [undefined, ...CI_VALUES]) {
  t.test(`RBAC is read-only on exactly the three policed resources (${values ? basename(values) : 'defaults'})`, async (t) => {
    const r = await render({ values: values ? [values] : [] });
    // Every other rule names its objects (the self-managed certificates' Secret and webhook
    // configurations: test/chart/self-managed.test.ts).
    const others = [...r.all<ClusterRole>('Role'), ...r.all<ClusterRole>('ClusterRole').filter((c) => c.metadata.name !== RELEASE)];
    t.ok(others.flatMap((o) => o.rules).every((rule) => rule.resourceNames?.length), 'any other role names its objects');
    const role = r.one<ClusterRole>('ClusterRole', RELEASE);
    t.same(role.rules, [{ apiGroups: ['core.gardener.cloud'], resources: ['shoots', 'cloudprofiles', 'namespacedcloudprofiles'], verbs: ['get', 'list', 'watch'] }]);
    const binding = r.one<Binding>('ClusterRoleBinding', RELEASE);
    t.same(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name });
    const sa = r.one('ServiceAccount');
    t.same(binding.subjects, [{ kind: 'ServiceAccount', name: sa.metadata.name, namespace: NAMESPACE }]);
  });
}
