// The package as npm packs it: `npm pack` ships dist/, the README, docs/ and LICENSE and nothing
// else, and the docs it ships link only to files it ships. Installing the tarball from the
// registry and running it is end-to-end: package-install.e2e.ts, `npm run test:package`.
import { createHash } from 'node:crypto';
import { access, readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import t from 'tap';
import { pack, ROOT } from './packed.js';

const packed = await pack(t);
const files = packed.files;

t.test(
  'npm pack ships dist/, the README, docs/, LICENSE and the pages the docs link to, and nothing else',
  async (t) => {
    t.equal(packed.code, 0, packed.stderr);
    const stray = files.filter(
      (f) =>
        !/^(package\.json|README\.md|LICENSE|dist\/.+\.js|docs\/.+|certs\/README\.md|charts\/version-policy\/README\.md|bench\/(RESULTS|NOTES)\.md)$/.test(
          f,
        ),
    );
    t.same(stray, [], 'no tests, sources, maps, certificates or charts');
    for (const wanted of ['package.json', 'README.md', 'LICENSE', 'dist/cli/main.js', 'docs/ci.md'])
      t.ok(files.includes(wanted), wanted);
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
    t.same(pkg.bin, { 'version-policy': 'dist/cli/main.js', 'kubectl-version_policy': 'dist/cli/main.js' });
    const guide = await readFile(join(ROOT, 'docs/ci.md'), 'utf8');
    const installing = guide.slice(guide.indexOf('**Not published yet.**'), guide.indexOf('## What it reads'));
    t.match(installing, `npm ci && npm pack   # ${packed.filename}`, 'the CI guide names the tarball npm pack makes');
  },
);

t.test('LICENSE is the Apache License 2.0 that package.json names, verbatim', async (t) => {
  const text = await readFile(join(ROOT, 'LICENSE'), 'utf8');
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { license: string };
  t.equal(pkg.license, 'Apache-2.0');
  t.match(text, /^ +Apache License\n +Version 2\.0, January 2004\n +http:\/\/www\.apache\.org\/licenses\/\n/);
  t.match(text, /\n {3}END OF TERMS AND CONDITIONS\n/);
  // The standard text as the Apache Software Foundation publishes it (its appendix placeholders included).
  t.equal(createHash('sha256').update(text).digest('hex').slice(0, 16), 'c71d239df91726fc');
});
