// Numbers spelled out digit by digit ("my card is four one one one one one one one ...", "call me
// on four one five, five five five, zero one double zero", "meine Nummer ist null eins fünf ..."):
// what speech-to-text writes for a caller who reads a number out, and what a person types to get
// a number past a filter. The digits of every grouped form are what the other detectors see; a
// run of digit words hides them from all of them.
//
// The scan's word loop hands over the words that are digit words (a bit table of three-letter
// prefixes first, so an ordinary word costs three reads); after the loop, runs of at
// least MIN_DIGITS digits are built from consecutive digit words, with digit groups written as
// numerals allowed inside and at either end ("four one five 555 0100"), separated by spaces,
// commas, dots or hyphens. `double`/`triple` repeat the next digit ("double zero" = 00; British
// and Indian usage). A run's digits are then read as the values they can be: a card (13-19 digits
// passing the issuer and Luhn checks), an SSN after an SSN word, a phone number (a North American
// number by its numbering plan, any other length of 7-15 digits after a phone word). Linear: every
// word is handed over at most once and every gap is bounded.
import { luhnValid } from './checksums.js';
import { codeAt, isAlnumCode, isDigit } from './chars.js';
import { hasWordBefore, PHONE_CONTEXT, SSN_CONTEXT } from './context.js';
import { emit, type ScanState } from './state.js';

/** Fewest digits read as a value (a local phone number). */
const MIN_DIGITS = 7;
/** Most digits of a run (a 19-digit card); a longer run is no value. */
const MAX_DIGITS = 19;
/** Longest gap between two digit words: separators and digit groups. */
const MAX_GAP = 24;

/** Punctuation that ends a clause inside a run ("92. Quatre", "92, four"). */
const CLAUSE_BREAK = /[.,;:!?]\s/u;

const DOUBLE = 10;
const TRIPLE = 11;

/** Digit words (lower case) of the catalog's main languages. */
const DIGIT_WORDS: ReadonlyMap<string, number> = new Map([
  // English ("oh" for zero in phone numbers)
  ['zero', 0], ['oh', 0], ['one', 1], ['two', 2], ['three', 3], ['four', 4], ['five', 5], ['six', 6], ['seven', 7], ['eight', 8], ['nine', 9],
  ['double', DOUBLE], ['triple', TRIPLE],
  // German
  ['null', 0], ['eins', 1], ['zwei', 2], ['zwo', 2], ['drei', 3], ['vier', 4], ['fünf', 5], ['sechs', 6], ['sieben', 7], ['acht', 8], ['neun', 9],
  // French
  ['zéro', 0], ['un', 1], ['deux', 2], ['trois', 3], ['quatre', 4], ['cinq', 5], ['sept', 7], ['huit', 8], ['neuf', 9],
  // Spanish, Italian, Portuguese
  ['cero', 0], ['uno', 1], ['dos', 2], ['tres', 3], ['cuatro', 4], ['cinco', 5], ['seis', 6], ['siete', 7], ['ocho', 8], ['nueve', 9],
  ['due', 2], ['tre', 3], ['quattro', 4], ['sei', 6], ['sette', 7], ['otto', 8], ['nove', 9],
  ['um', 1], ['dois', 2], ['três', 3], ['quatro', 4], ['oito', 8],
]);

const LONGEST_WORD = 7;


/**
 * The scan's gate, read inline without a call: bit `spelledGate(first, second, third)` of
 * SPELLED_GATE is set when a digit word may start with those three code units (each folded with
 * `| 0x20` and `& 127`, which lower-cases ASCII letters; other characters may collide, which only
 * lets a word through to digitWord). A two-letter digit word (`oh`, `un`) sets every third unit.
 * "the", "that" and "several" fail here: three reads of the text and one of a 256 KB bit table.
 */
export const SPELLED_GATE = new Uint32Array(1 << 16);
export const spelledGate = (first: number, second: number, third: number): number =>
  (((first | 0x20) & 127) << 14) | (((second | 0x20) & 127) << 7) | ((third | 0x20) & 127);
