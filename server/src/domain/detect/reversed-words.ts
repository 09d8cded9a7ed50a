// Values and sentences written backwards (session 13, wave12/evade): "read backwards: 0211-50-870
// si NSS ym", "aws key K2LPM4ZXV7TRGE3QAIKA", "tellaw 7EE9…25x0". A model reverses them on request
// as surely as it reads them forwards.
//
// The scan's word loop tests the END of every word (two table reads for most words) for a value's
// word or a value's prefix written backwards: `NSS`, `drowssap`, `enohp`, `yek`, `tellaw` end with
// the reversed first letters of `ssn`, `password`, `phone`, `key`, `wallet`; `…QAIKA`, `…_phg`,
// `…-ks`, `…bxox`, `…x0`, `…sergtsop`, a base58 run ending in `1` or `3`, with those of `AKIA`,
// `ghp_`, `sk-`, `xoxb`, `0x`, `postgres`, a bitcoin address. Only at such a word is text read
// backwards, through the same built-in scan one level deep:
//
// - a value's word written backwards: the text before it (and a little after) is reversed whole
//   (the sentence read forwards: "my SSN is 078-05-1120"); a value found AFTER the word in that
//   reading (its context, as each detector asks for it) is kept;
// - a value's prefix written backwards: the blank-free run ending there is reversed, with the
//   forward text before it as context ("aws key AKIAQ3…"); a value found at the run's reversed
//   start (its prefix) is kept.
//
// A value so found carries `reading: 'reversed'` (types.ts): tokenization keys its token by the
// forward value and records the forward value in the entry's wholes, so revoking the value as
// written forwards erases the reversed spelling (a reversed SSN is another valid SSN: normalization
// alone cannot tell which one was meant); restore gives back the text as written. Prose never
// holds a value's word backwards, so prose is read as before.
import type { Detection } from '../types.js';
import type { ReadingScanner } from './reversed.js';
import type { ScanState } from './state.js';

/** Lower-case an ASCII letter code (anything else unchanged). */
function lower(code: number): number {
  return code >= 0x41 && code <= 0x5a ? code | 0x20 : code;
}

/**
 * Value words, matched as the forward reading of a word's last characters: a word that is
 * exactly one of the SHORT ones backwards (`NSS`, `yek`, `pi`), or ends with one of the LONG ones
 * backwards (`…enohp`: `phon`). Short words are whole words only: `ind` (dni) ends `kind`.
 */
const WORDS_SHORT = ['ssn', 'key', 'aws', 'dob', 'cpf', 'dni', 'mac', 'ip', 'db', 'pin', 'ruf', 'vat', 'nif'];
const WORDS_LONG = [
  'soci', 'pass', 'toke', 'card', 'cred', 'phon', 'call', 'mobi', 'iban', 'acco', 'emai', 'wall', 'send', 'addr', 'birt',
  'born', 'nino', 'numb', 'stri', 'slac', 'auth', 'bear', 'date', 'tele', 'appe', 'secr', 'serv', 'iden', 'lice', 'unte',
];
/** Value prefixes, read backwards at a word's end (the word ends the reversed value). */
const PREFIXES_LONG = ['akia', 'asia', 'ghp_', 'gho_', 'ghs_', 'ghu_', 'sk_', 'xox', 'eyj', 'post', 'http', 'mysq', 'mong', 'amqp'];
/** `sk-…`, `pk-…` keys: the reversed key ends in the word `ks`. */
const PREFIXES_SHORT = ['sk', 'pk', 'rk'];

const keyOf = (text: string): string => text.toLowerCase();
const isUpperCode = (code: number): boolean => code >= 65 && code <= 90;
const isDigitCode = (code: number): boolean => code >= 48 && code <= 57;

