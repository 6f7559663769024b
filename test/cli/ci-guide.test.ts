// docs/ci.md holds what it shows: every flag of `check --help` is documented, the versions it
// names are this package's, and its commands run. The container-image jobs cannot run here (there
// is no Docker engine): bash shims stand in for `docker run` and for the image's `node`, check
// the arguments the guide gives them (image, mounts, workdir, user), and run the rest with the
// built CLI in a sample repository, against the demo state behind an API server. The npx jobs run
// for real from the packed package, in package-install.e2e.ts (npm run test:package).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import t, { type Test } from 'tap';
import { CLI, plainCommand, runPlainCommand, tempDir } from '../helpers/run-cli.js';
import { sarifProblems } from '../helpers/sarif-schema.js';
import {
  ciExamples,
  demoLandscape,
  guideText,
  IMAGE,
  lineOf,
  PACKAGE_VERSION,
  PATHS,
  runScript,
  sampleRepository,
  shellCommands,
} from './ci-guide-examples.js';
import { runCheckCli } from './check-run.js';

// Each job runs the CLI a few times per change: about 110 s at load 8 and 310 s at load 30, past
// tap's 300 s. The bound only tells a hang from a slow machine.
t.setTimeout(900_000);

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

t.test(
  'every job reads the landscape, requires it, names profiles/ on both sides, and masks no exit code',
  async (t) => {
    for (const [name, example] of examples) {
      const script = example.scripts.join('\n');
      t.match(script, /state export --cluster > landscape\.yaml/, `${name}: exports the landscape`);
      t.match(
        script,
        /check --state landscape\.yaml --require-state --old-(ref|root) \S+ --prune .*--junit version-policy\.xml profiles\/$/m,
        `${name}: one check against it, the folder on both sides of the change`,
      );
      if (name.startsWith('github'))
        t.match(script, /--output github --sarif version-policy\.sarif /, `${name}: annotations and SARIF`);
      t.notMatch(
        script,
        /\|\| *true|set \+e|ls-tree|\*\.yaml/,
        `${name}: nothing masks an exit code, nothing lists files`,
      );
    }
  },
);

/** The verdict lines of a job's log. */
const verdicts = (stdout: string) => stdout.split('\n').filter((l) => /^(ALLOWED|DENIED|SKIPPED) /.test(l));

t.test('the image jobs run (shimmed, see the top of this file) against the demo state', async (t) => {
  const landscape = await demoLandscape(t);
  t.jobs = 2; // the two jobs side by side: each is a dozen CLI runs
  for (const name of ['github-image', 'gitlab-image']) {
    t.test(name, async (t) => {
      const repo = await sampleRepository(await tempDir(t));
      const [script = ''] = [examples.get(name)?.scripts.join('\n') ?? ''];
      const jobEnv = { ...env, ...(name.startsWith('github') ? landscape.github : landscape.gitlab) };
      const github = name.startsWith('github');
      // GitLab's base is the merge request's; the second job runs in the same checkout, after the first.
      // A runner starts from a fresh checkout: the base checked out by the last run goes first.
      const run = async (extra: NodeJS.ProcessEnv = {}) => {
        await repo.git('worktree', 'remove', '--force', '.base').catch(() => undefined);
        return runScript(SHIMS + script, repo.dir, { ...jobEnv, CI_MERGE_REQUEST_DIFF_BASE_SHA: repo.base, ...extra });
      };

      const ok = await run();
      t.equal(ok.code, 0, `allowed change: exit 0\n${ok.stderr}`);
      t.notMatch(ok.stderr, /docker shim/);
      t.notMatch(ok.stdout, /not checked/, 'every rule judged: the state is there');
      t.match(verdicts(ok.stdout), [
        /^ALLOWED CloudProfile aws \(UPDATE\) at profiles\/aws\.yaml:/,
        /^ALLOWED CloudProfile azure \(CREATE\) at profiles\/azure\/new\/azure\.yaml:/,
        /^ALLOWED CloudProfile gcp \(UPDATE\) at profiles\/gcp\/gcp\.yaml:/,
        /^ALLOWED NamespacedCloudProfile garden-dev\/aws-extended \(UPDATE\) at profiles\/teams\/garden-dev\/aws-extended\.yaml:/,
        /^ALLOWED CloudProfile retired \(DELETE\) at \.base\/profiles\/retired\.yaml/,
        /^SKIPPED ConfigMap garden\/settings/,
      ]);
      t.equal(verdicts(ok.stdout).length, 6);
      t.match(
        await junit(repo.dir),
        { testsuites: { '@_failures': '0', '@_skipped': '1' } },
        'the JUnit report is written',
      );
      if (github) t.same(sarifProblems(await sarif(repo.dir)), [], 'the SARIF log validates');

      await repo.commitBroken();
      const broken = await run();
      t.equal(broken.code, 1, 'three broken profiles fail the job');
      t.match(
        broken.stdout,
        deniedFor('CloudProfile gcp', 'profiles/gcp/gcp.yaml', 'K8S-VERSIONS', 'spec.kubernetes.versions[2].version'),
      );
      t.match(
        broken.stdout,
        deniedFor(
          'NamespacedCloudProfile garden-dev/aws-extended',
          'profiles/teams/garden-dev/aws-extended.yaml',
          'NCP-OVERRIDES',
          '',
        ),
      );
      t.match(broken.stdout, deniedFor('CloudProfile aws', 'profiles/aws.yaml', 'IN-USE', 'spec.kubernetes.versions'));
      t.notMatch(
        broken.stdout,
        /(gcp|aws-extended) \(DELETE\)|\[IN-USE\][^\n]*aws-extended/,
        'no object passes as a DELETE, none is denied for the wrong rule',
      );
      t.match(await junit(repo.dir), { testsuites: { '@_failures': '3' } }, 'the report has the denials');
      if (github) await annotationsAndSarif(t, repo.dir, broken.stdout);

      const stateless = await run({ VERSION_POLICY_KUBECONFIG: '' });
      t.not(stateless.code, 0, 'without the landscape the job fails, it never passes');
    });
  }
});

