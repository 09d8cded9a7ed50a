// Digit groups joined by gaps that no print form uses: "4111 | 1111 | 1111 | 1111",
// "078 - 05 - 1120", "4111-1111 1111-1111" (mixed), "card 4111,1111,1111,1111", "415 . 555 . 0100",
// a card broken over two lines. A person types these to get a number past a filter, and copying
// from forms, tables and PDFs produces them; a model reads the digits back all the same.
//
// numeric.ts reads groups joined by one separator character each; when nothing is found at a
// start, this module reads the same start again with looser gaps (up to MAX_GAP characters of
// spaces, punctuation and at most one line break) and judges the digits as the values they can
// be. Loose forms are everywhere in ordinary text (tables, CSV rows, times, ranges), so a value
// needs the text to say what it is: a card word, an SSN word or a phone word before it, and the
// groups the shape of that value (an SSN 3-2-4; a phone no times or lists, at most six groups;
// no run of one-digit groups). The one
// exception is a card laid out in card groups (4-4-4-4, 4-6-5, ...) with the same gap every
// time, where the gap is only spaces or tabs around at most one dash, dot or slash: a padded or
// doubled version of a card's own print form, which tables of amounts do not use.
import { codeAt, isAlnumCode, isDigit } from './chars.js';
import { CARD_CONTEXT, hasWordBefore, PHONE_CONTEXT, SSN_CONTEXT } from './context.js';
import { luhnValid } from './checksums.js';
import { emit, type ScanState } from './state.js';

/** Most digits read from one start (a 19-digit card). */
const MAX_DIGITS = 19;
/** Longest gap between two groups (" | ", " - ", "\r\n ", "  -  " is too long). */
const MAX_GAP = 4;
/** Most groups of one read: every group holds at least one digit. */
const MAX_GROUPS = MAX_DIGITS;
/** How far before the value a context word may stand. */
const CONTEXT_DISTANCE = 40;

const groupDigits = new Int32Array(MAX_GROUPS);
/** Where each gap of the run read last starts and ends (gap k follows group k). */
const gapFrom = new Int32Array(MAX_GROUPS);
const gapTo = new Int32Array(MAX_GROUPS);
/** Fewest digits written one by one that are read as letter-spaced (`0 7 8 - 0 5 - 1 1 2 0`). */
const MIN_SPACED = 7;

/**
 * The run read last, of which scan: a start inside it is a suffix of that run, and a value is
 * the whole run or nothing, so the run is read once (a flood of "1 | 1 | …" stays one pass).
 */
let lastScan: WeakRef<ScanState> | undefined; // weak: the last scan's text is not kept alive
let lastRunEnd = -1;

/** Characters a loose gap may hold besides one line break. */
function isGapCode(c: number): boolean {
  switch (c) {
    case 32: case 9: case 0xa0: case 0x202f: // spaces
    case 45: case 46: case 47: case 44: case 58: case 59: case 95: // - . / , : ; _
    case 124: case 42: case 43: case 126: case 35: case 61: // | * + ~ # =
    case 40: case 41: case 91: case 93: // ( ) [ ]
    case 0xb7: case 0x2022: case 0x2027: case 0x2219: // middle dots and bullets
    case 39: case 0x2019: // ' and ’: the digit group separator of Swiss numbers (1'250'000)
      return true;
    default:
      return false;
  }
}

/** The single separators numeric.ts reads between groups. */
function isPrintSeparator(c: number): boolean {
  return c === 32 || c === 45 || c === 46 || c === 47 || c === 0xa0 || c === 0x202f;
}

function isListCode(c: number): boolean {
  return c === 58 || c === 44 || c === 59;
}

function isPlainGapCode(c: number): boolean {
  return c === 32 || c === 9 || c === 0xa0 || c === 0x202f;
}

/**
 * The gap after a group ending at `from`: its end, or -1 when no digit follows within MAX_GAP
 * gap characters (one "\n" or "\r\n" allowed).
 */
function gapEnd(text: string, from: number): number {
  let pos = from;
  let lineBreaks = 0;
  while (pos - from <= MAX_GAP) {
    const c = codeAt(text, pos);
    if (isDigit(c)) return pos > from ? pos : -1;
    if (c === 10 || c === 13) {
      if (lineBreaks++ > 0) return -1;
      pos += c === 13 && codeAt(text, pos + 1) === 10 ? 2 : 1;
      continue;
    }
    if (!isGapCode(c)) return -1;
    pos++;
  }
  return -1;
}

/** Spaces and tabs around at most one dash, dot or slash: a padded single separator. */
function plainGap(text: string, from: number, to: number): boolean {
  let marks = 0;
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    if (isPlainGapCode(c)) continue;
    if ((c === 45 || c === 46 || c === 47) && marks++ === 0) continue;
    return false;
  }
  return true;
}

function sameGap(text: string, aFrom: number, aTo: number, bFrom: number, bTo: number): boolean {
  if (aTo - aFrom !== bTo - bFrom) return false;
  for (let k = 0; k < aTo - aFrom; k++) if (text.charCodeAt(aFrom + k) !== text.charCodeAt(bFrom + k)) return false;
  return true;
}

