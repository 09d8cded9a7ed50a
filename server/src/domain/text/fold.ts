// The folded view of a text: what detection, revocation normalization and the output guard
// compare instead of the raw characters, so that a value written with other code points is the
// same value. CJK input methods type full-width digits and `＠` by default, Arabic-script
// keyboards type Arabic-Indic digits, word processors turn hyphens into en dashes or U+2011,
// and Chinese and Japanese text ends sentences (and, typed in a hurry, domains) with `。`.
//
// Per code point, in this order:
//   - default-ignorable characters (zero-width spaces and joiners, soft hyphen, bidi controls,
//     variation selectors, BOM, tag characters) are dropped: invisible, never part of a value;
//   - `。` and `｡` become `.`;
//   - the line and paragraph separators (U+2028, U+2029) and NEL (U+0085) become `\n`: editors
//     and JavaScript treat them as line breaks, so a value broken by one reads as broken by a
//     line break, and detection's rules for line breaks decide;
//   - space separators (no-break, ideographic, em space, ...) become an ASCII space, and so do
//     the characters that print as a blank without being spaces: the braille blank (U+2800, the
//     usual "invisible character" of chat tricks) and the object replacement character (U+FFFC,
//     where an editor had an embedded object);
//   - enclosing marks (\p{Me}: the keycap U+20E3, enclosing circles and squares) are dropped: no
//     script spells a word with them, they only decorate the character before;
//   - dashes (\p{Pd}: en dash, U+2011, figure dash, ...) and the minus sign become `-`;
//   - decimal digits of every script (\p{Nd}) become ASCII digits;
//   - everything else becomes its NFKC form (full-width forms, `＠`, ligatures, circled and
//     super/subscript digits), with the rules above applied to what NFKC yields; parenthesized
//     and full-stop digits (`⑴`, `⒈`) become the bare digits, as circled ones do;
//   - combining marks (\p{Mn}) on a digit or on the punctuation values are written with (`@`
//     `.` `-` `+` `_`) are dropped: `4̂1̂1̂1` is 4111 to a reader, and no script writes marks on
//     digits or on those (marks on letters stay: they spell the word); so are marks on a blank
//     and, wherever they stand, the decoration marks of strikethrough and underline text
//     generators (U+0305, U+0332-U+0337, U+033F; session 19, DECORATION_MARKS) and marks on ASCII
//     punctuation.
//
// Besides single characters, three escapes that hide a value's characters in text copied from web
// pages and URLs fold to what they stand for, each as one unit:
//   - HTML character references: numeric (`&#64;`, `&#x40;`; the closing `;` optional after
//     decimal digits, as browsers read it) for any character but controls, and the named ones of
//     the characters values are written with (`&commat;` `&period;` `&plus;` `&nbsp;` `&hyphen;`
//     `&dash;` `&minus;` `&lpar;` `&rpar;` `&colon;` `&lowbar;` `&sol;`). The "email address
//     encoders" of websites write every character of an address so;
//   - the percent escapes of `@` and `+` (`%40`, `%2B`): URL encoders escape exactly these two
//     of the characters an e-mail address or an international phone number holds
//     (`mailto:jane%40corp.example`, `?phone=%2B14155550100`); and those of letters, digits and
//     `-._~`, which no encoder escapes: a value percent-encoded character by character
//     (`%6A%6F%68%6E%40%63%6F…`) is hidden on purpose;
//   - the code point escapes of programming languages and JSON (`\u0040`, `\u{40}`, `\x40`,
//     `\U00000040`) for any character but controls and surrogates: text pasted from source
//     code, JSON written by hand or by a serializer that escapes everything non-alphanumeric.
//   - a run of six or more contiguous quoted-printable escapes of printable ASCII
//     (`=34=31=31=31=20…`, either case of hex), separators included: no encoder writes a text
//     wholly so, and no assignment writes six `=HH` in a row (qpEscapeAt, inQpRun).
// An escape is decoded once, as a browser or URL decoder does (`&amp;#64;` reads `&#64;`).
//
// Two more folds read a character by its neighbours (so folding a slice cut right beside one may
// differ from slicing the fold):
//   - markup that renders as nothing inside a value (markup.ts: inline HTML tags, short comments,
//     BBCode, markdown emphasis and code marks, quoted-printable soft line breaks): a space
//     between two digits, nothing inside a value or beside a digit, kept elsewhere (markupFold);
//   - Cyrillic and Greek letters drawn like Latin ones, read as the Latin letter in a word that
//     also holds an ASCII letter or digit (`jоhn@corp.example` with a Cyrillic `о`; HOMOGLYPHS).
//
// Apart from those units, the mapping is per code point, so folding a slice of the text gives
// the same result as slicing the folded text at the corresponding boundaries (boundaries inside
// an escape or between a digit and its marks excepted). Only characters that change are
// recorded (sparse anchors), so offsets in the folded view map back to the original exactly
// with a binary search. Pure-ASCII text is recognised natively (a UTF-8 byte count) and, like
// text with no foldable character, returned as is without allocating.

import { defangedAt, MARKUP_STARTS, markupAt, mayStartMarkup } from './markup.js';

// No `g` flags: test() then neither reads nor writes lastIndex.
const IGNORABLE = /^\p{Default_Ignorable_Code_Point}$/u;
const SPACE_SEPARATOR = /^\p{Zs}$/u;
const DASH = /^\p{Pd}$/u;
const DECIMAL = /^\p{Nd}$/u;
const COMBINING_MARK = /^[\p{Mn}\p{Me}]$/u;
const ENCLOSING_MARK = /^\p{Me}$/u;

const MINUS_SIGN = 0x2212;
const NEXT_LINE = 0x85;
const LINE_SEPARATOR = 0x2028;
const PARAGRAPH_SEPARATOR = 0x2029;
const BRAILLE_BLANK = 0x2800;
const OBJECT_REPLACEMENT = 0xfffc;
/** `ー`: a dash between two digits (see foldView). */
const PROLONGED_SOUND_MARK = 0x30fc;
const IDEOGRAPHIC_FULL_STOP = 0x3002;
const HALFWIDTH_IDEOGRAPHIC_FULL_STOP = 0xff61;

function isDecimal(cp: number): boolean {
  return DECIMAL.test(String.fromCodePoint(cp));
}

/**
 * ASCII digit of a decimal digit of any script. Unicode encodes every script's digits 0-9 as a
 * contiguous run starting at zero (some runs follow each other: mathematical digits), so the
 * value is the distance from the start of the run of decimals modulo 10.
 */
function digitOf(cp: number): string {
  let zero = cp;
  while (cp - zero < 100 && isDecimal(zero - 1)) zero--;
  return String.fromCharCode(48 + ((cp - zero) % 10));
}