/** `DENIED <object> (UPDATE) at <file>:…` followed by a violation of `rule` on `field`. */
function deniedFor(object: string, file: string, rule: string, field: string): RegExp {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return new RegExp(
    `^DENIED ${esc(object)} \\(UPDATE\\) at ${esc(file)}:[^\\n]*\\n(?: {2}[^\\n]*\\n)*? {2}\\[${rule}\\] ${esc(field)}`,
    'm',
  );
}

/** The annotations and the SARIF log put each denial on the line of the entry that causes it. */
async function annotationsAndSarif(t: Test, dir: string, stdout: string): Promise<void> {
  const gcpText = await readFile(join(dir, PATHS.gcp), 'utf8');
  const ncpText = await readFile(join(dir, PATHS.extended), 'utf8');
  const awsText = await readFile(join(dir, PATHS.aws), 'utf8');
  const expected = [
    { rule: 'K8S-VERSIONS', file: PATHS.gcp, line: lineOf(gcpText, 'version: 1.31.5', 2) },
    { rule: 'NCP-OVERRIDES', file: PATHS.extended, line: lineOf(ncpText, 'version: 1.29.9') },
    { rule: 'IN-USE', file: PATHS.aws, line: lineOf(awsText, '    versions:') },
  ];
  for (const e of expected) {
    t.match(
      stdout,
      new RegExp(`^::error file=${e.file.replace(/[./]/g, '\\$&')},line=${e.line},title=\\[${e.rule}\\] `, 'm'),
      `${e.rule}: an annotation on ${e.file}:${e.line}, the line of the entry`,
    );
  }
  const log = await sarif(dir);
  t.same(sarifProblems(log), [], 'the SARIF log validates against the SARIF 2.1.0 schema');
  const results = (log as { runs: Array<{ results: SarifResult[] }> }).runs[0]?.results ?? [];
  t.same(
    results
      .filter((r) => r.level === 'error')
      .map((r) => ({
        rule: r.ruleId,
        file: r.locations[0]?.physicalLocation.artifactLocation.uri,
        line: r.locations[0]?.physicalLocation.region.startLine,
      }))
      .sort((a, b) => a.rule.localeCompare(b.rule)),
    expected.sort((a, b) => a.rule.localeCompare(b.rule)),
    'SARIF: each denial at its file and line',
  );
}

interface SarifResult {
  ruleId: string;
  level: string;
  locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }>;
}

async function sarif(dir: string): Promise<unknown> {
  return JSON.parse(await readFile(join(dir, 'version-policy.sarif'), 'utf8')) as unknown;
}

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
  t.ok(commands.length >= 5, commands.join('\n'));
  t.ok(
    commands.some((c) => c.includes("'profiles/**/*.yaml'")),
    'a quoted glob',
  );
  t.ok(
    commands.some((c) => c.startsWith('version-policy forecast ') && c.includes('--fail-on')),
    'a forecast gate',
  );
  const repo = await sampleRepository(await tempDir(t));
  // What `state export` would have written: the demo landscape.
  await writeFile(
    join(repo.dir, 'landscape.yaml'),
    await readFile(new URL('../fixtures/demo-state.yaml', import.meta.url)),
  );
  for (const command of commands) {
    const run = await (plainCommand(command)
      ? runPlainCommand(command, repo.dir)
      : runScript(SHIMS + command, repo.dir, env));
    t.equal(run.code, 0, `${command}\n${run.stderr}`);
    if (command.startsWith('version-policy forecast '))
      t.match(run.stdout, /^Changes of the proposed profile, /, `${command}: forecast the proposal`);
    else t.match(run.stdout, /^\d+ objects?: [1-9]\d* allowed, 0 denied/m, `${command}: judged something`);
  }
  const both = commands.filter((c) => /--old-ref \S+ --prune /.test(c));
  t.ok(both.length >= 2, 'folder and glob, against a revision');
  for (const command of both) {
    const run = await runScript(SHIMS + command, repo.dir, env);
    for (const re of [/azure \(CREATE\)/, /gcp \(UPDATE\)/, /aws-extended \(UPDATE\)/, /retired \(DELETE\)/])
      t.ok(
        verdicts(run.stdout).some((v) => re.test(v)),
        `${command}: ${re.source}: nested files found on both sides, the removed one a DELETE`,
      );
  }
});
