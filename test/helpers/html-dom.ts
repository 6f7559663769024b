// Reading the timeline page as a browser would: parse5 builds the tree by the WHATWG parsing
// algorithm, foreign (SVG) content included, so an injection that would break out of its element
// in a browser breaks out here too, and every parse error the spec defines is reported.
import { parse, type DefaultTreeAdapterTypes } from 'parse5';

export type Node = DefaultTreeAdapterTypes.Node;
export type Element = DefaultTreeAdapterTypes.Element;

export const SVG_NS = 'http://www.w3.org/2000/svg';

export function parsePage(html: string): { document: DefaultTreeAdapterTypes.Document; errors: string[] } {
  const errors: string[] = [];
  const document = parse(html, {
    onParseError: (e) => errors.push(`${e.code} at line ${e.startLine}, col ${e.startCol}`),
  });
  return { document, errors };
}

function isElement(node: Node): node is Element {
  return 'tagName' in node;
}

function childrenOf(node: Node): Node[] {
  const own = 'childNodes' in node ? node.childNodes : [];
  // <template> keeps its children in `content`; the page has none, but a hostile string might.
  return node.nodeName === 'template' && 'content' in node ? [...own, ...node.content.childNodes] : own;
}

/** Every element below `node`, in document order. */
export function elements(node: Node, match: (e: Element) => boolean = () => true): Element[] {
  const out: Element[] = [];
  const walk = (n: Node) => {
    for (const c of childrenOf(n)) {
      if (isElement(c) && match(c)) out.push(c);
      walk(c);
    }
  };
  walk(node);
  return out;
}

export function attr(e: Element, name: string): string | undefined {
  return e.attrs.find((a) => a.name === name)?.value;
}

export function num(e: Element, name: string): number {
  const v = attr(e, name);
  if (v === undefined) throw new Error(`<${e.tagName}> has no ${name}`);
  return Number(v);
}

export function hasClass(e: Element, cls: string): boolean {
  return (attr(e, 'class') ?? '').split(/\s+/).includes(cls);
}

export function byClass(node: Node, cls: string): Element[] {
  return elements(node, (e) => hasClass(e, cls));
}

export function byTag(node: Node, tag: string): Element[] {
  return elements(node, (e) => e.tagName === tag);
}

export function one(node: Node, match: (e: Element) => boolean, what: string): Element {
  const found = elements(node, match);
  if (found.length !== 1) throw new Error(`expected one ${what}, found ${found.length}`);
  return found[0]!;
}

/** The text of `node` and everything below it, as textContent would give it. */
export function textOf(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterTypes.TextNode).value;
  return childrenOf(node).map(textOf).join('');
}

/** The direct <title> child of an SVG element: its tooltip. */
export function titleOf(e: Element): string | undefined {
  const t = e.childNodes.find((c) => isElement(c) && c.tagName === 'title');
  return t ? textOf(t) : undefined;
}
