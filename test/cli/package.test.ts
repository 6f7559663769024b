// The package installs and runs: `npm pack` ships dist/, the README, docs/ and LICENSE and nothing
// else; the tarball installs into an empty project (its dependencies come from the registry: one
// install per run, the slow part of this file), where `npx version-policy` runs, and so do the
// npx jobs of docs/ci.md from the tarball, against the demo state behind an API server, npm kept
// offline so that npx can only use the tarball and the registry packages installed here.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, readFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import t from 'tap';
import { CLEAN_ENV, tempDir } from '../helpers/run-cli.js';
import { ciExamples, demoLandscape, guideText, PACKAGE_VERSION, runScript, sampleRepository } from './ci-guide-examples.js';

// Registry downloads, and four CI jobs of a few CLI runs each, on a shared machine: more than
// tap's default per file.
t.setTimeout(480_000);

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Node 22 first on PATH: npm and npx start `node` from there.
const ENV = { ...CLEAN_ENV, PATH: `${dirname(process.execPath)}:${CLEAN_ENV.PATH ?? ''}`, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = ENV): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr }));
  });
}

const packDir = await tempDir(t);
// dist/ is built by `npm test` before tap; --ignore-scripts keeps prepack from rebuilding it under the other tests' feet.
const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packDir], ROOT);
const manifest = (JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>)[0];
const files = manifest?.files.map((f) => f.path) ?? [];

