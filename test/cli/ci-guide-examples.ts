// The CI guide's examples as data, and a repository to run them in. docs/ci.md marks each job
// with `<!-- ci-example: NAME -->` before its YAML; the shell each job runs (GitHub's `run:`,
// GitLab's `script:`) is run by bash as those runners run it (`-eo pipefail`). Steps that use an
// action (checkout, setup-node, the report upload) cannot run here: the repository made below
// stands in for what checkout leaves, with the history the jobs fetch.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Test } from 'tap';
import { parse } from 'yaml';
import { readObjectFile } from '../../src/cluster/object-files.js';
import { FakeApiServer } from '../helpers/fake-apiserver.js';
import { cloudProfile, namespacedProfile } from '../helpers/objects.js';
import { CLEAN_ENV, untracked, yamlDocs } from '../helpers/run-cli.js';

const exec = promisify(execFile);

export const GUIDE = new URL('../../docs/ci.md', import.meta.url);
export const PACKAGE_VERSION = (
  JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
/** What a CI variable names as the image built from the Dockerfile. */
export const IMAGE = `registry.example.com/platform/version-policy:${PACKAGE_VERSION}`;

export interface CiExample {
  name: string;
  /** The job definition as YAML parsed it. */
  doc: Record<string, unknown>;
  /** The shell scripts the job runs, in order. */
  scripts: string[];
}

export async function guideText(): Promise<string> {
  return readFile(GUIDE, 'utf8');
}

/** Every marked example of the guide, by name. */
export function ciExamples(markdown: string): Map<string, CiExample> {
  const out = new Map<string, CiExample>();
  for (const m of markdown.matchAll(/<!-- ci-example: ([\w-]+) -->\n```yaml\n([\s\S]*?)\n```/g)) {
    const [, name = '', text = ''] = m;
    const doc = parse(text) as Record<string, unknown>;
    out.set(name, { name, doc, scripts: name.startsWith('github') ? githubRuns(doc) : gitlabScripts(doc) });
  }
  return out;
}

function githubRuns(doc: Record<string, unknown>): string[] {
  const jobs = Object.values(doc.jobs as Record<string, { steps: Array<{ run?: string }> }>);
  return jobs.flatMap((j) => j.steps.flatMap((s) => (s.run ? [s.run] : [])));
}

/** GitLab runs a job's `script` entries one after another in one shell. */
function gitlabScripts(doc: Record<string, unknown>): string[] {
  return Object.values(doc).flatMap((job) =>
    (job as { script?: string[] }).script ? [(job as { script: string[] }).script.join('\n')] : [],
  );
}

/** The commands of the guide's `sh` blocks, continuation lines joined, comments dropped. */
export function shellCommands(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)\n```/g)]
    .flatMap((m) => (m[1] ?? '').replace(/\\\n\s*/g, ' ').split('\n'))
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

const DEMO_AWS = await readFile(new URL('../fixtures/demo-aws.yaml', import.meta.url), 'utf8');
/** The demo profile in git, and a change of it: 1.30.14 goes, which no Shoot of the demo state runs. */
export const before = DEMO_AWS;
export const after = withoutVersion(DEMO_AWS, '1.30.14');
/** 1.31.7 goes too: the control plane of garden-dev/dev-cluster and a pool of garden-prod/payments run it. */
export const inUseRemoved = withoutVersion(after, '1.31.7');
export const retired = cloudProfile({ name: 'retired', kubernetes: ['1.31.0'] });
export const gcp = cloudProfile({ name: 'gcp', kubernetes: ['1.31.0', '1.31.5'] });
export const azure = cloudProfile({ name: 'azure', kubernetes: ['1.31.0'] });
export const denied = cloudProfile({ name: 'aws', kubernetes: ['1.31.0', 'v1.32.0'] });
/** The demo state's NamespacedCloudProfile, as its team keeps it in git. */
export const extended = namespacedProfile({
  name: 'aws-extended',
  namespace: 'garden-dev',
  parent: 'aws',
  kubernetes: [{ version: '1.32.3', expirationDate: '2027-06-30T23:59:59Z' }],
});
/** Its override of a version the parent does not have: NCP-OVERRIDES denies it. */
export const badOverride = namespacedProfile({
  ...{ name: 'aws-extended', namespace: 'garden-dev', parent: 'aws' },
  kubernetes: [
    { version: '1.32.3', expirationDate: '2027-06-30T23:59:59Z' },
    { version: '1.29.9', expirationDate: '2027-06-30T23:59:59Z' },
  ],
});

/** gcp with 1.31.5 listed twice. */
export const duplicated = cloudProfile({ name: 'gcp', kubernetes: ['1.31.0', '1.31.5', '1.31.5'] });

/** The 1-based line of the `n`th line of `text` that contains `needle`. */
export function lineOf(text: string, needle: string, n = 1): number {
  const lines = text.split('\n');
  let seen = 0;
  const i = lines.findIndex((l) => l.includes(needle) && ++seen === n);
  if (i < 0) throw new Error(`no ${n}th line with ${needle}`);
  return i + 1;
}

/** The demo profile's text without one Kubernetes version (its three lines). */
function withoutVersion(text: string, version: string): string {
  const out = text.replace(
    new RegExp(`\\n {6}- version: ${version.replace(/\./g, '\\.')}\\n(?: {8}[^\\n]*\\n){2}`),
    '\n',
  );
  if (out === text) throw new Error(`demo-aws.yaml has no ${version}`);
  return out;
}
const settings = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'garden' },
  data: { note: 'not a profile' },
};

export interface SampleRepository {
  dir: string;
  /** The commit the change starts from (a merge request's base). */
  base: string;
  git(...args: string[]): Promise<string>;
  /** Adds a commit whose aws.yaml adds a version that K8S-VERSIONS denies. */
  commitDenied(): Promise<void>;
  /** Adds a commit whose aws.yaml removes 1.31.7, which Shoots of the demo state run. */
  commitInUseRemoval(): Promise<void>;
  /**
   * Adds a commit that breaks three profiles, each for its own rule: profiles/gcp/gcp.yaml lists a
   * version twice (K8S-VERSIONS; issue 35 saw it pass as a DELETE), the NamespacedCloudProfile two
   * folders down overrides a version its parent lacks (NCP-OVERRIDES, not IN-USE), and aws.yaml
   * removes 1.31.7, which Shoots run (IN-USE).
   */
  commitBroken(): Promise<void>;
}

const GIT_ENV = {
  ...CLEAN_ENV,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};

/** Where the sample repository keeps each profile: folders below profiles/, as GitOps repositories do. */
export const PATHS = {
  aws: 'profiles/aws.yaml',
  retired: 'profiles/retired.yaml',
  gcp: 'profiles/gcp/gcp.yaml',
  azure: 'profiles/azure/new/azure.yaml',
  extended: 'profiles/teams/garden-dev/aws-extended.yaml',
};

/**
 * A profiles repository with nested folders and one change: the demo profile aws drops 1.30.14,
 * which no Shoot of the demo state runs, and gains a ConfigMap beside it; azure is new, two
 * folders down; retired.yaml is deleted; gcp (in profiles/gcp/) and the team's NamespacedCloudProfile
 * (in profiles/teams/garden-dev/) stay. Every object of it is allowed, against the demo state and
 * without a state (with notes). `origin/main` points at the base, as after `git fetch`.
 * `baseFiles` go into the base commit too.
 */
export async function sampleRepository(dir: string, baseFiles: Record<string, string> = {}): Promise<SampleRepository> {
  const git = async (...args: string[]) => (await exec('git', args, { cwd: dir, env: GIT_ENV })).stdout;
  const write = async (files: Record<string, string>) => {
    for (const [name, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, name)), { recursive: true });
      await writeFile(join(dir, name), text);
    }
  };
  await git('init', '-q', '-b', 'main');
  await write({
    ...baseFiles,
    [PATHS.aws]: before,
    [PATHS.retired]: yamlDocs(retired),
    [PATHS.gcp]: yamlDocs(gcp),
    [PATHS.extended]: yamlDocs(extended),
  });
  await git('add', '.');
  await git('commit', '-qm', 'base');
  const base = (await git('rev-parse', 'HEAD')).trim();
  await git('update-ref', 'refs/remotes/origin/main', base);
  await rm(join(dir, PATHS.retired));
  await write({ [PATHS.aws]: `${after}---\n${yamlDocs(settings)}`, [PATHS.azure]: yamlDocs(azure) });
  await git('add', '-A', 'profiles');
  await git('commit', '-qm', 'change');
  const commit = async (files: Record<string, string>, message: string) => {
    await write(files);
    await git('commit', '-qam', message);
  };
  return {
    dir,
    base,
    git,
    commitDenied: () => commit({ [PATHS.aws]: yamlDocs(denied, settings) }, 'denied'),
    commitInUseRemoval: () => commit({ [PATHS.aws]: `${inUseRemoved}---\n${yamlDocs(settings)}` }, 'in use'),
    commitBroken: () =>
      commit(
        {
          [PATHS.gcp]: yamlDocs(duplicated),
          [PATHS.extended]: yamlDocs(badOverride),
          [PATHS.aws]: `${inUseRemoved}---\n${yamlDocs(settings)}`,
        },
        'broken',
      ),
  };
}

export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a job's script as GitHub's and GitLab's runners run bash: errexit and pipefail. */
export function runScript(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<ScriptRun> {
  return new Promise((resolve) => {
    execFile(
      ...untracked('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script]),
      { cwd, env: { ...GIT_ENV, ...env }, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr });
      },
    );
  });
}

/**
 * The demo state behind an API server (the fake one: no kube-apiserver runs here), and the CI
 * variables that reach it as the guide's jobs read them: GitHub's secret holds the kubeconfig's
 * text and the job writes it under $RUNNER_TEMP; GitLab's File variable is the file's path.
 */
export async function demoLandscape(t: Test): Promise<{ github: NodeJS.ProcessEnv; gitlab: NodeJS.ProcessEnv }> {
  const fake = await FakeApiServer.start();
  t.teardown(() => fake.close());
  for (const o of await readObjectFile(fileURLToPath(new URL('../fixtures/demo-state.yaml', import.meta.url))))
    fake.add(o.object);
  const runnerTemp = await mkdtemp(join(tmpdir(), 'runner-temp-'));
  t.teardown(() => rm(runnerTemp, { recursive: true, force: true }));
  return {
    github: { VERSION_POLICY_KUBECONFIG: await readFile(fake.kubeconfigPath, 'utf8'), RUNNER_TEMP: runnerTemp },
    gitlab: { VERSION_POLICY_KUBECONFIG: fake.kubeconfigPath },
  };
}
