// One tap process for many test files. tap starts a process per file, and each start costs about
// 1.5 s of CPU (node, tsx, tap's loaders) before the first test: more than most pure-function test
// files take to run (bench/NOTES.md §7). A directory of `*.part.ts` files runs as one process:
// each part reads and runs on its own (`npx tap test/policy/rules/in-use.part.ts`), and `npm test`
// runs them from one `*.test.ts` that calls importParts.
import { readdir } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';

/**
 * Imports every `*.part.ts` under `dir` (a directory URL), in path order; each registers its tests.
 * Fewer than `atLeast` parts is an error: a rename or a wrong directory would otherwise pass quietly.
 */
export async function importParts(dir: URL, atLeast: number): Promise<void> {
  const root = fileURLToPath(dir);
  const parts = (await readdir(root, { recursive: true })).filter((p) => p.endsWith('.part.ts')).sort();
  if (parts.length < atLeast)
    throw new Error(`${root}: ${parts.length} parts, expected at least ${atLeast}: ${parts.join(', ')}`);
  for (const part of parts) await import(pathToFileURL(join(root, part)).href);
}
