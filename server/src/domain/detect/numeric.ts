// Everything that starts with a digit group: one bounded collection of digit groups joined by
// single separators (space - . /) feeds the IPv4, numeric date, US SSN and card checks, then the
// written-date ("12 March 2024") and phone checks. Each start collects at most MAX_GROUPS groups
// of at most MAX_GROUP digits, and starts inside a group chain are skipped (see numericStartOk),
// so the work per character is bounded on any input, including megabytes of digits.
import { codeAt, isAlnumCode, isDigit, isAsciiLetter } from './chars.js';
import { CARD_CONTEXT, contextWords, DATE_CONTEXT, hasWordBefore, PHONE_CONTEXT, SSN_CONTEXT } from './context.js';
import { luhnValid } from './checksums.js';
import { dateValid, digitsValue, writtenDateFromDay } from './dates.js';
import { detectDigitIds, detectDigitLetterIds, scoreId } from './digit-ids.js';
import { detectLooseDigits } from './loose-digits.js';
import { detectPhone, plusWordBefore } from './phone.js';
import { checkNational } from './phone-metadata.js';
import { cnResidentIdValid, frNirValid, siretValid } from './validators.js';
import { emit, type ScanState } from './state.js';

const SPACE = 32;
const DASH = 45;
const DOT = 46;
const SLASH = 47;
const COLON = 58;
const COMMA = 44;
const PLUS = 43;
const UNDERSCORE = 95;

const NOT_AN_ADDRESS_CONTEXT = contextWords([
  'version', 'ver', 'v', 'release', 'build', 'rev', 'revision', 'firmware', 'section', 'sec', 'chapter', 'figure', 'fig',
  'table', 'oid', 'item', 'clause', 'paragraph', 'article', 'art',
]);

// Eight groups: the longest print form is the French NIR (1 85 05 78 006 084 36).
const MAX_GROUPS = 8;
const MAX_GROUP = 20;

// Scratch buffers: the scan is synchronous, so one set per module is enough and saves an
// allocation per digit group.
const groupStart = new Int32Array(MAX_GROUPS);
const groupEnd = new Int32Array(MAX_GROUPS);
/** Separator code between group k-1 and k (index 0 unused). */
const groupSep = new Int32Array(MAX_GROUPS);

/** No-break spaces (French typography writes "06 12 34 56 78" with them) count as spaces. */
function asSeparator(c: number): number {
  return c === 0xa0 || c === 0x202f ? SPACE : c;
}

function isSeparator(c: number): boolean {
  const s = asSeparator(c);
  return s === SPACE || s === DASH || s === DOT || s === SLASH;
}

/**
 * A numeric candidate may not start inside a longer number chain ("1.2.3.4.5", "12 34 56",
 * "1,234,567"): the previous character must not be alphanumeric, nor a separator preceded by a
 * digit. A comma continues a number only before a group of exactly three digits (a thousands
 * group); "…0134,4935 4618 4467 1574" is a list (CSV) whose next field starts a new value.
 */
export function numericStartOk(text: string, start: number): boolean {
  const prev = codeAt(text, start - 1);
  if (isAlnumCode(prev)) return false;
  if (!isDigit(codeAt(text, start - 2))) return true;
  if (prev === COMMA) return !thousandsGroupAt(text, start);
  return !(isSeparator(prev) || prev === COLON);
}

/** Exactly three digits at `start`, not followed by another digit. */
function thousandsGroupAt(text: string, start: number): boolean {
  return isDigit(codeAt(text, start)) && isDigit(codeAt(text, start + 1)) && isDigit(codeAt(text, start + 2)) && !isDigit(codeAt(text, start + 3));
}

/** Collect digit groups from `start`; returns the group count (0 when the first run is overlong). */
function collectGroups(text: string, start: number): number {
  let pos = start;
  let count = 0;
  while (count < MAX_GROUPS) {
    const s = pos;
    while (isDigit(codeAt(text, pos))) {
      pos++;
      if (pos - s > MAX_GROUP) return count; // overlong: stop, the caller sees fewer groups
    }
    groupStart[count] = s;
    groupEnd[count] = pos;
    count++;
    const sep = codeAt(text, pos);
    // An underscore groups digits too (`4111_1111_1111_1111`, numeric literals in code); only
    // the card check accepts it as a print form.
    if ((!isSeparator(sep) && sep !== UNDERSCORE) || !isDigit(codeAt(text, pos + 1))) break;
    groupSep[count] = asSeparator(sep);
    pos++;
  }
  return count;
}