for (const word of DIGIT_WORDS.keys()) {
  const thirds = word.length > 2 ? [word.charCodeAt(2)] : Array.from({ length: 128 }, (_, k) => k);
  for (const third of thirds) {
    const bit = spelledGate(word.charCodeAt(0), word.charCodeAt(1), third);
    SPELLED_GATE[bit >>> 5] = SPELLED_GATE[bit >>> 5]! | (1 << (bit & 31));
  }
}

/** The first two units of the digit words as the gate folds them, as a 128 x 128 table. */
const SPELLED_PAIRS = new Uint8Array(128 * 128);
const foldUnit = (unit: number): number => (unit | 0x20) & 127;
for (const word of DIGIT_WORDS.keys()) SPELLED_PAIRS[(foldUnit(word.charCodeAt(0)) << 7) | foldUnit(word.charCodeAt(1))] = 1;

/**
 * May a digit word start with the code units `c`, `second` (127 stands for any unit from 127 up,
 * or none)? The gate's first two units (SPELLED_GATE with any third): a superset, for the scan's
 * pair table.
 */
export function digitWordMayStartWith(c: number, second: number): boolean {
  const row = foldUnit(c) << 7;
  if (second !== 127) return SPELLED_PAIRS[row | foldUnit(second)] === 1;
  return SPELLED_PAIRS.subarray(row, row + 128).includes(1);
}

/** The value of the digit word [start, end) (0-9, DOUBLE, TRIPLE), or -1 (after the gate). */
export function digitWord(text: string, start: number, end: number): number {
  const length = end - start;
  if (length < 2 || length > LONGEST_WORD) return -1;
  return DIGIT_WORDS.get(text.slice(start, end).toLowerCase()) ?? -1;
}

function isGapSeparator(c: number): boolean {
  return c === 32 || c === 44 || c === 46 || c === 45 || c === 9 || c === 0xa0;
}

/**
 * Read the gap [from, to) between two digit words: separators and digit groups only. Appends the
 * groups' digits to `digits`; false when the gap holds anything else or is too long.
 */
function readGap(text: string, from: number, to: number, digits: number[]): boolean {
  if (to - from > MAX_GAP || to <= from) return false;
  let sawSeparator = false;
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    if (isDigit(c)) digits.push(c - 48);
    else if (isGapSeparator(c)) sawSeparator = true;
    else {
      // A dash read out ("zero seven eight dash zero five dash …") separates like a written one.
      let end = k;
      while (end < to && !isGapSeparator(text.charCodeAt(end)) && !isDigit(text.charCodeAt(end))) end++;
      if (!DASH_WORDS.has(text.slice(k, end).toLowerCase())) return false;
      sawSeparator = true;
      k = end - 1;
    }
  }
  return sawSeparator;
}

/** The words for a dash read out, in the languages of DIGIT_WORDS. */
const DASH_WORDS: ReadonlySet<string> = new Set([
  'dash', 'hyphen', 'bindestrich', 'strich', 'tiret', 'guion', 'guión', 'trattino', 'hífen', 'traço',
]);

/** Digit groups (with separators) right before `start`: the new start, their digits prepended. */
function groupsBefore(text: string, start: number, digits: number[]): number {
  let k = start;
  let first = start;
  while (k > 0 && start - k < MAX_GAP) {
    const c = text.charCodeAt(k - 1);
    if (!isDigit(c) && !isGapSeparator(c)) break;
    k--;
    if (isDigit(c)) first = k;
  }
  if (first === start || isAlnumCode(codeAt(text, first - 1))) return start;
  const before: number[] = [];
  for (let j = first; j < start; j++) if (isDigit(text.charCodeAt(j))) before.push(text.charCodeAt(j) - 48);
  digits.unshift(...before);
  return first;
}

