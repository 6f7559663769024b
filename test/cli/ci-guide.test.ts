// docs/ci.md holds what it shows: every flag of `check --help` is documented, the versions it
// pins are this package's, and its commands run. The container-image jobs cannot run here (there
// is no Docker engine): bash shims stand in for `docker run` and for the image's `node`, check
// the arguments the guide gives them (image, mount, workdir, entrypoint), and run the rest with
// the built CLI in a sample repository. The npx jobs run for real from the packed package, in
// package.test.ts, which installs it once.
import { readFile } from 'node:fs/promises';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import t from 'tap';
import { CLI, tempDir } from '../helpers/run-cli.js';
import { ciExamples, guideText, IMAGE, PACKAGE_VERSION, runScript, sampleRepository, shellCommands } from './ci-guide-examples.js';
import { runCheckCli } from './check-run.js';

const guide = await guideText();
const examples = ciExamples(guide);

// `docker run` as the guide writes it, checked, then the image's CLI run by the built one.
const SHIMS = `
shim_fail() { echo "docker shim: $*" >&2; return 90; }
docker() {
  [ "$1" = run ] || { shim_fail "only docker run"; return 90; }
  shift
  local image= workdir= mount= entry=
  while [ $# -gt 0 ]; do
    case "$1" in
      --rm) shift ;;
      -v) mount=$2; shift 2 ;;
      -w) workdir=$2; shift 2 ;;
      --entrypoint) entry=$2; shift 2 ;;
      -*) shim_fail "unexpected option $1"; return 90 ;;
      *) image=$1; shift; break ;;
    esac
  done
  [ "$image" = "$VP_IMAGE" ] || { shim_fail "image $image, not $VP_IMAGE"; return 90; }
  [ "$entry" = node ] && [ "$1" = /app/dist/cli/main.js ] || { shim_fail "entrypoint $entry $1"; return 90; }
  [ "$mount" = "$PWD:/work:ro" ] && [ "$workdir" = /work ] || { shim_fail "mount $mount, workdir $workdir"; return 90; }
  shift
  command node "$VP_CLI" "$@"
}
node() { if [ "$1" = /app/dist/cli/main.js ]; then shift; command node "$VP_CLI" "$@"; else command node "$@"; fi; }
version-policy() { command node "$VP_CLI" "$@"; }
`;

const env = { VP_CLI: CLI, VP_IMAGE: IMAGE };

t.test('the guide documents every flag of check --help, and its exit codes', async (t) => {
  const help = await runCheckCli(['check', '--help']);
  const flags = [...help.stdout.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1] ?? '');
  t.ok(flags.length >= 13, `flags read from --help: ${flags.join(' ')}`);
  const table = guide.slice(guide.indexOf('## Flags'), guide.indexOf('## Exit codes'));
  for (const flag of [...flags, '--version']) t.match(table, new RegExp(`\\| \`${flag}[ \`]`), `${flag} is in the flags table`);
  const codes = guide.slice(guide.indexOf('## Exit codes'), guide.indexOf('## Output'));
  t.same([...codes.matchAll(/^\| (\d) \|/gm)].map((m) => m[1]), ['0', '1', '2']);
});

t.test('the guide pins this package version and its image', async (t) => {
  const pins = [...guide.matchAll(/gardener-version-policy@([\w.-]+)/g)].map((m) => m[1]);
  const images = [...guide.matchAll(/ghcr\.io\/gardener-version-policy\/version-policy:([\w.-]+)/g)].map((m) => m[1]);
  t.ok(pins.length >= 4 && images.length >= 3);
  t.same([...new Set(pins)], [PACKAGE_VERSION]);
  t.same([...new Set(images)], [PACKAGE_VERSION]);
  t.same([...examples.keys()].sort(), ['github-image', 'github-npx', 'gitlab-image', 'gitlab-npx']);
  const gitlab = examples.get('gitlab-image')?.doc['version-policy'] as { image: { name: string; entrypoint: string[] } };
  t.same(gitlab.image, { name: IMAGE, entrypoint: [''] }, 'GitLab: the image as the job image, entrypoint cleared');
});

t.test('the image jobs run (shimmed, see the top of this file)', async (t) => {
  for (const name of ['github-image', 'gitlab-image']) {
    t.test(name, async (t) => {
      const repo = await sampleRepository(await tempDir(t));
      const [script = ''] = examples.get(name)?.scripts ?? [];
      const run = await runScript(SHIMS + script, repo.dir, env);
      t.equal(run.code, 0, `allowed change: exit 0\n${run.stderr}`);
      t.notMatch(run.stderr, /docker shim/);
      const verdicts = run.stdout.split('\n').filter((l) => /^(ALLOWED|DENIED|SKIPPED) /.test(l));
      if (name === 'github-image') {
        t.match(verdicts, [/^ALLOWED CloudProfile aws \(UPDATE\)/, /^ALLOWED CloudProfile gcp \(CREATE\)/, /^ALLOWED CloudProfile retired \(DELETE\) at \.old\/profiles\/retired\.yaml/, /^SKIPPED ConfigMap garden\/settings/]);
      } else {
        // No git in the image: the profiles as they are.
        t.match(verdicts, [/^ALLOWED CloudProfile aws \(CREATE\)/, /^ALLOWED CloudProfile gcp \(CREATE\)/, /^SKIPPED ConfigMap/]);
        const xml = await readFile(`${repo.dir}/version-policy.xml`, 'utf8');
        t.equal(XMLValidator.validate(xml), true, 'the JUnit report is written');
        t.match(new XMLParser({ ignoreAttributes: false }).parse(xml), { testsuites: { '@_tests': '3', '@_failures': '0', '@_skipped': '1' } });
      }
      if (name !== 'github-image') return; // one denial is enough to show the job fails on it
      await repo.commitDenied();
      const deniedRun = await runScript(SHIMS + script, repo.dir, env);
      t.equal(deniedRun.code, 1, 'a denied change fails the job');
      t.match(deniedRun.stdout, /^DENIED CloudProfile aws /m);
    });
  }
});

t.test("the guide's shell commands run in a repository with that history", async (t) => {
  const commands = shellCommands(guide).filter((c) => !c.startsWith('npx') && !c.includes('--cluster'));
  t.ok(commands.length >= 4, commands.join('\n'));
  const repo = await sampleRepository(await tempDir(t));
  for (const command of commands) {
    const run = await runScript(SHIMS + command, repo.dir, env);
    t.equal(run.code, 0, `${command}\n${run.stderr}`);
    t.match(run.stdout, /^\d+ objects?: [1-9]\d* allowed, 0 denied/m, `${command}: judged something`);
  }
});
