// E-mail addresses spelled out against harvesters: "jane.roe [at] corp [dot] example",
// "jane.roe(at)corp.example", "jane.roe @ corp.example", "jane dot roe at corp dot example", and
// addresses with a space on one side of the "@" ("jane.roe@ corp.example", "jane_roe @corp.example")
// or around the dots of the local part ("jane . roe @ corp . example"), "jan(a)firma.fi", and
// addresses written one character at a time ("j o h n @ c o r p . e x a m p l e").
// email.ts anchors on a real '@' glued to both parts; these forms reached the model raw.
//
// Anchored on the "at" mark (one case-insensitive regex search), then read with bounded steps:
// the local part backwards (at most 64 characters), the domain forwards (labels joined by ".",
// " . ", "(dot)", "[dot]" or " dot ", at most 7 labels), ending in a top-level label of letters.
// A bare " at " ("look at example.com") is everyday English, so it only counts when the domain
// spells at least one dot out ("example dot com"): that is an address written to be read by
// people only.
import { isCjkCode, isNonAsciiLetter } from './chars.js';
import { emit, type ScanState } from './state.js';

const MAX_LOCAL = 64;

/**
 * The words for "@" and "." in the catalog's languages besides English: es/pt arroba, fr arobase,
 * it chiocciola, de ät/Klammeraffe, nl apenstaartje, pl małpa; punto, ponto, punkt, point, punt,
 * kropka. Unlike "at" none is everyday prose between two words, so a bare one needs no dot
 * spelled out; the dot words count only in an address marked by one of these words or brackets
 * ("look at the point where" is no address).
 */
const AT_WORDS = 'at|arroba|arobase|chiocciola|ät|klammeraffe|apenstaartje|małpa';
const DOT_WORDS = 'dot|punto|ponto|punkt|point|punt|kropka';

/**
 * The "at" marks: bracketed, "@" with a space on either side or both, or the bare word between
 * spaces. An "@" glued to what follows reads a handle too ("follow me @jane.bsky.social"), so
 * with a space before it only, the local part must hold a digit or `. _ % + -` (checked below).
 * "(a)" and "[a]" stand for "@" in Nordic and Central European addresses ("jan(a)firma.fi"); as
 * list markers ("option (a) config.json") they stand between spaces, so only the glued form counts.
 */
const AT_MARK = new RegExp(
  `[([{<][ \\t]{0,2}(?:${AT_WORDS})[ \\t]{0,2}[)\\]}>]|[([]a[)\\]]|[ \\t]@[ \\t]?|@[ \\t]|[ \\t](?:${AT_WORDS})[ \\t]`,
  'giu',
);

// Where AT_MARK may match, as the scan's word loop sees it (scan.ts hands detectSpelledEmails
// these positions, searches the whole text when a span it stepped over holds a mark (atMarkIn),
// and always in scanBuiltinUngated): the space or tab before a word that folds to an at-word with
// a space or tab after it; a bracket followed, past at most two spaces or tabs, by a letter an
// at-word (or the "a" of "(a)") starts with; an "@" with a space or tab before it (that unit) or
// after it (the "@"); the unit before an "ä" or Kelvin sign (non-ASCII starts the word path does
// not see). Each is a superset of where its alternatives of AT_MARK start: word-gates.test.ts
// holds them to the regex on texts made of its pieces.

const AT_WORD_LIST: readonly string[] = AT_WORDS.split('|');

/**
 * A code unit as the `iu` flags compare it with an at-word's letter (simple case folding of the
 * letters they hold: ASCII capitals, Ä, Ł, ſ to s, the Kelvin sign to k).
 */
function foldAt(c: number): number {
  if (c >= 65 && c <= 90) return c | 32;
  if (c < 128) return c;
  if (c === 0x17f) return 115;
  if (c === 0x212a) return 107;
  if (c === 0xc4) return 0xe4;
  if (c === 0x141) return 0x142;
  return c;
}