const SHORT_WORDS: ReadonlySet<string> = new Set(WORDS_SHORT.map(keyOf));
const SHORT_PREFIXES: ReadonlySet<string> = new Set(PREFIXES_SHORT.map(keyOf));
const LONG: ReadonlyMap<string, 'word' | 'prefix'> = new Map([
  ...WORDS_LONG.map((word): [string, 'word' | 'prefix'] => [word, 'word']),
  ...PREFIXES_LONG.map((prefix): [string, 'word' | 'prefix'] => [prefix, 'prefix']),
]);

/** Slot of a lower-cased code in the pair table: ASCII as itself, anything else in 127. */
const slot = (code: number): number => (code < 127 ? code : 127);
/**
 * The first two characters of every entry (the last two of a word, read backwards), as a
 * 128 x 128 table: most words fail here with one array read.
 */
const PAIRS = new Uint8Array(128 * 128);
for (const entry of [...WORDS_SHORT, ...WORDS_LONG, ...PREFIXES_LONG, ...PREFIXES_SHORT, '0x']) {
  PAIRS[(slot(entry.charCodeAt(0)) << 7) | slot(entry.charCodeAt(1))] = 1;
}

/** The bit of a word's third-last code (7 bits; or of the code before a two-character word) in END_THIRD. */
export const THIRD_BIT = new Int32Array(128);
for (let code = 0; code < 128; code++) {
  const folded = code | 0x20;
  if (folded >= 97 && folded <= 122) THIRD_BIT[code] = 1 << (folded - 97);
  else if (code === 95) THIRD_BIT[code] = 1 << 26; // _
  else if (code >= 48 && code <= 57) THIRD_BIT[code] = 1 << 27;
  else THIRD_BIT[code] = 1 << 28; // no word character: a two-character word (or `-ks`)
}

/**
 * For a word's last two codes (each `| 0x20` and 7 bits, as the scan reads them): the third-last
 * codes an entry allows, as THIRD_BIT bits. The scan tests every word ending in a small letter
 * against it inline (no call): common endings (`es`, `er`, `th`, `in`) pass the pair but fail the
 * third code unless an entry asks for it. A word ending in a capital (a reversed IBAN, `NSS`) or in
 * a digit and 26 characters long or more (a reversed bitcoin or `0x` address) goes to
 * pushReversedWord without it.
 */
export const END_THIRD = new Int32Array(128 * 128);
for (const entry of [...WORDS_SHORT, ...WORDS_LONG, ...PREFIXES_LONG, ...PREFIXES_SHORT]) {
  const pair = (((entry.charCodeAt(0) | 0x20) & 127) << 7) | ((entry.charCodeAt(1) | 0x20) & 127);
  END_THIRD[pair]! |= entry.length === 2 ? 1 << 28 : THIRD_BIT[entry.charCodeAt(2) & 127]!;
}

/** What a word ending backwards may be: a value's word, a value's prefix, or nothing (0). */
export const REVERSED_WORD = 1;
export const REVERSED_PREFIX = 2;

const isBase58 = (code: number): boolean =>
  (code >= 49 && code <= 57) || (code >= 65 && code <= 90 && code !== 73 && code !== 79) || (code >= 97 && code <= 122 && code !== 108);

/**
 * Does the word [start, end) (ASCII word characters) end with a value's word or prefix written
 * backwards? REVERSED_WORD, REVERSED_PREFIX or 0. Called by the scan for every word: two reads of
 * the pair table reject most.
 */
