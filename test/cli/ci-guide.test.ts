// docs/ci.md holds what it shows: every flag of `check --help` is documented, the versions it
// names are this package's, and its commands run. The container-image jobs cannot run here (there
// is no Docker engine): bash shims stand in for `docker run` and for the image's `node`, check
// the arguments the guide gives them (image, mounts, workdir, user), and run the rest with the
// built CLI in a sample repository, against the demo state behind an API server. The npx jobs run
// for real from the packed package, in package-install.e2e.ts (npm run test:package).
import { readFile } from 'node:fs/promises';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import t from 'tap';
import { CLI, plainCommand, runPlainCommand, tempDir } from '../helpers/run-cli.js';
import {
  ciExamples,
  demoLandscape,
  guideText,
  IMAGE,
  PACKAGE_VERSION,
  runScript,
  sampleRepository,
  shellCommands,
} from './ci-guide-examples.js';
import { runCheckCli } from './check-run.js';

// Each job runs the CLI a few times per change; on a shared machine that is more than tap's default.
t.setTimeout(300_000);

const guide = await guideText();
const examples = ciExamples(guide);

// `docker run` as the guide writes it, checked, then the image's ENTRYPOINT (the CLI) run by the
// built one: each mount's target stands for its source here (an -e value naming a mount target
// becomes the source), the workdir must be $PWD mounted, and a run that writes a report into it
// must run as the runner's user on a writable mount.
const SHIMS = `
shim_fail() { echo "docker shim: $*" >&2; return 90; }
docker() {
  [ "$1" = run ] || { shim_fail "only docker run"; return 90; }
  shift
  local image= workdir= user= m e k v src dst rest
  local -a mounts=() envs=() pass=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --rm) shift ;;
      -v) mounts+=("$2"); shift 2 ;;
      -e) envs+=("$2"); shift 2 ;;
      -w) workdir=$2; shift 2 ;;
      --user) user=$2; shift 2 ;;
      -*) shim_fail "unexpected option $1"; return 90 ;;
      *) image=$1; shift; break ;;
    esac
  done
  [ "$image" = "$VERSION_POLICY_IMAGE" ] || { shim_fail "image $image, not \\$VERSION_POLICY_IMAGE"; return 90; }
  for e in "\${envs[@]}"; do
    k=\${e%%=*}; v=\${e#*=}
    for m in "\${mounts[@]}"; do src=\${m%%:*}; rest=\${m#*:}; dst=\${rest%%:*}; [ "$v" = "$dst" ] && v=$src; done
    [ -e "$v" ] || { shim_fail "-e $e: nothing mounted there"; return 90; }
    pass+=("$k=$v")
  done
  if [ -n "$workdir" ]; then
    case " \${mounts[*]} " in *" $PWD:$workdir "*|*" $PWD:$workdir:ro "*) ;; *) shim_fail "workdir $workdir is not \\$PWD mounted"; return 90 ;; esac
  fi
  case " $* " in *" --junit "*)
    [ "$user" = "$(id -u):$(id -g)" ] || { shim_fail "a report written as UID 1000 into the runner's checkout: --user $user"; return 90; }
    case " \${mounts[*]} " in *" $PWD:$workdir "*) ;; *) shim_fail "the report needs a writable mount"; return 90 ;; esac ;;
  esac
  command env "\${pass[@]}" "$VP_NODE" "$VP_CLI" "$@"
}
node() { if [ "$1" = /app/dist/cli/main.js ]; then shift; command "$VP_NODE" "$VP_CLI" "$@"; else command node "$@"; fi; }
version-policy() { command "$VP_NODE" "$VP_CLI" "$@"; }
`;

const env = { VP_CLI: CLI, VP_NODE: process.execPath, VERSION_POLICY_IMAGE: IMAGE };

t.test('the guide documents every flag of check --help, and its exit codes', async (t) => {
  const help = await runCheckCli(['check', '--help']);
  const flags = [...help.stdout.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1] ?? '');
  t.ok(flags.length >= 13, `flags read from --help: ${flags.join(' ')}`);
  const table = guide.slice(guide.indexOf('## Flags'), guide.indexOf('## Exit codes'));
  for (const flag of [...flags, '--version'])
    t.match(table, new RegExp(`\\| \`${flag}[ \`]`), `${flag} is in the flags table`);
  const codes = guide.slice(guide.indexOf('## Exit codes'), guide.indexOf('## Output'));
  t.same(
    [...codes.matchAll(/^\| (\d) \|/gm)].map((m) => m[1]),
    ['0', '1', '2'],
  );
});

