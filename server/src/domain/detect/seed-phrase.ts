// Crypto wallet seed phrases (BIP39 mnemonics): 12, 15, 18, 21 or 24 words of the 2048-word
// English list, the last word carrying the first n/3 bits of the SHA-256 of the entropy. Whoever
// holds the words holds the wallet, so a phrase is a `private_key` (the wallet's private seed
// written in words), not a `crypto_wallet` (an address, public by design).
//
// Read after the scan's word loop without touching it: ordinary prose must not pay for a class
// that almost never occurs. A phrase spans tens of characters (twelve words or more), so the text
// is probed only every STRIDE characters: one word per probe, looked up in a table keyed by its
// first four letters (which are unique in the list) and its length, and only a word of the list
// with another around it opens a read of the run. A run is words of the list separated by
// spaces, line breaks, commas, quotes or list numbering (`1. abandon 2. ability`, one per line,
// `abandon, ability`), in any case; sentence punctuation after a word (`about. Keep`) ends it; a
// dash alone joins words (`border-left-color`). The whole run is the value, or nothing: its
// length must be one of BIP39's and its checksum must hold, up to two words of the list typed
// before or after it (`… zoo please help`); a run of more than 26 words is none. A probe reads
// at most a dozen words around it, a run is read to its end once and the next probe starts after
// it, so the pass is linear (`abandon ` × 100K).
import { hash } from 'node:crypto';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { isDigit, isWordCode } from './chars.js';
import { emit, type ScanState } from './state.js';

const MIN_WORDS = 12;
const MAX_WORDS = 24;
/** Shortest and longest words of the list. */
const MIN_LETTERS = 3;
const MAX_LETTERS = 8;
/** Longest gap between two words: `,\n12. ` and the like. */
const MAX_GAP = 12;
/** The shortest run: twelve three-letter words and eleven one-character gaps. */
const MIN_SPAN = MIN_WORDS * MIN_LETTERS + (MIN_WORDS - 1);
/**
 * Distance between probes: every run spanning STRIDE characters or more holds a probe. A phrase
 * spans at least MIN_SPAN (47) characters, but a generated one (words drawn uniformly) spans less
 * than 55 with probability 3e-8 (12 words, single spaces; word lengths 3-8 as in the list), and 55
 * probes 15% fewer times than 47 on every text.
 */
const STRIDE = 55;

/**
 * The text's code units (scan.ts codeUnits): the probe reads them there, a typed array's indexed
 * load being cheaper than charCodeAt of a string. Past either end a read gives undefined where
 * charCodeAt gives NaN; the probe only masks, subtracts and compares such a unit, where both are
 * NaN (letter() is false for both), so it reads the same. Reading a run (wordIndex, readRun) keeps
 * the string.
 */
type Units = Readonly<Uint16Array>;

/** An ASCII letter: one subtraction and one unsigned compare (NaN past the text is none). */
function letter(c: number): boolean {
  return ((c | 0x20) - 97) >>> 0 < 26;
}

/** Key of a word's first four letters (lower case; a three-letter word pads with 0): 0 to 27^4 - 1. */
function keyOf(text: string, start: number, end: number): number {
  const a = (text.charCodeAt(start) | 0x20) - 96;
  const b = (text.charCodeAt(start + 1) | 0x20) - 96;
  const c = (text.charCodeAt(start + 2) | 0x20) - 96;
  const d = end - start > 3 ? (text.charCodeAt(start + 3) | 0x20) - 96 : 0;
  return ((a * 27 + b) * 27 + c) * 27 + d;
}

/** Index in the list by the key of its first four letters (read only for a run's words). */
const BY_PREFIX: ReadonlyMap<number, number> = (() => {
  const table = new Map<number, number>();
  wordlist.forEach((word, index) => table.set(keyOf(word, 0, word.length), index));
  if (table.size !== wordlist.length) throw new Error('BIP39 list: first four letters not unique');
  return table;
})();

