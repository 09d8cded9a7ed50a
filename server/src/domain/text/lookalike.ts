// Digits written as the letters that look like them: `415-555-O1OO`, `4111 1lll 1111 1111`,
// `O78-O5-1120`. A reader (and a model) reads the number; a detector reading characters sees
// letters. Which letters: `O`/`o` for 0 and `I`/`l` for 1, the typewriter substitutions people
// make by habit or to get a number past a filter. Not `S` 5, `B` 8, `Z` 2, `g` 9 or `|` 1:
// measured on 34 MB of ordinary text (data/*.jsonl but the held-out test set, 4,000 Python
// sources and documents under /usr/share/doc and /usr/lib/python3), tokens of digits and one such
// letter are mostly units and formats (`8B`, `B2`, `05Z` in every ISO timestamp, `8g`, `1s`), and
// `|` between digits is a table or list separator (`25519|448`), which loose-digits.ts reads as a
// gap (`4111 | 1111 | …`).
//
// The reading depends on context, so it is not part of the fold (fold.ts): a letter counts as a
// digit only inside a chain of tokens (words of ASCII letters and digits) made of digits and
// those letters alone, joined by short separators (space, `-`, `.`, `/`, `(`, `)`, `+`), and a
// chain is read only when it is mostly digits (see STRICT below). Detection (detect/lookalike-digits.ts)
// then accepts the reading only where a detector finds a valid value in it (Luhn and issuer,
// SSN ranges, a phone after a phone word); value normalization reads a value detected as a
// number the same way, so the look-alike spelling shares the plain number's token and erasure.
// Every letter maps to one digit: offsets are unchanged.

const LETTER_DIGIT = new Uint8Array(128); // 0: not a look-alike; else the digit's code
LETTER_DIGIT[0x4f] = 48; // O
LETTER_DIGIT[0x6f] = 48; // o
LETTER_DIGIT[0x49] = 49; // I
LETTER_DIGIT[0x6c] = 49; // l