function len(k: number): number {
  return groupEnd[k]! - groupStart[k]!;
}

/** Groups from 0 joined by the same separator as group 1. */
function consistentRun(count: number): number {
  if (count < 2) return count;
  const sep = groupSep[1]!;
  let k = 2;
  while (k < count && groupSep[k] === sep) k++;
  return k;
}

/** True when group `k` is followed by `sep` and a digit (the chain goes on). */
function continues(text: string, k: number, sep: number): boolean {
  const end = groupEnd[k]!;
  return codeAt(text, end) === sep && isDigit(codeAt(text, end + 1));
}

function rightBoundaryOk(text: string, end: number): boolean {
  return !isAlnumCode(codeAt(text, end));
}

function tryIPv4(state: ScanState, count: number): boolean {
  if (count < 4) return false;
  const text = state.text;
  for (let k = 1; k < 4; k++) if (groupSep[k] !== DOT) return false;
  for (let k = 0; k < 4; k++) {
    const length = len(k);
    if (length > 3) return false;
    if (length > 1 && text.charCodeAt(groupStart[k]!) === 48) return false; // leading zero: not an address
    if (digitsValue(text, groupStart[k]!, groupEnd[k]!) > 255) return false;
  }
  const end = groupEnd[3]!;
  if (count > 4 && groupSep[4] === DOT) return false; // 1.2.3.4.5 is a version or an OID
  if (!rightBoundaryOk(text, end)) return false;
  // 3.5.2.1-beta, 1.2.3.4_rc: a version with a suffix.
  const next = codeAt(text, end);
  if ((next === DASH || next === 95) && isAlnumCode(codeAt(text, end + 1))) return false;
  // "version 1.2.3.4", "section 2.1.4.3": dotted numbers that only look like addresses.
  if (hasWordBefore(text, groupStart[0]!, 16, NOT_AN_ADDRESS_CONTEXT)) return true;
  emit(state, 'ip_address', groupStart[0]!, end, 0.85);
  return true;
}

function tryNumericDate(state: ScanState, count: number): boolean {
  if (count < 3) return false;
  const sep = groupSep[1]!;
  if (groupSep[2] !== sep || sep === SPACE || sep === UNDERSCORE) return false;
  const text = state.text;
  const end = groupEnd[2]!;
  if (count > 3 && groupSep[3] === sep) return false; // a fourth group: not a date
  if (!rightBoundaryOk(text, end)) {
    return false;
  }
  // ISO date-times (2024-01-02T03:04:05Z) are machine timestamps, not personal dates.
  if (codeAt(text, end) === 84 && isDigit(codeAt(text, end + 1))) return false;
  const a = len(0);
  const b = len(1);
  const c = len(2);
  const va = digitsValue(text, groupStart[0]!, groupEnd[0]!);
  const vb = digitsValue(text, groupStart[1]!, groupEnd[1]!);
  const vc = digitsValue(text, groupStart[2]!, groupEnd[2]!);
  let confidence = 0;
  if (a === 4 && b <= 2 && c <= 2) {
    // y-m-d (ISO) or y/m/d
    if (va >= 1800 && va <= 2199 && dateValid(va, vb, vc)) confidence = sep === DASH ? 0.75 : 0.7;
  } else if (a <= 2 && b <= 2 && (c === 4 || (c === 2 && sep !== DASH))) {
    const year = c === 4 ? vc : 2000 + vc;
    if (c === 4 && (vc < 1800 || vc > 2199)) return false;
    // d.m.y / d/m/y or m/d/y: accept when either reading is a real day.
    // Two-digit years (01/02/03, 3/3/85) are as often versions, scores or references: below the
    // default threshold unless a context word ("born", "birthday", "date") stands before them.
    if (dateValid(year, vb, va) || dateValid(year, va, vb)) confidence = c === 4 ? 0.7 : 0.45;
  }
  if (confidence === 0) return false;
  if (hasWordBefore(text, groupStart[0]!, 40, DATE_CONTEXT)) confidence += 0.1;
  emit(state, 'date', groupStart[0]!, end, confidence);
  return true;
}