t.test('npm pack ships dist/, the README, docs/, LICENSE and the pages the docs link to, and nothing else', async (t) => {
  t.equal(packed.code, 0, packed.stderr);
  const stray = files.filter((f) => !/^(package\.json|README\.md|LICENSE|dist\/.+\.js|docs\/.+|certs\/README\.md|charts\/version-policy\/README\.md|bench\/(RESULTS|NOTES)\.md)$/.test(f));
  t.same(stray, [], 'no tests, sources, maps, certificates or charts');
  for (const wanted of ['package.json', 'README.md', 'LICENSE', 'dist/cli/main.js', 'docs/ci.md']) t.ok(files.includes(wanted), wanted);
  const stale: string[] = [];
  for (const f of files.filter((f) => f.startsWith('dist/'))) {
    try {
      await access(join(ROOT, 'src', f.slice('dist/'.length).replace(/\.js$/, '.ts')));
    } catch {
      stale.push(f);
    }
  }
  t.same(stale, [], 'every file in dist/ is built from a source of today (rebuild dist/ if not)');
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  t.equal(pkg.private, undefined, 'publishable');
  t.match(pkg.repository, { type: 'git', url: /^git\+https:\/\/github\.com\// }, 'npm shows where it comes from');
  // Every relative link of a shipped page leads to a shipped file: the tarball's docs hold up on their own.
  const dangling: string[] = [];
  for (const page of files.filter((f) => f.endsWith('.md'))) {
    const text = await readFile(join(ROOT, page), 'utf8');
    for (const [, href = ''] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/.test(href)) continue;
      const target = posix.normalize(posix.join(posix.dirname(page), href)).replace(/\/$/, '');
      if (!files.some((f) => f === target || f.startsWith(`${target}/`))) dangling.push(`${page}: ${href}`);
    }
  }
  t.same(dangling, [], 'no link of the packed docs points at a file the tarball lacks');
  t.same(pkg.bin, { 'version-policy': 'dist/cli/main.js' });
});

t.test('LICENSE is the Apache License 2.0 that package.json names, verbatim', async (t) => {
  const text = await readFile(join(ROOT, 'LICENSE'), 'utf8');
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { license: string };
  t.equal(pkg.license, 'Apache-2.0');
  t.match(text, /^ +Apache License\n +Version 2\.0, January 2004\n +http:\/\/www\.apache\.org\/licenses\/\n/);
  t.match(text, /\n {3}END OF TERMS AND CONDITIONS\n/);
  // The standard text as the Apache Software Foundation publishes it (its appendix placeholders included).
  t.equal(createHash('sha256').update(text).digest('hex').slice(0, 16), 'c71d239df91726fc');
});

t.test('the tarball installs into an empty project, and its CLI and the npx jobs of the CI guide run', async (t) => {
  // A project of its own, so that npm installs here; node_modules stays out of git.
  const repo = await sampleRepository(await tempDir(t), { 'package.json': '{"private": true}\n', '.gitignore': 'node_modules/\npackage-lock.json\n' });
  const tarball = join(packDir, manifest?.filename ?? 'missing.tgz');
  const install = await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', tarball], repo.dir);
  t.equal(install.code, 0, `npm install ${tarball}\n${install.stderr}`);
  if (install.code !== 0) return;
  const offline = { ...ENV, npm_config_offline: 'true' };

  const [version, check] = await Promise.all([
    run('npx', ['version-policy', '--version'], repo.dir, offline),
    run('npx', ['version-policy', 'check', '--old', 'HEAD~1:profiles/aws.yaml', 'profiles/aws.yaml'], repo.dir, offline),
  ]);
  t.equal(version.stdout, `${PACKAGE_VERSION}\n`, 'npx version-policy --version');
  t.equal(check.code, 0, check.stderr);
  t.match(check.stdout, /^ALLOWED CloudProfile aws \(UPDATE\) at profiles\/aws\.yaml:3 \(document 1\)\n {2}note: IN-USE was not checked/);

  const guide = await guideText();
  const examples = ciExamples(guide);
  const landscape = await demoLandscape(t);
  // HEAD~1 is the base of the change, as on GitHub's merge commit; GitLab names it. The package is
  // the tarball, as the guide says until it is published.
  const ciEnv = { ...offline, CI_MERGE_REQUEST_DIFF_BASE_SHA: repo.base, VERSION_POLICY_PACKAGE: tarball };
  const jobEnv = (name: string) => ({ ...ciEnv, ...(name.startsWith('github') ? landscape.github : landscape.gitlab) });
  for (const name of ['github-npx', 'gitlab-npx']) {
    const [script = ''] = examples.get(name)?.scripts ?? [];
    const job = await runScript(script, repo.dir, jobEnv(name));
    t.equal(job.code, 0, `${name}: the allowed change passes\n${job.stderr}`);
    t.match(
      job.stdout,
      /^ALLOWED CloudProfile aws \(UPDATE\)[^\n]*\n(?: {2}[^\n]*\n)*ALLOWED CloudProfile gcp \(CREATE\)[^\n]*\n(?: {2}[^\n]*\n)*ALLOWED CloudProfile retired \(DELETE\)[\s\S]*^SKIPPED ConfigMap garden\/settings/m,
      `${name}: the UPDATE, the new profile, the removed one and the ConfigMap beside it`,
    );
    t.notMatch(job.stdout, /not checked/, `${name}: judged against the landscape`);
    const xml = await readFile(join(repo.dir, 'version-policy.xml'), 'utf8');
    t.equal(XMLValidator.validate(xml), true, `${name}: the JUnit report`);
    t.match(new XMLParser({ ignoreAttributes: false }).parse(xml), { testsuites: { '@_tests': '4', '@_failures': '0', '@_skipped': '1' } });
  }
  const installing = guide.slice(guide.indexOf('**Not published yet.**'), guide.indexOf('## What it reads'));
  t.match(installing, `npm ci && npm pack   # ${manifest?.filename}`, 'the guide names the tarball npm pack makes');

  // Both jobs compare with the base commit: the new commit's removal is in their change too.
  await repo.commitInUseRemoval();
  for (const name of ['github-npx', 'gitlab-npx']) {
    const [script = ''] = examples.get(name)?.scripts ?? [];
    const job = await runScript(script, repo.dir, jobEnv(name));
    t.equal(job.code, 1, `${name}: removing a version Shoots run fails the job`);
    t.match(job.stdout, /^DENIED CloudProfile aws \(UPDATE\)[^\n]*\n {2}\[IN-USE\] spec\.kubernetes\.versions: unable to delete Kubernetes version "1\.31\.7"/m);
    const xml = await readFile(join(repo.dir, 'version-policy.xml'), 'utf8');
    t.match(new XMLParser({ ignoreAttributes: false }).parse(xml), { testsuites: { '@_failures': '1' } }, `${name}: the report has the failure`);
  }
});
