// Markup read out of a run of text (session 14, wave13/evade): `1234<b></b>5678Z`,
// `**9128**03456`, `00:1A:2B<b></b>:3C…`, `<span>Tr0ub4</span><span>dor&3x</span>`, `[41](x)11…`,
// `"1234" + "5678Z"`. The fold (fold.ts, markupFold) already drops such a unit inside a value, but
// between two digits it reads a space (`4111<b></b>1111` is a grouped card to the eye), and beside
// a `:` or at a word's edge it keeps the unit: a DNI, a passport number, a MAC address or a password
// split so stayed raw. This module gives the reading with every unit taken out (nothing left in its
// place) and an exact map from the reading back to the text; detect/markup-joined.ts decides which
// values found in it are kept.
//
// Units: those of markup.ts (inline HTML tags and short comments, BBCode, markdown emphasis and
// code marks, quoted-printable soft breaks, concatenated string literals; a defanged `[.]` reads
// its character and a dash before a line break reads the dash), and a markdown link
// (`[text](target)`: the brackets and the target are taken out, the text stays; the target must
// be able to hold no value, as a tag's attributes).
import { defangedAt, markupAt } from './markup.js';

/** Longest link text read (`[…]`). */
const LINK_TEXT_MAX = 40;
/** Longest link target taken out (`(…)`). */
const LINK_TARGET_MAX = 120;

function isAsciiDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isAsciiAlnum(code: number): boolean {
  const lower = code | 0x20;
  return isAsciiDigit(code) || (lower >= 97 && lower <= 122);
}

/** True for a blank (space, tab, line break) or past the text (NaN). */
function isBlank(code: number): boolean {
  return !(code > 0x20) || code === 0xa0;
}

/** True when text[start, end) can hold no value: no `@`, at most four digits, no run of 16 letters and digits. */
function holdsNoValue(text: string, start: number, end: number): boolean {
  let digits = 0;
  let run = 0;
  for (let k = start; k < end; k++) {
    const code = text.charCodeAt(k);
    if (code === 0x40) return false;
    if (isAsciiDigit(code)) digits++;
    run = isAsciiAlnum(code) ? run + 1 : 0;
    if (digits > 4 || run >= 16) return false;
  }
  return true;
}

/**
 * The close of a markdown link at `index` (`](target)`): its length, or 0. The target holds no
 * blank and no value (holdsNoValue), within LINK_TARGET_MAX.
 */
function linkCloseAt(text: string, index: number): number {
  if (text.charCodeAt(index) !== 0x5d || text.charCodeAt(index + 1) !== 0x28) return 0;
  for (let k = index + 2; k < text.length && k - index <= LINK_TARGET_MAX; k++) {
    const code = text.charCodeAt(k);
    if (code === 0x29) return holdsNoValue(text, index + 2, k) ? k + 1 - index : 0;
    if (isBlank(code) || code === 0x28 || code === 0x5b || code === 0x5d) return 0;
  }
  return 0;
}

/** The open of a markdown link at `index` (`[`, with its close `](…)` after a short text with no bracket): 1, or 0. */
function linkOpenAt(text: string, index: number): number {
  if (text.charCodeAt(index) !== 0x5b) return 0;
  for (let k = index + 1; k < text.length && k - index <= LINK_TEXT_MAX; k++) {
    const code = text.charCodeAt(k);
    if (code === 0x5d) return k > index + 1 && linkCloseAt(text, k) > 0 ? 1 : 0;
    if (code === 0x5b || code === 0x0a) return 0;
  }
  return 0;
}

/** A unit at `index`: its length and what it reads as (`''`, or a defanged character, or the dash of `-⏎`); length 0 when none. */
export function strippedUnitAt(text: string, index: number): { length: number; reads: string } {
  const code = text.charCodeAt(index);
  if (code === 0x5b || code === 0x5d) {
    const close = linkCloseAt(text, index);
    if (close > 0) return { length: close, reads: '' };
    if (defangedAt(text, index) === undefined && linkOpenAt(text, index) === 1) return { length: 1, reads: '' };
  }
  const length = markupAt(text, index);
  if (length === 0) return { length: 0, reads: '' };
  const defanged = defangedAt(text, index);
  if (defanged !== undefined) return { length, reads: defanged };
  return { length, reads: code === 0x2d ? '-' : '' };
}

/** The end of the chain of units starting at `index` (itself when none). */
export function chainEnd(text: string, index: number): number {
  let end = index;
  for (let unit = strippedUnitAt(text, end); unit.length > 0; unit = strippedUnitAt(text, end)) end += unit.length;
  return end;
}

/**
 * What a search for units looks for: each unit starts with one of these, or (a concatenation's
 * joint, `" + "`) has a `+` one or two characters after its start. Seven native searches per text.
 */
