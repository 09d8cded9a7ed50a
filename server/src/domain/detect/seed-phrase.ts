// Crypto wallet seed phrases (BIP39 mnemonics): 12, 15, 18, 21 or 24 words of the 2048-word
// English list, the last word carrying the first n/3 bits of the SHA-256 of the entropy. Whoever
// holds the words holds the wallet, so a phrase is a `private_key` (the wallet's private seed
// written in words), not a `crypto_wallet` (an address, public by design).
//
// Read after the scan's word loop without touching it: ordinary prose must not pay for a class
// that almost never occurs. A phrase spans at least MIN_SPAN characters (twelve words of three
// or more letters and eleven gaps), so the text is probed only every STRIDE (< MIN_SPAN)
// characters: one word per probe, looked up in a table keyed by its first four letters (which
// are unique in the list), and only a word of the list opens a read of the run around it. A run
// is words of the list separated by spaces, line breaks, commas, quotes or list numbering
// (`1. abandon 2. ability`, one per line, `abandon, ability`), in any case; sentence punctuation
// after a word (`about. Keep`) ends it. The whole run is the value, or nothing: its length must
// be one of BIP39's and its checksum must hold, up to two words of the list typed before or after
// it (`… zoo please help`); a run of more than 26 words is none. Each
// character is read by at most one run or probe, so the pass is linear (`abandon ` × 100K).
import { hash } from 'node:crypto';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { isAsciiLetter, isDigit, isWordCode } from './chars.js';
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
/** Distance between probes: less than MIN_SPAN, so every run holds at least one probe. */
const STRIDE = 40;

/** Key of a word's first four letters (lower case; a three-letter word pads with 0). */
function keyOf(text: string, start: number, end: number): number {
  let key = 0;
  for (let k = 0; k < 4; k++) key = key * 27 + (start + k < end ? (text.charCodeAt(start + k) | 0x20) - 96 : 0);
  return key;
}

/** Index in the list by the key of its first four letters. */
const BY_PREFIX: ReadonlyMap<number, number> = (() => {
  const table = new Map<number, number>();
  wordlist.forEach((word, index) => table.set(keyOf(word, 0, word.length), index));
  if (table.size !== 2048) throw new Error('BIP39 list: first four letters not unique');
  return table;
})();

/** The list index of the letters text[start, end) (any case), or -1. */
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
  while (end < text.length && end - start <= MAX_LETTERS && isAsciiLetter(text.charCodeAt(end))) end++;
  return end;
}

/** Emit the seed phrases in `state.text` (see the header). */
export function detectSeedPhrases(state: ScanState): void {
  const text = state.text;
  const n = text.length;
  if (n < MIN_SPAN) return;
  /** Everything before `covered` was read: no run reaches back past it. */
  let covered = 0;
  let probe = 0;
  while (probe < n) {
    // The word at the probe, or the first one after a gap.
    let start = probe;
    while (start > covered && start > probe - MAX_LETTERS && isAsciiLetter(text.charCodeAt(start - 1))) start--;
    if (!isAsciiLetter(text.charCodeAt(start))) {
      while (start < n && start - probe <= MAX_GAP && !isAsciiLetter(text.charCodeAt(start))) start++;
    }
    const end = lettersEnd(text, start);
    if (end > start && wordIndex(text, start, end) >= 0 && wholeWord(text, start, end)) {
      covered = readRun(state, firstOfRun(text, start, covered));
    } else {
      covered = Math.max(covered, end);
    }
    probe = Math.max(probe + STRIDE, covered);
  }
}

/** The first word of the run holding the list word at `start`, looking back no further than `floor`. */
function firstOfRun(text: string, start: number, floor: number): number {
  let first = start;
  // One word more than a run may hold (MAX_RUN): then the run is none whatever its start.
  for (let words = 1; words <= MAX_RUN; words++) {
    let k = first;
    while (k > floor && first - k <= MAX_GAP && !isAsciiLetter(text.charCodeAt(k - 1))) k--;
    const previousEnd = k;
    while (k > floor && previousEnd - k <= MAX_LETTERS && isAsciiLetter(text.charCodeAt(k - 1))) k--;
    if (previousEnd === k || !gapOk(text, previousEnd, first) || !wholeWord(text, k, previousEnd)) return first;
    if (wordIndex(text, k, previousEnd) < 0) return first;
    first = k;
  }
  return first;
}

/** Read the run from its first word at `start`; emit it when it is a phrase. Returns where it ends. */
function readRun(state: ScanState, start: number): number {
  const text = state.text;
  const indices: number[] = [];
  const bounds: number[] = [];
  let wordStart = start;
  let runEnd = start;
  for (;;) {
    const wordEnd = lettersEnd(text, wordStart);
    const index = wordIndex(text, wordStart, wordEnd);
    if (index < 0 || !wholeWord(text, wordStart, wordEnd)) break;
    // Past MAX_RUN the run is none, but it is still read to its end (no tail of a flood is a phrase).
    if (indices.length <= MAX_RUN) {
      indices.push(index);
      bounds.push(wordStart, wordEnd);
    }
    runEnd = wordEnd;
    let next = wordEnd;
    while (next < text.length && next - wordEnd <= MAX_GAP && !isAsciiLetter(text.charCodeAt(next))) next++;
    if (!gapOk(text, wordEnd, next)) break;
    wordStart = next;
  }
  const phrase = phraseIn(indices);
  if (phrase !== null) {
    const [from, count] = phrase;
    emit(state, 'private_key', bounds[2 * from]!, bounds[2 * (from + count) - 1]!, count >= 18 ? 0.95 : 0.9);
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
  let checksum = 0;
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
  checksum = accumulator & ((1 << bits) - 1);
  if (bits !== checksumBits) return false;
  const digest = hash('sha256', entropy, 'buffer');
  return digest[0]! >>> (8 - checksumBits) === checksum;
}
