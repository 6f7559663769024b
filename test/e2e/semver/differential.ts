// The proof that src/gardener/semver reads versions as Gardener does: tens of thousands of questions
// generated from a fixed seed (plus every real-world shape below) go to semver-oracle, the Go
// program beside this file built against Masterminds semver and Gardener's helpers at the pinned
// versions, and each answer must be the module's to the letter: parse results and error texts,
// order, constraint errors and matches, Gardener's normalised comparisons, the next minor, and
// RFC 3339 instants. Prints one summary line; exits 1 on any difference.
//   npm run test:semver                  # build the oracle if needed (cached), then ask
//   SEMVER_SEED=7 SEMVER_PAIRS=50000 npm run test:semver
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { questions, type Question } from './questions.js';
import { answerOf } from './answers.js';

const seed = Number(process.env.SEMVER_SEED ?? 37);
const pairs = Number(process.env.SEMVER_PAIRS ?? 12_000);
const build = fileURLToPath(new URL('../build-semver.sh', import.meta.url));
const built = spawnSync('bash', [build], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
if (built.status !== 0) {
  console.error('semver: the oracle did not build');
  process.exit(2);
}
const oracle = built.stdout.trim();

const asked: Question[] = questions(seed, pairs);
const ran = spawnSync(oracle, [], {
  input: asked.map((q) => JSON.stringify(q)).join('\n') + '\n',
  encoding: 'utf8',
  maxBuffer: 1 << 28,
});
if (ran.status !== 0) {
  console.error(`semver: the oracle failed: ${ran.stderr}`);
  process.exit(2);
}
const answers = ran.stdout.trimEnd().split('\n');
if (answers.length !== asked.length) {
  console.error(`semver: ${asked.length} questions, ${answers.length} answers`);
  process.exit(2);
}

const canonical = (a: Record<string, unknown>) => JSON.stringify(Object.fromEntries(Object.entries(a).sort()));

const byKind = new Map<string, { asked: number; differed: number }>();
const differences: string[] = [];
asked.forEach((q, i) => {
  const want = canonical(JSON.parse(answers[i]!) as Record<string, unknown>);
  const got = canonical(answerOf(q));
  const kind = byKind.get(q[0]) ?? { asked: 0, differed: 0 };
  byKind.set(q[0], kind);
  kind.asked++;
  if (got !== want) {
    kind.differed++;
    if (differences.length < 25) differences.push(`${JSON.stringify(q)}\n    Go:   ${want}\n    ours: ${got}`);
  }
});
for (const d of differences) console.log(`differs: ${d}`);
const differed = [...byKind.values()].reduce((n, k) => n + k.differed, 0);
const parts = [...byKind].map(([kind, k]) => `${k.asked} ${kind}${k.differed ? ` (${k.differed} differ)` : ''}`);
console.log(`semver: ${asked.length - differed} agreed, ${differed} differed, seed ${seed}: ${parts.join(', ')}`);
process.exit(differed === 0 ? 0 : 1);
