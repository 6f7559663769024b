// Scanning JSON text without parsing it: shared by body.ts (nesting, uid recovery, prototype keys)
// and json-incremental.ts (cutting big containers into pieces).

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;

/** The index of the quote that closes the string opened at `start` (or the text's length). */
export function endOfString(text: string, start: number): number {
  for (let at = text.indexOf('"', start + 1); at >= 0; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return text.length;
}

// A JSON escape (\u0070) of any letter of "__proto__", "constructor" or "prototype".
export const ESCAPED_NAME_LETTER = /\\u00(?:5[fF]|6[35eEfF]|7[0-59])/;
// In valid JSON a literal quote cannot stand inside a string, so these match keys only.
export const PROTO_KEY = /"__proto__"\s*:/;
export const CONSTRUCTOR_OBJECT = /"constructor"\s*:\s*\{/;
export const PROTOTYPE_KEY = /"prototype"\s*:/;
