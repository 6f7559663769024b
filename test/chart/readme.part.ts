// The chart README is generated from values.schema.json, values.yaml and Chart.yaml; a README that
// no longer matches them fails here.
import { readFile } from 'node:fs/promises';
import t from '../helpers/parts.js';
import { parse as parseYaml } from 'yaml';
import { chartReadme, README } from '../../scripts/chart-readme.js';
import { CHART } from '../helpers/helm.js';

t.test('charts/version-policy/README.md is what scripts/chart-readme.ts generates', async (t) => {
  t.equal(await readFile(README, 'utf8'), chartReadme(), 'out of date: run npm run chart-readme');
});

t.test('it lists every value with its default, and the schema descriptions', async (t) => {
  const text = chartReadme();
  const values = parseYaml(await readFile(`${CHART}/values.yaml`, 'utf8')) as {
    webhook: { exemptGroups: string[] };
    terminationGracePeriodSeconds: number;
  };
  t.match(
    text,
    `| \`terminationGracePeriodSeconds\` | integer | \`${values.terminationGracePeriodSeconds}\` | At least config.server.shutdownDelaySeconds`,
  );
  t.match(text, `| \`webhook.exemptGroups\` | string[] | \`${JSON.stringify(values.webhook.exemptGroups)}\` |`);
  t.match(text, "| `networkPolicy.egress.apiServer.endpointIPs` | string[] | `[]` | The API server's own addresses");
  t.match(text, '| `config.server.shutdownDelaySeconds` | number | `10` | After SIGTERM');
  t.notMatch(text, /`global`/, 'the umbrella-chart key is left out');
});
