// One tap process for many test files. tap starts a process per file, and each start costs about
// 1.5 s of CPU (node, tsx, tap's loaders) before the first test: more than most pure-function test
// files take to run (bench/NOTES.md §7). So a directory's `*.part.ts` files run in one process:
// a `*.test.ts` calls importParts, which opens one subtest per part, named by the part's path and
// with its own timeout. A part takes its `t` from here (`import t from '../helpers/parts.js'`):
// that `t` is the subtest opened for it, or tap's root when the part runs alone
// (`npx tap test/policy/rules/in-use.part.ts`). test/layers.test.ts checks that every part is
// imported by exactly one aggregator.
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import tap, { type Test } from 'tap';

export type { Test } from 'tap';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** tap's per-file timeout (package.json), which each part gets unless it sets its own. */
const PART_TIMEOUT = Number(process.env.TAP_TIMEOUT || 300) * 1000;
/** Time the process gets past a part's timeout to report it before the runner kills the process. */
const SLACK = 60_000;

// The part whose module is being read, and then run. Parts run one after the other (the
// aggregator's subtests run in order), so a part's `t` keeps pointing at its own subtest until the
// next part starts.
let current: Test | undefined;

function target(): Test {
  return current ?? tap;
}

/**
 * The test a part registers on. Its `setTimeout` also moves the process's own deadline, so that a
 * part that needs longer than tap's per-file timeout gets it in an aggregator too.
 */
const t = new Proxy(tap, {
  get(root, key) {
    const to = target();
    if (key === 'setTimeout' && to !== root)
      return (ms: number) => {
        to.setTimeout(ms);
        root.setTimeout(ms > 0 ? ms + SLACK : 0);
      };
    const value: unknown = Reflect.get(to, key, to);
    return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(to) : value;
  },
  set(_root, key, value) {
    return Reflect.set(target(), key, value);
  },
});
export default t;

/**
 * Opens a subtest for every `*.part.ts` under `dir` (a directory URL), in path order, named by the
 * part's path from the repository root; each part's module registers its tests inside it. Fewer
 * than `atLeast` parts is an error: a rename or a wrong directory would otherwise pass quietly.
 */
export async function importParts(dir: URL, atLeast: number): Promise<void> {
  const root = fileURLToPath(dir);
  const parts = (await readdir(root, { recursive: true })).filter((p) => p.endsWith('.part.ts')).sort();
  if (parts.length < atLeast)
    throw new Error(`${root}: ${parts.length} parts, expected at least ${atLeast}: ${parts.join(', ')}`);
  for (const part of parts) {
    const file = join(root, part);
    tap.test(relative(REPO, file), { timeout: PART_TIMEOUT }, async (sub) => {
      current = sub;
      // The process's deadline follows the part that runs, not the sum of them all, so that a
      // hung part fails within its own timeout and the rest still run.
      tap.setTimeout(PART_TIMEOUT + SLACK);
      await import(pathToFileURL(file).href);
    });
  }
}
