// The copies of the rule list that files outside src/ keep: the chart's values.schema.json, the
// config defaults in docs/configuration.md, and the rule tables of docs/rules.md and the README.
// Each copy is a function of the list and the file's current text, so a test can regenerate it
// with an extra rule, and test/scripts/rule-copies.test.ts fails when a committed copy is stale.
//   npm run generate
import { fileURLToPath } from 'node:url';
import { MUTATING_RULES } from '../src/policy/mutating-rules.js';
import { RULES } from '../src/policy/rules/index.js';
import type { Kind, Operation } from '../src/api/types.js';

/** What a copy shows of a rule. */
export interface ListedRule {
  id: string;
  kinds: readonly Kind[];
  operations: readonly Operation[];
  summary: string;
}

export const LISTED: readonly ListedRule[] = [...RULES, ...MUTATING_RULES];

export interface Copy {
  /** Path from the repository root. */
  file: string;
  make(current: string, rules: readonly ListedRule[]): string;
}

const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const pathOf = (file: string): string => `${ROOT}${file}`;

/** `profile CREATE, UPDATE`, `Shoot UPDATE`: the kinds (a CloudProfile and a NamespacedCloudProfile are a "profile") and operations. */
function judges(rule: ListedRule): string {
  const profile = rule.kinds.includes('CloudProfile') && rule.kinds.includes('NamespacedCloudProfile');
  const kinds = profile ? ['profile', ...rule.kinds.filter((k) => k === 'Shoot')] : rule.kinds;
  return `${kinds.join(' and ')} ${rule.operations.join(', ')}`;
}

const anchor = (id: string) => id.toLowerCase();

/** The text between `<!-- rules -->` and `<!-- /rules -->` replaced by `lines`. */
function between(current: string, file: string, lines: readonly string[]): string {
  const start = current.indexOf('<!-- rules -->');
  const end = current.indexOf('<!-- /rules -->');
  if (start < 0 || end < start) throw new Error(`${file}: no <!-- rules --> … <!-- /rules --> block`);
  return `${current.slice(0, start)}<!-- rules -->\n${lines.join('\n')}\n${current.slice(end)}`;
}

const chartSchema: Copy = {
  file: 'charts/version-policy/values.schema.json',
  make(current, rules) {
    const schema = JSON.parse(current) as {
      properties: { config: { properties: { rules: { properties: unknown } } } };
    };
    const enabled = { type: 'object', additionalProperties: false, properties: { enabled: { type: 'boolean' } } };
    schema.properties.config.properties.rules.properties = Object.fromEntries(rules.map((r) => [r.id, enabled]));
    return `${JSON.stringify(schema, null, 2)}\n`;
  },
};

const configDefaults: Copy = {
  file: 'docs/configuration.md',
  make(current, rules) {
    const lines = current.split('\n');
    const at = lines.findIndex((l) => /^rules: +# every rule ID/.test(l));
    if (at < 0) throw new Error('docs/configuration.md: no "rules:" line in the defaults block');
    let end = at + 1;
    while (/^ {2}[A-Z0-9-]+: \{ enabled: true \}$/.test(lines[end] ?? '')) end++;
    lines.splice(at + 1, end - at - 1, ...rules.map((r) => `  ${r.id}: { enabled: true }`));
    return lines.join('\n');
  },
};

const rulesTable: Copy = {
  file: 'docs/rules.md',
  make: (current, rules) =>
    between(current, 'docs/rules.md', [
      '| ID | Judges | Denies |',
      '|---|---|---|',
      ...rules.map((r) => `| [\`${r.id}\`](#${anchor(r.id)}) | ${judges(r)} | ${r.summary} |`),
    ]),
};

const readmeList: Copy = {
  file: 'README.md',
  make: (current, rules) =>
    between(
      current,
      'README.md',
      rules.map((r) => `- [\`${r.id}\`](docs/rules.md#${anchor(r.id)}) (${judges(r)}): ${r.summary}`),
    ),
};

export const COPIES: readonly Copy[] = [chartSchema, configDefaults, rulesTable, readmeList];