t.test('the guide says the package is not published, and names this version', async (t) => {
  t.match(guide, /\*\*Not published yet\.\*\* Neither the npm package nor a container image is published/);
  t.notMatch(guide, /gardener-version-policy@|ghcr\.io/, 'no install line that cannot work today');
  const tarballs = [...guide.matchAll(/gardener-version-policy-([\w.-]+?)\.tgz/g)].map((m) => m[1]);
  const images = [...guide.matchAll(/version-policy:(\d[\w.-]*)/g)].map((m) => m[1]);
  t.ok(tarballs.length >= 2 && images.length >= 2);
  t.same([...new Set([...tarballs, ...images])], [PACKAGE_VERSION]);
  t.same([...examples.keys()].sort(), ['github-image', 'github-npx', 'gitlab-image', 'gitlab-npx']);
  const gitlab = examples.get('gitlab-image')?.doc['version-policy'] as {
    image: { name: string; entrypoint: string[] };
  };
  t.same(
    gitlab.image,
    { name: '$VERSION_POLICY_IMAGE', entrypoint: [''] },
    'GitLab: the image as the job image, entrypoint cleared',
  );
});

t.test('every job reads the landscape, requires it, and writes the report without masking the exit code', async (t) => {
  for (const [name, example] of examples) {
    const script = example.scripts.join('\n');
    t.match(script, /state export --cluster > landscape\.yaml/, `${name}: exports the landscape`);
    t.match(
      script,
      /check --state landscape\.yaml --require-state --junit version-policy\.xml /,
      `${name}: one check against it`,
    );
    t.notMatch(script, /\|\| *true|set \+e/, `${name}: nothing masks an exit code`);
  }
});

t.test('the image jobs run (shimmed, see the top of this file) against the demo state', async (t) => {
  const landscape = await demoLandscape(t);
  t.jobs = 2; // the two jobs side by side: each is a dozen CLI runs
  for (const name of ['github-image', 'gitlab-image']) {
    t.test(name, async (t) => {
      const repo = await sampleRepository(await tempDir(t));
      const [script = ''] = examples.get(name)?.scripts ?? [];
      const jobEnv = { ...env, ...(name.startsWith('github') ? landscape.github : landscape.gitlab) };
      const run = await runScript(SHIMS + script, repo.dir, jobEnv);
      t.equal(run.code, 0, `allowed change: exit 0\n${run.stderr}`);
      t.notMatch(run.stderr, /docker shim/);
      t.notMatch(run.stdout, /not checked/, 'every rule judged: the state is there');
      const verdicts = run.stdout.split('\n').filter((l) => /^(ALLOWED|DENIED|SKIPPED) /.test(l));
      if (name === 'github-image') {
        t.match(verdicts, [
          /^ALLOWED CloudProfile aws \(UPDATE\)/,
          /^ALLOWED CloudProfile gcp \(CREATE\)/,
          /^ALLOWED CloudProfile retired \(DELETE\) at \.old\/profiles\/retired\.yaml/,
          /^SKIPPED ConfigMap garden\/settings/,
        ]);
      } else {
        // No git in the image: the profiles as they are, aws an UPDATE of the stored one.
        t.match(verdicts, [
          /^ALLOWED CloudProfile aws \(UPDATE\)/,
          /^ALLOWED CloudProfile gcp \(CREATE\)/,
          /^SKIPPED ConfigMap/,
        ]);
      }
      const report = await junit(repo.dir);
      t.match(report, { testsuites: { '@_failures': '0', '@_skipped': '1' } }, 'the JUnit report is written');

      await repo.commitInUseRemoval();
      const inUse = await runScript(SHIMS + script, repo.dir, jobEnv);
      t.equal(inUse.code, 1, 'removing a version Shoots run fails the job');
      t.match(
        inUse.stdout,
        /^DENIED CloudProfile aws \(UPDATE\)[^\n]*\n {2}\[IN-USE\] spec\.kubernetes\.versions: unable to delete Kubernetes version "1\.31\.7" from CloudProfile "aws" - version is still in use by shoot 'garden-dev\/dev-cluster', shoot 'garden-prod\/payments'/m,
      );
      t.match(await junit(repo.dir), { testsuites: { '@_failures': '1' } }, 'the report has the denial');

      const stateless = await runScript(SHIMS + script, repo.dir, { ...jobEnv, VERSION_POLICY_KUBECONFIG: '' });
      t.not(stateless.code, 0, 'without the landscape the job fails, it never passes');
    });
  }
});

async function junit(dir: string): Promise<unknown> {
  const xml = await readFile(`${dir}/version-policy.xml`, 'utf8');
  if (XMLValidator.validate(xml) !== true) throw new Error(`not XML: ${xml}`);
  return new XMLParser({ ignoreAttributes: false }).parse(xml) as unknown;
}

t.test("the guide's shell commands run in a repository with that history", async (t) => {
  // Making the tarball and the image is package.test.ts's part, and the image test's.
  const commands = shellCommands(guide).filter(
    (c) => !/^(npx|npm ci|docker build)/.test(c) && !c.includes('--cluster'),
  );
  t.ok(commands.length >= 3, commands.join('\n'));
  const repo = await sampleRepository(await tempDir(t));
  for (const command of commands) {
    const run = await (plainCommand(command)
      ? runPlainCommand(command, repo.dir)
      : runScript(SHIMS + command, repo.dir, env));
    t.equal(run.code, 0, `${command}\n${run.stderr}`);
    t.match(run.stdout, /^\d+ objects?: [1-9]\d* allowed, 0 denied/m, `${command}: judged something`);
  }
});
