import { basename } from 'node:path';
import t from '../helpers/parts.js';
import { parseAllDocuments } from 'yaml';
import { CHART, CI_VALUES, HELM3, NAMESPACE, helm, render, template } from '../helpers/helm.js';

const CLUSTER_SCOPED = new Set([
  'ClusterRole',
  'ClusterRoleBinding',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
]);

t.test('ci/ holds an example for every certificate mode', async (t) => {
  const names = CI_VALUES.map((f) => basename(f));
  for (const mode of ['self-managed', 'cert-manager', 'provided'])
    t.ok(
      names.some((n) => n.startsWith(mode)),
      `${mode} example present`,
    );
});

for (const values of [undefined, ...CI_VALUES]) {
  const label = values ? `ci/${basename(values)}` : 'the default values';
  t.test(`helm lint --strict passes with ${label}, in Helm 4 and Helm 3`, async (t) => {
    for (const [major, binary] of [
      ['4', undefined],
      ['3', HELM3],
    ] as const) {
      const res = await helm(['lint', '--strict', CHART, ...(values ? ['-f', values] : [])], binary);
      t.equal(res.code, 0, `helm ${major} lint exit code${res.code === 0 ? '' : `: ${res.stdout}${res.stderr}`}`);
      t.match(res.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/, `helm ${major}`);
    }
  });

  t.test(`Helm 3 renders ${label} as Helm 4 does`, async (t) => {
    const opts = { values: values ? [values] : [] };
    const [four, three] = await Promise.all([template(opts), template(opts, HELM3)]);
    t.equal(four.code, 0, four.stderr);
    t.equal(three.code, 0, three.stderr);
    // Helm 4 writes blank lines where Helm 3 does not, and orders kinds its own way; the objects must agree.
    const key = (o: { kind?: string; metadata?: { name?: string } } | null) => `${o?.kind}/${o?.metadata?.name}`;
    const objects = (yaml: string) =>
      parseAllDocuments(yaml)
        .map((d) => d.toJS() as { kind?: string; metadata?: { name?: string } } | null)
        .sort((a, b) => key(a).localeCompare(key(b)));
    t.same(objects(three.stdout), objects(four.stdout), 'the same objects');
  });

  t.test(`helm template with ${label} renders unique, well-formed objects`, async (t) => {
    const rendered = await render({ values: values ? [values] : [] });
    const objects = [...rendered.objects, ...rendered.hooks];
    t.ok(objects.length >= 8, `${objects.length} objects`);
    const ids = objects.map((o) => `${o.kind}/${o.metadata.name}`);
    t.same(
      ids.filter((id, i) => ids.indexOf(id) !== i),
      [],
      'no kind/name rendered twice',
    );
    for (const o of objects) {
      t.ok(o.apiVersion && o.kind && o.metadata.name, `${o.kind}/${o.metadata.name} has apiVersion, kind and name`);
      if (CLUSTER_SCOPED.has(o.kind)) t.notOk(o.metadata.namespace, `${o.kind} is cluster-scoped`);
      else t.equal(o.metadata.namespace, NAMESPACE, `${o.kind}/${o.metadata.name} lands in the release namespace`);
    }
  });
}