/** The rules before NFKC; undefined when none applies. */
function foldSimple(cp: number): string | undefined {
  const ch = String.fromCodePoint(cp);
  if (IGNORABLE.test(ch) || ENCLOSING_MARK.test(ch)) return '';
  if (cp === NEXT_LINE || cp === LINE_SEPARATOR || cp === PARAGRAPH_SEPARATOR) return '\n';
  if (cp === BRAILLE_BLANK || cp === OBJECT_REPLACEMENT) return ' ';
  if (cp === IDEOGRAPHIC_FULL_STOP || cp === HALFWIDTH_IDEOGRAPHIC_FULL_STOP) return '.';
  if (SPACE_SEPARATOR.test(ch)) return ' ';
  if (cp === MINUS_SIGN || DASH.test(ch)) return '-';
  if (DECIMAL.test(ch)) return digitOf(cp);
  return undefined;
}

/**
 * Combining marks that only decorate the character before (session 19, wave18/evade): overline
 * U+0305, low lines U+0332-U+0333, the tilde, stroke and short solidus overlays U+0334-U+0337 and
 * the double overline U+033F, which "strikethrough" and "underline" text generators put after
 * every character (`4̶1̶1̶1̶ ̶1̶1̶…`). No orthography spells a letter with them (the long solidus
 * U+0338 is left: `=` with it is `≠`).
 */
const DECORATION_MARKS: ReadonlySet<number> = new Set([0x305, 0x332, 0x333, 0x334, 0x335, 0x336, 0x337, 0x33f]);

/** What a non-ASCII code point folds to; undefined when it stays as it is. */
function computeFold(cp: number): string | undefined {
  const simple = foldSimple(cp);
  if (simple !== undefined) return simple;
  // Session 19 (wave18/evade): the marks of strikethrough, underline and overline text generators
  // (DECORATION_MARKS) are dropped wherever they stand.
  if (DECORATION_MARKS.has(cp)) return '';
  const ch = String.fromCodePoint(cp);
  const normalized = ch.normalize('NFKC');
  if (normalized === ch) return undefined;
  // Parenthesized and full-stop digits (⑴ ⒈, U+2474-U+249B) are digits drawn with decoration,
  // like the circled ones NFKC folds to bare digits: "⑷⑴⑴⑴" is 4111, not "(4)(1)(1)(1)".
  if (cp >= 0x2474 && cp <= 0x249b) return normalized.replace(/[().]/g, '');
  let out = '';
  for (const part of normalized) {
    const code = part.codePointAt(0)!;
    // A mark NFKC puts after a blank or ASCII punctuation (`´` is a space and an acute, `‗` a space
    // and a double low line) goes as a written one would (session 19): the fold stays idempotent.
    const previous = out.length > 0 ? out.charCodeAt(out.length - 1) : -1;
    if (code >= 0x80 && previous >= 0x20 && previous < 0x7f && !isAsciiLetterCode(previous) && (DECORATION_MARKS.has(code) || COMBINING_MARK.test(part))) continue;
    out += code < 0x80 ? part : DECORATION_MARKS.has(code) ? '' : (foldSimple(code) ?? part);
  }
  return out;
}

/** Per BMP code unit: 0 not classified yet, 1 stays, 2 folds (see BMP_FOLDS), 3 a combining mark (stays, but not on a digit). */
const BMP_CLASS = new Uint8Array(0x10000);
const BMP_FOLDS: (string | undefined)[] = new Array<string | undefined>(0x10000).fill(undefined);
/** Astral code points (mathematical digits and letters, tags, ...), bounded. */
const ASTRAL_FOLDS = new Map<number, string | null>();
const ASTRAL_CACHE_LIMIT = 4096;

// ASCII never folds.
BMP_CLASS.fill(1, 0, 0x80);

/** The fold of the BMP code unit `code` (not a surrogate), or undefined when it stays. */
function bmpFold(code: number): string | undefined {
  let cls = BMP_CLASS[code]!;
  if (cls === 0) {
    const folded = computeFold(code);
    if (folded === undefined) cls = COMBINING_MARK.test(String.fromCharCode(code)) ? 3 : 1;
    else {
      cls = 2;
      BMP_FOLDS[code] = folded;
    }
    BMP_CLASS[code] = cls;
  }
  return cls === 2 ? BMP_FOLDS[code] : undefined;
}

/** True for a BMP combining mark that folding keeps (call bmpFold first: it classifies). */
function isMarkCode(code: number): boolean {
  return BMP_CLASS[code] === 3;
}

function astralFold(cp: number): string | undefined {
  let folded = ASTRAL_FOLDS.get(cp);
  if (folded === undefined) {
    folded = computeFold(cp) ?? null;
    if (ASTRAL_FOLDS.size >= ASTRAL_CACHE_LIMIT) ASTRAL_FOLDS.clear();
    ASTRAL_FOLDS.set(cp, folded);
  }
  return folded ?? undefined;
}

// Cyrillic and Greek letters drawn like Latin ones, read as the Latin letter inside a word that
// also holds an ASCII letter or digit (`jоhn.dое@corp.example`, `DЕ89 3704 …` with a Cyrillic
// `о`, `е`, `Е`): a word of one script is no spoof, and a Russian or Greek word stays as it is.
const HOMOGLYPHS: ReadonlyMap<number, string> = new Map(
  [
    // Cyrillic lower and upper case
    ['а', 'a'], ['е', 'e'], ['о', 'o'], ['р', 'p'], ['с', 'c'], ['у', 'y'], ['х', 'x'], ['і', 'i'], ['ј', 'j'], ['ѕ', 's'],
    ['ԁ', 'd'], ['һ', 'h'], ['ӏ', 'l'], ['ԛ', 'q'], ['ԝ', 'w'],
    ['А', 'A'], ['В', 'B'], ['Е', 'E'], ['К', 'K'], ['М', 'M'], ['Н', 'H'], ['О', 'O'], ['Р', 'P'], ['С', 'C'], ['Т', 'T'],
    ['Х', 'X'], ['І', 'I'], ['Ј', 'J'], ['Ѕ', 'S'], ['Ү', 'Y'], ['Ԛ', 'Q'], ['Ԝ', 'W'],
    // Greek capitals and omicron
    ['Α', 'A'], ['Β', 'B'], ['Ε', 'E'], ['Ζ', 'Z'], ['Η', 'H'], ['Ι', 'I'], ['Κ', 'K'], ['Μ', 'M'], ['Ν', 'N'], ['Ο', 'O'],
    ['Ρ', 'P'], ['Τ', 'T'], ['Υ', 'Y'], ['Χ', 'X'], ['ο', 'o'],
  ].map(([from, to]) => [from!.charCodeAt(0), to!]),
);

/** The Latin letter a Cyrillic or Greek look-alike stands for, or undefined. */
export function homoglyphOf(code: number): string | undefined {
  return code >= 0x370 && code <= 0x52f ? HOMOGLYPHS.get(code) : undefined;
}

const WORD_CHAR = /^[\p{L}\p{N}\p{M}]$/u;

function isSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdfff;
}

/** A unit of a word: a letter, digit or mark (astral ones as their two surrogates). */
function isWordUnit(code: number): boolean {
  if (code < 0x80) return (code >= 48 && code <= 57) || ((code | 0x20) >= 97 && (code | 0x20) <= 122);
  return isSurrogate(code) || WORD_CHAR.test(String.fromCharCode(code));
}

