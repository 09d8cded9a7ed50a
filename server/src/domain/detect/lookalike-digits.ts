// Numbers with digits written as look-alike letters (`415-555-O1OO`, `4111 1lll 1111 1111`,
// `O78-O5-1120`): read with the letters as digits (domain/text/lookalike.ts), accepted only where
// a detector finds a valid value in the reading that takes at least one such letter. Words of
// letters and digits (`O2`, `B2B`, `IOI`, `10x`, versions, hex ids, hashes, code) are never read:
// their tokens hold other letters, or their chain is too short or not mostly digits, or the
// reading is no valid value.
//
// The scan's loop seeds this pass at digit words that hold such a letter or have one beside them
// (past a separator) and at words of such a letter and a digit (`O78`); each seed's chain is read
// once (seeds inside a chain already read are skipped), and the reading is scanned again with a
// little text before it (the context words the detectors look for) by the same built-in scan,
// one level deep: the pass costs at most about one more scan of the chains, which ordinary text
// hardly has.
import type { Detection } from '../types.js';
import { isNumberSeparator, lookalikeDigit, lookalikeRunAt, withLookalikeDigits } from '../text/lookalike.js';
import { contextWords, hasWordBefore, PHONE_CONTEXT, type ContextWords } from './context.js';
import { emit, type ScanState } from './state.js';
import { VALUE_WORD_DISTANCE, valueWordsFor } from './value-words.js';

/** The scanner a reading goes through (scanBuiltin without this pass). */
export type ReadingScanner = (text: string) => Detection[];

/** Text before a run scanned with it: context words (the detectors look up to 60 back). */
const CONTEXT_BEFORE = 64;
/** Text after a run scanned with it (an end boundary the detectors check). */
const CONTEXT_AFTER = 2;

/**
 * Types a reading may give: numbers a check (Luhn and issuer, SSN ranges, an IBAN's mod-97
 * check digits) or a phone word validates. Not the national ids whose own letters look like digits (`71854089I`: a DNI-shaped
 * number whose letter is no DNI letter is no NIF either), dates, IP or MAC addresses, versions.
 */
const READ_TYPES: ReadonlySet<string> = new Set(['credit_card', 'us_ssn', 'us_itin', 'phone', 'iban']);

/** The words of READ_TYPES (value-words.ts: SSN/ITIN, phone, card, IBAN) in one list: one regex test. */
const OPENING_WORDS: ContextWords = contextWords([...new Set(['us_ssn', 'phone', 'credit_card', 'iban'].flatMap((type) => valueWordsFor(type)!.flatMap((context) => context.words)))]);

/**
 * May a value of READ_TYPES open with the one-letter look-alike word at `start` (`call O 20 7946
 * 0958`)? The word of one of those types stands within VALUE_WORD_DISTANCE before it (one regex
 * over the four lists: a test per list cost ~5 us per call). Session 17 (wave16/evade): asked only
 * for a one-letter look-alike word right before a chain's first token, so a word alone before a
 * number (`billing o 4111 …`) costs one test and no reading.
 */
function valueMayOpenAt(text: string, start: number): boolean {
  return hasWordBefore(text, start, VALUE_WORD_DISTANCE, OPENING_WORDS);
}

/** True when text[start, end) is only separators (a `+` or `(` a value starts with). */
function onlySeparators(text: string, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (!isNumberSeparator(text.charCodeAt(k))) return false;
  return true;
}

/** True when text[start, end) holds a look-alike letter. */
export function holdsLookalikeLetter(text: string, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (lookalikeDigit(text.charCodeAt(k)) !== 0) return true;
  return false;
}

/** Emit the values found by reading look-alike letters as digits in the chains at `seeds` (ascending). */
export function detectLookalikeDigits(state: ScanState, seeds: readonly number[], scan: ReadingScanner): void {
  const text = state.text;
  let readUpTo = -1;
  const opensAt = (start: number): boolean => valueMayOpenAt(text, start);
  for (const seed of seeds) {
    if (seed < readUpTo) continue;
    const run = lookalikeRunAt(text, seed, false, opensAt);
    readUpTo = Math.max(readUpTo, run.chainEnd);
    if (run.start < 0) continue;
    const from = Math.max(0, run.start - CONTEXT_BEFORE);
    const to = Math.min(text.length, run.end + CONTEXT_AFTER);
    const reading = withLookalikeDigits(text.slice(from, to), run.from - from, run.end - from);
    for (const found of scan(reading)) {
      if (found.confidence < 0.5 || !READ_TYPES.has(found.type)) continue;
      const start = found.start + from;
      const end = found.end + from;
      if (start < from || end > to || !holdsLookalikeLetter(text, Math.max(start, run.from), end)) continue;
      if ((start < run.start && !onlySeparators(text, start, run.start)) || (end > run.end && !onlySeparators(text, run.end, end))) continue;
      // A phone read so needs its word: without one, a number with letters is an id.
      if (found.type === 'phone' && !hasWordBefore(text, start, 40, PHONE_CONTEXT)) continue;
      emit(state, found.type, start, end, found.confidence);
    }
  }
}

/** True when a word [start, end) starting with a digit holds a look-alike letter or has one beside it, past up to three separators. */
export function digitWordNearLookalike(text: string, start: number, end: number): boolean {
  if (holdsLookalikeLetter(text, start, end)) return true;
  // A letter beside it counts when the character past the letter may go on a token (`OlOO`,
  // `O1`), not in a word of prose (`1111 or`, `2024 In`).
  let after = end;
  while (after < text.length && after - end < 3 && isNumberSeparator(text.charCodeAt(after))) after++;
  if (after > end && lookalikeDigit(text.charCodeAt(after)) !== 0 && mayGoOn(text.charCodeAt(after + 1))) return true;
  let before = start;
  while (before > 0 && start - before < 3 && isNumberSeparator(text.charCodeAt(before - 1))) before--;
  return before < start && before > 0 && lookalikeDigit(text.charCodeAt(before - 1)) !== 0 && mayGoOn(text.charCodeAt(before - 2));
}

/** A digit, a look-alike letter, or no word character (NaN past the text). */
function mayGoOn(code: number): boolean {
  return !(code >= 0) || (code >= 48 && code <= 57) || lookalikeDigit(code) !== 0 || !isWordChar(code);
}

function isWordChar(code: number): boolean {
  return (code >= 48 && code <= 57) || ((code | 0x20) >= 97 && (code | 0x20) <= 122) || code === 95;
}