export function reversedWordAt(text: string, start: number, end: number): number {
  const length = end - start;
  if (length < 2) return 0;
  const a = lower(text.charCodeAt(end - 1));
  const b = lower(text.charCodeAt(end - 2));
  if (PAIRS[(slot(a) << 7) | slot(b)] !== 1) return 0;
  // `0x…` wallet: 40 hex digits, reversed into a word ending in `x0`.
  if (a === 48 && b === 120) return length >= 40 ? REVERSED_PREFIX : 0;
  let read = String.fromCharCode(a, b);
  if (length === 2) return SHORT_WORDS.has(read) ? REVERSED_WORD : SHORT_PREFIXES.has(read) && text.charCodeAt(start - 1) === 45 ? REVERSED_PREFIX : 0;
  read += String.fromCharCode(lower(text.charCodeAt(end - 3)));
  if (length === 3) {
    if (SHORT_WORDS.has(read)) return REVERSED_WORD;
    return LONG.get(read) === 'prefix' ? REVERSED_PREFIX : 0;
  }
  const three = LONG.get(read);
  if (three === 'prefix') return length >= 12 || text.charCodeAt(start - 1) === 45 ? REVERSED_PREFIX : 0;
  const four = LONG.get(read + String.fromCharCode(lower(text.charCodeAt(end - 4))));
  if (four === 'word') return REVERSED_WORD;
  if (four === 'prefix') return length >= 8 ? REVERSED_PREFIX : 0;
  return 0;
}

/** A bitcoin address written backwards: 26 to 35 base58 characters ending in `1` or `3`. */
export function reversedBase58At(text: string, start: number, end: number): boolean {
  const length = end - start;
  if (length < 26 || length > 35) return false;
  const last = text.charCodeAt(end - 1);
  if (last !== 49 && last !== 51) return false;
  for (let k = start; k < end; k++) if (!isBase58(text.charCodeAt(k))) return false;
  return true;
}


/**
 * An IBAN written backwards: a word ending in two digits and two capitals (`…98ED`, the country
 * code and check digits reversed). Its groups before it are read with it (readRun); the IBAN's
 * mod-97 check decides, which a reversed IBAN fails and its forward form passes.
 */
export function reversedIbanAt(text: string, start: number, end: number): boolean {
  return end - start >= 4 && isUpperCode(text.charCodeAt(end - 1)) && isUpperCode(text.charCodeAt(end - 2)) && isDigitCode(text.charCodeAt(end - 3)) && isDigitCode(text.charCodeAt(end - 4));
}

/** Most groups of four capitals or digits a reversed run takes in before its word (an IBAN has eight). */
const MAX_GROUPS = 9;

/**
 * Start of the blank-free run ending at `start` (not past a quote), and of up to MAX_GROUPS groups
 * of one to four capitals or digits before it, each one space apart (`00 0310 2350 … 98ED`).
 */
function runStartAt(text: string, start: number): number {
  let runStart = start;
  while (runStart > 0 && !isBlank(text.charCodeAt(runStart - 1)) && text.charCodeAt(runStart - 1) !== 34) runStart--;
  for (let groups = 0; groups < MAX_GROUPS && runStart >= 2 && text.charCodeAt(runStart - 1) === 32; groups++) {
    let k = runStart - 1;
    while (k > 0 && runStart - 1 - k < 5 && (isUpperCode(text.charCodeAt(k - 1)) || isDigitCode(text.charCodeAt(k - 1)))) k--;
    const length = runStart - 1 - k;
    if (length === 0 || length > 4 || (k > 0 && !isBlank(text.charCodeAt(k - 1)))) break;
    runStart = k;
  }
  return runStart;
}

/** Record the word [start, end) in `into` (start, end, kind) if it ends with a value's word or prefix written backwards. */
export function pushReversedWord(into: number[], text: string, start: number, end: number): void {
  const kind = reversedWordAt(text, start, end) || ((end - start >= 26 && reversedBase58At(text, start, end)) || reversedIbanAt(text, start, end) ? REVERSED_PREFIX : 0);
  if (kind !== 0) into.push(start, end, kind);
}

/** Forward text before a reversed value's word that is read with it (the value and its sentence). */
const SENTENCE_BEFORE = 160;
/** Text after the word that is read with it (the reversed sentence's start: "ym", "si"). */
const SENTENCE_AFTER = 32;
/** How far after the word (in the reading) a value may start. */
const VALUE_DISTANCE = 64;
/** Forward text before a reversed value read with it as its context. */
const CONTEXT_BEFORE = 64;
/** Most readings in one scan (each a scan of ~200 characters). */
const MAX_READINGS = 32;