/**
 * The length of the list word by the key of its first four letters: an open-addressing table of
 * 4096 slots (20 KB, stays in cache; a direct table over all 27^4 keys would miss it on every
 * probe), keys and lengths side by side.
 */
const SLOTS = 4096;
const SLOT_KEYS = new Int32Array(SLOTS).fill(-1);
const SLOT_LENGTHS = new Uint8Array(SLOTS);

function slotOf(key: number): number {
  return Math.imul(key, 0x9e3779b1) >>> 20;
}

for (const word of wordlist) {
  const key = keyOf(word, 0, word.length);
  let slot = slotOf(key);
  while (SLOT_KEYS[slot] !== -1) slot = (slot + 1) & (SLOTS - 1);
  SLOT_KEYS[slot] = key;
  SLOT_LENGTHS[slot] = word.length;
}

/** The length of the list word whose key is `key`, or 0. */
function lengthByKey(key: number): number {
  for (let slot = slotOf(key); ; slot = (slot + 1) & (SLOTS - 1)) {
    const found = SLOT_KEYS[slot]!;
    if (found === key) return SLOT_LENGTHS[slot]!;
    if (found === -1) return 0;
  }
}

/** The list index of the ASCII letters text[start, end) (any case), or -1. */
function wordIndex(text: string, start: number, end: number): number {
  const length = end - start;
  if (length < MIN_LETTERS || length > MAX_LETTERS) return -1;
  const index = BY_PREFIX.get(keyOf(text, start, end));
  if (index === undefined) return -1;
  const word = wordlist[index]!;
  if (word.length !== length) return -1;
  for (let k = 4; k < length; k++) if ((text.charCodeAt(start + k) | 0x20) !== word.charCodeAt(k)) return -1;
  return index;
}

/** Characters a gap between two words may hold: white space, commas, quotes, bars, brackets, dashes, list numbers. */
function gapCode(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 44 || c === 34 || c === 39 || c === 124 || c === 45 ||
    c === 40 || c === 41 || c === 91 || c === 93 || c === 35 || c === 46 || c === 58 || isDigit(c);
}

/**
 * Is text[from, to) a gap between two words of a run? Only gap characters, at most two line
 * breaks, `.` `:` `)` only after a list number (`12.`, `3)`): after a word they end a sentence.
 */
function gapOk(text: string, from: number, to: number): boolean {
  if (to <= from || to - from > MAX_GAP) return false;
  let breaks = 0;
  let space = false;
  let dash = false;
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    if (!gapCode(c)) return false;
    if (c === 10 && ++breaks > 2) return false;
    if ((c === 46 || c === 58 || c === 41) && !isDigit(text.charCodeAt(k - 1))) return false;
    if (c === 32 || c === 9 || c === 10 || c === 13) space = true;
    else if (c === 45) dash = true;
  }
  // A dash joins words (`border-left-color`, CSS and identifiers); it separates only beside a space (`1 - abandon`).
  return space || !dash;
}

/** Is text[start, end) a whole letter word (no letter, digit or `_` glued on either side)? */
function wholeWord(text: string, start: number, end: number): boolean {
  return !isLetterish(text.charCodeAt(start - 1)) && !isLetterish(text.charCodeAt(end));
}

function isLetterish(c: number): boolean {
  return !Number.isNaN(c) && isWordCode(c) && !isDigit(c);
}

/** End of the letters starting at `start` (at most MAX_LETTERS + 1 read). */
function lettersEnd(text: string, start: number): number {
  let end = start;
  while (end < text.length && end - start <= MAX_LETTERS && letter(text.charCodeAt(end))) end++;
  return end;
}

/**
 * The length of the word of the list the letters at `start` may be, by lengthByKey (first four
 * letters, then exactly that many letters), or 0: the probe's cheap test, no lookup of the word.
 */