/** Never-issued SSNs: area 000, 666 or 900-999, group 00, serial 0000. */
function ssnParts(area: number, group: number, serial: number): boolean {
  if (area === 0 || area === 666 || area >= 900) return false;
  return group !== 0 && serial !== 0;
}

function trySsn(state: ScanState, count: number): boolean {
  const text = state.text;
  const start = groupStart[0]!;
  if (count >= 3 && len(0) === 3 && len(1) === 2 && len(2) === 4) {
    const sep = groupSep[1]!;
    // A slash or an underscore is no print form of an SSN, but after an SSN word it is one
    // written so ("ssn 078/05/1120"); a 3-2-4 run of slashes is no date either.
    const loose = sep === SLASH || sep === UNDERSCORE;
    if ((sep !== DASH && sep !== SPACE && sep !== DOT && !loose) || groupSep[2] !== sep) return false;
    if (count > 3 && groupSep[3] === sep) return false;
    const end = groupEnd[2]!;
    if (!rightBoundaryOk(text, end)) return false;
    const area = digitsValue(text, start, groupEnd[0]!);
    const group = digitsValue(text, groupStart[1]!, groupEnd[1]!);
    const serial = digitsValue(text, groupStart[2]!, end);
    if (!ssnParts(area, group, serial)) return false;
    const context = hasWordBefore(text, start, 60, SSN_CONTEXT);
    if (loose && !context) return false;
    const confidence = sep === DASH ? (context ? 0.95 : 0.85) : context ? 0.85 : 0.6;
    emit(state, 'us_ssn', start, end, confidence);
    return true;
  }
  if (count >= 2 && len(0) < 9) {
    // Nine digits in another grouping after an SSN word ("ssn 07 80 51 120", "0780 51120"): the
    // word says what they are (the phone detector would take them otherwise).
    const sep = groupSep[1]!;
    let digits = 0;
    let groups = 0;
    while (groups < count && digits < 9 && (groups === 0 || groupSep[groups] === sep)) digits += len(groups++);
    if (digits === 9 && (sep === SPACE || sep === DASH || sep === DOT) && rightBoundaryOk(text, groupEnd[groups - 1]!) && !(groups < count && groupSep[groups] === sep)) {
      const end = groupEnd[groups - 1]!;
      let value = '';
      for (let k = 0; k < groups; k++) value += text.slice(groupStart[k], groupEnd[k]);
      if (ssnParts(Number(value.slice(0, 3)), Number(value.slice(3, 5)), Number(value.slice(5))) && hasWordBefore(text, start, 40, SSN_CONTEXT)) {
        emit(state, 'us_ssn', start, end, 0.8);
        return true;
      }
    }
  }
  if (len(0) === 9 && rightBoundaryOk(text, groupEnd[0]!)) {
    // Bare nine digits are an SSN only when the text says so.
    const area = digitsValue(text, start, start + 3);
    const group = digitsValue(text, start + 3, start + 5);
    const serial = digitsValue(text, start + 5, start + 9);
    if (!ssnParts(area, group, serial)) return false;
    if (!hasWordBefore(text, start, 40, SSN_CONTEXT)) return false;
    emit(state, 'us_ssn', start, groupEnd[0]!, 0.8);
    return true;
  }
  return false;
}

/** Issuer prefix and length plausibility (IIN ranges of the major schemes). */
export function cardIssuerPlausible(text: string, start: number, end: number, length: number): boolean {
  // Read the first four digits, skipping separators.
  let prefix = 0;
  let read = 0;
  for (let k = start; k < end && read < 4; k++) {
    const c = text.charCodeAt(k);
    if (c >= 48 && c <= 57) {
      prefix = prefix * 10 + (c - 48);
      read++;
    }
  }
  const two = Math.floor(prefix / 100);
  const one = Math.floor(prefix / 1000);
  switch (one) {
    case 4: // Visa
      return length === 13 || length === 16 || length === 19;
    case 5: // Mastercard 51-55; Maestro 50, 56-58
      if (two >= 51 && two <= 55) return length === 16;
      return length >= 13 && length <= 19 && two !== 59;
    case 2: // Mastercard 2221-2720, Mir 2200-2204, JCB 15-digit 2131
      if (prefix === 2131) return length === 15;
      return length === 16 && ((prefix >= 2221 && prefix <= 2720) || (prefix >= 2200 && prefix <= 2204));
    case 3:
      if (two === 34 || two === 37) return length === 15; // American Express
      if (two === 35) return length >= 16 && length <= 19; // JCB
      if (two === 36 || two === 38 || two === 39 || (prefix >= 3000 && prefix <= 3059) || (prefix >= 3090 && prefix <= 3099)) {
        return length >= 14 && length <= 19; // Diners Club
      }
      return false;
    case 6: // Discover, UnionPay, Maestro, RuPay
      return length >= 16 && length <= 19;
    case 1: // UATP, JCB 15-digit 1800
      return length === 15;
    default:
      return false;
  }
}

