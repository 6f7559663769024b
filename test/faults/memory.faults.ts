// Issue 34, items 4 and 5, for real: `serve` (this tree's dist/) with informers against a list
// server of 50,000 full API Shoots, run as the chart's pod runs it (bench/memory-50k.js: the
// image's GLIBC_TUNABLES, V8's heap sized from the chart's memory limit), the four worst reviews
// sent at once for 30 s while /healthz is polled every 10 ms. The process's peak RSS (VmHWM, every
// thread) stays under the chart's limit: past it, the kubelet kills every replica alike. Every
// review is answered, and every /healthz poll too. The bench owns the measuring; this asserts
// the bounds. Run by `npm run test:faults` (a 50,000-Shoot landscape costs minutes).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { parse } from 'yaml';
import { CLEAN_ENV, untracked } from '../helpers/run-cli.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const values = parse(readFileSync(`${ROOT}charts/version-policy/values.yaml`, 'utf8')) as {
  resources: { limits: { memory: string } };
};
const limit = values.resources.limits.memory;
const limitBytes = parseInt(limit, 10) * 2 ** (limit.endsWith('Gi') ? 30 : 20);

interface Healthz {
  polls: number;
  failed: number;
}
interface Result {
  path: string;
  after: { peak: number };
  forecastHealthz: Healthz;
  reviewsHealthz: Healthz;
  answers: Record<string, Record<string, number>>;
}

t.test(`50,000 Shoots and the four worst reviews at once: RSS under the chart's ${limit}`, async (t) => {
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(
      // Without tap's loader, which would record every module the bench and the server load.
      ...untracked(process.execPath, [
        'bench/memory-50k.js',
        '--shoots',
        '50000',
        '--seconds',
        '30',
        '--paths',
        'informers',
        '--json',
      ]),
      { cwd: ROOT, env: CLEAN_ENV, maxBuffer: 2 ** 24 },
      (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out)),
    ),
  );
  const [r] = JSON.parse(stdout.trim().split('\n').at(-1)!) as Result[];
  t.comment(stdout.split('\n').slice(0, -2).join('\n'));
  t.ok(r!.after.peak < limitBytes, `peak RSS ${(r!.after.peak / 2 ** 20).toFixed(0)} MiB < ${limit}`);
  for (const [name, answers] of Object.entries(r!.answers)) {
    const codes = Object.keys(answers);
    t.ok(codes.length > 0, `${name} was answered`);
    t.same(
      codes.filter((c) => !c.startsWith('200 ')),
      [],
      `${name}: every answer a 200 review (${JSON.stringify(answers)})`,
    );
  }
  for (const [when, h] of [
    ['the first fleet forecast', r!.forecastHealthz],
    ['the reviews', r!.reviewsHealthz],
  ] as const) {
    t.ok(h.polls > 0, `/healthz polled during ${when}`);
    t.equal(h.failed, 0, `every /healthz poll answered 200 during ${when} (${h.polls} polls)`);
  }
});
