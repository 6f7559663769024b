// npm run test:package: the tarball installs into an empty project (its dependencies come from the
// registry, so this is no unit test), where `npx version-policy` runs, and so do the npx jobs of
// docs/ci.md from the tarball, against the demo state behind an API server, npm kept offline so
// that npx can only use the tarball and the registry packages installed here. What the tarball
// holds is package.test.ts's, in npm test.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import t from 'tap';
import { sarifProblems } from '../helpers/sarif-schema.js';
import { tempDir } from '../helpers/run-cli.js';
import {
  ciExamples,
  demoLandscape,
  guideText,
  PACKAGE_VERSION,
  runScript,
  sampleRepository,
} from './ci-guide-examples.js';
import { cachedKubectl } from './kubectl.js';
import { ENV, pack, run } from './packed.js';

// Registry downloads, and four CI jobs of a few CLI runs each: more than tap's default per file.
t.setTimeout(480_000);

const packed = await pack(t);

t.test('the tarball installs into an empty project, and its CLI and the npx jobs of the CI guide run', async (t) => {
  // A project of its own, so that npm installs here; node_modules stays out of git.
  const repo = await sampleRepository(await tempDir(t), {
    'package.json': '{"private": true}\n',
    '.gitignore': 'node_modules/\npackage-lock.json\n',
  });
  t.equal(packed.code, 0, packed.stderr);
  const tarball = join(packed.dir, packed.filename);
  const install = await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', tarball], repo.dir);
  t.equal(install.code, 0, `npm install ${tarball}\n${install.stderr}`);
  if (install.code !== 0) return;
  const offline = { ...ENV, npm_config_offline: 'true' };

  const [version, check] = await Promise.all([
    run('npx', ['version-policy', '--version'], repo.dir, offline),
    run(
      'npx',
      ['version-policy', 'check', '--old', 'HEAD~1:profiles/aws.yaml', 'profiles/aws.yaml'],
      repo.dir,
      offline,
    ),
  ]);
  t.equal(version.stdout, `${PACKAGE_VERSION}\n`, 'npx version-policy --version');
  t.equal(check.code, 0, check.stderr);
  t.match(
    check.stdout,
    /^ALLOWED CloudProfile aws \(UPDATE\) at profiles\/aws\.yaml:3 \(document 1\)\n {2}note: IN-USE was not checked/,
  );

  // kubectl's plugin lookup runs `kubectl-version_policy` from PATH for `kubectl version-policy`:
  // npm links it into node_modules/.bin as it does `version-policy`.
  const plugin = await run(join(repo.dir, 'node_modules/.bin/kubectl-version_policy'), ['--help'], repo.dir, offline);
  t.equal(plugin.code, 0, plugin.stderr);
  t.match(plugin.stdout, /^Usage: kubectl version-policy /, 'the plugin names itself as kubectl shows it');
  const kubectl = cachedKubectl();
  if (!kubectl) t.comment('no kubectl built under ~/.cache/version-policy-e2e yet: kubectl-plugin.test.ts runs it');
  else {
    const viaKubectl = await run(kubectl, ['version-policy', '--version'], repo.dir, {
      ...offline,
      PATH: `${join(repo.dir, 'node_modules/.bin')}:${offline.PATH ?? ''}`,
    });
    t.equal(
      viaKubectl.stdout,
      `${PACKAGE_VERSION}\n`,
      'kubectl version-policy --version, through the installed package',
    );
  }

  const guide = await guideText();
  const examples = ciExamples(guide);
  const landscape = await demoLandscape(t);
  // HEAD~1 is the base of the change, as on GitHub's merge commit; GitLab names it. The package is
  // the tarball, as the guide says until it is published.
  const ciEnv = { ...offline, CI_MERGE_REQUEST_DIFF_BASE_SHA: repo.base, VERSION_POLICY_PACKAGE: tarball };
  const jobEnv = (name: string) => ({ ...ciEnv, ...(name.startsWith('github') ? landscape.github : landscape.gitlab) });
  const verdicts = (stdout: string) => stdout.split('\n').filter((l) => /^(ALLOWED|DENIED|SKIPPED) /.test(l));
  for (const name of ['github-npx', 'gitlab-npx']) {
    const [script = ''] = [examples.get(name)?.scripts.join('\n') ?? ''];
    const job = await runScript(script, repo.dir, jobEnv(name));
    t.equal(job.code, 0, `${name}: the allowed change passes\n${job.stderr}`);
    t.match(
      verdicts(job.stdout),
      [
        /^ALLOWED CloudProfile aws \(UPDATE\) at profiles\/aws\.yaml:/,
        /^ALLOWED CloudProfile azure \(CREATE\) at profiles\/azure\/new\/azure\.yaml:/,
        /^ALLOWED CloudProfile gcp \(UPDATE\) at profiles\/gcp\/gcp\.yaml:/,
        /^ALLOWED NamespacedCloudProfile garden-dev\/aws-extended \(UPDATE\)/,
        /^ALLOWED CloudProfile retired \(DELETE\) at \w+[~\w]*:profiles\/retired\.yaml:/,
        /^SKIPPED ConfigMap garden\/settings/,
      ],
      `${name}: nested folders on both sides: the UPDATEs, the new profile, the removed one and the ConfigMap`,
    );
    t.notMatch(job.stdout, /not checked/, `${name}: judged against the landscape`);
    const xml = await readFile(join(repo.dir, 'version-policy.xml'), 'utf8');
    t.equal(XMLValidator.validate(xml), true, `${name}: the JUnit report`);
    t.match(new XMLParser({ ignoreAttributes: false }).parse(xml), {
      testsuites: { '@_tests': '6', '@_failures': '0', '@_skipped': '1' },
    });
  }

  // Both jobs compare with the base commit: the new commit's breakage is in their change too.
  await repo.commitBroken();
  for (const name of ['github-npx', 'gitlab-npx']) {
    const [script = ''] = [examples.get(name)?.scripts.join('\n') ?? ''];
    const job = await runScript(script, repo.dir, jobEnv(name));
    t.equal(job.code, 1, `${name}: three broken profiles fail the job`);
    for (const [object, rule] of [
      ['CloudProfile gcp', 'K8S-VERSIONS'],
      ['NamespacedCloudProfile garden-dev/aws-extended', 'NCP-OVERRIDES'],
      ['CloudProfile aws', 'IN-USE'],
    ] as const)
      t.match(
        job.stdout,
        new RegExp(
          `^DENIED ${object.replace('/', '\\/')} \\(UPDATE\\)[^\\n]*\\n(?: {2}[^\\n]*\\n)*? {2}\\[${rule}\\]`,
          'm',
        ),
        `${name}: ${object} is denied for ${rule}`,
      );
    const xml = await readFile(join(repo.dir, 'version-policy.xml'), 'utf8');
    t.match(
      new XMLParser({ ignoreAttributes: false }).parse(xml),
      { testsuites: { '@_failures': '3' } },
      `${name}: the report has the failures`,
    );
    if (name === 'github-npx') {
      t.match(job.stdout, /^::error file=profiles\/gcp\/gcp\.yaml,line=\d+,title=\[K8S-VERSIONS\] /m, 'annotations');
      const sarif = JSON.parse(await readFile(join(repo.dir, 'version-policy.sarif'), 'utf8')) as unknown;
      t.same(sarifProblems(sarif), [], 'the SARIF log validates against the SARIF 2.1.0 schema');
    }
  }
});
