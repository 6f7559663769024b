// The CI guide's examples as data, and a repository to run them in. docs/ci.md marks each job
// with `<!-- ci-example: NAME -->` before its YAML; the shell each job runs (GitHub's `run:`,
// GitLab's `script:`) is run by bash as those runners run it (`-eo pipefail`). Steps that use an
// action (checkout, setup-node, the report upload) cannot run here: the repository made below
// stands in for what checkout leaves, with the history the jobs fetch.
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { cloudProfile } from '../helpers/objects.js';
import { CLEAN_ENV, yamlDocs } from '../helpers/run-cli.js';

const exec = promisify(execFile);

export const GUIDE = new URL('../../docs/ci.md', import.meta.url);
export const PACKAGE_VERSION = (JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
export const IMAGE = `ghcr.io/gardener-version-policy/version-policy:${PACKAGE_VERSION}`;

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
  return Object.values(doc).flatMap((job) => ((job as { script?: string[] }).script ? [(job as { script: string[] }).script.join('\n')] : []));
}

/** The commands of the guide's `sh` blocks, continuation lines joined, comments dropped. */
export function shellCommands(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)\n```/g)]
    .flatMap((m) => (m[1] ?? '').replace(/\\\n\s*/g, ' ').split('\n'))
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

export const before = cloudProfile({ name: 'aws', kubernetes: ['1.30.0', '1.31.0'] });
export const after = cloudProfile({ name: 'aws', kubernetes: ['1.31.0'] });
export const retired = cloudProfile({ name: 'retired', kubernetes: ['1.31.0'] });
export const gcp = cloudProfile({ name: 'gcp', kubernetes: ['1.31.0'] });
export const denied = cloudProfile({ name: 'aws', kubernetes: ['1.31.0', 'v1.32.0'] });
const settings = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'garden' }, data: { note: 'not a profile' } };

export interface SampleRepository {
  dir: string;
  /** The commit the change starts from (a merge request's base). */
  base: string;
  git(...args: string[]): Promise<string>;
  /** Adds a commit whose aws.yaml adds a version that K8S-VERSIONS denies. */
  commitDenied(): Promise<void>;
}

const GIT_ENV = { ...CLEAN_ENV, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };

/**
 * A profiles repository with one change: aws drops 1.30.0 and gains a ConfigMap beside it, gcp is
 * new, retired.yaml is deleted. Every object of it is allowed (without a state, with notes).
 * `origin/main` points at the base, as after `git fetch`. `baseFiles` go into the base commit too.
 */
export async function sampleRepository(dir: string, baseFiles: Record<string, string> = {}): Promise<SampleRepository> {
  const git = async (...args: string[]) => (await exec('git', args, { cwd: dir, env: GIT_ENV })).stdout;
  const write = async (files: Record<string, string>) => {
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  };
  await mkdir(join(dir, 'profiles'), { recursive: true });
  await git('init', '-q', '-b', 'main');
  await write({ ...baseFiles, 'profiles/aws.yaml': yamlDocs(before), 'profiles/retired.yaml': yamlDocs(retired) });
  await git('add', '.');
  await git('commit', '-qm', 'base');
  const base = (await git('rev-parse', 'HEAD')).trim();
  await git('update-ref', 'refs/remotes/origin/main', base);
  await rm(join(dir, 'profiles/retired.yaml'));
  await write({ 'profiles/aws.yaml': yamlDocs(after, settings), 'profiles/gcp.yaml': yamlDocs(gcp) });
  await git('add', '-A', 'profiles');
  await git('commit', '-qm', 'change');
  return {
    dir,
    base,
    git,
    commitDenied: async () => {
      await write({ 'profiles/aws.yaml': yamlDocs(denied, settings) });
      await git('commit', '-qam', 'denied');
    },
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
    execFile('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env: { ...GIT_ENV, ...env }, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr });
    });
  });
}
