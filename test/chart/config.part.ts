import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import t from '../helpers/parts.js';
import { parse as parseYaml } from 'yaml';
import { configSchema, resolveConfig } from '../../src/config.js';
import { CHART, CI_VALUES, render, renderError } from '../helpers/helm.js';
import type { DataObject, Deployment } from '../helpers/helm.js';

const SCHEMA_FILE = join(CHART, 'values.schema.json');

/** Keys the chart sets itself: the listen address and the mounted certificate. */
const CHART_OWNED_SERVER_KEYS = ['host', 'port', 'tls'];

function withoutDefaults(node: unknown, inProperties = false): unknown {
  if (Array.isArray(node)) return node.map((n) => withoutDefaults(n));
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k]) => inProperties || (k !== 'default' && k !== '$id'))
      .map(([k, v]) => [k, withoutDefaults(v, !inProperties && k === 'properties')]),
  );
}

/** values.schema.json's `config`: the server's schema, minus defaults (values.yaml has them) and the chart-owned keys. */
function expectedConfigSchema(): Record<string, unknown> {
  const schema = withoutDefaults(configSchema) as {
    properties: { server: { properties: Record<string, unknown> }; cluster: { properties: Record<string, unknown> } };
  };
  for (const key of CHART_OWNED_SERVER_KEYS) delete schema.properties.server.properties[key];
  // In a cluster the state comes from the informers: without them serve refuses to start (no state
  // source), and the chart has no --state to give, so the pod would only crash-loop.
  schema.properties.cluster.properties.enabled = {
    const: true,
    description: 'Always true in the chart: the webhook reads Shoots and profiles through informers.',
  };
  return schema;
}

t.test("values.schema.json checks config against the server's own schema", async (t) => {
  const valuesSchema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as { properties: Record<string, unknown> };
  if (process.env.UPDATE_CHART_SCHEMA === '1') {
    valuesSchema.properties.config = expectedConfigSchema();
    writeFileSync(SCHEMA_FILE, `${JSON.stringify(valuesSchema, null, 2)}\n`);
  }
  t.same(
    valuesSchema.properties.config,
    expectedConfigSchema(),
    'out of date: run UPDATE_CHART_SCHEMA=1 npx tap test/chart/config.part.ts',
  );
});

for (const values of [undefined, ...CI_VALUES]) {
  t.test(`the rendered config file passes resolveConfig() (${values ? basename(values) : 'defaults'})`, async (t) => {
    const r = await render({ values: values ? [values] : [] });
    const raw: unknown = parseYaml(r.one<DataObject>('ConfigMap').data['config.yaml']!);
    const config = resolveConfig(raw, 'ConfigMap config.yaml');
    t.equal(config.server.host, '0.0.0.0', 'listens on the pod IP, not loopback');
    t.equal(config.server.port, 9443);
    if (config.server.tls.selfManaged.enabled)
      t.match(config.server.tls, { certFile: '', keyFile: '' }, 'selfManaged: no certificate files');
    else t.match(config.server.tls, { certFile: /tls\.crt$/, keyFile: /tls\.key$/ });
    t.equal(config.cluster.enabled, true, 'in-cluster informers');
    const ports = r.one<Deployment>('Deployment').spec.template.spec.containers[0]!.ports;
    t.equal(
      ports.find((p) => p.name === 'probes')?.containerPort ?? 0,
      config.server.probePort,
      'the probe port the pod declares',
    );
  });
}

t.test('the chart refuses config.cluster.enabled=false: serve would have no state source and crash-loop', async (t) => {
  t.match(await renderError({ set: ['config.cluster.enabled=false'] }), /config\.cluster\.enabled|cluster.*enabled/);
});

t.test('values.config reaches the server unchanged', async (t) => {
  const r = await render({ values: [join(CHART, 'ci/production-values.yaml')] });
  const config = resolveConfig(parseYaml(r.one<DataObject>('ConfigMap').data['config.yaml']!));
  t.equal(config.rules['SHOOT-NO-MINOR-SKIP'].enabled, false);
  t.equal(config.defaulting.lifecycle.maintainedMinors, 4);
  t.equal(config.defaulting.lifecycle.expirationUnmaintained, '1440h');
  t.equal(config.logLevel, 'warn');
  t.equal(config.server.shutdownGraceSeconds, 45);
});

t.test('a config change rolls the pods', async (t) => {
  const checksum = async (set: string[]) =>
    (await render({ set })).one<Deployment>('Deployment').spec.template.metadata.annotations?.['checksum/config'];
  const before = await checksum([]);
  t.ok(before);
  t.not(await checksum(['config.logLevel=debug']), before);
});

t.test('values.schema.json refuses a bad config before anything reaches the cluster', async (t) => {
  t.match(await renderError({ set: ['config.rules.NO-SUCH-RULE.enabled=false'] }), /NO-SUCH-RULE/);
  t.match(
    await renderError({ set: ['config.defaulting.lifecycle.expirationMaintained=120days'] }),
    /expirationMaintained/,
  );
  t.match(await renderError({ set: ['config.logLevel=loud'] }), /logLevel/);
  t.match(await renderError({ set: ['config.server.host=127.0.0.1'] }), /host/, 'the listen address is the chart’s');
});