/** True when the unit at `k` is, or folds to, an ASCII letter or digit (full-width, digits of every script). */
function foldsToAsciiAlnum(text: string, k: number): boolean {
  const code = text.charCodeAt(k);
  let first = code;
  if (code >= 0x80) {
    let folded: string | undefined;
    if (!isSurrogate(code)) folded = bmpFold(code);
    else if (code <= 0xdbff) {
      const cp = text.codePointAt(k)!;
      if (cp > 0xffff) folded = astralFold(cp);
    }
    if (folded === undefined || folded === '') return false;
    first = folded.charCodeAt(0);
  }
  return (first >= 48 && first <= 57) || ((first | 0x20) >= 97 && (first | 0x20) <= 122);
}

/** The end of the word holding `index` (letters, digits, marks) and whether it mixes in ASCII letters or digits. */
function homoglyphWord(text: string, index: number): { end: number; mixed: boolean } {
  let mixed = false;
  let start = index;
  while (start > 0 && isWordUnit(text.charCodeAt(start - 1))) {
    start--;
    if (!mixed && foldsToAsciiAlnum(text, start)) mixed = true;
  }
  let end = index + 1;
  while (end < text.length && isWordUnit(text.charCodeAt(end))) {
    if (!mixed && foldsToAsciiAlnum(text, end)) mixed = true;
    end++;
  }
  if (!mixed) mixed = digitGroupWord(text, start, end);
  return { end, mixed };
}

// Session 17 (wave16/evade): a word of one script that is a group of a number (`+33 l 42 68 53 ΟΟ`
// with Greek omicrons, `IBAN DE89 … 0130 ОО` with Cyrillic ones). Its letters (four at most) are
// all look-alikes of the letters lookalike.ts reads as digits (`O`, `o`, `I`, `l`), and a word of
// ASCII letters and digits holding a digit stands before it past one to three number separators
// (space - . / ( ) +), and after it too for a one-letter word: it is read as the Latin letters,
// which detection and normalization then read as digits where a value takes them
// (text/lookalike.ts). Greek and Russian prose stays as written (`Ο 2024`, `о 2024 году`, `ΟΧΙ 12`:
// no digits before, or a letter that looks like no digit).
// The same for an e-mail address's local part or the domain label after its `@` written wholly in
// look-alikes (`оо@corp.example`): every letter of the word is a look-alike, and the other side of
// the `@` is ASCII. An address of one script (`почта@пример.рф`) stays as written.
/** Is the word [start, end) beside an `@` all look-alikes, with an ASCII letter or digit across the `@`? */
function addressPartWord(text: string, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (homoglyphOf(text.charCodeAt(k)) === undefined) return false;
  const across = text.charCodeAt(end) === 64 ? end + 1 : start - 2;
  const code = text.charCodeAt(across);
  return (code >= 48 && code <= 57) || ((code | 0x20) >= 97 && (code | 0x20) <= 122);
}

/** The Latin letters lookalike.ts reads as digits. */
const DIGIT_LOOKALIKES: ReadonlySet<string> = new Set(['O', 'o', 'I', 'l']);
/** Most separators between the group and the digits beside it. */
const GROUP_GAP = 3;

function isGroupSeparator(code: number): boolean {
  return code === 32 || code === 45 || code === 46 || code === 47 || code === 40 || code === 41 || code === 43;
}

/** An ASCII letter, or a Cyrillic or Greek look-alike of one (the word folds to ASCII then). */
function isLetterOrLookalike(code: number): boolean {
  return ((code | 0x20) >= 97 && (code | 0x20) <= 122) || homoglyphOf(code) !== undefined;
}

/**
 * A word of ASCII letters and digits holding a digit ends at `end` (exclusive) or starts at `start`.
 * Since session 18 (wave17/evade) its letters may be Cyrillic or Greek look-alikes too
 * (`Οl3Ο ΟΟ`: the group before folds itself, as a word that mixes in ASCII).
 */
function asciiDigitWordAt(text: string, at: number, step: 1 | -1): boolean {
  let digit = false;
  for (let k = at; k >= 0 && k < text.length; k += step) {
    const code = text.charCodeAt(k);
    if (code >= 48 && code <= 57) digit = true;
    else if (!isLetterOrLookalike(code)) return digit && k !== at;
  }
  return digit;
}

/** Is `code` a look-alike of a digit (`O o I l`, or a Cyrillic or Greek look-alike of one)? */
function isDigitLookalike(code: number): boolean {
  if (code === 79 || code === 111 || code === 73 || code === 108) return true;
  const latin = homoglyphOf(code);
  return latin !== undefined && DIGIT_LOOKALIKES.has(latin);
}

/** Most whole groups of look-alikes walked back over to the digits before them. */
const LOOKALIKE_GROUPS = 3;

/**
 * Does a number's word holding a digit stand before `start`, past one to three number separators,
 * or past whole groups of look-alikes (at most LOOKALIKE_GROUPS, four letters each) and their
 * separators (`1234 ΟΟΟΟ ΟΟ44`; session 18)?
 */
function digitWordBefore(text: string, start: number): boolean {
  let end = start;
  for (let groups = 0; groups <= LOOKALIKE_GROUPS; groups++) {
    let before = end;
    while (before > 0 && end - before < GROUP_GAP && isGroupSeparator(text.charCodeAt(before - 1))) before--;
    if (before === end) return false;
    if (asciiDigitWordAt(text, before - 1, -1)) return true;
    let wordStart = before;
    while (wordStart > 0 && before - wordStart < 4 && isDigitLookalike(text.charCodeAt(wordStart - 1))) wordStart--;
    if (wordStart === before || (wordStart > 0 && !isGroupSeparator(text.charCodeAt(wordStart - 1)))) return false;
    end = wordStart;
  }
  return false;
}

/** Is the one-script word [start, end) a number's group of digit look-alikes, or an e-mail address's part beside its `@` (see above)? */
function digitGroupWord(text: string, start: number, end: number): boolean {
  if (text.charCodeAt(end) === 64 || text.charCodeAt(start - 1) === 64) return addressPartWord(text, start, end);
  if (end - start > 4) return false;
  for (let k = start; k < end; k++) {
    const latin = homoglyphOf(text.charCodeAt(k));
    if (latin === undefined || !DIGIT_LOOKALIKES.has(latin)) return false;
  }
  // The number goes on from the left (a group after the digits); a one-letter word (a Greek
  // article `Ο`, the Russian `о`) only between two digit words.
  if (!digitWordBefore(text, start)) return false;
  if (end - start > 1) return true;
  let after = end;
  while (after < text.length && after - end < GROUP_GAP && isGroupSeparator(text.charCodeAt(after))) after++;
  return after > end && asciiDigitWordAt(text, after, 1);
}

const NON_ASCII = /[\u0080-\uffff]/;

