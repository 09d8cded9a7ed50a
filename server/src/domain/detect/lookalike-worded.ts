// Look-alike letters in numbers read on the value's word (session 14, wave13/evade): `my card is
// 4lll llll llll llll`, `card number 55OOOOOOOOOOOOO4`, `my SSN is O78-O5-ll2O`, `server ip
// 8l.2.69.l6O`, `date of birth l985-O3-O4`, `passport number 9l28O3456`, `CPF l23.456.789-O9`.
// lookalike-digits.ts reads a chain only when it is mostly digits, and only for cards, SSNs, phones
// and IBANs; here a chain with more letters than digits (one digit at least: a word of letters
// alone, `SOLO`, `lol`, `lOl`, is never read) and the other numbers (IP addresses, dates, national
// ids) are read too, each kept only when the value's word stands before it (value-words.ts) and
// the value's own detector finds it valid in the reading (Luhn and issuer, SSN ranges, the date's
// calendar, the id's check). Full-width, mathematical, Cyrillic and Greek forms of the letters
// reach this reading as ASCII through the fold (`4ⅼⅼⅼ`, `Ο78`, `𝐎78`).
//
// Seeds are the scan's own look-alike seeds (lookalike-digits.ts): no pass of its own over prose.
import { isNumberSeparator, lookalikeDigit, lookalikeRunAt, withLookalikeDigits } from '../text/lookalike.js';
import type { ReadingScanner } from './lookalike-digits.js';
import { emit, type ScanState } from './state.js';
import { hasValueWordBefore } from './value-words.js';

/** Text before a run scanned with it (its value word). */
const CONTEXT_BEFORE = 64;
/** Text after a run scanned with it (an end boundary the detectors check). */
const CONTEXT_AFTER = 2;
/** The types lookalike-digits.ts reads on a mostly-digit chain without a word of their own. */
const READ_PLAIN: ReadonlySet<string> = new Set(['credit_card', 'us_ssn', 'us_itin', 'phone', 'iban']);
/** Types never read so: letters are part of these values (`71854089I` is no DNI), or they hold no number. */
const NOT_READ: ReadonlySet<string> = new Set(['mac_address', 'email', 'url', 'api_key', 'jwt', 'password', 'private_key', 'connection_string', 'crypto_wallet']);

function holdsLookalike(text: string, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (lookalikeDigit(text.charCodeAt(k)) !== 0) return true;
  return false;
}

/** True when the look-alike letters of [start, end) are all at its end (after its last digit). */
function lettersOnlyAtEnd(text: string, start: number, end: number): boolean {
  let k = end;
  while (k > start && lookalikeDigit(text.charCodeAt(k - 1)) !== 0) k--;
  return k < end && !holdsLookalike(text, start, k);
}

function onlySeparators(text: string, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (!isNumberSeparator(text.charCodeAt(k))) return false;
  return true;
}

/**
 * Emit the values read at `seeds` (ascending) with look-alike letters as digits that
 * lookalike-digits.ts does not read: a chain of more letters than digits, or a type it does not
 * read, with the value's word before it.
 */
export function detectLookalikeWorded(state: ScanState, seeds: readonly number[], scan: ReadingScanner): void {
  const text = state.text;
  let readUpTo = -1;
  for (const seed of seeds) {
    if (seed < readUpTo) continue;
    const run = lookalikeRunAt(text, seed, true);
    readUpTo = Math.max(readUpTo, run.chainEnd);
    if (run.start < 0) continue;
    // Mostly digits: lookalike-digits.ts read its cards, SSNs, phones and IBANs already.
    const mostlyDigits = lookalikeRunAt(text, run.start).start >= 0;
    // Letters only at the run's end are an id's own check letters (`NIF 71854089I`: no DNI letter is
    // I or O, and a NIF read from it would be a guess): not read here.
    if (lettersOnlyAtEnd(text, run.from, run.end)) continue;
    const from = Math.max(0, run.start - CONTEXT_BEFORE);
    const to = Math.min(text.length, run.end + CONTEXT_AFTER);
    const reading = withLookalikeDigits(text.slice(from, to), run.from - from, run.end - from);
    for (const found of scan(reading)) {
      if (found.confidence < 0.5 || NOT_READ.has(found.type) || (mostlyDigits && READ_PLAIN.has(found.type))) continue;
      const start = found.start + from;
      const end = found.end + from;
      if (start < from || end > to || !holdsLookalike(text, Math.max(start, run.from), end)) continue;
      if ((start < run.start && !onlySeparators(text, start, run.start)) || (end > run.end && !onlySeparators(text, run.end, end))) continue;
      if (!hasValueWordBefore(text, found.type, start)) continue;
      emit(state, found.type, start, end, found.confidence);
    }
  }
}
