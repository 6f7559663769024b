// `kubectl version-policy …`: kubectl's plugin lookup finds an executable named
// `kubectl-version_policy` on PATH (a dash of the command is an underscore in the name) and runs
// it with the rest of the arguments. package.json's bin links that name to the CLI, as npm does in
// package-install.e2e.ts; here a link of that name to the built CLI stands in for npm's, and the
// real kubectl (built by test/e2e/build-binaries.sh) runs it. Without that kubectl on this
// machine yet, the test says so and stops.
import { chmod, readFile, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import t from 'tap';
import { cloudProfile } from '../helpers/objects.js';
import { CLEAN_ENV, CLI, tempDir, writeFiles, yamlDocs } from '../helpers/run-cli.js';
import { cachedKubectl } from './kubectl.js';
import { run } from './packed.js';

t.test('package.json links kubectl-version_policy to the CLI, beside version-policy', async (t) => {
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
    bin: Record<string, string>;
  };
  t.same(pkg.bin, { 'version-policy': 'dist/cli/main.js', 'kubectl-version_policy': 'dist/cli/main.js' });
});

const kubectl = cachedKubectl() ?? '';
const skip = kubectl ? false : 'kubectl is not built here yet (npm run test:e2e builds it)';

t.test('kubectl finds the plugin on PATH and runs check through it', { skip }, async (t) => {
  const dir = await tempDir(t);
  const bin = join(dir, 'bin');
  await writeFiles(dir, {
    'bin/.keep': '',
    'profile.yaml': yamlDocs(cloudProfile({ name: 'aws', kubernetes: ['1.31.0', '1.31.0'] })),
  });
  // npm makes a bin executable when it installs it; the build leaves the file as tsc wrote it.
  await chmod(CLI, 0o755);
  await symlink(CLI, join(bin, 'kubectl-version_policy'));
  // No kubeconfig: a plugin needs no cluster, and kubectl must not need one to run it.
  const env = {
    ...CLEAN_ENV,
    PATH: `${bin}:${dirname(process.execPath)}:${CLEAN_ENV.PATH ?? ''}`,
    KUBECONFIG: join(dir, 'none'),
  };
  const [list, check, help] = await Promise.all([
    run(kubectl, ['plugin', 'list'], dir, env),
    run(kubectl, ['version-policy', 'check', '--now', '2026-09-01T00:00:00Z', 'profile.yaml'], dir, env),
    run(kubectl, ['version-policy', 'check', '--help'], dir, env),
  ]);
  t.match(list.stdout, join(bin, 'kubectl-version_policy'), 'kubectl plugin list shows it');
  t.equal(check.code, 1, `the denial's exit code comes through kubectl\n${check.stderr}`);
  t.match(check.stdout, /^DENIED CloudProfile aws \(CREATE\) at profile\.yaml:1 \(document 1\)\n {2}\[K8S-VERSIONS\]/);
  t.equal(help.code, 0);
  t.match(
    help.stdout,
    /^Usage: kubectl version-policy check \[options\] <path\.\.\.>/,
    'the help names it as kubectl users type it',
  );
});
