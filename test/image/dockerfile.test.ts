// The Dockerfile's facts: base, stages, user, ENTRYPOINT and CMD, labels, .dockerignore. Running
// its ENTRYPOINT from a production-only install (dependencies from the npm registry) is
// production-install.e2e.ts's, in `npm run test:package`.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/helm.js';
import { cmd, dockerfile, entrypoint, last, runtimeStage } from './dockerfile.js';

t.test('the Dockerfile is multi-stage on the slim official Node 22 LTS base, pinned by digest', async (t) => {
  const stages = await dockerfile;
  t.ok(stages.length >= 2, `${stages.length} stages`);
  for (const s of stages)
    t.match(
      s.from,
      /^node:22(\.[\d.]+)?-bookworm-slim@sha256:[a-f0-9]{64}$/,
      `${s.name ?? 'runtime'} is FROM ${s.from}`,
    );
  t.equal(new Set(stages.map((s) => s.from)).size, 1, 'every stage on the same base');
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  t.equal(pkg.engines.node, '>=22', 'package.json engines matches the base');
  const build = stages.find((s) => s.instructions.some((i) => i.op === 'RUN' && /npm run build/.test(i.args)));
  t.ok(
    build?.instructions.some((i) => i.op === 'RUN' && /npm ci(?!.*--omit=dev)/.test(i.args)),
    'the build stage installs dev dependencies',
  );
  t.ok(
    stages.some((s) => s.instructions.some((i) => i.op === 'RUN' && /npm ci .*--omit=dev/.test(i.args))),
    'a stage installs production dependencies only',
  );
});

t.test(
  'the runtime stage has production dependencies and compiled output only, as a numeric non-root user',
  async (t) => {
    const stage = await runtimeStage();
    t.notOk(
      stage.instructions.some((i) => i.op === 'RUN'),
      'nothing is installed or built in the runtime stage',
    );
    const copies = stage.instructions.filter((i) => i.op === 'COPY').map((i) => i.args.replace(/\s+/g, ' '));
    t.same(
      copies.sort(),
      ['--from=build /src/dist ./dist', '--from=deps /app/node_modules ./node_modules', 'package.json ./'].sort(),
    );
    const user = last(stage, 'USER') ?? '';
    t.match(user, /^\d+(:\d+)?$/, 'USER is numeric, so the kubelet can verify runAsNonRoot');
    t.not(Number(user.split(':')[0]), 0, 'and not root');
    const ep = last(stage, 'ENTRYPOINT') ?? '';
    t.doesNotThrow(() => void JSON.parse(ep), 'ENTRYPOINT is exec form: node is PID 1 and gets SIGTERM itself');
    t.same(
      await entrypoint(),
      ['node', '/app/dist/cli/main.js'],
      'ENTRYPOINT is the version-policy CLI, so the image runs check too',
    );
    t.same(await cmd(), ['serve'], 'and serves by default');
  },
);

t.test('OCI labels, with version, revision and created from build arguments', async (t) => {
  const stage = await runtimeStage();
  const labels = new Map(
    [...(last(stage, 'LABEL') ?? '').matchAll(/(org\.opencontainers\.image\.[a-z.]+)="([^"]*)"/g)].map((m) => [
      m[1]!,
      m[2]!,
    ]),
  );
  for (const key of ['title', 'description', 'source', 'licenses', 'version', 'revision', 'created'])
    t.ok(labels.has(`org.opencontainers.image.${key}`), key);
  t.equal(labels.get('org.opencontainers.image.version'), '${VERSION}');
  t.equal(labels.get('org.opencontainers.image.revision'), '${REVISION}');
  t.equal(labels.get('org.opencontainers.image.created'), '${CREATED}');
  const args = stage.instructions.filter((i) => i.op === 'ARG').map((i) => i.args.split('=')[0]);
  t.same(args.sort(), ['CREATED', 'REVISION', 'VERSION'], 'declared in the runtime stage, where LABEL can read them');
  const chart = await readFile(join(ROOT, 'charts/version-policy/Chart.yaml'), 'utf8');
  t.match(chart, `home: ${labels.get('org.opencontainers.image.source')}`, "the source is the chart's home");
  t.equal(
    labels.get('org.opencontainers.image.licenses'),
    (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { license: string }).license,
  );
});

t.test('.dockerignore keeps dependencies, git and keys out of the build context', async (t) => {
  const ignored = (await readFile(join(ROOT, '.dockerignore'), 'utf8')).split('\n').map((l) => l.trim());
  for (const entry of ['node_modules/', 'dist/', '.git/', '*.key', 'certs/', 'dev-certs/'])
    t.ok(ignored.includes(entry), entry);
});

t.test("the runtime stage's environment: production, and glibc's mmap threshold fixed", async (t) => {
  const env = (await runtimeStage()).instructions.filter((i) => i.op === 'ENV').map((i) => i.args);
  t.ok(env.includes('NODE_ENV=production'), 'NODE_ENV=production');
  // production-install.e2e.ts runs the entry point with this environment (inContainerEnv).
  t.ok(
    env.includes('GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072'),
    'a freed big body goes back to the kernel (bench/memory-50k.js)',
  );
  t.equal(env.length, 2, `no other ENV: ${env.join('; ')}`);
});