/** Card groupings: 4-4-4-4(-1..3), 4-4-4-1..3 (13-15 digits), 4-6-5 and 4-6-4. */
function cardGrouping(groups: number): boolean {
  if (groupDigits[0] !== 4) return false;
  if (groups === 3 && groupDigits[1] === 6) return groupDigits[2] === 5 || groupDigits[2] === 4;
  if (groups < 4 || groups > 5) return false;
  for (let k = 1; k < groups - 1; k++) if (groupDigits[k] !== 4) return false;
  return groupDigits[groups - 1]! >= 1 && groupDigits[groups - 1]! <= 4;
}

/** Issuer prefix of a card: what cardIssuerPlausible checks, on the first digits of the groups. */
type IssuerCheck = (text: string, start: number, end: number, length: number) => boolean;

/**
 * At `start` (a numeric start where numeric.ts found nothing that reaches as far): read digit
 * groups joined by loose gaps and emit the value they spell. Returns the value's end or -1.
 * `phones`: whether a phone may be read (false when numeric.ts found a value at this start that
 * the digits run on from: only a card or an SSN may then take the longer run).
 */
export function detectLooseDigits(
  state: ScanState,
  start: number,
  issuerPlausible: IssuerCheck,
  ssnParts: (area: number, group: number, serial: number) => boolean,
  phones = true,
): number {
  const text = state.text;
  if (start < lastRunEnd && lastScan?.deref() === state) return -1;
  let groups = 0;
  let digits = 0;
  let pos = start;
  // The first gap, to compare the others with; every gap plain and equal so far.
  let firstGapFrom = -1;
  let firstGapTo = -1;
  let uniform = true;
  // Every gap one and the same print-form separator: numeric.ts has judged these digits already.
  let printForm = true;
  let tooLong = false;
  // A gap with ':' ',' or ';': times (9:00-17:00) and lists (1, 2, 3) write them; no phone does,
  // nor does it run over a line break (the next line's number is another one).
  let listGap = false;
  for (;;) {
    const from = pos;
    while (isDigit(codeAt(text, pos))) pos++;
    digits += pos - from;
    if (digits > MAX_DIGITS) {
      tooLong = true;
      break;
    }
    groupDigits[groups] = pos - from;
    groups++;
    const next = gapEnd(text, pos);
    if (next < 0) break;
    if (groups === MAX_GROUPS) {
      tooLong = true;
      break;
    }
    gapFrom[groups - 1] = pos;
    gapTo[groups - 1] = next;
    if (!listGap) for (let k = pos; k < next; k++) if (isListCode(text.charCodeAt(k)) || text.charCodeAt(k) === 10 || text.charCodeAt(k) === 13) listGap = true;
    if (firstGapFrom < 0) {
      firstGapFrom = pos;
      firstGapTo = next;
      uniform = plainGap(text, pos, next);
      printForm = next - pos === 1 && isPrintSeparator(text.charCodeAt(pos));
    } else {
      const same = sameGap(text, firstGapFrom, firstGapTo, pos, next);
      uniform &&= same;
      printForm &&= same;
    }
    pos = next;
  }
  if (tooLong) pos = runEnd(text, pos);
  if (lastScan?.deref() !== state) lastScan = new WeakRef(state);
  lastRunEnd = pos;
  // The whole run is the value or nothing: a card is not cut out of a longer run of digits.
  if (tooLong || isAlnumCode(codeAt(text, pos))) return -1;
  // Nine digits or more where nothing is found: reversed.ts reads the run backwards. Only where
  // a card or phone word stands near (checked there), so seeds cost little on ordinary numbers.
  const seed = digits >= 9 && digits <= MAX_DIGITS;
  if (groups < 2) {
    if (seed) state.reversedSeeds.push(start, pos);
    return -1;
  }
  const end = pos;
  if (groups >= MIN_SPACED && digits === groups) {
    // Every digit on its own: letter-spaced, as a person types a number past a filter
    // ("4 1 1 1  1 1 1 1 …", "0 7 8 - 0 5 - 1 1 2 0", "0'7'8'0'5'1'1'2'0"). The commonest gap is
    // the spacing; the other gaps (fewer) part the value's groups. Read so, the run is judged as
    // the groups it spells, and always with the value's word before it (no grouping alone).
    const regrouped = letterSpacedGroups(text, groups);
    if (regrouped < 1) return unread(state, seed, start, end);
    groups = regrouped;
    uniform = false;
    printForm = false;
  } else {
    // Digits one by one between loose gaps are a list or a count ("card 4, 5, 6"): every group but
    // the first (a trunk or country code: "8 (912) …", "1 | 415 | …") and the last holds two digits
    // at least; after a `+`, the second may be a one-digit area code too (`+33 | 1 | 42 …`, `+81_3_1234_5678`).
    const international = codeAt(text, start - 1) === 43;
    for (let k = international ? 2 : 1; k < groups - 1; k++) if (groupDigits[k]! < 2) return unread(state, seed, start, end);
  }
  if (digits >= 13 && issuerPlausible(text, start, end, digits) && luhnValid(text, start, end)) {
    const cardWord = hasWordBefore(text, start, CONTEXT_DISTANCE, CARD_CONTEXT);
    if (cardWord || (uniform && cardGrouping(groups))) {
      emit(state, 'credit_card', start, end, cardWord ? 0.9 : 0.85);
      return end;
    }
  }
  // Phones and SSNs in a print form have been judged by numeric.ts and phone.ts, by their
  // numbering plans and contexts ("My Number: 9725 4024 9292" is no phone); a card word and
  // the issuer and Luhn checks above settle a card in any grouping ("card 41 11 11 …").
  if (printForm) return unread(state, seed, start, end);
  const ssnShape = (groups === 3 && groupDigits[0] === 3 && groupDigits[1] === 2 && groupDigits[2] === 4) || (groups === 1 && groupDigits[0] === 9);
  if (digits === 9 && ssnShape && hasWordBefore(text, start, CONTEXT_DISTANCE, SSN_CONTEXT) && ssnDigits(text, start, end, ssnParts)) {
    emit(state, 'us_ssn', start, end, 0.85);
    return end;
  }
  if (phones && !listGap && groups <= 6 && digits >= 10 && digits <= 15 && hasWordBefore(text, start, CONTEXT_DISTANCE, PHONE_CONTEXT) && phoneDigits(text, start, end, digits)) {
    // The `+` before the country code is the value's (`+49_30_…` normalizes as +49, one token
    // and one erasure with `+49 30 …`), also typed apart from it (`+ 4 4   2 0 …`).
    const plus = codeAt(text, start - 1) === 43 ? start - 1 : codeAt(text, start - 1) === 32 && codeAt(text, start - 2) === 43 ? start - 2 : start;
    emit(state, 'phone', plus, end, 0.8);
    return end;
  }
  return unread(state, seed, start, end);
}

