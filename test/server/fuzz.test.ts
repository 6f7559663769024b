// Generated malformed and hostile reviews over real HTTPS (test/helpers/fuzz.ts says how they are
// made and judged). In npm test: 500 from a fixed seed, the same every run. `npm run test:fuzz`
// (which .ci/run runs too) sends 10,000 from a new seed and prints it. A failure prints the seed
// and the case: FUZZ_SEED=<seed> replays the run. bench/fuzz.js runs longer campaigns.
import t from 'tap';
import { runFuzz } from '../helpers/fuzz.js';

const seed =
  process.env.FUZZ_SEED === 'random'
    ? Math.floor(Math.random() * 2 ** 31)
    : Number(process.env.FUZZ_SEED ?? 20_261_127);
const count = process.env.FUZZ_COUNT ? Number(process.env.FUZZ_COUNT) : 500;

t.test(`${count} fuzzed reviews (seed ${seed})`, async (t) => {
  t.comment(`FUZZ_SEED=${seed}`);
  const r = await runFuzz({ count, seed });
  t.comment(`${r.sent} reviews in ${r.elapsedMs} ms; outcomes ${JSON.stringify(r.outcomes)}`);
  t.comment(
    `heap after GC: ${(r.heapStartBytes / 1048576).toFixed(1)} MiB after warm-up, ${(r.heapEndBytes / 1048576).toFixed(1)} MiB at the end`,
  );
  t.same(r.failures, [], `no wrong answer (${r.failureCount} in all; replay with FUZZ_SEED=${seed})`);
  t.equal(r.ruleThrows, 0, 'evaluate() never threw');
  const total = Object.values(r.outcomes).reduce((a, b) => a + b, 0);
  t.equal(total, count, 'every review was answered');
  t.ok((r.outcomes.allowed ?? 0) > count / 20, 'many clean reviews reached the policy and were allowed');
  t.ok(
    Object.keys(r.outcomes).some((o) => o === 'refused 403'),
    'some were denied by the policy',
  );
  t.ok(
    Object.keys(r.outcomes).some((o) => o.startsWith('plain 4')),
    'some had no readable uid',
  );
  t.ok(
    Object.keys(r.outcomes).some((o) => o === 'refused 415'),
    'some were refused for their type or encoding in a review',
  );
  t.ok(r.heapEndBytes - r.heapStartBytes < 32 * 1024 * 1024, 'the heap returns near its start (within 32 MiB)');
});
