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
