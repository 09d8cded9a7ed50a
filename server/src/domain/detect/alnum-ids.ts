// Identifiers written as one alphanumeric word (or a few spaced groups): UK NINO, Spanish NIE,
// Singapore NRIC/FIN, Indian PAN, Italian codice fiscale, Mexican CURP, VIN, US Medicare MBI, US
// passport (letter + 8 digits), Chinese resident id ending in X, Corsican NIR (2A/2B), and EU
// VAT numbers with their country prefix. The scanner calls in once per word whose first
// character is an uppercase letter or a digit followed by letters, and for lowercase words with
// a digit in second or third place (people type `x9613851n`, `de136695976`, `ab123456c`): ids
// with a check character are then accepted in lower case too, a little below their upper-case
// score. A switch on the word length keeps the common case (an ordinary word) to a few
// comparisons.
import { codeAt, isAlnumCode, isDigit, isUpper } from './chars.js';
import { hasLabelBefore } from './context.js';
import { scoreId } from './digit-ids.js';
import { PASSPORT_CONTEXT, passportTypeFor } from './id-context.js';
import { emit, type ScanState } from './state.js';
import {
  cnResidentIdValid, esNieValid, euVatVerdict, frNirValid, inPanValid, itFiscalCodeValid, mbiValid, mxCurpValid, sgNricValid,
  ukNinoValid, VAT_COUNTRIES, vinShapeValid, vinValid,
} from './validators.js';

const SPACE = 32;
const MAX_VAT_BODY = 16;

function isAsciiAlnum(c: number): boolean {
  return isDigit(c) || isLetter(c);
}

/** True when text[start, end) is only [A-Za-z0-9] and holds at least one digit. */
function alnumWithDigit(text: string, start: number, end: number): boolean {
  let digit = false;
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (isDigit(c)) digit = true;
    else if (!isLetter(c)) return false;
  }
  return digit;
}

/** True when text[start, end) is only [A-Z0-9] and holds at least one digit. */
function upperAlnumWithDigit(text: string, start: number, end: number): boolean {
  let digit = false;
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (isDigit(c)) digit = true;
    else if (!isUpper(c)) return false;
  }
  return digit;
}

function digitsIn(text: string, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (!isDigit(text.charCodeAt(k))) return false;
  return true;
}

/** Score given up by an id written in lower case (the check characters still hold). */
const LOWER_CASE_PENALTY = 0.15;

// NINO print forms: "AB 12 34 56 C", "AB123456C", "AB 123456 C", "ab 12 34 56 c", suffix
// glued or spaced or left out. Sticky, so it only ever reads the 14 characters at lastIndex.
const NINO_FORM = /[A-Za-z]{2} ?\d{2} ?\d{2} ?\d{2}(?: ?([A-Da-d]))?(?![A-Za-z0-9])/y;
const NINO_FIRST_NEVER = 'DFIQUV';
const NINO_SECOND_NEVER = 'DFIOQUV';

/** A NINO at a word of two letters then digits (or two letters and a space); returns its end or -1. */
function ninoAt(state: ScanState, start: number): number {
  const text = state.text;
  // HMRC never issues D F I Q U V first, nor D F I O Q U V second ("in 2024", "of 12"): no regex.
  if (NINO_FIRST_NEVER.includes(text.charAt(start).toUpperCase()) || NINO_SECOND_NEVER.includes(text.charAt(start + 1).toUpperCase())) return -1;
  NINO_FORM.lastIndex = start;
  const match = NINO_FORM.exec(text);
  if (match === null) return -1;
  const end = start + match[0].length;
  const suffix = match[1] !== undefined;
  // "AB 12 34 56 1": a chain of digit groups, not a NINO without its suffix; "AB 12 34 56 E":
  // a wrong suffix letter.
  if (!suffix && codeAt(text, end) === SPACE && isAlnumCode(codeAt(text, end + 1)) && !isAlnumCode(codeAt(text, end + 2))) return -1;
  if (!suffix && codeAt(text, end) === SPACE && isDigit(codeAt(text, end + 1))) return -1;
  const compact = match[0].replaceAll(' ', '').toUpperCase();
  if (!ukNinoValid(suffix ? compact : `${compact}A`)) return -1; // suffix omitted: validate the rest
  const spaced = match[0].includes(' ');
  let base = suffix ? (spaced ? 0.75 : 0.65) : 0.55;
  if (match[0] !== match[0].toUpperCase()) base -= LOWER_CASE_PENALTY;
  emit(state, 'uk_nino', start, end, scoreId(text, 'uk_nino', start, base, 0.95));
  return end;
}

// NIE: X, Y or Z, seven digits, the check letter; hyphens after the prefix letter and before
// the check letter are optional (X-9613851-N, Y8063915-Z), either case.
const NIE_FORM = /[XYZxyz]-?\d{7}-?[A-Za-z](?![A-Za-z0-9])/y;

