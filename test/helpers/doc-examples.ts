// The marked examples of the rule pages (docs/rules.md, docs/defaulting.md): read by the docs test,
// which posts each to a webhook, and by the end-to-end suite, which applies each with kubectl.
// The marks are HTML comments before the blocks; their grammar is at the head of
// test/docs/rules.test.ts.
import { readFile } from 'node:fs/promises';

export const ROOT = new URL('../../', import.meta.url);
export const PAGES = ['docs/rules.md', 'docs/defaulting.md'];

export type Role = 'state' | 'old' | 'denied' | 'message' | 'fixed' | 'fixed-state' | 'sent' | 'stored';

export interface Example {
  page: string;
  /** `RULE` or `RULE/variant`. */
  id: string;
  rule: string;
  attrs: Record<string, string>;
  blocks: Partial<Record<Role, string>>;
}

const MARKED =
  /<!-- example ([A-Z0-9-]+)(\/[\w-]+)? (state|old|denied|message|fixed|fixed-state|sent|stored)((?: [\w-]+=\S+)*) -->\n```\w+\n([\s\S]*?)\n```/g;

export function examplesOf(page: string, markdown: string): Example[] {
  const byId = new Map<string, Example>();
  for (const m of markdown.matchAll(MARKED)) {
    const [, rule = '', variant = '', role, attrText = '', body = ''] = m;
    const id = rule + variant;
    let ex = byId.get(id);
    if (!ex) byId.set(id, (ex = { page, id, rule, attrs: {}, blocks: {} }));
    if (ex.blocks[role as Role] !== undefined) throw new Error(`${page}: example ${id} has two ${role} blocks`);
    ex.blocks[role as Role] = body;
    for (const kv of attrText.trim().split(/\s+/).filter(Boolean)) {
      const [k = '', v = ''] = kv.split('=');
      ex.attrs[k] = v;
    }
  }
  return [...byId.values()];
}

/** The names the chart gives the two webhooks: kubectl names the one that denied. */
export async function webhookNames(): Promise<Record<'validate' | 'mutate', string>> {
  const text = await readFile(new URL('charts/version-policy/templates/webhooks.yaml', ROOT), 'utf8');
  const name = (w: string) =>
    new RegExp(`- name: (${w}\\.[\\w.-]+)`).exec(text)?.[1] ?? `(no ${w} webhook in the chart)`;
  return { validate: name('validate'), mutate: name('mutate') };
}

/** Every marked example of the rule pages. */
export async function docExamples(): Promise<{ pages: { page: string; text: string }[]; examples: Example[] }> {
  const pages = await Promise.all(
    PAGES.map(async (page) => ({ page, text: await readFile(new URL(page, ROOT), 'utf8') })),
  );
  return { pages, examples: pages.flatMap(({ page, text }) => examplesOf(page, text)) };
}