/** Does an at-word start with the code units `c`, `second` (127 for any from 127 up, or none)? For the scan's pair table. */
export function atWordMayStartWith(c: number, second: number): boolean {
  const first = foldAt(c);
  return AT_WORD_LIST.some((word) => word.charCodeAt(0) === first && (second >= 127 || word.charCodeAt(1) === foldAt(second)));
}

/** Is text[start, end) an at-word (any case) with a space or tab on each side? */
export function atWordAt(text: string, start: number, end: number): boolean {
  const before = text.charCodeAt(start - 1);
  const after = text.charCodeAt(end);
  if ((before !== 32 && before !== 9) || (after !== 32 && after !== 9)) return false;
  for (const word of AT_WORD_LIST) {
    if (word.length !== end - start) continue;
    let k = 0;
    while (k < word.length && foldAt(text.charCodeAt(start + k)) === word.charCodeAt(k)) k++;
    if (k === word.length) return true;
  }
  return false;
}

/** May an at-word, or the "a" of "(a)", start at the code unit `c` (folded: a, c, k, m, ä)? */
function atLetter(c: number): boolean {
  const folded = foldAt(c);
  return folded === 97 || folded === 99 || folded === 107 || folded === 109 || folded === 0xe4;
}

/** A bracket at `index`: may a bracketed "at" mark start there (the letter after at most two spaces or tabs)? */
export function atMarkAfterBracket(text: string, index: number): boolean {
  let k = index + 1;
  if (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 9) k++;
  if (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 9) k++;
  return atLetter(text.charCodeAt(k));
}

/**
 * May an "at" mark start, or its at-word or "@" stand, in text[from, to), a span the scan's loop
 * stepped over (a value a detector matched)? Any "@" or bracket, or an at-word's first letter
 * after a space or tab.
 */
export function atMarkIn(text: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    if (c === 64 || c === 40 || c === 91 || c === 123 || c === 60) return true;
    if ((c === 32 || c === 9) && atLetter(text.charCodeAt(k + 1))) return true;
  }
  const before = text.charCodeAt(from - 1);
  return (before === 32 || before === 9) && atLetter(text.charCodeAt(from));
}

/** A local part that is not a bare word: what an "@" glued to the domain needs. */
const ADDRESS_LIKE_LOCAL = /[\d._%+-]/;
/**
 * Before a local-part segment (never after a bare "at"): a dot between spaces ("jane . roe @ …"),
 * or spaces when the segment starts with its dot ("jane .roe @ …").
 */
const LOCAL_SPACED_DOT = /[ \t]{1,3}\.[ \t]{1,3}$/;
const LOCAL_SPACES = /[ \t]{1,3}$/;

/** The domain after the mark (sticky): labels and the dot marks between them. */
const DOMAIN = new RegExp(
  `[ \\t]{0,3}[\\p{L}\\p{N}][\\p{L}\\p{N}-]{0,62}(?:(?:[ \\t]{0,3}[([{<][ \\t]{0,2}(?:${DOT_WORDS})[ \\t]{0,2}[)\\]}>][ \\t]{0,3}|[ \\t]{1,3}(?:${DOT_WORDS})[ \\t]{1,3}|[ \\t]{1,3}\\.[ \\t]{1,3}|\\.)[\\p{L}\\p{N}][\\p{L}\\p{N}-]{0,62}){1,6}(?![\\p{L}\\p{N}-])`,
  'iuy',
);

