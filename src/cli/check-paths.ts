// What `check`'s PATH arguments name: files, directories (every *.yaml, *.yml and *.json below,
// at any depth) and globs (`*`, `**`, `?`, `[…]`, `{a,b}`, quoted so that check expands them).
// One function expands them against a listing of files, whatever the listing comes from: the
// working tree for the new side, `git ls-tree` of a revision or another folder for the old side.
// So a file is on one side only because it is, never because two expansions differ.
import { posix } from 'node:path';

/** The file names a directory argument reads. */
const MANIFEST = /\.(ya?ml|json)$/i;
const WILDCARD = /[*?[{]/;

export function isGlob(arg: string): boolean {
  return WILDCARD.test(arg);
}

/** `./profiles/` → `profiles`: the form listings and arguments are compared in. */
export function canonical(path: string): string {
  const out = posix.normalize(path);
  return out.length > 1 && out.endsWith('/') ? out.slice(0, -1) : out;
}

/**
 * Where a listing must look for `arg`: a file or directory as given, or a glob's folder before its
 * first wildcard; and how deep below it (Infinity for a directory or a glob with `**`).
 */
export function rootOf(arg: string): { root: string; depth: number } {
  if (!isGlob(arg)) return { root: canonical(arg), depth: Infinity };
  const segments = canonical(arg).split('/');
  const first = segments.findIndex((s) => isGlob(s));
  const rest = segments.slice(first);
  return {
    root: first === 0 ? (arg.startsWith('/') ? '/' : '.') : segments.slice(0, first).join('/') || '/',
    depth: rest.includes('**') ? Infinity : rest.length,
  };
}

/**
 * The files of `listing` (canonical paths) that `arg` names: the file itself; under a directory,
 * the manifests not in a hidden folder; for a glob, the paths it matches (a wildcard never matches
 * a leading `.`, as in the shell).
 */
export function expandOne(arg: string, listing: ReadonlySet<string>): string[] {
  if (isGlob(arg)) {
    const re = globRegExp(canonical(arg));
    const { root } = rootOf(arg);
    const below = root === '.' ? '' : root === '/' ? '/' : `${root}/`;
    return [...listing].filter((f) => re.test(f) && !f.slice(below.length).split('/').some(hidden)).sort();
  }
  const name = canonical(arg);
  if (listing.has(name)) return [name];
  const prefix = name === '.' ? '' : name === '/' ? '/' : `${name}/`;
  return [...listing]
    .filter((f) => f.startsWith(prefix) && MANIFEST.test(f) && !f.slice(prefix.length).split('/').some(hidden))
    .sort();
}

function hidden(segment: string): boolean {
  return segment.startsWith('.');
}

/** A glob as a regular expression over canonical paths. */
export function globRegExp(glob: string): RegExp {
  const segments = glob.split('/');
  let out = '';
  segments.forEach((seg, i) => {
    const last = i === segments.length - 1;
    if (seg === '**') {
      // Any number of folders (none too), none of them hidden; at the end, any file below.
      out += last ? '(?:(?!\\.)[^/]+/)*(?!\\.)[^/]+' : '(?:(?!\\.)[^/]+/)*';
      return;
    }
    out += segmentRegExp(seg) + (last ? '' : '/');
  });
  return new RegExp(`^${out}$`);
}

function segmentRegExp(seg: string): string {
  let out = /^[*?[{]/.test(seg) ? '(?!\\.)' : '';
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i] ?? '';
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = seg.indexOf(']', i + 2);
      if (end < 0) out += '\\[';
      else {
        const body = seg
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        out += `[${body}]`;
        i = end;
      }
    } else if (c === '{') {
      const end = seg.indexOf('}', i);
      if (end < 0) out += '\\{';
      else {
        out += `(?:${seg
          .slice(i + 1, end)
          .split(',')
          .map((alt) => alt.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('|')})`;
        i = end;
      }
    } else out += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return out;
}