/** Maestro IIN prefixes that issue 12-digit numbers: 50, 56-58, 6. */
function maestro12(text: string, start: number): boolean {
  const a = text.charCodeAt(start);
  const b = text.charCodeAt(start + 1);
  if (a === 54) return true; // 6
  return a === 53 && (b === 48 || (b >= 54 && b <= 56)); // 50, 56-58
}

function emitCard(state: ScanState, start: number, end: number, digits: number, grouped: boolean): boolean {
  const text = state.text;
  if (!cardIssuerPlausible(text, start, end, digits) || !luhnValid(text, start, end)) return false;
  let confidence = grouped ? 0.95 : 0.9;
  if (hasWordBefore(text, start, 40, CARD_CONTEXT)) confidence += 0.04;
  emit(state, 'credit_card', start, end, confidence);
  return true;
}

function tryCard(state: ScanState, count: number): boolean {
  const text = state.text;
  const start = groupStart[0]!;
  const first = len(0);
  // Twelve-digit Maestro numbers (50, 56-58, 6xxx) exist, but so do countless other 12-digit
  // runs: only next to a card word.
  if (first === 12 && rightBoundaryOk(text, groupEnd[0]!) && maestro12(text, start) && hasWordBefore(text, start, 40, CARD_CONTEXT)) {
    if (!luhnValid(text, start, groupEnd[0]!)) return false;
    emit(state, 'credit_card', start, groupEnd[0]!, 0.85);
    return true;
  }
  if (first >= 13 && first <= 19 && rightBoundaryOk(text, groupEnd[0]!)) {
    // An 18-digit Chinese resident id is not an (unusual) 18-digit Maestro number.
    if (first === 18 && cnResidentIdValid(text.slice(start, groupEnd[0]))) return false;
    // 15 digits that pass both Luhn and the French NIR key: the words before decide (a NIR
    // word, else a card word); without either, an American Express prefix (34, 37) makes it a
    // card, anything else (UATP and JCB-15 start like a NIR's sex digit) a NIR.
    if (first === 15 && frNirValid(text.slice(start, groupEnd[0]))) {
      if (scoreId(text, 'fr_nir', start, 0, 1) > 0) return false;
      const amex = text.charCodeAt(start) === 51 && (text.charCodeAt(start + 1) === 52 || text.charCodeAt(start + 1) === 55);
      if (!amex && !hasWordBefore(text, start, 40, CARD_CONTEXT)) return false;
    }
    // Every SIRET passes Luhn; next to its own name it is a SIRET, not a Maestro card.
    if (first === 14 && siretValid(text.slice(start, groupEnd[0])) && scoreId(text, 'fr_siret', start, 0, 1) > 0) return false;
    return emitCard(state, start, groupEnd[0]!, first, false);
  }
  if (first !== 4 || count < 3) return false;
  const sep = groupSep[1]!;
  // Dots, slashes and underscores ("4111.1111.1111.1111") are no print form of a card, but the
  // same digits in card groups that pass the issuer and Luhn checks are the card all the same.
  if (sep !== SPACE && sep !== DASH && sep !== DOT && sep !== SLASH && sep !== UNDERSCORE) return false;
  const run = consistentRun(count);
  if (run < 3) return false;
  // 4-6-5 / 4-6-4 (Amex, Diners); else 4-4-4-4(-3) or 4-4-4-1..4 (all fours but the last).
  // Several cards may follow each other with single spaces: each shape is tried as a prefix
  // of the run, and a prefix may end where the run goes on with a space (the next value).
  const shapes = len(1) === 6 ? [3] : [5, 4];
  for (const groups of shapes) {
    if (groups > run) continue;
    if (groups === 3 ? len(2) !== 5 && len(2) !== 4 : !allFoursButLast(groups)) continue;
    let digits = 0;
    for (let k = 0; k < groups; k++) digits += len(k);
    if (groups < count && continues(text, groups - 1, sep)) {
      // The run goes on: only with spaces, and only when what follows can be another card
      // (a 24-digit run is not a card and a number).
      if (sep !== SPACE) continue;
      let rest = 0;
      for (let k = groups; k < run; k++) rest += len(k);
      if (rest < 13) continue;
    }
    if (digits < 13 || digits > 19) continue;
    const end = groupEnd[groups - 1]!;
    if (!rightBoundaryOk(text, end)) continue;
    if (emitCard(state, start, end, digits, sep === SPACE || sep === DASH)) return true;
  }
  return false;
}

