// docs/configuration.md is the configuration reference: its defaults block is exactly what no
// config file means, and every key of the schema has a row with its default.
import { readFile } from 'node:fs/promises';
import t from 'tap';
import { parse } from 'yaml';
import { configSchema, defaultConfig } from '../../src/config.js';
import { RULE_IDS } from '../../src/policy/rules/index.js';

interface SchemaNode {
  type?: string;
  default?: unknown;
  properties?: Record<string, SchemaNode>;
}

/** Every leaf key of the schema, as a dotted path, with its default. */
function leaves(node: SchemaNode, path = ''): Array<[string, unknown]> {
  if (node.type === 'object' && node.properties) {
    return Object.entries(node.properties).flatMap(([k, child]) => leaves(child, path ? `${path}.${k}` : k));
  }
  return [[path, node.default]];
}

const page = await readFile(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

/** The rows of the page's tables: key → the default cell's value. */
function rows(): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const m of page.matchAll(/^\| `([^`]+)` \| `([^`]*)` \|/gm)) out.set(m[1]!, parse(m[2]!) ?? '');
  return out;
}

t.test('the defaults block is the configuration no file means', async (t) => {
  const block = /<!-- config: defaults -->\n```yaml\n([\s\S]*?)\n```/.exec(page)?.[1];
  t.ok(block, 'the page has a defaults block');
  t.same(parse(block ?? ''), defaultConfig());
});

t.test('every key of the schema has a row with its default', async (t) => {
  const documented = rows();
  const keys = leaves(configSchema);
  for (const [key, def] of keys) {
    const rule = /^rules\.([^.]+)\.enabled$/.exec(key)?.[1];
    const row = rule ? 'rules.<RULE-ID>.enabled' : key;
    t.ok(documented.has(row), `${key} has a row`);
    t.same(documented.get(row), def, `${key}: the documented default is the schema's`);
  }
  for (const row of documented.keys()) {
    t.ok(row === 'rules.<RULE-ID>.enabled' || keys.some(([k]) => k === row), `${row} is a key of the schema`);
  }
  for (const id of RULE_IDS) t.match(page, `  ${id}: { enabled: true }`, `${id} is listed`);
});