function listLength(codes: Units, start: number): number {
  const a = codes[start]!;
  const b = codes[start + 1]!;
  const c = codes[start + 2]!;
  if (!letter(a) || !letter(b) || !letter(c)) return 0;
  const d = codes[start + 3]!;
  const fourth = letter(d);
  const length = lengthByKey((((a | 0x20) - 96) * 27 + ((b | 0x20) - 96)) * 729 + ((c | 0x20) - 96) * 27 + (fourth ? (d | 0x20) - 96 : 0));
  if (length === 0 || (length === 3) === fourth) return 0;
  for (let k = start + 4; k < start + length; k++) if (!letter(codes[k]!)) return 0;
  return letter(codes[start + length]!) ? 0 : length;
}

/** The end of the word after the word ending at `end` (over any gap) when listLength, or -1: the probe's cheap count. */
function listWordAfter(codes: Units, end: number): number {
  let k = end;
  while (k < codes.length && k - end <= MAX_GAP && !letter(codes[k]!)) k++;
  const length = listLength(codes, k);
  return length > 0 ? k + length : -1;
}

/** The start of the word before the word starting at `start` (over any gap, not before `floor`) when listLength, or -1. */
function listWordBefore(codes: Units, start: number, floor: number): number {
  let k = start;
  while (k > floor && start - k <= MAX_GAP && !letter(codes[k - 1]!)) k--;
  const previousEnd = k;
  while (k > floor && previousEnd - k <= MAX_LETTERS && letter(codes[k - 1]!)) k--;
  return k < previousEnd && listLength(codes, k) === previousEnd - k ? k : -1;
}

/**
 * Are there MIN_WORDS list words in a row around the list word [start, end), gaps and word
 * edges unchecked? An upper bound of the run's length, read with at most MIN_WORDS lookups:
 * a word of the list in prose ("review", "next year") stops here.
 */
function mayBeRun(codes: Units, start: number, end: number, floor: number): boolean {
  let count = 1;
  for (let k = listWordAfter(codes, end); k > 0 && count < MIN_WORDS; k = listWordAfter(codes, k)) count++;
  for (let k = listWordBefore(codes, start, floor); k >= 0 && count < MIN_WORDS; k = listWordBefore(codes, k, floor)) count++;
  return count >= MIN_WORDS;
}

/** Emit the seed phrases in `state.text` (see the header). */
export function detectSeedPhrases(state: ScanState, codes: Units): void {
  const text = state.text;
  const n = text.length;
  if (n < MIN_SPAN) return;
  /** Everything before `covered` was read: no run reaches back past it. */
  let covered = 0;
  for (let probe = 0; probe < n; probe = Math.max(probe + STRIDE, covered)) {
    // The word at the probe, or the first one after a gap.
    let start = probe;
    if (letter(codes[start]!)) {
      while (start > covered && probe - start < MAX_LETTERS && letter(codes[start - 1]!)) start--;
    } else {
      while (start < n && start - probe <= MAX_GAP && !letter(codes[start]!)) start++;
    }
    // Most probes in prose stop at the table (the word's first four letters and its length), and
    // a word of the list in prose at its neighbours.
    const length = listLength(codes, start);
    if (length === 0) continue;
    const end = start + length;
    if (!mayBeRun(codes, start, end, covered)) continue;
    if (wordIndex(text, start, end) >= 0 && wholeWord(text, start, end)) {
      covered = readRun(state, firstOfRun(text, start, covered));
    }
  }
}

/** The first word of the run holding the list word at `start`, looking back no further than `floor`. */
function firstOfRun(text: string, start: number, floor: number): number {
  let first = start;
  // One word more than a run may hold (MAX_RUN): then the run is none whatever its start.
  for (let words = 1; words <= MAX_RUN; words++) {
    let k = first;
    while (k > floor && first - k <= MAX_GAP && !letter(text.charCodeAt(k - 1))) k--;
    const previousEnd = k;
    while (k > floor && previousEnd - k <= MAX_LETTERS && letter(text.charCodeAt(k - 1))) k--;
    if (previousEnd === k || !gapOk(text, previousEnd, first) || !wholeWord(text, k, previousEnd)) return first;
    if (wordIndex(text, k, previousEnd) < 0) return first;
    first = k;
  }
  return first;
}

