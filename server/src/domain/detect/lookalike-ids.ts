// National ids with letters of their own whose digits are written as look-alike letters (session
// 16, wave15/evade): `my NI number is ABl23456C`, `DNI l2345678Z`, `DNI 1234567BZ`-like words where
// `O`, `o`, `I`, `l` stand for 0 and 1. lookalike-digits.ts and lookalike-worded.ts read a chain of
// digits and look-alikes, and stop at the id's own letters (a NINO's two prefix letters and suffix,
// a DNI's check letter), so these words stayed raw.
//
// Here one word (8 to 12 letters and digits, five digits or more, a look-alike letter, and no
// other letter except in its first two and last places) is read with the look-alikes as digits
// except in the places an id's own letters stand: the first zero, one or two characters and the
// last are kept as written (at most three readings of the one word; a look-alike last is the id's
// letter: `NIF 71854089I` is no number of nine digits). Each reading is
// scanned one level deep after the text before the word (its value word), and an id the scan finds
// exactly over the word is kept only when its detector accepts it (a DNI's check letter, a NINO's
// prefix rules) and the id's word stands before it (value-words.ts; `DNI`, `NI number`, …). Cards,
// SSNs, phones and IBANs are the other readers' (no letters of their own).
//
// Seeds: the scan's look-alike seeds (a look-alike letter before a digit, a digit word beside a
// look-alike), and a word of two capitals then a digit or look-alike with a look-alike in it
// (lookalikeIdMayStart, one test on the word loop's letter path).
import type { Detection } from '../types.js';
import { lookalikeDigit } from '../text/lookalike.js';
import { joinFound } from './broken-lines.js';
import { ID_HEADS, MAX_ID_HEAD } from './lookalike-id-places.js';
import { ID_CONTEXT } from './id-context.js';
import type { ReadingScanner } from './reversed.js';
import type { ScanState } from './state.js';
import { hasValueWordBefore } from './value-words.js';

/** Text before the word read with it (its value word). */
const CONTEXT_BEFORE = 64;
const MIN_LENGTH = 8;
const MAX_LENGTH = 12;
/** Fewest digits (and look-alikes read as digits) in the word. */
const MIN_DIGITS = 5;
/** Most words read in one scan. */
const MAX_READS = 8;

const isDigitCode = (c: number): boolean => c >= 48 && c <= 57;
const isUpperCode = (c: number): boolean => c >= 65 && c <= 90;
const isWordCode = (c: number): boolean => isDigitCode(c) || isUpperCode(c) || (c >= 97 && c <= 122);

/**
 * May the word [start, end) be an id with letters of its own and look-alike digits, starting with
 * a capital (`ABl23456C`, `Xl234567L`, `XI234567L`, `Sl234567D`)? Its length; its second place a
 * letter, a digit or a look-alike and its third a digit or a look-alike; between its first and
 * last places only digits and look-alikes but for the letters an id holds before its digits (at
 * most MAX_ID_HEAD, lookalike-id-places.ts); a look-alike past its first place and two digits.
 * Session 17 (wave16/evade): session 16 wanted two capitals first, so an id with one letter before
 * its digits (the NIE's, the NRIC's) met by a look-alike stayed raw. Session 18 (wave17/evade): a
 * look-alike first too (a DNI's `ll345678Z`: its first place is a digit), and the scan's quiet-word
 * path lets a word of eight units or more through on a digit in its fourth or last-but-one place,
 * so two or three look-alikes after the id's letter (`Xll34567T`, `XlIO4567S`) reach this test.
 */
export function lookalikeIdMayStart(text: string, start: number, end: number): boolean {
  // Small (the scan's word dispatch inlines it): the length first, the rest in idShapeAt.
  return end - start >= MIN_LENGTH && end - start <= MAX_LENGTH && idShapeAt(text, start, end);
}

/** lookalikeIdMayStart past its length test. */
function idShapeAt(text: string, start: number, end: number): boolean {
  const first = text.charCodeAt(start);
  if (!isUpperCode(first) && lookalikeDigit(first) === 0) return false;
  const third = text.charCodeAt(start + 2);
  if (!isDigitCode(third) && lookalikeDigit(third) === 0) return false;
  let lookalike = false;
  let digits = 0;
  for (let k = start + 1; k < end - 1; k++) {
    const c = text.charCodeAt(k);
    if (isDigitCode(c)) digits++;
    else if (lookalikeDigit(c) !== 0) lookalike = true;
    else if (k - start >= MAX_ID_HEAD || !isUpperCode(c)) return false;
  }
  return lookalike && digits >= 2;
}

/** The word [start, end) read with its look-alikes as digits outside its first `head` and last `tail` places, or undefined (no other letters allowed there, one look-alike read at least). */
function readingOf(text: string, start: number, end: number, head: number, tail: number): string | undefined {
  let out = text.slice(start, start + head);
  let read = false;
  for (let k = start + head; k < end - tail; k++) {
    const c = text.charCodeAt(k);
    if (isDigitCode(c)) out += text.charAt(k);
    else {
      const digit = lookalikeDigit(c);
      if (digit === 0) return undefined;
      out += String.fromCharCode(digit);
      read = true;
    }
  }
  return read ? out + text.slice(end - tail, end) : undefined;
}

/** Does the word [start, end) have the shape this reading wants (length, digits and look-alikes)? */
function wordShape(text: string, start: number, end: number): boolean {
  if (end - start < MIN_LENGTH || end - start > MAX_LENGTH) return false;
  let digits = 0;
  let lookalikes = 0;
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (isDigitCode(c)) digits++;
    else if (lookalikeDigit(c) !== 0) lookalikes++;
  }
  return lookalikes > 0 && digits + lookalikes >= MIN_DIGITS && digits >= 2;
}

/** Emit the ids read at `seeds` (word starts or places in a word) with look-alike letters as digits outside the id's own letters. */
export function detectLookalikeIds(state: ScanState, seeds: readonly number[], scan: ReadingScanner): void {
  const text = state.text;
  const found: Detection[] = [];
  let readUpTo = -1;
  let reads = 0;
  for (const seed of seeds) {
    if (seed < readUpTo || reads >= MAX_READS) continue;
    let start = seed;
    while (start > 0 && isWordCode(text.charCodeAt(start - 1))) start--;
    let end = seed;
    while (end < text.length && isWordCode(text.charCodeAt(end))) end++;
    readUpTo = end;
    if (!wordShape(text, start, end)) continue;
    reads++;
    const from = Math.max(0, start - CONTEXT_BEFORE);
    const before = text.slice(from, start);
    const seen = new Set<string>();
    // The last place is kept as written: an id ends with its check letter or a digit, and a
    // number of digits ending in a look-alike is no id of digits (`NIF 71854089I`: the I is a letter).
    search: for (const head of ID_HEADS) {
      const reading = readingOf(text, start, end, head, 1);
      if (reading === undefined || seen.has(reading)) continue;
      seen.add(reading);
      for (const detection of scan(`${before}${reading} `)) {
        if (detection.confidence < 0.5 || detection.start !== start - from || detection.end !== end - from) continue;
        if (ID_CONTEXT[detection.type] === undefined || !hasValueWordBefore(text, detection.type, start)) continue;
        found.push({ type: detection.type, start, end, value: text.slice(start, end), confidence: Math.min(detection.confidence, 0.85), detector: 'builtin_regex' });
        break search;
      }
    }
  }
  joinFound(state, found);
}