/** A NIE at a word starting with X, Y or Z; returns its end or -1. */
function nieAt(state: ScanState, start: number): number {
  const text = state.text;
  NIE_FORM.lastIndex = start;
  const match = NIE_FORM.exec(text);
  if (match === null || isAlnumCode(codeAt(text, start - 1))) return -1;
  if (!esNieValid(match[0].replaceAll('-', '').toUpperCase())) return -1;
  let base = match[0].includes('-') ? 0.75 : 0.7;
  if (match[0] !== match[0].toUpperCase()) base -= LOWER_CASE_PENALTY;
  const end = start + match[0].length;
  emit(state, 'es_nie', start, end, scoreId(text, 'es_nie', start, base, 0.95));
  return end;
}

/**
 * A VAT number at a two-letter country prefix: glued (DE136695976, NL123456789B01) or after one
 * space, dash or dot, its body in groups separated by single spaces, dots or dashes
 * (FR 40 303 265 045, BE 0123.456.749, DE-136-695-976). Every group carries a digit, so a
 * following word is never swallowed. In lower case (de136695976) only a body whose check digits
 * hold counts.
 */
function vatNumber(state: ScanState, start: number, wordEnd: number): number {
  const text = state.text;
  const written = text.slice(start, start + 2);
  const country = written.toUpperCase();
  if (!VAT_COUNTRIES.has(country)) return -1;
  let lower = written !== country;
  let pos = start + 2;
  const spacedPrefix = pos === wordEnd;
  if (spacedPrefix) {
    const sep = codeAt(text, pos);
    if ((sep !== SPACE && sep !== 45 && sep !== 46) || !isAlnumCode(codeAt(text, pos + 1))) return -1;
    pos++;
  }
  let body = '';
  const ends: number[] = [];
  const bodies: string[] = [];
  for (;;) {
    const groupStart = pos;
    while (pos - groupStart <= MAX_VAT_BODY && isAsciiAlnum(codeAt(text, pos))) pos++;
    if (pos === groupStart || !alnumWithDigit(text, groupStart, pos)) break;
    const group = text.slice(groupStart, pos);
    const upper = group.toUpperCase();
    if (upper !== group) lower = true;
    body += upper;
    if (body.length > MAX_VAT_BODY) return -1;
    ends.push(pos);
    bodies.push(body);
    const sep = codeAt(text, pos);
    if ((sep === SPACE || sep === 46 || sep === 45) && isAlnumCode(codeAt(text, pos + 1))) pos++;
    else break;
  }
  // Longest group prefix that validates and ends the token.
  for (let k = bodies.length - 1; k >= 0; k--) {
    const end = ends[k]!;
    if (isAlnumCode(codeAt(text, end))) continue;
    const verdict = euVatVerdict(country, bodies[k]!);
    if (verdict === undefined || (lower && verdict !== 'checksum')) continue;
    const glued = !spacedPrefix && k === 0;
    const base = verdict === 'checksum' ? (glued ? 0.8 : 0.75) - (lower ? LOWER_CASE_PENALTY : 0) : 0.35;
    const confidence = scoreId(text, 'eu_vat', start, base, verdict === 'checksum' ? 0.95 : 0.85);
    emit(state, 'eu_vat', start, end, confidence);
    return end;
  }
  return -1;
}

/** MBI in print form 1EG4-TE5-MK73, at its first four characters. */
function dashedMbi(state: ScanState, start: number): number {
  const text = state.text;
  const end = start + 13;
  if (codeAt(text, start + 4) !== 45 || codeAt(text, start + 8) !== 45 || isAlnumCode(codeAt(text, end))) return -1;
  const compact = text.slice(start, start + 4) + text.slice(start + 5, start + 8) + text.slice(start + 9, end);
  if (!mbiValid(compact)) return -1;
  emit(state, 'us_mbi', start, end, scoreId(text, 'us_mbi', start, 0.75, 0.95));
  return end;
}

function emitWord(state: ScanState, type: string, start: number, end: number, base: number, withContext: number): number {
  emit(state, type, start, end, scoreId(state.text, type, start, base, withContext));
  return end;
}

function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/**
 * At a word [start, end) starting with a letter or a digit: try the alphanumeric id formats.
 * `anyCase`: the word is in lower case (only ids with a check character are tried). Returns the
 * end of an emitted match or -1.
 */