/** `text` written backwards, code point by code point (a surrogate pair stays a pair). */
export function reverseText(text: string): string {
  let out = '';
  for (let k = text.length - 1; k >= 0; k--) {
    const code = text.charCodeAt(k);
    if (code >= 0xdc00 && code <= 0xdfff && k > 0) {
      const high = text.charCodeAt(k - 1);
      if (high >= 0xd800 && high <= 0xdbff) {
        out += text.charAt(k - 1) + text.charAt(k);
        k--;
        continue;
      }
    }
    out += text.charAt(k);
  }
  return out;
}

const isBlank = (code: number): boolean => code === 32 || code === 9 || code === 10 || code === 13 || code === 0xa0;

/**
 * Read the text backwards at `triggers` (word start, word end, kind triples from the scan) and emit
 * each value the reading finds (see the header), marked `reading: 'reversed'`. A value found
 * forwards inside the same span gives way to it (its span is the reversed value's).
 */
export function detectReversedReadings(state: ScanState, triggers: readonly number[], scan: ReadingScanner): void {
  const text = state.text;
  const n = text.length;
  const found: Detection[] = [];
  let covered = -1;
  for (let k = 0; k + 2 < triggers.length && k < MAX_READINGS * 3; k += 3) {
    const start = triggers[k]!;
    const end = triggers[k + 1]!;
    if (start < covered) continue;
    if (triggers[k + 2] === REVERSED_WORD) {
      const from = Math.max(0, start - SENTENCE_BEFORE);
      let to = end;
      while (to < n && to - end < SENTENCE_AFTER && text.charCodeAt(to) !== 10) to++;
      const reading = reverseText(text.slice(from, to));
      const wordAt = to - start; // the word's end in the reading
      // The word's value is the first one after it in the reading (a value further on has its own word, or none).
      let first: Detection | undefined;
      for (const detection of scan(`${reading} `)) {
        if (detection.confidence < 0.5 || detection.start < wordAt || detection.start - wordAt > VALUE_DISTANCE || detection.end > reading.length) continue;
        if (first === undefined || detection.start < first.start || (detection.start === first.start && detection.end > first.end)) first = detection;
      }
      if (first !== undefined) {
        found.push(mapped(state, first, to - first.end, to - first.start));
        covered = Math.max(covered, to - first.start);
      }
    } else {
      const runStart = runStartAt(text, start);
      const prefix = text.slice(Math.max(0, runStart - CONTEXT_BEFORE), runStart);
      const run = reverseText(text.slice(runStart, end));
      for (const detection of scan(`${prefix}${run} `)) {
        if (detection.confidence < 0.5 || detection.start !== prefix.length || detection.end > prefix.length + run.length) continue;
        const length = detection.end - detection.start;
        found.push(mapped(state, detection, end - length, end));
        covered = Math.max(covered, end);
        break;
      }
    }
  }
  if (found.length === 0) return;
  // A value found forwards inside a reversed value's span is that value misread: the reversed one stands.
  const unique = found.filter((detection, index) => found.findIndex((other) => other.start === detection.start && other.end === detection.end) === index);
  const spans = unique.map((detection) => [detection.start, detection.end] as const);
  const kept = state.out.filter((detection) => !spans.some(([from, to]) => detection.start >= from && detection.end <= to));
  state.out.length = 0;
  state.out.push(...kept, ...unique);
}

function mapped(state: ScanState, detection: Detection, start: number, end: number): Detection {
  return {
    type: detection.type,
    start,
    end,
    value: state.text.slice(start, end),
    confidence: Math.min(detection.confidence, 0.85),
    detector: 'builtin_regex',
    reading: 'reversed',
  };
}