/** Index of the first code unit that may fold, or -1. */
function firstFoldable(text: string): number {
  // Pure ASCII (the common case) never folds: UTF-8 has one byte per character exactly then,
  // and Node counts UTF-8 bytes natively (SIMD): ~25 ns for a sentence, ~30 us per MB, far
  // below a loop or a regex in JS.
  const length = text.length;
  if (Buffer.byteLength(text, 'utf8') === length) return -1;
  const first = NON_ASCII.exec(text)?.index ?? length;
  for (let index = first; index < length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) continue;
    if (code < 0xd800 || code > 0xdfff) {
      // A mark folds only on a digit: the full pass decides.
      if (bmpFold(code) !== undefined || isMarkCode(code)) return index;
      if ((code === PROLONGED_SOUND_MARK || code === 0xff70) && isAsciiDigit(text.charCodeAt(index - 1))) return index;
      if (homoglyphOf(code) !== undefined) {
        // A look-alike folds only in a word with ASCII in it: a word of one script is skipped whole.
        const word = homoglyphWord(text, index);
        if (word.mixed) return index;
        index = word.end - 1;
      }
    } else return index; // surrogates: checked by the full pass
  }
  return -1;
}

// ---------------------------------------------------------------------------------------------
// Escapes (see the header).

const AMPERSAND = 0x26;
const PERCENT = 0x25;
const BACKSLASH = 0x5c;
const SEMICOLON = 0x3b;
/** The end of a `\u{…}` escape. */
const RIGHT_BRACE = 0x7d;
/** Longest named reference recognised, `;` included (`&commat;`, `&hyphen;`, `&lowbar;`). */
const NAMED_MAX = 8;
const NAMED_REFERENCES: ReadonlyMap<string, string> = new Map([
  ['commat', '@'], ['period', '.'], ['plus', '+'], ['nbsp', ' '], ['hyphen', '-'], ['dash', '-'], ['minus', '-'],
  ['lpar', '('], ['rpar', ')'], ['colon', ':'], ['lowbar', '_'], ['sol', '/'],
]);

/**
 * The characters a percent escape decodes to: `@` and `+`, which URL encoders escape, and the
 * unreserved ones (letters, digits, `-` `.` `_` `~`), which no encoder needs to escape: written
 * so, they hide a value on purpose (`%6A%6F%68%6E%40…`).
 */
const PERCENT_DECODED = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  const ch = String.fromCharCode(code);
  if (/[A-Za-z0-9\-._~@+]/.test(ch)) PERCENT_DECODED[code] = 1;
}

