// No module of src/ imports itself back through others: a port belongs to its consumer (the policy
// owns ClusterState and PolicyConfig), and the rule list is read by config.ts, never the reverse.
// Type-only imports count too: a circle of types is still a circle to read. A few lines of our
// own instead of madge: src/ writes every import as a relative `from '….js'`.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const IMPORT = /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)\.js'/g;

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? modules(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Each module of src/ and the modules of src/ it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of modules(SRC)) {
    const text = readFileSync(file, 'utf8');
    graph.set(file, [...text.matchAll(IMPORT)].map((m) => resolve(dirname(file), `${m[1]}.ts`)));
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

t.test('no import circle in src/', async (t) => {
  const graph = importGraph();
  t.ok(graph.size > 50, `${graph.size} modules read`);
  const found = circles(graph).map((c) => c.map((m) => relative(SRC, m)).join(' → '));
  t.same(found, [], found.join('\n'));
});

t.test('the check finds a circle, and a chain is none', async (t) => {
  t.same(circles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']]])), [['a', 'b', 'c', 'a']]);
  t.same(circles(new Map([['a', ['b']], ['b', ['c']], ['c', []]])), []);
});