/** The digit (code) a look-alike letter stands for, or 0. */
export function lookalikeDigit(code: number): number {
  return code < 128 ? LETTER_DIGIT[code]! : 0;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isWordCode(code: number): boolean {
  return isDigit(code) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/** Separators between the groups of a number: space - . / ( ) + */
export function isNumberSeparator(code: number): boolean {
  return code === 32 || code === 45 || code === 46 || code === 47 || code === 40 || code === 41 || code === 43;
}

/** Most separator characters between two tokens of a chain. */
const MAX_GAP = 3;

/** A token of a chain: [start, end), its digits and look-alike letters. */
interface Token {
  readonly start: number;
  readonly end: number;
  readonly digits: number;
  readonly letters: number;
  /** Where its digits start: after an IBAN's country code (`DE89`, `DE8937O4…`), else `start`. */
  readonly from: number;
}

function isUpperLetter(code: number): boolean {
  return code >= 65 && code <= 90;
}

/**
 * The token of digits and look-alike letters at `start` (a word start), or undefined. With
 * `head`, a token may start with an IBAN's two-letter country code, which is read as letters
 * (`IT60…`, `IE29…` keep their `I`).
 */
function tokenAt(text: string, start: number, head = false, single = false): Token | undefined {
  const from = head && isUpperLetter(text.charCodeAt(start)) && isUpperLetter(text.charCodeAt(start + 1)) ? start + 2 : start;
  let digits = 0;
  let letters = 0;
  let end = from;
  for (; end < text.length; end++) {
    const code = text.charCodeAt(end);
    if (isDigit(code)) digits++;
    else if (lookalikeDigit(code) !== 0) letters++;
    else if (isWordCode(code)) return undefined;
    else break;
  }
  // One letter alone is a word (`I`, `O`), not a digit, unless the caller reads a one-letter
  // group inside a chain (`single`, see singleAt); a country code needs its check digits.
  if (end === from || (digits === 0 && letters < (single ? 1 : 2)) || (from > start && end - from < 2)) return undefined;
  return { start, end, digits, letters, from };
}

/**
 * The bank code after an IBAN's country code and check digits (`GB82 WEST l234 …`, `IE29 AIBK …`):
 * four capital letters as a word of its own, read as letters (a bank code's `O` and `I` are
 * letters). Its end, or -1.
 */
function bankCodeAt(text: string, start: number): number {
  for (let k = start; k < start + 4; k++) if (!isUpperLetter(text.charCodeAt(k))) return -1;
  return start + 4 < text.length && isWordCode(text.charCodeAt(start + 4)) ? -1 : start + 4;
}

/** True for a head token of an IBAN alone: country code and two check digits (`GB82`). */
function ibanHead(token: Token | undefined): boolean {
  return token !== undefined && token.from === token.start + 2 && token.end === token.start + 4 && token.letters === 0;
}

/**
 * A one-letter group of a number (session 16, wave15/evade2): `+33 l 42 68 53 00`, `+l 415 555
 * 0142`. A look-alike letter alone between separators is read as a digit only as a token of a
 * chain that goes on past it with a token holding a digit (chainAt drops a trailing one) and, for
 * detection, after a `+` or a token of the chain (lookalikeRunAt); the reading is then kept only where a detector finds a valid value taking the
 * letter (a phone after its word, a card's Luhn sum; detect/lookalike-digits.ts).
 */
function singleAt(text: string, start: number): Token | undefined {
  return tokenAt(text, start, false, true);
}

/** True for a one-letter group (singleAt). */
function isSingle(token: Token): boolean {
  return token.digits === 0 && token.letters === 1;
}

/** True when a token of digits and look-alikes ends within MAX_GAP separators before `start`. */
function tokenEndsAt(text: string, start: number): boolean {
  let gap = start;
  while (gap > 0 && start - gap < MAX_GAP && isNumberSeparator(text.charCodeAt(gap - 1))) gap--;
  if (gap === start || gap === 0 || !isWordCode(text.charCodeAt(gap - 1))) return false;
  return tokenAt(text, wordStart(text, gap - 1))?.end === gap;
}

/** A chain of tokens: its tokens (maybe none) and where reading stopped. */
interface Chain {
  readonly tokens: Token[];
  readonly end: number;
}

/** The chain of tokens starting at the word start `start`. */
function chainAt(text: string, start: number): Chain {
  const tokens: Token[] = [];
  let pos = start;
  let end = start;
  for (;;) {
    let token = tokenAt(text, pos) ?? (tokens.length === 0 ? tokenAt(text, pos, true) : undefined) ?? singleAt(text, pos);
    if (token === undefined && tokens.length === 1 && ibanHead(tokens[0])) {
      const bankEnd = bankCodeAt(text, pos);
      // The bank code is read as letters: the run's reading starts after it.
      if (bankEnd > 0) token = { start: pos, end: bankEnd, digits: 0, letters: 0, from: bankEnd };
    }
    if (token === undefined) break;
    tokens.push(token);
    end = token.end;
    let gap = token.end;
    while (gap < text.length && gap - token.end < MAX_GAP && isNumberSeparator(text.charCodeAt(gap))) gap++;
    if (gap === token.end || gap >= text.length || !isWordCode(text.charCodeAt(gap)) || isNumberSeparator(text.charCodeAt(gap))) break;
    pos = gap;
  }
  // A one-letter group ends no chain (`415 555 0142 I`, `12 O`).
  while (tokens.length > 0 && isSingle(tokens[tokens.length - 1]!)) tokens.pop();
  if (tokens.length > 0) end = tokens[tokens.length - 1]!.end;
  if (tokens.length === 1 && tokens[0]!.digits === 0) tokens.pop();
  return { tokens, end: Math.max(end, start + 1) };
}

/**
 * Strict: a chain is read as a number when it holds a look-alike letter, at least as many
 * digits as letters, and seven or more characters of either (the shortest value read so: a
 * seven-digit phone number).
 */
function readable(tokens: readonly Token[], worded: boolean): boolean {
  let digits = 0;
  let letters = 0;
  for (const token of tokens) {
    digits += token.digits;
    letters += token.letters;
  }
  // Worded (session 14): more letters than digits (`4lll llll llll llll`, `O78-O5-ll2O`), but one
  // digit at least, for a caller that then wants the value's word before it (detect/lookalike-worded.ts).
  return letters > 0 && (worded ? digits > 0 : digits >= letters) && digits + letters >= 7;
}

/** A run of text to read with look-alike letters as digits, and where the chain it came from ends. */
export interface LookalikeRun {
  readonly start: number;
  readonly end: number;
  /** Where its letters may be read as digits (after an IBAN's country code). */
  readonly from: number;
  /** Where the chain ended (runs of later seeds before it are this one). */
  readonly chainEnd: number;
}

/** Start of the word holding `index`. */
function wordStart(text: string, index: number): number {
  let start = index;
  while (start > 0 && isWordCode(text.charCodeAt(start - 1))) start--;
  return start;
}

/**
 * The run around `seed` (an index inside a token of digits) to read with look-alikes as digits,
 * when its chain is readable (strict); `undefined` run otherwise. Reads left to the chain's first
 * token, then right to its end: linear in the chain.
 */
export function lookalikeRunAt(
  text: string,
  seed: number,
  worded = false,
  opensAt?: (start: number) => boolean,
): LookalikeRun | { readonly start: -1; readonly end: -1; readonly from: -1; readonly chainEnd: number } {
  let start = wordStart(text, seed);
  if (tokenAt(text, start) === undefined && tokenAt(text, start, true) === undefined) return { start: -1, end: -1, from: -1, chainEnd: seed + 1 };
  // Back over earlier tokens of the chain.
  for (;;) {
    let gap = start;
    while (gap > 0 && start - gap < MAX_GAP && isNumberSeparator(text.charCodeAt(gap - 1))) gap--;
    if (gap === start || gap === 0 || !isWordCode(text.charCodeAt(gap - 1))) break;
    const previous = wordStart(text, gap - 1);
    if (tokenAt(text, previous)?.end === gap) {
      start = previous;
      continue;
    }
    // A one-letter group after a `+` (`+l 415 …`) or after a token of the chain (`+33 l 42 …`);
    // not a word alone before a number (`billing o 4111 …`: a reading costs a scan), unless the
    // caller's `opensAt` says a value may open there (session 17: `call O 20 7946 0958`, the
    // value's word before the letter; detect/lookalike-digits.ts).
    if (
      singleAt(text, previous)?.end === gap &&
      (text.charCodeAt(previous - 1) === 43 || tokenEndsAt(text, previous) || (opensAt !== undefined && opensAt(previous)))
    ) {
      start = previous;
      continue;
    }
    // An IBAN's country code and check digits begin the chain, maybe with its bank code after them.
    if (tokenAt(text, previous, true)?.end === gap) start = previous;
    else if (bankCodeAt(text, previous) === gap) {
      let head = previous;
      while (head > 0 && previous - head < MAX_GAP && isNumberSeparator(text.charCodeAt(head - 1))) head--;
      const headStart = head < previous && head > 0 ? wordStart(text, head - 1) : -1;
      if (headStart >= 0 && ibanHead(tokenAt(text, headStart, true)) && tokenAt(text, headStart, true)?.end === head) start = headStart;
    }
    break;
  }
  const chain = chainAt(text, start);
  if (chain.tokens.length === 0 || !readable(chain.tokens, worded)) return { start: -1, end: -1, from: -1, chainEnd: chain.end };
  return { start: chain.tokens[0]!.start, end: chain.tokens[chain.tokens.length - 1]!.end, from: readFrom(chain.tokens), chainEnd: chain.end };
}

/** Where a chain's letters may be read as digits: after an IBAN's country code, or after its bank code. */
function readFrom(tokens: readonly Token[]): number {
  const bank = tokens.length > 1 && tokens[1]!.from > tokens[1]!.start ? tokens[1]!.from : -1;
  return bank > 0 ? bank : tokens[0]!.from;
}

/** `text` with the look-alike letters of [start, end) as digits. */
export function withLookalikeDigits(text: string, start: number, end: number): string {
  let out = '';
  let copied = start;
  for (let k = start; k < end; k++) {
    const digit = lookalikeDigit(text.charCodeAt(k));
    if (digit === 0) continue;
    out += text.slice(copied, k) + String.fromCharCode(digit);
    copied = k + 1;
  }
  return text.slice(0, start) + out + text.slice(copied);
}

/**
 * A value detected as a number, with its look-alike letters read as digits: every chain of
 * tokens of digits and look-alike letters holding a digit (no strictness: the detector judged the
 * value). Letters in other words (`ext`, a spelled-out `four`, a vanity `FLOWERS`) stay.
 */
export function readLookalikeDigits(value: string): string {
  let out = value;
  let index = 0;
  while (index < value.length) {
    const code = value.charCodeAt(index);
    if (!isWordCode(code) || (index > 0 && isWordCode(value.charCodeAt(index - 1)))) {
      index++;
      continue;
    }
    const chain = chainAt(value, index);
    if (chain.tokens.some((token) => token.letters > 0) && chain.tokens.some((token) => token.digits > 0)) {
      out = withLookalikeDigits(out, readFrom(chain.tokens), chain.tokens[chain.tokens.length - 1]!.end);
    }
    index = chain.end;
  }
  return out;
}