/** Longest run of single digits read by trySpacedDigits (a 19-digit card). */
const MAX_SPACED = 19;

/**
 * Digits written one at a time with one separator between them ("4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1",
 * "0-7-8-0-5-1-1-2-0"), which hides a value from every grouped print form: a card when 13 to 19
 * of them pass the issuer and Luhn checks, an SSN when nine follow an SSN word, a phone number
 * when they follow a phone word and form a valid national number. Returns the end of the value,
 * or -1. Reads at most MAX_SPACED digits.
 */
function trySpacedDigits(state: ScanState, start: number): number {
  const text = state.text;
  const sep = asSeparator(codeAt(text, start + 1));
  if (!(sep === SPACE || sep === DASH || sep === DOT) || !isDigit(codeAt(text, start + 2)) || isDigit(codeAt(text, start + 3))) return -1;
  let pos = start;
  let digits = 1;
  while (digits < MAX_SPACED && asSeparator(codeAt(text, pos + 1)) === sep && isDigit(codeAt(text, pos + 2)) && !isDigit(codeAt(text, pos + 3))) {
    pos += 2;
    digits++;
  }
  const end = pos + 1;
  if (digits < 9 || !rightBoundaryOk(text, end) || (asSeparator(codeAt(text, end)) === sep && isDigit(codeAt(text, end + 1)))) return -1;
  if (digits >= 13 && emitCard(state, start, end, digits, false)) return end;
  const d = (k: number): number => text.charCodeAt(start + 2 * k) - 48;
  if (digits === 9 && hasWordBefore(text, start, 40, SSN_CONTEXT)) {
    if (!ssnParts(d(0) * 100 + d(1) * 10 + d(2), d(3) * 10 + d(4), d(5) * 1000 + d(6) * 100 + d(7) * 10 + d(8))) return -1;
    emit(state, 'us_ssn', start, end, 0.8);
    return end;
  }
  // A phone number read out digit by digit after a phone word: the whole run, or the phone
  // detector would take a prefix of it and leave the last digits raw.
  if (digits <= MAX_SPACED_PHONE && hasWordBefore(text, start, 40, PHONE_CONTEXT)) {
    let number = '';
    for (let k = 0; k < digits; k++) number += String.fromCharCode(48 + d(k));
    if (!checkNational(number, state.region).valid) return -1;
    emit(state, 'phone', start, end, 0.8);
    return end;
  }
  return -1;
}

/** Most digits of a phone number written one at a time (a national number with its trunk prefix). */
const MAX_SPACED_PHONE = 15;

/** Groups 0..groups-2 have four digits and the last at most four. */
function allFoursButLast(groups: number): boolean {
  for (let k = 0; k < groups - 1; k++) if (len(k) !== 4) return false;
  return len(groups - 1) <= 4;
}

/**
 * Run every digit-group detector at a digit that starts a word. Values written one after the
 * other with single spaces ("4111 1111 1111 1111 5555 5555 5555 4444", two phone numbers) form
 * one chain of digit groups: after a value is found, the chain is read again from the group
 * after it, so each value is found (iteratively: a megabyte of cards costs one pass).
 */
export function detectNumeric(state: ScanState, first: number): void {
  if (numericStartOk(state.text, first)) readChain(state, first);
}

