// The ASCII character classes of a token's packaging, shared by token repair (repair/lenient.ts)
// and prompt security (guard/prompt.ts). Both read loose forms of a token (spacing, escaped
// braces, `\_` in a type, ASCII case) and must agree on what a part character, packaging
// whitespace and a brace unit are, so a form that repair would restore at rehydrate is also one
// the prompt guard recognises on the way in. ASCII only on purpose: nothing non-ASCII may fold
// into a token here. Pure.

export const OPEN_BRACE = 0x7b; // {
export const CLOSE_BRACE = 0x7d; // }
export const BACKSLASH = 0x5c;
export const UNDERSCORE = 0x5f;
export const COLON = 0x3a;

/** Whitespace allowed between the parts of a loose token: space, tab, LF, CR. Nothing else. */
export function isPackagingSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/** Characters of a type, id or cap part before normalization (ASCII letters, digits, `_`). */
export function isPartChar(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39) || code === UNDERSCORE;
}

/** Lowercase ASCII letters only: String#toLowerCase would fold some non-ASCII letters into ASCII. */
export function asciiLower(text: string): string {
  let out = '';
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    out += code >= 0x41 && code <= 0x5a ? String.fromCharCode(code + 0x20) : text[index]!;
  }
  return out;
}

/**
 * Count brace units (`brace` itself, or it escaped as `\{` / `\}`) forwards from `index`;
 * returns how many and where the run ends (exclusive). Zero units: `end === index`.
 */
export function braceRun(text: string, index: number, brace: number): { units: number; end: number } {
  let cursor = index;
  let units = 0;
  for (;;) {
    const code = text.charCodeAt(cursor);
    if (code === brace) {
      cursor += 1;
    } else if (code === BACKSLASH && text.charCodeAt(cursor + 1) === brace) {
      cursor += 2;
    } else {
      break;
    }
    units += 1;
  }
  return { units, end: cursor };
}
