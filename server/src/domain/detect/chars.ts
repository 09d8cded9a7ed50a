// Character classes for the hand-written scanner. One 128-entry flag table answers every ASCII
// class question with a single array load, which is what keeps the main loop near 1 ns a char;
// non-ASCII code units get a few range checks instead.

export const F_DIGIT = 1;
export const F_UPPER = 2;
export const F_LOWER = 4;
export const F_HEX = 8;
/** [A-Za-z0-9_]: part of a word for the main loop. */
export const F_WORD = 16;
/** Bitcoin base58 alphabet (no 0, O, I, l). */
export const F_B58 = 32;
/** base64url alphabet [A-Za-z0-9_-] (JWT segments, most API-key bodies). */
export const F_B64URL = 64;

export const FLAGS: Uint8Array = (() => {
  const table = new Uint8Array(128);
  for (let c = 48; c <= 57; c++) table[c] = F_DIGIT | F_HEX | F_WORD | F_B64URL | (c === 48 ? 0 : F_B58);
  for (let c = 65; c <= 90; c++) {
    table[c] = F_UPPER | F_WORD | F_B64URL | (c <= 70 ? F_HEX : 0) | (c === 73 || c === 79 ? 0 : F_B58);
  }
  for (let c = 97; c <= 122; c++) {
    table[c] = F_LOWER | F_WORD | F_B64URL | (c <= 102 ? F_HEX : 0) | (c === 108 ? 0 : F_B58);
  }
  table[95] = F_WORD | F_B64URL; // _
  table[45] = F_B64URL; // -
  return table;
})();

export function flagsOf(c: number): number {
  return c < 128 ? FLAGS[c]! : 0;
}

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function isUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}

export function isAsciiLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

export function isAsciiAlnum(c: number): boolean {
  return c < 128 && (FLAGS[c]! & (F_DIGIT | F_UPPER | F_LOWER)) !== 0;
}

export function isHex(c: number): boolean {
  return c < 128 && (FLAGS[c]! & F_HEX) !== 0;
}

/**
 * Non-ASCII code units that behave like letters: Latin-1 and beyond, minus punctuation blocks,
 * spaces and surrogates (emoji). Rough on purpose: it only decides word boundaries.
 */
export function isNonAsciiLetter(c: number): boolean {
  if (c < 0xc0) return c === 0xaa || c === 0xb5 || c === 0xba;
  if (c === 0xd7 || c === 0xf7) return false;
  if (c >= 0x2000 && c <= 0x2bff) return false; // general punctuation, symbols, arrows, boxes
  if (c >= 0x3000 && c <= 0x303f) return false; // CJK punctuation
  if (c >= 0xd800 && c <= 0xdfff) return false; // surrogates: emoji and other astral symbols
  if (c >= 0xfe00 && c <= 0xfe6f) return false; // variation selectors, small forms
  if (c >= 0xff00 && c <= 0xff0f) return false; // fullwidth punctuation
  if ((c >= 0xff1a && c <= 0xff20) || (c >= 0xff3b && c <= 0xff40) || (c >= 0xff5b && c <= 0xff65)) return false; // ：；＠ ［＼］ ｛｜｝
  return c !== 0xfeff;
}

/**
 * Chinese, Japanese and Korean characters (kana, Han, Hangul). Those scripts write no spaces
 * ("我的电话是8146054359"), so each such character is a word of its own: a value glued to one
 * still has a boundary there.
 */
export function isCjkCode(c: number): boolean {
  return (
    (c >= 0x3040 && c <= 0x30ff) ||
    (c >= 0x3400 && c <= 0x4dbf) ||
    (c >= 0x4e00 && c <= 0x9fff) ||
    (c >= 0xac00 && c <= 0xd7af) ||
    (c >= 0x1100 && c <= 0x11ff) ||
    (c >= 0x3130 && c <= 0x318f) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0xff66 && c <= 0xff9f)
  );
}

/** A non-ASCII letter that continues a word (CJK characters are words of their own). */
function isNonAsciiWordCode(c: number): boolean {
  return isNonAsciiLetter(c) && !isCjkCode(c);
}

// isWordCode and isAlnumCode run once per character in the scanner's hot loops: kept tiny so
// the JIT inlines them, with the non-ASCII rules behind a call.

/** A code unit that continues a word: [A-Za-z0-9_] or a non-ASCII letter other than CJK. */
export function isWordCode(c: number): boolean {
  return c < 128 ? (FLAGS[c]! & F_WORD) !== 0 : isNonAsciiWordCode(c);
}

/** Letter or digit, ASCII or not, CJK excepted (for left/right boundary checks). */
export function isAlnumCode(c: number): boolean {
  return c < 128 ? (FLAGS[c]! & (F_DIGIT | F_UPPER | F_LOWER)) !== 0 : isNonAsciiWordCode(c);
}

/** Code unit at `index`, or -1 outside the string (so boundary checks need no length test). */
export function codeAt(text: string, index: number): number {
  return index >= 0 && index < text.length ? text.charCodeAt(index) : -1;
}

export function isSpaceCode(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11 || c === 0xa0 || (c >= 0x2000 && c <= 0x200a) || c === 0x202f || c === 0x3000;
}

/**
 * End of the run of ASCII characters whose flags intersect `mask`, starting at `from`; -1 when
 * the run is longer than `max` (so a caller never expands past its format's bound).
 */
/**
 * The start of the next line when one line break (`\n` or `\r\n`) stands at `at` and the next
 * line goes straight on (no indentation) with a character of `mask`; otherwise -1. For values
 * whose joined form proves itself (a checksum, a JSON header), read across one break in the
 * middle (session 12, wave11/evade2).
 */
export function continuedLineAt(text: string, at: number, mask: number): number {
  const c = text.charCodeAt(at);
  const next = c === 10 ? at + 1 : c === 13 && text.charCodeAt(at + 1) === 10 ? at + 2 : -1;
  if (next < 0 || next >= text.length) return -1;
  const code = text.charCodeAt(next);
  return code < 128 && (FLAGS[code]! & mask) !== 0 ? next : -1;
}

export function runEnd(text: string, from: number, mask: number, max: number): number {
  let k = from;
  while (k < text.length) {
    const c = text.charCodeAt(k);
    if (c >= 128 || (FLAGS[c]! & mask) === 0) break;
    k++;
    if (k - from > max) return -1;
  }
  return k;
}