/**
 * The digit-group detectors at `first`, a digit glued to the label word before it
 * (`card4111111111111111`, `SSN078-05-1120`, `tel4155550100`): scan.ts calls this only after a
 * label word of gluedLabel, which stands where a separator would.
 */
export function detectNumericGlued(state: ScanState, first: number): void {
  readChain(state, first);
}

function readChain(state: ScanState, first: number): void {
  const text = state.text;
  let start = first;
  for (;;) {
    const end = detectNumericAt(state, start);
    if (end < 0) return;
    // The next value of a list written with spaces or slashes ("4111… 5500…", "4111…/5500…"):
    // numericStartOk refuses a start after a digit and a separator (inside a chain), so the
    // chain is read on from here once a value has ended.
    const after = codeAt(text, end);
    if ((after !== SPACE && after !== SLASH) || !isDigit(codeAt(text, end + 1))) return;
    start = end + 1;
  }
}

/** Whether a digit follows `end` after a gap no single print separator makes (a line break, ` | `, ` - `). */
function runsOnLoosely(text: string, end: number): boolean {
  const c = codeAt(text, end);
  if (c !== 10 && c !== 13 && c !== 32 && c !== 9 && c !== 124 && c !== 45) return false;
  if (isSeparator(c) && isDigit(codeAt(text, end + 1))) return false; // the chain's own separator
  for (let k = end + 1; k <= end + 4; k++) {
    const next = codeAt(text, k);
    if (isDigit(next)) return true;
    if (next !== 10 && next !== 32 && next !== 9 && next !== 124 && next !== 45 && next !== 46) return false;
  }
  return false;
}

/** Lowest confidence of a value after which a chain of groups is read on (see detectNumeric). */
const CHAIN_CONFIDENCE = 0.5;

/** The detectors at one start; returns the end of the longest value found there (at CHAIN_CONFIDENCE or above), or -1. */
function detectNumericAt(state: ScanState, start: number): number {
  const text = state.text;
  const emitted = state.out.length;
  const count = collectGroups(text, start);
  if (count === 0) return -1;
  if (count === MAX_GROUPS && len(0) === 1) {
    const spaced = trySpacedDigits(state, start);
    if (spaced > 0) return spaced;
  }
  let claimed = tryIPv4(state, count);
  if (!claimed) claimed = tryNumericDate(state, count);
  if (!claimed) claimed = trySsn(state, count);
  if (!claimed) claimed = tryCard(state, count);
  if (!claimed) {
    const after = codeAt(text, groupEnd[0]!);
    if (after === SPACE || after === DOT || after === DASH || isAsciiLetter(after) || after === 0xba || after === 0xb0) {
      const end = writtenDateFromDay(text, start, groupEnd[0]!);
      if (end > 0) {
        let confidence = 0.8;
        if (hasWordBefore(text, start, 40, DATE_CONTEXT)) confidence += 0.1;
        emit(state, 'date', start, end, confidence);
        claimed = true;
      }
    }
  }
  let letterIds = false;
  if (!claimed) {
    // Identifiers with a letter after the digits (DNI 12345678Z, HETU 131052-308T, PPS 1234567T).
    const firstLength = groupEnd[0]! - start;
    if (firstLength === 2 || firstLength === 6 || firstLength === 7 || firstLength === 8) {
      letterIds = detectDigitLetterIds(state, count, groupStart, groupEnd, groupSep) > 0;
    }
    if (!letterIds) detectDigitIds(state, count, groupStart, groupEnd, groupSep);
  }
  if (!claimed && !letterIds && codeAt(text, start - 1) !== PLUS) detectPhone(state, start, plusWordBefore(text, start));
  let end = -1;
  for (let k = emitted; k < state.out.length; k++) {
    const detection = state.out[k]!;
    if (detection.start === start && detection.confidence >= CHAIN_CONFIDENCE && detection.end > end) end = detection.end;
  }
  // Nothing here, or a value the digits run on from with a looser gap ("card 4111 1111\n1111
  // 1111" read "4111 1111" as a phone): the same digits joined by looser gaps ("4111 | 1111 | …",
  // "078 - 05 - 1120"); overlap resolution keeps the longer, surer value.
  if (end < 0 || runsOnLoosely(text, end)) end = Math.max(end, detectLooseDigits(state, start, cardIssuerPlausible, ssnParts, end < 0));
  return end;
}