/** A dot spelled out right before a local-part segment. */
const LOCAL_DOT = new RegExp(`(?:[([{<][ \\t]{0,2}(?:${DOT_WORDS})[ \\t]{0,2}[)\\]}>]|[ \\t](?:${DOT_WORDS})[ \\t])$`, 'iu');
const DOT_MARKS = new RegExp(`[ \\t]*[([{<][ \\t]*(?:${DOT_WORDS})[ \\t]*[)\\]}>][ \\t]*|[ \\t]+(?:${DOT_WORDS})[ \\t]+|[ \\t]*\\.[ \\t]*`, 'giu');
/** An "at" mark right after a domain (sticky). */
const AT_AFTER = new RegExp(`[ \\t]{0,3}(?:[([{<][ \\t]{0,2}(?:${AT_WORDS}|a)[ \\t]{0,2}[)\\]}>]|@|(?:${AT_WORDS})[ \\t])`, 'iuy');
/** What a bare English "at" needs in its domain: "dot" spelled out (the other words do not count). */
const SPELLED_DOT = /[([{<][ \t]{0,2}dot[ \t]{0,2}[)\]}>]|[ \t]dot[ \t]/iu;
/** A dot word other than "dot", between labels (bare or bracketed). */
const FOREIGN_DOT = /[ \t([{<](?:punto|ponto|punkt|point|punt|kropka)[ \t)\]}>]/iu;
const TOP_LABEL = /(?:^|[^\p{L}\p{N}-])([A-Za-z]{2,24}|xn--[a-z0-9-]+)$/u;

function isLocalChar(c: number): boolean {
  if (c >= 128) return isNonAsciiLetter(c) && !isCjkCode(c);
  return (c >= 48 && c <= 57) || ((c | 0x20) >= 97 && (c | 0x20) <= 122) || c === 46 || c === 95 || c === 37 || c === 43 || c === 45;
}

/**
 * A bare " at " before a written domain ("john.doe at gmail.com"): an address when the local part
 * is no word of prose (it holds `. _ % + -` or a digit, a letter, and is no version such as
 * "v1.2", no file or host name) and the domain is a plain host (written dots, letters last, not
 * followed by a path). "look at example.com", "released v1.2 at github.com/…", "config.yaml at
 * example.com" stay prose.
 */
function addressAtDomain(text: string, localStart: number, localEnd: number, domainEnd: number, domain: string): boolean {
  const local = text.slice(localStart, localEnd);
  if (!ADDRESS_LIKE_LOCAL.test(local) || !/\p{L}/u.test(local) || VERSION_LIKE.test(local) || FILE_OR_HOST.test(local)) return false;
  if (!/^[ \t]?[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+$/u.test(domain)) return false;
  const after = text.charCodeAt(domainEnd);
  return after !== 47 && after !== 58 && after !== 64;
}

const VERSION_LIKE = /^v?\d/i;
/** A local part that is a file or a host name ("config.yaml at …", "docs.python.org at …"). */
const FILE_OR_HOST = /\.(?:com|org|net|io|dev|ai|app|co|edu|gov|txt|md|json|ya?ml|xml|csv|py|js|mjs|ts|tsx|jsx|html?|css|sh|rb|go|rs|java|c|h|cpp|log|cfg|conf|ini|toml|lock|zip|tar|gz|pdf|png|jpe?g|gif|svg|docx?|xlsx?|exe|dll|so)$/i;

/** Whether the character before a glued mark may end a local part (`_ -`, and `% +` before "@"). */
function gluedBefore(c: number, at: boolean): boolean {
  return isAlnum(c) || c === 95 || c === 45 || (at && (c === 37 || c === 43));
}

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || ((c | 0x20) >= 97 && (c | 0x20) <= 122) || (c >= 128 && isNonAsciiLetter(c));
}

/** AT_MARK tried at one position (the marks the scan's loop found). */
const AT_MARK_AT = new RegExp(AT_MARK.source, 'iuy');

/**
 * Emit the spelled-out addresses in `state.text`. `marks`: where an "at" mark may start, in
 * ascending order, from the scan's word loop (a superset of AT_MARK's match starts: the space
 * before an at-word or an "@", an "@", a bracket); the regex is then tried at those positions
 * only, and finds the same matches in the same order as its search of the whole text (each match
 * is the leftmost one after the previous, as the search's). Without marks the whole text is searched.
 */
