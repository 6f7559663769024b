// No link in the repository's documentation points outside it: every relative link of every
// Markdown page (README.md, docs/**, the chart's README, certs/, bench/) resolves to a file inside
// the repository (a clone, the npm package and the chart have no sibling directories), and an
// anchor names a heading of its page.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const SKIPPED = new Set(['node_modules', 'dist', '.git', '.tap', 'coverage']);

/** Every Markdown page of the repository, outside dependencies and build output. */
function markdownPages(dir = ''): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return SKIPPED.has(e.name) ? [] : markdownPages(join(dir, e.name));
    return e.name.endsWith('.md') ? [join(dir, e.name)] : [];
  });
}

const PAGES = markdownPages();

/** The page's text without fenced code blocks, where neither links nor headings are. */
const withoutBlocks = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');
/** ... and without inline code, where `[x](y)` is no link either. */
const prose = (text: string) => withoutBlocks(text).replace(/`[^`\n]*`/g, '');

/** Markdown links and images `[text](target)`, and HTML `href`/`src` attributes. */
function targets(text: string): string[] {
  const body = prose(text);
  const md = [...body.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const html = [...body.matchAll(/\b(?:href|src)="([^"]+)"/g)].map((m) => m[1]!);
  return [...md, ...html];
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchors(file: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of withoutBlocks(readFileSync(file, 'utf8')).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]!.replace(/`/g, ''));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

t.test('the pages checked include the README, the docs and the other READMEs', async (t) => {
  for (const page of [
    'README.md',
    'docs/rules.md',
    'docs/ci.md',
    'docs/operations/README.md',
    'charts/version-policy/README.md',
    'certs/README.md',
  ])
    t.ok(PAGES.includes(page), page);
});

for (const page of PAGES) {
  t.test(`${page}: every relative link resolves inside the repository`, async (t) => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    const from = dirname(join(ROOT, page));
    for (const target of targets(text)) {
      if (isExternal(target)) continue;
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? join(ROOT, page) : resolve(from, decodeURIComponent(path));
      const inside = relative(ROOT, file);
      t.ok(inside !== '' && !inside.startsWith(`..${sep}`) && inside !== '..', `${target}: inside the repository`);
      t.ok(existsSync(file), `${target}: ${inside} exists`);
      if (anchor && existsSync(file) && statSync(file).isFile() && file.endsWith('.md')) {
        t.ok(anchors(file).has(anchor), `${target}: ${inside} has a heading #${anchor}`);
      }
    }
  });
}

t.test('the public case book names its policy page inside the repository', async (t) => {
  const cases = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/public-cases.json'), 'utf8')) as { policy: string };
  t.ok(existsSync(join(ROOT, cases.policy)), `${cases.policy} is a file of the repository`);
});
