// The import direction of src/'s folders (src/import-restrictions.yaml), and no module that
// imports itself back through others: a port belongs to its consumer (api owns ClusterState, the
// policy PolicyConfig), and the rule list is read by config.ts, never the reverse. Type-only
// imports count too. A few lines of our own instead of madge or dependency-cruiser: src/ writes
// every import as a relative `from '….js'`.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { parse } from 'yaml';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const IMPORT = /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)\.js'/g;

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? modules(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Each module of src/ and the modules of src/ it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of modules(SRC)) {
    const text = readFileSync(file, 'utf8');
    graph.set(
      file,
      [...text.matchAll(IMPORT)].map((m) => resolve(dirname(file), `${m[1]}.ts`)),
    );
  }
  return graph;
}

/** One circle per strongly connected part of the graph, as the path around it; [] when none. */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const found: string[][] = [];
  const path: string[] = [];
  const visit = (m: string): void => {
    state.set(m, 'open');
    path.push(m);
    for (const next of graph.get(m) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(m, 'done');
  };
  for (const m of graph.keys()) if (!state.has(m)) visit(m);
  return found;
}

/** The folder of src/ a module belongs to: its first path segment, or `config` for src/config.ts. */
export function layerOf(module: string): string {
  const rel = relative(SRC, module);
  const first = rel.split(sep)[0]!;
  return first.endsWith('.ts') ? first.slice(0, -'.ts'.length) : first;
}

/** Every import that crosses into a folder its own folder may not import, as `from → to`. */
export function wrongDirections(
  graph: ReadonlyMap<string, readonly string[]>,
  allowed: Readonly<Record<string, readonly string[]>>,
): string[] {
  const wrong: string[] = [];
  for (const [from, targets] of graph) {
    const layer = layerOf(from);
    for (const to of targets) {
      const target = layerOf(to);
      if (target !== layer && !(allowed[layer] ?? []).includes(target))
        wrong.push(`${relative(SRC, from)} → ${relative(SRC, to)} (${layer} may not import ${target})`);
    }
  }
  return wrong;
}

const RESTRICTIONS = parse(readFileSync(join(SRC, 'import-restrictions.yaml'), 'utf8')) as Record<string, string[]>;
/** Folders that hold no module of ours to police: ambient type declarations only. */
const DECLARATIONS_ONLY = new Set(['types']);

t.test('every folder of src/ is in import-restrictions.yaml, and every import points the allowed way', async (t) => {
  const graph = importGraph();
  const layers = new Set([...graph.keys()].map(layerOf));
  const unlisted = [...layers].filter((l) => !(l in RESTRICTIONS) && !DECLARATIONS_ONLY.has(l));
  t.same(unlisted, [], `folders without a line in src/import-restrictions.yaml: ${unlisted.join(', ')}`);
  const wrong = wrongDirections(graph, RESTRICTIONS);
  t.same(wrong, [], wrong.join('\n'));
});

t.test('the direction check finds an upward import and passes a downward one', async (t) => {
  const m = (p: string) => join(SRC, p);
  const graph = new Map([
    [m('api/types.ts'), [m('util/text.ts')]],
    [m('gardener/versions.ts'), [m('api/types.ts'), m('policy/rule.ts')]],
  ]);
  t.same(wrongDirections(graph, { api: ['util'], gardener: ['api', 'util'] }), [
    `gardener/versions.ts → policy/rule.ts (gardener may not import policy)`,
  ]);
  t.same(wrongDirections(new Map([[m('api/types.ts'), [m('util/text.ts')]]]), { api: ['util'] }), []);
  t.equal(layerOf(m('config.ts')), 'config');
});

t.test('no import circle in src/', async (t) => {
  const graph = importGraph();
  t.ok(graph.size > 50, `${graph.size} modules read`);
  const found = circles(graph).map((c) => c.map((m) => relative(SRC, m)).join(' → '));
  t.same(found, [], found.join('\n'));
});

t.test('the check finds a circle, and a chain is none', async (t) => {
  t.same(
    circles(
      new Map([
        ['a', ['b']],
        ['b', ['c']],
        ['c', ['a']],
      ]),
    ),
    [['a', 'b', 'c', 'a']],
  );
  t.same(
    circles(
      new Map([
        ['a', ['b']],
        ['b', ['c']],
        ['c', []],
      ]),
    ),
    [],
  );
});

// The test suite's own layout: every `*.part.ts` runs in exactly one aggregator
// (test/helpers/parts.ts), so a new part in any folder runs without a list, and none runs twice.
const TEST = fileURLToPath(new URL('./', import.meta.url));
const IMPORT_PARTS = /importParts\(\s*new URL\(\s*'([^']+)',\s*import\.meta\.url\s*\)/g;

function files(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(suffix))
    .map((f) => join(dir, f));
}

/**
 * A part that no aggregator imports, or that two importParts calls run twice, given each
 * aggregator's folders (a folder holds its subfolders).
 */
export function partProblems(parts: readonly string[], folders: ReadonlyMap<string, readonly string[]>): string[] {
  return parts.flatMap((part) => {
    const by = [...folders].flatMap(([test, dirs]) => dirs.filter((d) => part.startsWith(d + sep)).map(() => test));
    return by.length === 1 ? [] : [`${relative(TEST, part)}: imported by ${by.join(', ') || 'no aggregator'}`];
  });
}

t.test('every *.part.ts under test/ is imported by exactly one aggregator', async (t) => {
  const folders = new Map<string, string[]>();
  const unread: string[] = [];
  for (const test of files(TEST, '.test.ts')) {
    if (test === fileURLToPath(import.meta.url)) continue;
    const text = readFileSync(test, 'utf8');
    const dirs = [...text.matchAll(IMPORT_PARTS)].map((m) => resolve(dirname(test), m[1]!).replace(/\/$/, ''));
    if (dirs.length !== text.split('importParts(').length - 1) unread.push(relative(TEST, test));
    if (dirs.length) folders.set(relative(TEST, test), dirs);
  }
  t.same(unread, [], "each importParts call reads importParts(new URL('folder/', import.meta.url), n)");
  t.ok(folders.size >= 7, `${folders.size} aggregators`);
  const parts = files(TEST, '.part.ts').filter((p) => !p.includes(`${sep}node_modules${sep}`));
  t.ok(parts.length > 70, `${parts.length} parts`);
  const problems = partProblems(parts, folders);
  t.same(problems, [], problems.join('\n'));
});

t.test('the part check finds a part no aggregator imports and one imported twice', async (t) => {
  const p = (f: string) => join(TEST, f);
  const folders = new Map([
    ['policy/policy.test.ts', [p('policy')]],
    ['policy/rules/rules.test.ts', [p('policy/rules')]],
  ]);
  t.same(partProblems([p('policy/a.part.ts')], folders), []);
  t.same(partProblems([p('cli/b.part.ts'), p('policy/rules/c.part.ts')], folders), [
    'cli/b.part.ts: imported by no aggregator',
    'policy/rules/c.part.ts: imported by policy/policy.test.ts, policy/rules/rules.test.ts',
  ]);
  t.same(partProblems([p('policyx/d.part.ts')], folders), ['policyx/d.part.ts: imported by no aggregator']);
});