export function detectSpelledEmails(state: ScanState, marks?: readonly number[]): void {
  const text = state.text;
  AT_MARK.lastIndex = 0;
  // Whether an "@" between single spaces was seen: only then can an address be letter-spaced
  // (the regex finds them anyway; a separate search of the text would cost as much again).
  let spacedAt = false;
  let markIndex = 0;
  // The next match at or after AT_MARK.lastIndex, as AT_MARK.exec would return it.
  const nextMatch = (): RegExpExecArray | null => {
    if (marks === undefined) return AT_MARK.exec(text);
    while (markIndex < marks.length) {
      const at = marks[markIndex++]!;
      if (at < AT_MARK.lastIndex) continue;
      AT_MARK_AT.lastIndex = at;
      const match = AT_MARK_AT.exec(text);
      if (match !== null) {
        AT_MARK.lastIndex = at + match[0].length;
        return match;
      }
    }
    return null;
  };
  for (let match = nextMatch(); match !== null; match = nextMatch()) {
    const mark = match[0];
    if (mark === ' @ ') spacedAt = true;
    // "(a)" and a one-sided "@" are glued to the local part or the domain: checked here, not by
    // lookarounds in the regex, which would cost a check at every space of the text.
    const first = mark.charCodeAt(0);
    const last = mark.charCodeAt(mark.length - 1);
    const gluedLocal = first === 64 || ((first === 40 || first === 91) && mark.length === 3);
    if (gluedLocal && !gluedBefore(text.charCodeAt(match.index - 1), first === 64)) continue;
    const gluedDomain = last === 64 || ((first === 40 || first === 91) && mark.length === 3);
    if (gluedDomain && !isAlnum(text.charCodeAt(match.index + mark.length))) continue;
    const bare = BARE_AT.test(mark);
    // Local part, read backwards from the mark (a bracketed mark may follow a space or two).
    let localEnd = match.index;
    if (mark.charCodeAt(0) !== 32 && mark.charCodeAt(0) !== 9) {
      while (localEnd > 0 && match.index - localEnd < 3 && (text.charCodeAt(localEnd - 1) === 32 || text.charCodeAt(localEnd - 1) === 9)) localEnd--;
    }
    let localStart = localEnd;
    for (;;) {
      while (localStart > 0 && localEnd - localStart < MAX_LOCAL && isLocalChar(text.charCodeAt(localStart - 1))) localStart--;
      // "jane dot roe at ...": a dot spelled out inside the local part too.
      const window = text.slice(Math.max(0, localStart - 12), localStart);
      const before = LOCAL_DOT.exec(window) ?? (bare ? null : (text.charCodeAt(localStart) === 46 ? LOCAL_SPACES : LOCAL_SPACED_DOT).exec(window));
      if (before === null || localEnd - localStart + before[0].length >= MAX_LOCAL) break;
      const next = localStart - before[0].length;
      if (next === 0 || !isLocalChar(text.charCodeAt(next - 1))) break;
      localStart = next;
    }
    if (localStart > 0 && isLocalChar(text.charCodeAt(localStart - 1))) continue; // longer than an address allows
    while (localStart < localEnd && !isAlnum(text.charCodeAt(localStart))) localStart++;
    if (localStart === localEnd || text.charCodeAt(localEnd - 1) === 46) continue;
    if (mark.charCodeAt(mark.length - 1) === 64 && !ADDRESS_LIKE_LOCAL.test(text.slice(localStart, localEnd))) continue;
    const markEnd = match.index + mark.length;
    DOMAIN.lastIndex = markEnd;
    const domain = DOMAIN.exec(text);
    if (domain === null) continue;
    const domainText = domain[0];
    if (TOP_LABEL.exec(domainText) === null) continue;
    if (bare && !SPELLED_DOT.test(domainText) && !addressAtDomain(text, localStart, localEnd, markEnd + domainText.length, domainText)) continue;
    if (bare && FOREIGN_DOT.test(domainText)) continue;
    const end = markEnd + domainText.length;
    // "reach me at jane dot roe at corp dot example": another mark after this "domain" means
    // this one was prose; the next mark reads the address.
    AT_AFTER.lastIndex = end;
    if (AT_AFTER.test(text)) continue;
    emit(state, 'email', localStart, end, bare ? 0.75 : 0.85);
    AT_MARK.lastIndex = end;
  }
  if (spacedAt) detectLetterSpacedEmails(state);
}