/** An escape's folded text and its length in the original. */
interface Escape {
  readonly folded: string;
  readonly length: number;
  /** A markup unit (markup.ts): folds to nothing, or to a space between two digits. */
  readonly markup?: true;
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 0x20;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/** The fold of code point `cp` as a string (itself when it stays). */
function foldOf(cp: number): string {
  if (cp < 0x80) return String.fromCharCode(cp);
  if (cp <= 0xffff) return bmpFold(cp) ?? String.fromCharCode(cp);
  return astralFold(cp) ?? String.fromCodePoint(cp);
}

/** The numeric character reference at `index` (`&#...`), or undefined. */
function numericReferenceAt(text: string, index: number): Escape | undefined {
  let pos = index + 2;
  const hex = (text.charCodeAt(pos) | 0x20) === 0x78; // x
  if (hex) pos++;
  const digitsStart = pos;
  let cp = 0;
  while (pos - digitsStart < (hex ? 6 : 7)) {
    const code = text.charCodeAt(pos);
    const value = hex ? hexValue(code) : code >= 48 && code <= 57 ? code - 48 : -1;
    if (value < 0) break;
    cp = cp * (hex ? 16 : 10) + value;
    pos++;
  }
  if (pos === digitsStart) return undefined;
  if (text.charCodeAt(pos) === SEMICOLON) pos++;
  else if (hex || (text.charCodeAt(pos) >= 48 && text.charCodeAt(pos) <= 57)) return undefined; // hex needs its `;`; too many digits
  // Controls, surrogates and what no code point is: left as written.
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return undefined;
  return { folded: foldOf(cp), length: pos - index };
}

/** `count` hex digits at `pos` as a number, or -1. */
function hexDigits(text: string, pos: number, count: number): number {
  let value = 0;
  for (let k = 0; k < count; k++) {
    const digit = hexValue(text.charCodeAt(pos + k));
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/** The code point escape at `index` (a backslash: `\u0040`, `\u{40}`, `\x40`, `\U00000040`), or undefined. */
function backslashEscapeAt(text: string, index: number): Escape | undefined {
  const kind = text.charCodeAt(index + 1);
  let cp = -1;
  let length = 0;
  if (kind === 0x75 /* u */ && text.charCodeAt(index + 2) === 0x7b /* { */) {
    const close = text.indexOf('}', index + 3);
    if (close > index + 3 && close - index - 3 <= 6) {
      cp = hexDigits(text, index + 3, close - index - 3);
      length = close + 1 - index;
    }
  } else if (kind === 0x75) {
    cp = hexDigits(text, index + 2, 4);
    length = 6;
  } else if (kind === 0x78 /* x */) {
    cp = hexDigits(text, index + 2, 2);
    length = 4;
  } else if (kind === 0x55 /* U */) {
    cp = hexDigits(text, index + 2, 8);
    length = 10;
  }
  // Controls, surrogates (a pair written as two escapes stays as written) and what no code point is.
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return undefined;
  return { folded: foldOf(cp), length };
}

function isAsciiAlnumCode(code: number): boolean {
  const lower = code | 0x20;
  return (code >= 48 && code <= 57) || (lower >= 97 && lower <= 122);
}

/** True when a digit, written or percent-escaped (`%34`: its last character is a digit too), ends at `end` (exclusive). */
function digitEndsAt(text: string, end: number): boolean {
  return isAsciiDigit(text.charCodeAt(end - 1));
}

/** True when a digit, written or percent-escaped (`%34`), starts at `start`. */
function digitStartsAt(text: string, start: number): boolean {
  const code = text.charCodeAt(start);
  if (isAsciiDigit(code)) return true;
  return code === PERCENT && text.charCodeAt(start + 1) === 0x33 && isAsciiDigit(text.charCodeAt(start + 2));
}

/** The character a percent escape at `index` decodes to (0 when there is none). */
function percentCodeAt(text: string, index: number): number {
  if (text.charCodeAt(index) !== PERCENT) return 0;
  const high = hexValue(text.charCodeAt(index + 1));
  const low = hexValue(text.charCodeAt(index + 2));
  return high < 0 || low < 0 ? 0 : high * 16 + low;
}

/**
 * True when a letter or digit, written or percent-escaped (`%57`), starts at `start`: a value
 * escaped character by character (`%47%42%38%32%20%57%45…`) has its separators between escapes.
 * Session 13 (wave12/evade).
 */
function alnumStartsAt(text: string, start: number): boolean {
  return isAsciiAlnumCode(text.charCodeAt(start)) || isAsciiAlnumCode(percentCodeAt(text, start));
}

/** True when a hex digit, written or percent-escaped (`%41`), starts at `start`. */
function hexStartsAt(text: string, start: number): boolean {
  return hexValue(text.charCodeAt(start)) >= 0 || hexValue(percentCodeAt(text, start)) >= 0;
}

/** True when the percent escape of `code` (two hex digits, any case) stands at `index`. */
function percentOf(text: string, index: number, code: number): boolean {
  return text.charCodeAt(index) === PERCENT && hexValue(text.charCodeAt(index + 1)) === code >> 4 && hexValue(text.charCodeAt(index + 2)) === (code & 15);
}

/**
 * The separators of a number percent-escaped in a URL (`?card=4111%201111%201111%201111`,
 * `tel=%28415%29%20555%2D0142`): `%20` between two digits or a digit and a letter (or after
 * `%29`, before `%28` or `%2B`), `%28` before a digit, `%29` after one, `%3A` between two hex
 * digits (a MAC or an IPv6 address). Elsewhere a `%20` stays: in a path or a query it
 * separates words, and decoding it there would cut a URL in two.
 */
function percentSeparator(text: string, index: number, code: number): boolean {
  let ok: boolean;
  if (code === 0x28) ok = digitStartsAt(text, index + 3);
  else if (code === 0x29) ok = digitEndsAt(text, index);
  else if (code === 0x20) {
    // Between two digits; or between a digit and a letter, as an IBAN's groups stand (`GB82%20WEST`).
    const before = digitEndsAt(text, index) || percentOf(text, index - 3, 0x29);
    const after = digitStartsAt(text, index + 3) || percentOf(text, index + 3, 0x28) || percentOf(text, index + 3, 0x2b);
    ok = (before && (after || alnumStartsAt(text, index + 3))) || (after && isAsciiAlnumCode(text.charCodeAt(index - 1)));
  } else if (code === 0x3a) {
    // The colons of a MAC or an IPv6 address (`00%3A1A%3A2B…`): between two hex digits.
    // `%3A%3A` is an IPv6 address's `::`.
    ok = (hexValue(text.charCodeAt(index - 1)) >= 0 || percentOf(text, index - 3, 0x3a)) && (hexStartsAt(text, index + 3) || percentOf(text, index + 3, 0x3a));
  } else return false;
  return ok && !inPath(text, index);
}

/** How far back a path is looked for (a word longer than this is read as no path). */
const PATH_LOOKBACK = 512;

/**
 * True when the word holding `index` has a `/` before it: a URL or a path, whose detectors read
 * its escapes themselves (identifying.ts decodes a URL's path and query), and where a decoded
 * blank would cut it in two (`/report%202024%2001.pdf`).
 */
function inPath(text: string, index: number): boolean {
  for (let k = index - 1; k >= 0 && index - k <= PATH_LOOKBACK; k--) {
    const code = text.charCodeAt(k);
    if (code === 0x2f) return true;
    if (code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d || code === 0x22 || code === 0x27 || code === 0x3c || code === 0x3e) return false;
  }
  return false;
}

/** The escape at `index` (an `&`, a `%` or a backslash), or undefined. */
function escapeAt(text: string, index: number): Escape | undefined {
  if (text.charCodeAt(index) === BACKSLASH) return backslashEscapeAt(text, index);
  if (text.charCodeAt(index) === PERCENT) {
    const high = hexValue(text.charCodeAt(index + 1));
    const low = hexValue(text.charCodeAt(index + 2));
    if (high < 0 || low < 0) return undefined;
    const code = high * 16 + low;
    return PERCENT_DECODED[code] === 1 || percentSeparator(text, index, code) ? { folded: String.fromCharCode(code), length: 3 } : undefined;
  }
  if (text.charCodeAt(index + 1) === 0x23) return numericReferenceAt(text, index); // &#
  const end = text.indexOf(';', index + 2);
  if (end < 0 || end - index > NAMED_MAX) return undefined;
  const folded = NAMED_REFERENCES.get(text.slice(index + 1, end));
  return folded === undefined ? undefined : { folded, length: end + 1 - index };
}

// Quoted-printable escapes of an e-mail address (`jane=2Edoe=40corp=2Eexample`, as a raw mail
// body or an adversary writes it). `=XX` is everywhere in assignments (`width=40`, `id=2D4F`,
// `token=2E9f…`), so only an address decodes: a `=40` between a local part and a domain (a
// letter or digit after it, a dot or `=2E` before the next blank), and the `=2E` `=2D` `=5F`
// `=2B` of the word that holds such a `=40`. Uppercase hex only, as quoted-printable writes it.
const EQUALS = 0x3d;
/** How far a quoted-printable address word is read either side of an escape. */
const QP_WORD = 64;
/** The characters an address's quoted-printable escapes decode to (punctuation, letters, digits), by code. */
const QP_DECODED = new Uint8Array(128);
for (let code = 0; code < 128; code++) if (/[A-Za-z0-9@._+-]/.test(String.fromCharCode(code))) QP_DECODED[code] = 1;

function upperHexValue(code: number): number {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 70) ? hexValue(code) : -1;
}

/** True for a character an address word holds (letters, digits, `.` `-` `_` `+` `=`). */
function qpWordCode(code: number): boolean {
  return isAsciiAlnum(code) || code === 0x2e || code === 0x2d || code === 0x5f || code === 0x2b || code === EQUALS;
}

function isAsciiAlnum(code: number): boolean {
  const lower = code | 0x20;
  return (code >= 48 && code <= 57) || (lower >= 97 && lower <= 122);
}

/** True when the `=40` at `index` joins a local part and a domain. */
function qpAtSign(text: string, index: number): boolean {
  if (!qpWordCode(text.charCodeAt(index - 1)) || text.charCodeAt(index - 1) === EQUALS) return false;
  if (!isAsciiAlnum(text.charCodeAt(index + 3)) && !qpAlnumAt(text, index + 3)) return false;
  for (let k = index + 4; k < index + 3 + QP_WORD && k < text.length; k++) {
    const code = text.charCodeAt(k);
    if (code === 0x2e) return isAsciiAlnum(text.charCodeAt(k + 1)) || qpAlnumAt(text, k + 1);
    if (code === EQUALS && text.startsWith('=2E', k)) return isAsciiAlnum(text.charCodeAt(k + 3)) || qpAlnumAt(text, k + 3);
    if (!qpWordCode(code)) return false;
  }
  return false;
}

/** True when the quoted-printable escape of a letter or digit stands at `index` (`=63`). */
function qpAlnumAt(text: string, index: number): boolean {
  if (text.charCodeAt(index) !== EQUALS) return false;
  const high = upperHexValue(text.charCodeAt(index + 1));
  const low = upperHexValue(text.charCodeAt(index + 2));
  return high >= 0 && low >= 0 && isAsciiAlnum(high * 16 + low);
}

/** The start of the address word around `index` (bounded), for the first escape to decode. */
function qpWordStart(text: string, index: number): number {
  let k = index;
  while (k > 0 && index - k < QP_WORD && qpWordCode(text.charCodeAt(k - 1))) k--;
  return k;
}

// A run of quoted-printable escapes (`=34=31=31=31=20=31…`): a text written wholly as escapes
// is hidden on purpose (quoted-printable escapes only what it must, and no assignment writes six
// `=HH` in a row), so every escape of printable ASCII in a run of QP_RUN or more is decoded,
// separators included (`=20`, `=2D`). Either case of hex (decoders read both).
/** The fewest contiguous escapes read as a quoted-printable run. */
const QP_RUN = 6;

/** The printable ASCII character escaped at `index` (`=HH`, any case), or -1. */
function qpPrintableAt(text: string, index: number): number {
  if (index < 0 || text.charCodeAt(index) !== EQUALS) return -1;
  const high = hexValue(text.charCodeAt(index + 1));
  const low = hexValue(text.charCodeAt(index + 2));
  if (high < 0 || low < 0) return -1;
  const code = high * 16 + low;
  return code >= 0x20 && code <= 0x7e ? code : -1;
}

/** True when the escape at `index` is one of QP_RUN or more contiguous escapes of printable ASCII (bounded reads). */
export function inQpRun(text: string, index: number): boolean {
  if (qpPrintableAt(text, index) < 0) return false;
  let count = 1;
  for (let k = index - 3; count < QP_RUN && qpPrintableAt(text, k) >= 0; k -= 3) count++;
  for (let k = index + 3; count < QP_RUN && qpPrintableAt(text, k) >= 0; k += 3) count++;
  return count >= QP_RUN;
}

/** The quoted-printable escape at `index` (an `=`) of an address or of a run, or undefined. */
function qpEscapeAt(text: string, index: number): Escape | undefined {
  if (inQpRun(text, index)) return { folded: String.fromCharCode(qpPrintableAt(text, index)), length: 3 };
  const high = upperHexValue(text.charCodeAt(index + 1));
  const low = upperHexValue(text.charCodeAt(index + 2));
  if (high < 0 || low < 0) return undefined;
  const code = high * 16 + low;
  if (QP_DECODED[code] !== 1) return undefined;
  const folded = String.fromCharCode(code);
  if (code === 0x40) return qpAtSign(text, index) ? { folded, length: 3 } : undefined;
  // Another escape: decoded in a word that holds an address's `=40`, before or after it.
  const from = qpWordStart(text, index);
  for (let k = from; k < index + QP_WORD && k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === EQUALS && text.startsWith('=40', k) && qpAtSign(text, k)) return { folded, length: 3 };
    if (k > index && !qpWordCode(c)) break;
  }
  return undefined;
}

/** The characters an escape or a markup unit starts with (native searches find the first). */
const UNIT_STARTS: readonly string[] = ['&', '%', '\\', '=40', ...MARKUP_STARTS];

/**
 * Index of the first escape of a quoted-printable run at or after `from`, or -1: one native
 * search per `=`, rejected in two reads unless `=` stands where the run's next escapes would.
 */
function firstQpRun(text: string, from: number): number {
  for (let at = text.indexOf('=', from); at >= 0; at = text.indexOf('=', at + 1)) {
    if (text.charCodeAt(at + 3) === EQUALS && text.charCodeAt(at + 3 * (QP_RUN - 1)) === EQUALS && inQpRun(text, at)) return at;
  }
  return -1;
}

/** The escape or markup unit at `index` as an Escape (markup folds to nothing), or undefined. */
function unitAt(text: string, index: number): Escape | undefined {
  const code = text.charCodeAt(index);
  if (code === AMPERSAND || code === PERCENT || code === BACKSLASH) return escapeAt(text, index);
  if (code === EQUALS && hexValue(text.charCodeAt(index + 1)) >= 0) {
    const qp = qpEscapeAt(text, index);
    if (qp !== undefined) return qp;
  }
  const length = markupAt(text, index);
  return length > 0 ? { folded: '', length, markup: true } : undefined;
}

/**
 * Index of the first escape or markup unit at or after `from`, or -1: one native search per
 * start character, then the candidates in order.
 */
function firstEscape(text: string, from: number): number {
  const next = UNIT_STARTS.map((ch) => text.indexOf(ch, from));
  const qpRun = firstQpRun(text, from);
  for (;;) {
    let best = -1;
    let which = -1;
    for (let k = 0; k < next.length; k++) {
      const at = next[k]!;
      if (at >= 0 && (best < 0 || at < best)) {
        best = at;
        which = k;
      }
    }
    if (qpRun >= 0 && (best < 0 || qpRun <= best)) return qpRun;
    if (best < 0) return -1;
    const unit = unitAt(text, best);
    // An address's `=40`: its word's other escapes (`jane=2Edoe=40…`) may come before it.
    if (unit !== undefined && unit.markup !== true && text.charCodeAt(best) === EQUALS) return Math.max(from, qpWordStart(text, best));
    if (unit !== undefined && (unit.markup !== true || markupMayFold(text, best))) return best;
    next[which] = text.indexOf(UNIT_STARTS[which]!, best + 1);
  }
}

function isAsciiDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** An ASCII digit or one of the punctuation characters values are written with: no mark belongs on it. */
function isBare(code: number): boolean {
  return isAsciiDigit(code) || code === 0x40 || code === 0x2e || code === 0x2d || code === 0x2b || code === 0x5f;
}

/** The first character the text at `index` folds to (an escape decoded), or -1 at the end. */
function foldedCodeAt(text: string, index: number): number {
  if (index >= text.length) return -1;
  const code = text.charCodeAt(index);
  if (code === AMPERSAND || code === PERCENT || code === BACKSLASH) {
    const escape = escapeAt(text, index);
    return escape === undefined || escape.folded === '' ? code : escape.folded.charCodeAt(0);
  }
  if (code < 0x80 || (code >= 0xd800 && code <= 0xdfff)) return code;
  const folded = bmpFold(code);
  return folded === undefined || folded === '' ? code : folded.charCodeAt(0);
}

function isAsciiLetterCode(code: number): boolean {
  return (code | 0x20) >= 97 && (code | 0x20) <= 122;
}

/**
 * Is a combining mark after the folded character `last` dropped? On a digit or value punctuation
 * (isBare), and since session 19 on a blank or any ASCII punctuation: no script writes one there.
 */
function dropsMarkAfter(last: number): boolean {
  return isBare(last) || (last >= 0x20 && last < 0x7f && !isAsciiLetterCode(last));
}

/** A character a value is written with: ASCII letters and digits, `@ . + - _`. */
function isValueCode(code: number): boolean {
  return (code >= 48 && code <= 57) || ((code | 0x20) >= 97 && (code | 0x20) <= 122) || code === 0x40 || code === 0x2e || code === 0x2b || code === 0x2d || code === 0x5f;
}

/** The start or end of the text, a space or a line break. */
function isEdgeCode(code: number): boolean {
  return code === -1 || code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d;
}

/**
 * A credential's name before `=` at a line's end (`pwd=⏎…`, `API_TOKEN=⏎…`): read as an
 * assignment (its value, if any, on the next line is the secret), never joined to the next line.
 */
const CREDENTIAL_NAME = /(?:pass(?:word|wd)?|pwd|secret|token|key|auth|credentials?|pin)$/i;

/**
 * True when the line after the soft break at `index` starts with an assignment (`NAME=`,
 * `name:`): then the `=` ended an assignment of nothing in a config or env file
 * (`DB_PASSWORD=⏎API_TOKEN=…`), not a wrapped line.
 */
function assignmentFollows(text: string, index: number): boolean {
  let pos = text.indexOf('\n', index) + 1;
  while (pos < text.length && (text.charCodeAt(pos) === 0x20 || text.charCodeAt(pos) === 0x09)) pos++;
  const nameStart = pos;
  while (pos < text.length && pos - nameStart <= 64 && (isValueCode(text.charCodeAt(pos)) && text.charCodeAt(pos) !== 0x40)) pos++;
  if (pos === nameStart) return false;
  while (pos < text.length && text.charCodeAt(pos) === 0x20) pos++;
  const code = text.charCodeAt(pos);
  return code === 0x3d || code === 0x3a;
}

/**
 * Whether the markup unit at `index` may fold, read from the raw text around it: exact when the
 * character before it is ASCII and no escape's end (the fold decides otherwise). Ordinary
 * markdown and HTML (`**bold**`, `<b>word</b>`) so leave the text unfolded, without the per
 * character pass.
 */
function markupMayFold(text: string, index: number): boolean {
  const previous = index > 0 ? text.charCodeAt(index - 1) : -1;
  if (previous >= 0x80 || previous === SEMICOLON || previous === RIGHT_BRACE) return true;
  let end = index;
  for (let unit = markupAt(text, end); unit > 0; unit = markupAt(text, end)) end += unit;
  return markupFold(text, index, previous, foldedCodeAt(text, end)) !== undefined;
}

/**
 * What a markup unit folds to between the folded characters `previous` and `next` (past the
 * other units of its chain): a space between two digits (`4111<b></b>1111 …`, `4111**1111**…`
 * are grouped numbers to the eye), nothing inside a value (between two characters values are
 * written with: `john<span>@</span>corp`, `078-05-<i>1120`) or between a digit and a space or an
 * edge (`` `4111` 1111 …``); elsewhere it is left as written (`**bold**`, `<code>password</code>:`).
 */
function markupFold(text: string, index: number, previous: number, next: number): string | undefined {
  // A quoted-printable soft line break joins the two halves of a word (`05=⏎32` is 0532), but
  // not before another assignment (`KEY=⏎NEXT=…` in an env file assigns nothing to KEY) nor
  // after a credential's name (`pwd=⏎…`).
  // A number wrapped after a dash is the number (`555-⏎0100`).
  if (text.charCodeAt(index) === 0x2d) return isAsciiDigit(previous) && isAsciiDigit(next) ? '-' : undefined;
  // A defanged `[.]` or `(@)` inside a value is its character.
  const defanged = defangedAt(text, index);
  if (defanged !== undefined) return isValueCode(previous) && isValueCode(next) ? defanged : undefined;
  if (text.charCodeAt(index) === 0x3d) {
    return isValueCode(previous) && isValueCode(next) && !assignmentFollows(text, index) && !CREDENTIAL_NAME.test(text.slice(Math.max(0, index - 24), index)) ? '' : undefined;
  }
  const digitBefore = isAsciiDigit(previous);
  const digitAfter = isAsciiDigit(next);
  if (digitBefore && digitAfter) return ' ';
  if ((isValueCode(previous) && isValueCode(next)) || (digitBefore && isEdgeCode(next)) || (isEdgeCode(previous) && digitAfter)) return '';
  return undefined;
}

/**
 * A place where a folded view differs from the original. Also built by the prompt guard's own
 * view (domain/guard/prompt.ts folds look-alikes for token cores), which maps offsets with
 * FoldedText too.
 */
export interface FoldAnchor {
  /** Folded index where the replacement starts. */
  readonly folded: number;
  /** Its length in the folded view (0 when the character was dropped). */
  readonly foldedLength: number;
  /** Original index and length (UTF-16 units) of the character. */
  readonly original: number;
  readonly originalLength: number;
  /**
   * A run of characters of one unit each that fold to one unit each (full-width text): offsets
   * map one to one inside it. One anchor per run keeps a page of full-width digits cheap.
   */
  readonly perCharacter?: boolean;
}

/** A text and its folded view, with offsets mapping between them. */
export class FoldedText {
  /** The folded text (the original string itself when nothing folds). */
  readonly text: string;
  /** Sorted by `folded` (then by `original`): one per character that folds to something else. */
  readonly #anchors: readonly FoldAnchor[];

