// HTML built by a tagged template that escapes every interpolated string: markup is only what a
// template literal of this code writes, never what an object carries. A fragment made by `html`
// is Markup and is inserted as is; anything else is text.

export class Markup {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Part = Markup | string | number | null | undefined | false | readonly Part[];

export function html(strings: TemplateStringsArray, ...parts: readonly Part[]): Markup {
  let out = strings[0]!;
  for (let i = 0; i < parts.length; i++) out += render(parts[i]) + strings[i + 1]!;
  return new Markup(out);
}

function render(part: Part): string {
  if (part instanceof Markup) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  if (part === null || part === undefined || part === false) return '';
  return escapeHtml(String(part));
}

// eslint-disable-next-line no-control-regex -- matching them is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Safe in text and in quoted attribute values, of HTML and of inline SVG alike. Control
 * characters (which XML forbids and a copy into an .svg file would choke on) become U+FFFD.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!).replace(CONTROL, '\ufffd');
}

/** At most `max` characters, with an ellipsis when cut: strings from objects have no length limit. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