/** Digit groups (with separators) right after `end`: the new end, their digits appended. */
function groupsAfter(text: string, end: number, digits: number[]): number {
  let k = end;
  let last = end;
  while (k < text.length && k - end < MAX_GAP) {
    const c = text.charCodeAt(k);
    if (!isDigit(c) && !isGapSeparator(c)) break;
    k++;
    if (isDigit(c)) last = k;
  }
  if (last === end || isAlnumCode(codeAt(text, last))) return end;
  for (let j = end; j < last; j++) if (isDigit(text.charCodeAt(j))) digits.push(text.charCodeAt(j) - 48);
  return last;
}

/** Expand double/triple; undefined when one is not followed by a digit. */
function expand(values: readonly number[]): number[] | undefined {
  const out: number[] = [];
  for (let k = 0; k < values.length; k++) {
    const value = values[k]!;
    if (value === DOUBLE || value === TRIPLE) {
      const next = values[k + 1];
      if (next === undefined || next > 9) return undefined;
      out.push(next);
      if (value === TRIPLE) out.push(next);
      continue;
    }
    out.push(value);
  }
  return out;
}

function cardIssuer(digits: readonly number[]): boolean {
  const first = digits[0]!;
  return first >= 2 && first <= 6;
}

/**
 * Read one run's digits as a value and emit it over [start, end). `fewWords`: the run has fewer
 * than three digit words ("four 1 1 1 1111 …", numerals with a word mixed in): then only a card
 * or a value its context word names counts, not a number by its plan alone.
 */
function classify(state: ScanState, digits: readonly number[], start: number, end: number, fewWords = false): void {
  const n = digits.length;
  if (n < MIN_DIGITS || n > MAX_DIGITS) return;
  const text = state.text;
  const string = digits.join('');
  if (n >= 13 && cardIssuer(digits) && luhnValid(string, 0, n)) {
    emit(state, 'credit_card', start, end, 0.9);
    return;
  }
  if (n === 9 && hasWordBefore(text, start, 60, SSN_CONTEXT)) {
    const area = Number(string.slice(0, 3));
    if (area !== 0 && area !== 666 && area < 900 && string.slice(3, 5) !== '00' && string.slice(5) !== '0000') {
      emit(state, 'us_ssn', start, end, 0.85);
      return;
    }
  }
  const phoneWord = hasWordBefore(text, start, 60, PHONE_CONTEXT);
  // North American numbers by their plan: NXX area code and exchange (with or without the 1).
  const national = n === 11 && digits[0] === 1 ? digits.slice(1) : digits;
  if (!fewWords && national.length === 10 && national[0]! >= 2 && national[3]! >= 2) {
    emit(state, 'phone', start, end, phoneWord ? 0.9 : 0.75);
    return;
  }
  if (phoneWord && n <= 15) emit(state, 'phone', start, end, 0.8);
}

/**
 * Runs of digit words (`words`: start/end pairs, ascending, from the scan) read as numbers.
 * `values` holds each word's digitWord value.
 */
export function detectSpelledDigits(state: ScanState, words: readonly number[], values: readonly number[]): void {
  const count = values.length;
  if (count === 0) return;
  const text = state.text;
  let k = 0;
  while (k < count) {
    // One run: words k..m-1 with gaps of separators and digit groups between them.
    const raw: number[] = [values[k]!];
    let m = k + 1;
    // The whole run is walked (linear: each word once); past MAX_DIGITS it is no value at all.
    const gapDigits: number[] = [];
    while (m < count) {
      gapDigits.length = 0;
      if (!readGap(text, words[2 * (m - 1) + 1]!, words[2 * m]!, gapDigits)) break;
      if (raw.length <= MAX_DIGITS + 2) raw.push(...gapDigits, values[m]!);
      else raw.length = MAX_DIGITS + 3; // marks the run too long
      m++;
    }
    const wordsInRun = m - k;
    if (raw.length <= MAX_DIGITS + 2) {
      const digits = expand(raw);
      if (digits !== undefined) {
        const start = groupsBefore(text, words[2 * k]!, digits);
        const end = groupsAfter(text, words[2 * (m - 1) + 1]!, digits);
        // A run inside a word or a longer number is not one.
        // Fewer than three words need numerals around them (a digit word alone is prose) and
        // one clause: "… +33 2 21 06 67 92. Quatre …" is a number and the next sentence.
        const numerals = digits.length - wordsInRun;
        const fewWordsOk = numerals >= 4 && !CLAUSE_BREAK.test(text.slice(start, end));
        if ((wordsInRun >= 3 || fewWordsOk) && !isAlnumCode(codeAt(text, start - 1)) && !isAlnumCode(codeAt(text, end))) {
          classify(state, digits, start, end, wordsInRun < 3);
        }
      }
    }
    k = m;
  }
}