  constructor(text: string, anchors: readonly FoldAnchor[]) {
    this.text = text;
    this.#anchors = anchors;
  }

  /** True when the folded text is the original (offsets are the same in both). */
  get identity(): boolean {
    return this.#anchors.length === 0;
  }

  /**
   * The original span (UTF-16, end exclusive) of the folded units [start, end): from the start
   * of the character behind `start` to the end of the character behind `end - 1`. A span that
   * begins or ends inside the multi-character fold of one character (NFKC's `㍿` is four
   * characters) grows to that whole character. Dropped characters inside the span are part of
   * it; dropped characters on its edges are not.
   */
  originalSpan(start: number, end: number): { start: number; end: number } {
    if (end <= start) {
      const at = this.#originalOf(start, false);
      return { start: at, end: at };
    }
    return { start: this.#originalOf(start, false), end: this.#originalOf(end - 1, true) };
  }

  /**
   * The folded span of the original units [start, end), which must lie on code-point
   * boundaries: the inverse of originalSpan for spans it returns.
   */
  foldedSpan(start: number, end: number): { start: number; end: number } {
    return { start: this.#foldedOf(start), end: this.#foldedOf(end) };
  }

  /** Folded index of original index `unit` (a code-point boundary). */
  #foldedOf(unit: number): number {
    const anchors = this.#anchors;
    // The last anchor whose original character starts before `unit`.
    let low = 0;
    let high = anchors.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (anchors[middle]!.original < unit) {
        found = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    if (found < 0) return unit;
    const anchor = anchors[found]!;
    if (anchor.perCharacter === true && unit < anchor.original + anchor.originalLength) return anchor.folded + (unit - anchor.original);
    return anchor.folded + anchor.foldedLength + (unit - anchor.original - anchor.originalLength);
  }

  /** Original start (or end, exclusive) of the character behind folded unit `unit`. */
  #originalOf(unit: number, wantEnd: boolean): number {
    const anchors = this.#anchors;
    // The last anchor at or before `unit`: a replacement covering it, or the last change before
    // it (a dropped character right before `unit` sits at the same folded index and counts).
    let low = 0;
    let high = anchors.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (anchors[middle]!.folded <= unit) {
        found = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    if (found < 0) return wantEnd ? unit + 1 : unit;
    const anchor = anchors[found]!;
    if (unit < anchor.folded + anchor.foldedLength) {
      if (anchor.perCharacter === true) return anchor.original + (unit - anchor.folded) + (wantEnd ? 1 : 0);
      return wantEnd ? anchor.original + anchor.originalLength : anchor.original;
    }
    const position = anchor.original + anchor.originalLength + (unit - anchor.folded - anchor.foldedLength);
    return wantEnd ? position + 1 : position;
  }
}

const NO_ANCHORS: readonly FoldAnchor[] = [];

/** Scratch for the characters of a per-character run (the fold is synchronous: one is enough). */
const RUN_CODES = new Uint16Array(4096);

/** An anchor under construction (a per-character run grows while it lasts). */
interface MutableAnchor {
  folded: number;
  foldedLength: number;
  original: number;
  originalLength: number;
  perCharacter?: boolean;
}

/** The folded view of `text` with its offset map (see the header). */
export function foldWithOffsets(text: string): FoldedText {
  return foldView(text, true);
}

/**
 * The fold without escapes and digit marks (what the previous release called the fold): erasure
 * still checks a stored value in this form, the one a revoke request of that release digested.
 * The character rules added since (line separators, blanks, enclosing marks) apply here too: no
 * detected value held one of those characters before, as they broke every value they were in.
 */
export function foldCharacters(text: string): string {
  return foldView(text, false).text;
}

function foldView(text: string, escapes: boolean): FoldedText {
  let first = firstFoldable(text);
  if (escapes) {
    const escape = firstEscape(text, 0);
    if (escape >= 0 && (first < 0 || escape < first)) first = escape;
  }
  if (first < 0) return new FoldedText(text, NO_ANCHORS);
  const anchors: MutableAnchor[] = [];
  const parts: string[] = [];
  let copiedFrom = 0;
  let foldedLength = 0;
  // The open per-character run; its folded characters wait in RUN_CODES (flushed in chunks).
  let run: MutableAnchor | undefined;
  let pending = 0;
  const flushRun = (): void => {
    if (pending > 0) parts.push(String.fromCharCode(...RUN_CODES.subarray(0, pending)));
    pending = 0;
  };
  let index = first;
  const length = text.length;
  // The last character of the folded text so far (-1 at the start): marks on a digit or on value
  // punctuation are dropped, and markup is dropped by its neighbours. The character before
  // `first` is an unchanged one.
  let last = first > 0 ? text.charCodeAt(first - 1) : -1;
  // The end of the chain of markup units being folded, and the folded character after it (read
  // once per chain, so a long chain costs its length once).
  let chainEnd = -1;
  let chainNext = -1;
  // The end of the word of the last look-alike letter read, and whether it mixes scripts (read once per word).
  let wordEnd = -1;
  let wordMixed = false;
  while (index < length) {
    const code = text.charCodeAt(index);
    let folded: string | undefined;
    let width = 1;
    if (code < 0x80) {
      let escape = escapes && (code === AMPERSAND || code === PERCENT || code === BACKSLASH || mayStartMarkup(code)) ? unitAt(text, index) : undefined;
      if (escape?.markup === true) {
        if (index >= chainEnd) {
          chainEnd = index;
          for (let unit = markupAt(text, chainEnd); unit > 0; unit = markupAt(text, chainEnd)) chainEnd += unit;
          chainNext = foldedCodeAt(text, chainEnd);
        }
        const dropped = markupFold(text, index, last, chainNext);
        escape = dropped === undefined ? undefined : { folded: dropped, length: escape.length };
      }
      if (escape === undefined) {
        last = code;
        index++;
        continue;
      }
      folded = escape.folded;
      width = escape.length;
      // A decoded mark on a digit goes like a written one.
      if (dropsMarkAfter(last) && folded.length === 1 && isMarkCode(folded.charCodeAt(0))) folded = '';
    } else if (code < 0xd800 || code > 0xdfff) {
      folded = bmpFold(code);
      // Session 19 (wave18/evade): a mark on a blank or on ASCII punctuation too (no script writes
      // one there: it only breaks a grouped number, `41́11́ 1́11́1 ́11́…`).
      if (folded === undefined && escapes && dropsMarkAfter(last) && isMarkCode(code)) folded = '';
    } else {
      const cp = text.codePointAt(index)!;
      // A lone surrogate stays as it is (callers treat it as an unknown character).
      if (cp > 0xffff) {
        width = 2;
        folded = astralFold(cp);
      }
    }
    // The katakana prolonged sound mark (`ー`, half-width `ｰ`) between two digits is the dash
    // Japanese input methods type in a number (`０９０ー１２３４ー５６７８`).
    if (escapes && code >= 0x80 && isAsciiDigit(last)) {
      const target = folded === undefined ? code : folded.length === 1 ? folded.charCodeAt(0) : -1;
      if (target === PROLONGED_SOUND_MARK && isAsciiDigit(foldedCodeAt(text, index + width))) folded = '-';
    }
    // A Cyrillic or Greek look-alike (written, or what NFKC made of a mathematical letter) in a
    // word with ASCII in it is the Latin letter.
    if (escapes && code >= 0x80) {
      const target = folded === undefined ? (width === 1 ? code : -1) : folded.length === 1 ? folded.charCodeAt(0) : -1;
      const latin = target >= 0 ? homoglyphOf(target) : undefined;
      if (latin !== undefined) {
        if (index >= wordEnd) {
          const word = homoglyphWord(text, index);
          wordEnd = word.end;
          wordMixed = word.mixed;
        }
        if (wordMixed) folded = latin;
      }
    }
    if (folded === undefined) last = code; // an unchanged non-ASCII character: no digit (every digit folds), no value character
    else if (folded.length > 0) last = folded.charCodeAt(folded.length - 1);
    if (folded !== undefined) {
      if (index > copiedFrom) {
        if (run !== undefined) {
          flushRun();
          run = undefined;
        }
        parts.push(text.slice(copiedFrom, index));
        foldedLength += index - copiedFrom;
      }
      if (width === 1 && folded.length === 1) {
        if (run === undefined) {
          run = { folded: foldedLength, foldedLength: 0, original: index, originalLength: 0, perCharacter: true };
          anchors.push(run);
        }
        run.foldedLength++;
        run.originalLength++;
        if (pending === RUN_CODES.length) flushRun();
        RUN_CODES[pending++] = folded.charCodeAt(0);
      } else {
        if (run !== undefined) {
          flushRun();
          run = undefined;
        }
        parts.push(folded);
        anchors.push({ folded: foldedLength, foldedLength: folded.length, original: index, originalLength: width });
      }
      foldedLength += folded.length;
      copiedFrom = index + width;
    }
    index += width;
  }
  flushRun();
  if (anchors.length === 0) return new FoldedText(text, NO_ANCHORS);
  parts.push(text.slice(copiedFrom));
  return new FoldedText(parts.join(''), anchors);
}

/** The folded text alone (for comparing values: revocation normalization, policy value patterns). */
export function foldText(text: string): string {
  return foldWithOffsets(text).text;
}
