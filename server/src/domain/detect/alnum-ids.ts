// Identifiers written as one uppercase alphanumeric word (or a few spaced groups): UK NINO,
// Spanish NIE, Singapore NRIC/FIN, Indian PAN, Italian codice fiscale, Mexican CURP, VIN, US
// Medicare MBI, US passport (letter + 8 digits), Chinese resident id ending in X, Corsican NIR
// (2A/2B), and EU VAT
// numbers with their country prefix. The scanner calls in once per word whose first character
// is an uppercase letter or a digit followed by letters; a switch on the word length keeps the
// common case (an ordinary word) to a few comparisons.
import { codeAt, isAlnumCode, isDigit, isUpper } from './chars.js';
import { scoreId } from './digit-ids.js';
import { emit, type ScanState } from './state.js';
import {
  cnResidentIdValid, esNieValid, euVatVerdict, frNirValid, inPanValid, itFiscalCodeValid, mbiValid, mxCurpValid, sgNricValid,
  ukNinoValid, VAT_COUNTRIES, vinShapeValid, vinValid,
} from './validators.js';

const SPACE = 32;
const MAX_VAT_BODY = 16;

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

/** "AB 12 34 56 C" or "AB 123456 C": a NINO in print form, at a two-letter word. */
function spacedNino(state: ScanState, start: number): number {
  const text = state.text;
  let pos = start + 2;
  let compact = text.slice(start, start + 2);
  // Digits as 2-2-2 or 6, single spaces.
  while (compact.length < 8) {
    if (codeAt(text, pos) !== SPACE) return -1;
    pos++;
    const groupStart = pos;
    while (isDigit(codeAt(text, pos)) && pos - groupStart < 6) pos++;
    const length = pos - groupStart;
    if (length !== 2 && length !== 6) return -1;
    compact += text.slice(groupStart, pos);
  }
  if (compact.length !== 8) return -1;
  // Suffix letter, spaced or glued; some forms omit it.
  let end = pos;
  if (codeAt(text, pos) === SPACE && isUpper(codeAt(text, pos + 1)) && !isAlnumCode(codeAt(text, pos + 2))) {
    compact += text.charAt(pos + 1);
    end = pos + 2;
  } else if (isAlnumCode(codeAt(text, pos))) return -1;
  if (compact.length === 8) compact += 'A'; // suffix omitted: validate the rest
  if (!ukNinoValid(compact)) return -1;
  emit(state, 'uk_nino', start, end, scoreId(text, 'uk_nino', start, end - pos === 2 ? 0.75 : 0.55, 0.95));
  return end;
}

/**
 * A VAT number at a two-letter country prefix: glued (DE136695976, NL123456789B01) or after one
 * space, its body in groups separated by single spaces, dots or dashes (FR 40 303 265 045,
 * BE 0123.456.749). Every group carries a digit, so a following word is never swallowed.
 */
function vatNumber(state: ScanState, start: number, wordEnd: number): number {
  const text = state.text;
  const country = text.slice(start, start + 2);
  if (!VAT_COUNTRIES.has(country)) return -1;
  let pos = start + 2;
  const spacedPrefix = pos === wordEnd;
  if (spacedPrefix) {
    if (codeAt(text, pos) !== SPACE || !isAlnumCode(codeAt(text, pos + 1))) return -1;
    pos++;
  }
  let body = '';
  const ends: number[] = [];
  const bodies: string[] = [];
  for (;;) {
    const groupStart = pos;
    while (pos - groupStart <= MAX_VAT_BODY && (isDigit(codeAt(text, pos)) || isUpper(codeAt(text, pos)))) pos++;
    if (pos === groupStart || !upperAlnumWithDigit(text, groupStart, pos)) break;
    body += text.slice(groupStart, pos);
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
    if (verdict === undefined) continue;
    const glued = !spacedPrefix && k === 0;
    const base = verdict === 'checksum' ? (glued ? 0.8 : 0.75) : 0.35;
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

/**
 * At a word [start, end) starting with an uppercase letter or a digit: try the alphanumeric id
 * formats. Returns the end of an emitted match or -1.
 */
export function detectAlnumIds(state: ScanState, start: number, end: number): number {
  const text = state.text;
  const length = end - start;
  const first = text.charCodeAt(start);
  if (length === 2) {
    if (codeAt(text, end) !== SPACE || !isUpper(codeAt(text, start + 1))) return -1;
    const next = codeAt(text, end + 1);
    if (isDigit(next)) {
      const nino = spacedNino(state, start);
      if (nino > 0) return nino;
    } else if (!isUpper(next)) return -1;
    return vatNumber(state, start, end);
  }
  if (length === 4 && isDigit(first) && codeAt(text, end) === 45) return dashedMbi(state, start);
  if (length < 8 || length > 18 || !upperAlnumWithDigit(text, start, end)) return -1;
  const value = text.slice(start, end);
  let result = -1;
  switch (length) {
    case 9:
      if (ukNinoValid(value)) return emitWord(state, 'uk_nino', start, end, 0.65, 0.95);
      if (esNieValid(value)) return emitWord(state, 'es_nie', start, end, 0.7, 0.95);
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
  // Glued VAT numbers: two-letter prefix + body.
  if (isUpper(first) && isUpper(text.charCodeAt(start + 1))) return vatNumber(state, start, end);
  return -1;
}

/** US passport (Next Generation): one letter and eight digits; only with a context word. */
function emitPassport(state: ScanState, start: number, end: number): number {
  const confidence = scoreId(state.text, 'us_passport', start, 0, 0.8);
  if (confidence === 0) return -1;
  emit(state, 'us_passport', start, end, confidence);
  return end;
}
