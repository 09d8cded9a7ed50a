// Markup that renders as nothing inside a value: `4111<b></b>1111 …`, `john<span>@</span>corp.example`,
// `078-05-<i>1120</i>`, `4111<!-- x -->1111`, `4111[b]1111[/b]`, `4111**1111**…`, `` `4111` ``. A
// reader (and a model) sees the value whole; a detector reading the characters sees two short
// numbers. The fold (fold.ts) drops these units, like an invisible character, so the detectors,
// value normalization (one token and one erasure with the plain spelling) and the output guard
// read through them; every span is mapped back over them, so the token covers the whole value.
//
// The fold drops a unit by its neighbours (fold.ts, markupFold): inside a value, beside a digit,
// or as a space between two digits; where it formats words (`**bold**`, `<code>x</code>:`) it is
// left as written. Units are those that render as nothing and can hide nothing:
//   - HTML inline formatting tags (`<b>`, `</span>`, `<wbr>`, `<span style="…">`; not `<a>`,
//     whose target is content, nor block or table tags, which break a line or a cell);
//   - HTML comments of a few words (`<!-- x -->`, `<!---->`: letters, spaces and dashes only);
//   - BBCode formatting tags (`[b]`, `[/b]`, `[color=red]`);
//   - markdown emphasis and code marks: exactly two `*` or `~` (`**`, `~~`), one to three
//     backticks (a run of three or more `*`, as in a masked `****1234`, stays);
//   - quoted-printable soft line breaks (`=` at a line's end), where a mail client wrapped a
//     line (`DE89 3704 0044 05=⏎32 0130 00`, `john.doe@corp.exa=⏎mple`);
//   - defanged `[.]` `(.)` `[@]` `(@)`, which fold to the character they hold
//     (`john.doe[@]corp[.]example`);
//   - a line break after a dash between two digits (`+1 (415) 555-⏎0100`), which folds to the dash;
//   - the joint of two string literals concatenated in code (`'jane.doe' + '@corp.example'`,
//     `"4111" + "1111" + …`): a closing quote, `+` with at most one space on each side, the same
//     opening quote. A value split into literals is the value to whoever runs (or reads) the code.
// What a tag holds besides its name (attributes, a BBCode argument) must be unable to hold a
// value, since the detectors no longer read it: no `@`, no URL (`://`, `www.`), at most four
// digits, no run of 16 letters and digits, at most MAX_UNIT characters in all.

/** Longest tag dropped (with its attributes). */
const MAX_UNIT = 200;
/** Longest comment dropped (`<!--` and its text). */
const MAX_COMMENT = 44;

const INLINE_TAGS: ReadonlySet<string> = new Set([
  'abbr', 'b', 'bdi', 'bdo', 'big', 'cite', 'code', 'del', 'dfn', 'em', 'font', 'i', 'ins', 'kbd', 'mark', 'q', 's', 'samp',
  'small', 'span', 'strike', 'strong', 'sub', 'sup', 'time', 'tt', 'u', 'var', 'wbr',
]);
const BBCODE_TAGS: ReadonlySet<string> = new Set([
  'b', 'i', 'u', 's', 'em', 'strong', 'color', 'colour', 'size', 'font', 'sup', 'sub', 'highlight', 'mark', 'code', 'tt',
]);

const LESS_THAN = 0x3c;
const GREATER_THAN = 0x3e;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const STAR = 0x2a;
const TILDE = 0x7e;
const BACKTICK = 0x60;
const SLASH = 0x2f;
const EQUALS = 0x3d;
const OPEN_PAREN = 0x28;
const DASH = 0x2d;
const QUOTE = 0x22;
const APOSTROPHE = 0x27;
const PLUS = 0x2b;

/** True for the first character of a markup unit (the fold looks closer only there). */
export function mayStartMarkup(code: number): boolean {
  return (
    code === LESS_THAN || code === OPEN_BRACKET || code === STAR || code === TILDE || code === BACKTICK || code === EQUALS || code === OPEN_PAREN ||
    code === DASH || code === QUOTE || code === APOSTROPHE
  );
}