/** The end of the next word of the run after the word ending at `wordEnd`, or -1 when the run ends there. */
function nextWordEnd(text: string, wordEnd: number): number {
  let next = wordEnd;
  while (next < text.length && next - wordEnd <= MAX_GAP && !letter(text.charCodeAt(next))) next++;
  if (!gapOk(text, wordEnd, next)) return -1;
  const end = lettersEnd(text, next);
  return wordIndex(text, next, end) >= 0 && wholeWord(text, next, end) ? end : -1;
}

/**
 * Read the run from its first word at `start`; emit it when it is a phrase. Returns where it
 * ends. The first read only counts (prose probes hit words of the list often, and their runs end
 * after a word or two); a run long enough is read again for its words.
 */
function readRun(state: ScanState, start: number): number {
  const text = state.text;
  let count = 1;
  let runEnd = lettersEnd(text, start);
  // Past MAX_RUN the run is none, but it is still read to its end (no tail of a flood is a phrase).
  for (let end = nextWordEnd(text, runEnd); end > 0; end = nextWordEnd(text, end)) {
    count++;
    runEnd = end;
  }
  if (count < MIN_WORDS || count > MAX_RUN) return runEnd;
  const indices: number[] = [];
  const bounds: number[] = [];
  for (let wordStart = start; bounds.length < 2 * count; ) {
    const wordEnd = lettersEnd(text, wordStart);
    indices.push(wordIndex(text, wordStart, wordEnd));
    bounds.push(wordStart, wordEnd);
    wordStart = wordEnd;
    while (wordStart < runEnd && !letter(text.charCodeAt(wordStart))) wordStart++;
  }
  const phrase = phraseIn(indices);
  if (phrase !== null) {
    const [from, length] = phrase;
    emit(state, 'private_key', bounds[2 * from]!, bounds[2 * (from + length) - 1]!, length >= 18 ? 0.95 : 0.9);
  }
  return runEnd;
}

/** A run may hold a phrase and at most this many words of the list around it (`… zoo please help`). */
const MAX_EXTRA = 2;
const MAX_RUN = MAX_WORDS + MAX_EXTRA;

/**
 * The phrase in a run of list indices, as [first word, word count]: the whole run when its
 * length and checksum hold, else the longest one after dropping at most MAX_EXTRA words at its
 * ends (a word of the list typed before or after the phrase); none in a run of more than MAX_RUN.
 */
function phraseIn(indices: readonly number[]): readonly [number, number] | null {
  const count = indices.length;
  if (count < MIN_WORDS || count > MAX_RUN) return null;
  for (let drop = 0; drop <= MAX_EXTRA; drop++) {
    const length = count - drop;
    if (length > MAX_WORDS || length % 3 !== 0) continue;
    if (length < MIN_WORDS) return null;
    for (let head = 0; head <= drop; head++) if (checksumHolds(indices.slice(head, head + length))) return [head, length];
  }
  return null;
}

/** BIP39: the 11-bit indices hold the entropy then its checksum, the first count/3 bits of its SHA-256. */
export function checksumHolds(indices: readonly number[]): boolean {
  const checksumBits = indices.length / 3;
  const entropy = new Uint8Array((indices.length * 11 - checksumBits) / 8);
  let accumulator = 0;
  let bits = 0;
  let byte = 0;
  for (const index of indices) {
    accumulator = (accumulator << 11) | index;
    bits += 11;
    while (bits >= 8 && byte < entropy.length) {
      bits -= 8;
      entropy[byte++] = (accumulator >>> bits) & 0xff;
    }
    accumulator &= (1 << bits) - 1;
  }
  // What is left after the entropy bytes is the checksum (bits < 11 here).
  const checksum = accumulator & ((1 << bits) - 1);
  if (bits !== checksumBits) return false;
  const digest = hash('sha256', entropy, 'buffer');
  return digest[0]! >>> (8 - checksumBits) === checksum;
}