/**
 * Chinese and Japanese numerals read one digit at a time ("一三八一二三四五六七八", 幺 for one
 * as phone numbers are read out in Mandarin): runs of at least MIN_DIGITS of them, with ASCII
 * digits and single separators mixed in, read as the values they can be (classify). Counting
 * (十, 百) and 两 are numbers, not digits, and end a run. Searched only in text with CJK.
 */
const CJK_DIGITS: ReadonlyMap<string, number> = new Map([
  ['〇', 0], ['零', 0], ['一', 1], ['幺', 1], ['二', 2], ['三', 3], ['四', 4], ['五', 5], ['六', 6], ['七', 7], ['八', 8], ['九', 9],
]);
const CJK_RUN = /[〇零一幺二三四五六七八九0-9](?:[ \-、，,]?[〇零一幺二三四五六七八九0-9]){6,}/gu;
const CJK_NUMERAL = /[〇零一幺二三四五六七八九]/u;

export function detectCjkDigits(state: ScanState): void {
  const text = state.text;
  CJK_RUN.lastIndex = 0;
  for (let match = CJK_RUN.exec(text); match !== null; match = CJK_RUN.exec(text)) {
    const run = match[0];
    // ASCII digits alone are the numeric detectors' business.
    if (!CJK_NUMERAL.test(run)) continue;
    const digits: number[] = [];
    for (const ch of run) {
      const value = CJK_DIGITS.get(ch) ?? (ch >= '0' && ch <= '9' ? ch.charCodeAt(0) - 48 : -1);
      if (value >= 0 && digits.push(value) > MAX_DIGITS) break; // too long for any value
    }
    const end = match.index + run.length;
    if (digits.length > MAX_DIGITS || isAsciiDigitCode(codeAt(text, match.index - 1)) || isAsciiDigitCode(codeAt(text, end))) continue;
    classify(state, digits, match.index, end);
  }
}

function isAsciiDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}

const TOKEN = /\p{L}+|\p{N}+/gu;

/**
 * The digits of a value spelled out (`four one five, five five five, zero one double zero` ->
 * `4155550100`) for normalization: the spelled and the written number are one value (one token,
 * erased together). Undefined unless the value holds a digit word and nothing but digit words,
 * numerals and separators (a run of fewer than three words was detected only among numerals).
 */
export function unspellDigits(value: string): string | undefined {
  const values: number[] = [];
  let words = 0;
  if (CJK_NUMERAL.test(value)) {
    let digits = '';
    for (const ch of value) {
      const digit = CJK_DIGITS.get(ch);
      if (digit !== undefined) digits += String(digit);
      else if (ch >= '0' && ch <= '9') digits += ch;
      else if (!/[ \-、，,]/u.test(ch)) return undefined;
    }
    return digits;
  }
  for (const match of value.matchAll(TOKEN)) {
    const token = match[0];
    if (/^\p{N}+$/u.test(token)) {
      if (!/^[0-9]+$/.test(token)) return undefined;
      for (let k = 0; k < token.length; k++) values.push(token.charCodeAt(k) - 48);
      continue;
    }
    if (DASH_WORDS.has(token.toLowerCase())) continue;
    const digit = DIGIT_WORDS.get(token.toLowerCase());
    if (digit === undefined) return undefined;
    values.push(digit);
    words++;
  }
  // Fewer than three words were detected only among numerals (detectSpelledDigits).
  if (words === 0 || (words < 3 && values.length - words < 4)) return undefined;
  return expand(values)?.join('');
}