const UNIT_STARTS: readonly string[] = ['<', '**', '~~', '`', '[', '](', '+'];
/** Any character UNIT_STARTS begins with (no `g` flag: test() keeps no state). */
const MAY_START_UNIT = /[<*~`[\]+]/;

/**
 * Where `text` holds a chain of units inside a run of a value: between two characters that are not
 * blanks, one a digit, or one a `:` and the other a letter or digit (a MAC or IPv6 group). Returns
 * the starts of such chains (ascending, at most `limit`). Ordinary markdown and HTML (`**bold**`,
 * `<b>word</b>:`) has a blank or a letter on each side and is not read.
 */
export function jointsInText(text: string, limit: number): number[] {
  const found: number[] = [];
  // One native pass first: most texts hold no character a unit starts with.
  if (!MAY_START_UNIT.test(text)) return found;
  for (const search of UNIT_STARTS) {
    for (let hit = text.indexOf(search); hit >= 0 && found.length < limit * 4; hit = text.indexOf(search, hit + 1)) {
      const at = search === '+' ? (text.charCodeAt(hit - 1) === 0x20 ? hit - 2 : hit - 1) : hit;
      if (at <= 0 || strippedUnitAt(text, at - 1).length > 0) continue; // inside a chain read from its start
      const end = chainEnd(text, at);
      if (end === at) continue;
      if (isJoint(text, at, end) || (text.charCodeAt(at) === 0x5d && linkJoint(text, at, end))) found.push(at);
    }
  }
  found.sort((a, b) => a - b);
  return found.length > limit ? found.slice(0, limit) : found;
}

/**
 * A chain at [at, end) stands inside a value: between two characters that are not blanks, one a
 * digit, or one a `:` with a hex digit on its far side and a hex digit on the chain's other side
 * (`2B<b></b>:3C`: a MAC or IPv6 group; `word</b>: and` is a label).
 */
function isJoint(text: string, at: number, end: number): boolean {
  const before = text.charCodeAt(at - 1);
  const after = text.charCodeAt(end);
  if (isBlank(before) || isBlank(after)) return false;
  if (isAsciiDigit(before) || isAsciiDigit(after)) return true;
  if (before === 0x3a) return isHex(after) && isHex(text.charCodeAt(at - 2));
  return after === 0x3a && isHex(before) && isHex(text.charCodeAt(end + 1));
}

function isHex(code: number): boolean {
  const lower = code | 0x20;
  return isAsciiDigit(code) || (lower >= 97 && lower <= 102);
}

/**
 * A markdown link's close (`](target)`) at [at, end) inside a run: between two characters that are
 * not blanks (`[jane.doe@c](x)orp.example`, `[1BoatSLRH](x)tKNng…`: no ordinary link is glued to
 * the word after it), or between a digit and a blank before a digit group, or a blank after a digit
 * and a digit (`[4111 1111](x) 1111 1111`, `[+1 415 ](x)555 0142`): the fold reads no link, so a
 * number cut at a link's edge stays cut.
 */
function linkJoint(text: string, at: number, end: number): boolean {
  const before = text.charCodeAt(at - 1);
  const after = text.charCodeAt(end);
  if (!isBlank(before) && !isBlank(after)) return true;
  if (isAsciiDigit(before) && after === 0x20) return isAsciiDigit(text.charCodeAt(end + 1));
  return before === 0x20 && isAsciiDigit(text.charCodeAt(at - 2)) && isAsciiDigit(after);
}

/** A reading of text[from, to) with its units taken out. */
export interface StrippedReading {
  readonly text: string;
  /** For each unit of the reading (and one past its end), the index in the original text it came from. */
  readonly origin: Int32Array;
  /** Reading indices where a unit was taken out (a value spanning one has markup inside it). */
  readonly joints: readonly number[];
}

/** text[from, to) with every unit taken out (see the header). */
export function stripMarkup(text: string, from: number, to: number): StrippedReading {
  const origin = new Int32Array(to - from + 1);
  const joints: number[] = [];
  let out = '';
  let k = from;
  while (k < to) {
    const unit = strippedUnitAt(text, k);
    if (unit.length === 0) {
      origin[out.length] = k;
      out += text.charAt(k);
      k++;
      continue;
    }
    const end = Math.min(to, k + unit.length);
    if (k > from) joints.push(out.length);
    for (let r = 0; r < unit.reads.length; r++) {
      origin[out.length] = k;
      out += unit.reads.charAt(r);
    }
    k = end;
  }
  origin[out.length] = to;
  return { text: out, origin: origin.subarray(0, out.length + 1), joints };
}

/**
 * A value with its units taken out (value normalization: `1234<b></b>5678Z` is the DNI
 * `12345678Z`, `Tr0ub4</span><span>dor&3x` the password). `htmlOnly`: only HTML tags and comments
 * (a password may hold `**` or a backtick of its own; no password is split by a tag by chance).
 */
export function stripMarkupValue(value: string, htmlOnly = false): string {
  if (!MAY_HOLD_UNIT.test(value)) return value;
  let out = '';
  let k = 0;
  while (k < value.length) {
    const code = value.charCodeAt(k);
    const unit = htmlOnly && code !== 0x3c ? { length: 0, reads: '' } : strippedUnitAt(value, k);
    // A unit at the value's own edges is print form too, but a `-` of the value before a line break
    // reads as itself (strippedUnitAt gives it back).
    if (unit.length === 0) {
      out += value.charAt(k);
      k++;
      continue;
    }
    out += unit.reads;
    k += unit.length;
  }
  return out;
}

/** A character a unit may start with (a value without one holds no unit). */
const MAY_HOLD_UNIT = /[<[\]*~`'"=\-(]/;