/**
 * The character a defanged `[.]`, `(.)`, `[@]` or `(@)` at `index` stands for (security reports
 * and mail filters write addresses so: `john.doe[@]corp[.]example`), or undefined.
 */
export function defangedAt(text: string, index: number): string | undefined {
  const open = text.charCodeAt(index);
  const inner = text.charCodeAt(index + 1);
  const close = text.charCodeAt(index + 2);
  if ((inner !== 0x2e && inner !== 0x40) || close !== (open === OPEN_PAREN ? 0x29 : CLOSE_BRACKET)) return undefined;
  return inner === 0x2e ? '.' : '@';
}

/**
 * What the fold searches for (native indexOf) to find the first unit: each unit starts with one
 * of these (the longer ones keep ordinary hyphens, parentheses and assignments off the search).
 */
export const MARKUP_STARTS: readonly string[] = ['<', '[', '**', '~~', '`', '=\n', '=\r\n', '(.)', '(@)', '-\n', '-\r\n', "' + '", '" + "', "'+'", '"+"'];

function isLetter(code: number): boolean {
  const lower = code | 0x20;
  return lower >= 97 && lower <= 122;
}

function isAlnum(code: number): boolean {
  return isLetter(code) || (code >= 48 && code <= 57);
}

/** True when text[start, end) is letters, spaces and dashes only (a comment that can hide nothing). */
function onlyWords(text: string, start: number, end: number): boolean {
  for (let k = start; k < end; k++) {
    const code = text.charCodeAt(k);
    if (!isLetter(code) && code !== 0x20 && code !== 0x2d) return false;
  }
  return true;
}

/**
 * True when text[start, end) can hold no value: no `@`, no `://` or `www.` (a URL), at most four
 * digits, no run of 16 letters and digits.
 */
function holdsNoValue(text: string, start: number, end: number): boolean {
  let digits = 0;
  let run = 0;
  for (let k = start; k < end; k++) {
    const code = text.charCodeAt(k);
    if (code === 0x40) return false;
    if (code === 0x3a && text.startsWith('//', k + 1)) return false;
    if ((code | 0x20) === 0x77 && text.slice(k, k + 4).toLowerCase() === 'www.') return false;
    if (code >= 48 && code <= 57) digits++;
    run = isAlnum(code) ? run + 1 : 0;
    if (digits > 4 || run >= 16) return false;
  }
  return true;
}

/** Length of the run of `code` starting at `index` (at most `limit + 1`). */
function runLength(text: string, index: number, code: number, limit: number): number {
  let end = index;
  while (end < text.length && end - index <= limit && text.charCodeAt(end) === code) end++;
  return end - index;
}

/** A tag name at `pos` (letters) in `names`, any case: its end, or -1. */
function tagNameEnd(text: string, pos: number, names: ReadonlySet<string>): number {
  let end = pos;
  while (end < text.length && end - pos <= 10 && isLetter(text.charCodeAt(end))) end++;
  if (end === pos || end - pos > 10) return -1;
  return names.has(text.slice(pos, end).toLowerCase()) ? end : -1;
}

/** `<tag …>`, `</tag>`, `<tag/>`, `<!-- … -->` at `index`: its length, or 0. */
function htmlAt(text: string, index: number): number {
  if (text.startsWith('<!--', index)) {
    // Searched within MAX_COMMENT only: a text of unclosed `<!--` stays linear.
    const found = text.slice(index + 4, index + MAX_COMMENT + 3).indexOf('-->');
    if (found < 0) return 0;
    const close = index + 4 + found;
    if (!onlyWords(text, index + 4, close)) return 0;
    return close + 3 - index;
  }
  let pos = index + 1;
  const closing = text.charCodeAt(pos) === SLASH;
  if (closing) pos++;
  const nameEnd = tagNameEnd(text, pos, INLINE_TAGS);
  if (nameEnd < 0) return 0;
  const next = text.charCodeAt(nameEnd);
  if (next === GREATER_THAN) return nameEnd + 1 - index;
  if (!closing && next === SLASH && text.charCodeAt(nameEnd + 1) === GREATER_THAN) return nameEnd + 2 - index;
  // Attributes: a space, then anything up to `>` (no `<`), within MAX_UNIT.
  if (next !== 0x20 && next !== 0x09 && next !== 0x0a) return 0;
  let end = nameEnd + 1;
  while (end < text.length && end - index < MAX_UNIT) {
    const code = text.charCodeAt(end);
    if (code === GREATER_THAN) return holdsNoValue(text, nameEnd, end) ? end + 1 - index : 0;
    if (code === LESS_THAN) return 0;
    end++;
  }
  return 0;
}