/** Most characters of a letter-spaced address (local part and domain together). */
const MAX_SPACED = 254;
const SPACED_DOMAIN = /^[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+$/u;

/** True when the character at `index` stands alone between spaces (or the text's ends). */
function standsAlone(text: string, index: number): boolean {
  return (index === 0 || text.charCodeAt(index - 1) === 32) && (index + 1 === text.length || text.charCodeAt(index + 1) === 32);
}

/**
 * "j o h n @ c o r p . e x a m p l e": an address written one character at a time with a space
 * between them, so no part of it looks like a word. Anchored on " @ "; both sides must be such
 * runs (at least two characters before, a dotted domain after, ending in letters).
 */
function detectLetterSpacedEmails(state: ScanState): void {
  const text = state.text;
  for (let at = text.indexOf(' @ '); at >= 0; at = text.indexOf(' @ ', at + 3)) {
    let start = -1;
    let count = 0;
    for (let index = at - 1; index >= 0 && count < MAX_SPACED && isLocalChar(text.charCodeAt(index)) && standsAlone(text, index); index -= 2) {
      start = index;
      count++;
    }
    if (count < 2) continue;
    let domain = '';
    let end = -1;
    for (let index = at + 3; index < text.length && domain.length < MAX_SPACED && standsAlone(text, index); index += 2) {
      const c = text.charCodeAt(index);
      if (!isAlnum(c) && c !== 46 && c !== 45) break;
      domain += text.charAt(index);
      end = index + 1;
    }
    // A sentence's full stop after the address is not part of it.
    if (domain.endsWith('.')) {
      domain = domain.slice(0, -1);
      end -= 2;
    }
    if (!SPACED_DOMAIN.test(domain) || TOP_LABEL.exec(domain) === null) continue;
    emit(state, 'email', start, end, 0.85);
  }
}

/** A part of an address written one character at a time ("j o h n"): without its spaces. */
function unspace(part: string): string {
  return /^(?:\S )+\S$/u.test(part) ? part.replaceAll(' ', '') : part;
}

const BARE_AT = /^[ \t]at[ \t]$/iu;
const UNSPELL_AT = new RegExp(`[ \\t]*[([{<][ \\t]*(?:${AT_WORDS}|a)[ \\t]*[)\\]}>][ \\t]*|[ \\t]+@[ \\t]*|@[ \\t]+|[ \\t]+(?:${AT_WORDS})[ \\t]+`, 'iu');

/** "jane dot roe [at] corp [dot] example" -> "jane.roe@corp.example" (other text unchanged). */
export function unspellEmail(value: string): string {
  const at = UNSPELL_AT.exec(value);
  if (at === null) {
    // An address split before its top-level label ("jane@corp .example", email.ts splitTopLabel).
    const sign = value.indexOf('@');
    if (sign < 0 || value.includes('@', sign + 1) || !/[ \t]/.test(value)) return value;
    return `${value.slice(0, sign)}@${value.slice(sign + 1).replace(/[ \t]*\.[ \t]*/g, '.')}`;
  }
  if (value.includes('@', at.index + at[0].length)) return value;
  const local = unspace(value.slice(0, at.index)).replace(DOT_MARKS, '.');
  const domain = unspace(value.slice(at.index + at[0].length)).replace(DOT_MARKS, '.');
  return `${local}@${domain}`;
}