/**
 * The groups of a letter-spaced run of `count` single digits (gaps in gapFrom/gapTo): the
 * commonest gap (the shorter of two as common) is the spacing, and it must be at least half of
 * the gaps; every other gap ends a group. Writes groupDigits and returns the number of groups, or -1.
 */
function letterSpacedGroups(text: string, count: number): number {
  // The spacing: the gap that equals the most others (at most 18 gaps: a quadratic count is cheap).
  let spacing = 0;
  let best = 0;
  for (let a = 0; a < count - 1; a++) {
    let same = 0;
    for (let b = 0; b < count - 1; b++) if (sameGap(text, gapFrom[a]!, gapTo[a]!, gapFrom[b]!, gapTo[b]!)) same++;
    // Ties go to the shorter gap: `+ 3 3   1   4 2 …` has as many spacings as group gaps.
    if (same > best || (same === best && gapTo[a]! - gapFrom[a]! < gapTo[spacing]! - gapFrom[spacing]!)) {
      best = same;
      spacing = a;
    }
  }
  if (best * 2 < count - 1) return -1;
  let groups = 0;
  let size = 1;
  for (let k = 0; k < count - 1; k++) {
    if (sameGap(text, gapFrom[spacing]!, gapTo[spacing]!, gapFrom[k]!, gapTo[k]!)) {
      size++;
      continue;
    }
    groupDigits[groups++] = size;
    size = 1;
  }
  groupDigits[groups++] = size;
  return groups;
}

/** No value in the run [start, end): recorded for reversed.ts when it is long enough; -1. */
function unread(state: ScanState, seed: boolean, start: number, end: number): number {
  if (seed) state.reversedSeeds.push(start, end);
  return -1;
}

/** The end of the run of groups and loose gaps that goes on at `pos`. */
function runEnd(text: string, pos: number): number {
  for (;;) {
    while (isDigit(codeAt(text, pos))) pos++;
    const next = gapEnd(text, pos);
    if (next < 0) return pos;
    pos = next;
  }
}

/** The nine digits of [start, end) as area, group and serial. */
function ssnDigits(text: string, start: number, end: number, ssnParts: (area: number, group: number, serial: number) => boolean): boolean {
  let value = 0;
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (isDigit(c)) value = value * 10 + (c - 48);
  }
  return ssnParts(Math.floor(value / 1e6), Math.floor(value / 1e4) % 100, value % 1e4);
}

/**
 * A North American number by its plan (NXX area code and exchange, with or without the leading
 * 1), or an international number of 11-15 digits (country code and national number, or 00 first).
 */
function phoneDigits(text: string, start: number, end: number, total: number): boolean {
  const read: number[] = [];
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (isDigit(c)) read.push(c - 48);
  }
  const national = total === 11 && read[0] === 1 ? read.slice(1) : read;
  if (national.length === 10) return national[0]! >= 2 && national[3]! >= 2;
  return total >= 11;
}