export function detectAlnumIds(state: ScanState, start: number, end: number, anyCase = false): number {
  const text = state.text;
  const length = end - start;
  const first = text.charCodeAt(start);
  const second = codeAt(text, start + 1);
  if (isLetter(first) && isLetter(second) && (isDigit(codeAt(text, start + 2)) || (length === 2 && codeAt(text, end) === SPACE && isDigit(codeAt(text, end + 1))))) {
    const nino = ninoAt(state, start);
    if (nino > 0) return nino;
  }
  if ((first | 0x20) >= 120 && (first | 0x20) <= 122 && (isDigit(second) || second === 45)) {
    const nie = nieAt(state, start);
    if (nie > 0) return nie;
  }
  if (length === 2) {
    const next = codeAt(text, end);
    if ((next !== SPACE && next !== 45 && next !== 46) || !isLetter(second)) return -1;
    if (!isAsciiAlnum(codeAt(text, end + 1))) return -1;
    // Lower case and spaced ("de 136695976"): a compact body of eight or more characters, next
    // to a VAT word ("at 10:30", "in 2024" cost no context search).
    if (anyCase) {
      let body = end + 1;
      while (isAsciiAlnum(codeAt(text, body)) && body - end <= MAX_VAT_BODY) body++;
      if (body - end - 1 < 8 || !VAT_COUNTRIES.has(text.slice(start, end).toUpperCase()) || scoreId(text, 'eu_vat', start, 0, 1) === 0) return -1;
    }
    return vatNumber(state, start, end);
  }
  if (anyCase) {
    // Lower case: only the VAT numbers (check digits) beyond NINO and NIE above.
    if (length >= 8 && length <= 18 && isLetter(second)) return vatNumber(state, start, end);
    return -1;
  }
  if (length === 4 && isDigit(first) && codeAt(text, end) === 45) return dashedMbi(state, start);
  if (length < 6 || length > 18 || !upperAlnumWithDigit(text, start, end)) return -1;
  if (length < 8) return passportAt(state, start, end);
  const value = text.slice(start, end);
  let result = -1;
  switch (length) {
    case 9:
      if (sgNricValid(value)) return emitWord(state, 'sg_nric', start, end, 0.75, 0.95);
      if (isUpper(first) && digitsIn(text, start + 1, end)) result = emitPassport(state, start, end);
      break;
    case 10:
      if (inPanValid(value)) return emitWord(state, 'in_pan', start, end, 0.55, 0.95);
      break;
    case 11:
      if (isDigit(first) && mbiValid(value)) return emitWord(state, 'us_mbi', start, end, 0.7, 0.95);
      break;
    case 15:
      // French NIR of a person born in Corsica: department 2A or 2B.
      if (isDigit(first) && frNirValid(value)) return emitWord(state, 'fr_nir', start, end, 0.6, 0.98);
      break;
    case 16:
      if (itFiscalCodeValid(value)) return emitWord(state, 'it_fiscal_code', start, end, 0.9, 0.98);
      break;
    case 17:
      if (vinValid(value)) return emitWord(state, 'vin', start, end, 0.8, 0.95);
      // Outside North America the check digit is optional: such VINs need a context word.
      if (vinShapeValid(value) && (first < 49 || first > 53)) {
        const confidence = scoreId(text, 'vin', start, 0, 0.7);
        if (confidence > 0) return emitWord(state, 'vin', start, end, 0, 0.7);
      }
      break;
    case 18:
      if (mxCurpValid(value)) return emitWord(state, 'mx_curp', start, end, 0.9, 0.98);
      if (cnResidentIdValid(value)) return emitWord(state, 'cn_resident_id', start, end, 0.75, 0.95);
      break;
    default:
      break;
  }
  if (result > 0) return result;
  if (length <= 9) {
    const passport = passportAt(state, start, end);
    if (passport > 0) return passport;
  }
  // Glued VAT numbers: two-letter prefix + body.
  if (isUpper(first) && isUpper(second)) return vatNumber(state, start, end);
  return -1;
}

/** Fewest digits in a passport number of the formats passportAt accepts. */
const PASSPORT_MIN_DIGITS = 5;

/**
 * Passport numbers of other formats (AB1234567, N1234567, 12AB34567, C01X00T47): 6 to 9 upper-
 * case letters and digits, at least five digits, right after a passport label ("passport
 * number: ..."). The type is the region's passport (passportTypeFor).
 */
function passportAt(state: ScanState, start: number, end: number): number {
  const text = state.text;
  let digits = 0;
  for (let k = start; k < end; k++) if (isDigit(text.charCodeAt(k))) digits++;
  if (digits < PASSPORT_MIN_DIGITS || !hasLabelBefore(text, start, 40, PASSPORT_CONTEXT)) return -1;
  emit(state, passportTypeFor(state.region), start, end, 0.7);
  return end;
}

/** US passport (Next Generation): one letter and eight digits; only with a context word. */
function emitPassport(state: ScanState, start: number, end: number): number {
  const confidence = scoreId(state.text, 'us_passport', start, 0, 0.8);
  if (confidence === 0) return -1;
  emit(state, 'us_passport', start, end, confidence);
  return end;
}