/** `[b]`, `[/b]`, `[color=red]` at `index`: its length, or 0. */
function bbcodeAt(text: string, index: number): number {
  let pos = index + 1;
  const closing = text.charCodeAt(pos) === SLASH;
  if (closing) pos++;
  const nameEnd = tagNameEnd(text, pos, BBCODE_TAGS);
  if (nameEnd < 0) return 0;
  if (text.charCodeAt(nameEnd) === CLOSE_BRACKET) return nameEnd + 1 - index;
  if (closing || text.charCodeAt(nameEnd) !== 0x3d) return 0; // '='
  // The argument: up to 32 characters, no bracket (searched within them: linear on any text).
  const argument = text.slice(nameEnd + 1, nameEnd + 33);
  const found = argument.indexOf(']');
  if (found < 0 || argument.lastIndexOf('[', found) >= 0) return 0;
  const close = nameEnd + 1 + found;
  if (!holdsNoValue(text, nameEnd + 1, close)) return 0;
  return close + 1 - index;
}

/**
 * The length of the markup unit at `index` (see the header), or 0. A run of `*`, `~` or
 * backticks counts from its first character only: `***` is not `**` plus `*`.
 */
export function markupAt(text: string, index: number): number {
  const code = text.charCodeAt(index);
  switch (code) {
    case LESS_THAN:
      return htmlAt(text, index);
    case OPEN_BRACKET:
      return defangedAt(text, index) === undefined ? bbcodeAt(text, index) : 3;
    case OPEN_PAREN:
      return defangedAt(text, index) === undefined ? 0 : 3;
    case DASH: {
      // A number wrapped after a dash (`555-⏎0100`): the dash, the line break and the next
      // line's indentation are one unit (the fold keeps the dash between two digits).
      let end = index + 1;
      if (text.charCodeAt(end) === 0x0d) end++;
      if (text.charCodeAt(end) !== 0x0a) return 0;
      end++;
      const limit = end + 16;
      while (end < limit && (text.charCodeAt(end) === 0x20 || text.charCodeAt(end) === 0x09)) end++;
      return end - index;
    }
    case QUOTE:
    case APOSTROPHE: {
      // The joint of two concatenated literals: `' + '`, `"+"` (the same quote both sides).
      let end = index + 1;
      if (text.charCodeAt(end) === 0x20) end++;
      if (text.charCodeAt(end) !== PLUS) return 0;
      end++;
      if (text.charCodeAt(end) === 0x20) end++;
      return text.charCodeAt(end) === code ? end + 1 - index : 0;
    }
    case EQUALS: {
      // A quoted-printable soft line break (`=` at a line's end): the mail was wrapped there.
      const next = text.charCodeAt(index + 1);
      if (next === 0x0a) return 2;
      return next === 0x0d && text.charCodeAt(index + 2) === 0x0a ? 3 : 0;
    }
    case STAR:
    case TILDE:
    case BACKTICK: {
      if (text.charCodeAt(index - 1) === code) return 0;
      const run = runLength(text, index, code, 3);
      if (code === BACKTICK) return run <= 3 ? run : 0;
      return run === 2 ? 2 : 0;
    }
    default:
      return 0;
  }
}
