// Where a label or credential word may start (prose-secret.ts, labelled-ids.ts), found by the
// scan's word loop at almost no cost: the first three characters of every word, lower-cased,
// against a table of the words' first three. A case-insensitive regex over the whole text for
// the same ~60 words costs 3-4 us per KB (irregexp tries every alternative at every position),
// as much as a fifth of the whole built-in scan; the table test is three reads per word, and the
// anchored regexes then run only at the few words that pass it.
import { isCjkCode } from './chars.js';

/** First three characters (lower case) of every Latin label and credential word. */
const PREFIXES = [
  // prose-secret.ts: password words, key and token words (api key, access token, licence key...).
  'pas', 'pwd', 'pin', 'ken', 'mot', 'con', 'sen', 'wac', 'key', 'tok', 'sec', 'api', 'acc', 'pri', 'lic', 'aut',
  // labelled-ids.ts: accounts, card security codes, driver's licences.
  'a/c', 'kon', 'num', 'núm', 'n° ', 'rek', 'cvv', 'cvc', 'cvn', 'cid', 'csc', 'car', 'ver', 'kar', 'prü', 'cry', 'cód', 'cod',
  'dri', 'dl ', 'dl:', 'dl#', 'dl.', 'füh', 'per', 'pat', 'rij',
  // labelled-ids.ts: medical record numbers, insurance member and policy numbers.
  'mrn', 'med', 'cha', 'fal', 'dos', 'his', 'pro', 'mem', 'sub', 'pol', 'ins', 'hea', 'ben',
  // Session 19 (wave18/evade), loose-numbers.ts: a birth date's and an IP address's words (passports: 'pas').
  'bir', 'bor', 'dob', 'd.o', 'geb', 'nai', 'nac', 'nas', 'ip ', 'ip:', 'ipv',
];

const prefixKey = (a: number, b: number, c: number): number => (a << 16) | (b << 8) | c;

/** Latin-1 lower case: ASCII and Latin-1 capitals differ from their small letter in bit 0x20. */
function lower(code: number): number {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0xc0 && code <= 0xde && code !== 0xd7) ? code | 0x20 : code;
}

const KEYS: ReadonlySet<number> = new Set(
  PREFIXES.map((prefix) => prefixKey(prefix.charCodeAt(0), prefix.charCodeAt(1), prefix.charCodeAt(2))),
);

/** Slot of a (lower-cased) code in the pair table: ASCII as itself, anything else in 127. */
const slot = (code: number): number => (code < 127 ? code : 127);

/**
 * The first two characters of the prefixes, as a 128 x 128 table: most words fail on it with two
 * array reads, before the Set is asked about the third character.
 */
const PAIRS = new Uint8Array(128 * 128);
for (const prefix of PREFIXES) PAIRS[(slot(prefix.charCodeAt(0)) << 7) | slot(prefix.charCodeAt(1))] = 1;

/** ASCII first characters (both cases) of the prefixes: the scan tests this before calling mayStartKeyword. */
export const KEYWORD_FIRST = new Uint8Array(128);
for (const prefix of PREFIXES) {
  const first = prefix.charCodeAt(0);
  KEYWORD_FIRST[first] = 1;
  if (first >= 0x61 && first <= 0x7a) KEYWORD_FIRST[first - 0x20] = 1;
}

/**
 * May a label or credential word start with the code units `c`, `second` (127 stands for any unit
 * from 127 up, or none: `lower` and `slot` send all of those to 127)? The first half of
 * mayStartKeyword, for the scan's pair table.
 */
export function keywordMayStartWith(c: number, second: number): boolean {
  return KEYWORD_FIRST[c] === 1 && PAIRS[(slot(lower(c)) << 7) | slot(lower(second))] === 1;
}

/**
 * The third units the prefixes allow after an ASCII pair, for the scan's word loop (no call, no
 * Set): KEYWORD_ROW holds, for a word's first two code units `c`, `second` (both below 127, as
 * the scan's pair index reads them), a row number (0: no prefix starts with the pair in any
 * case); KEYWORD_THIRD holds 128 bits per row, one per ASCII third unit (any case). A third unit
 * from 128 up, a second from 127 up or none go to mayStartKeyword itself (keywordStartAt, which the
 * scan inlines; keywords.test.ts holds it to mayStartKeyword over every ASCII triple).
 */
export const KEYWORD_ROW = new Uint8Array(128 * 128);
const keywordRows: number[][] = [[0, 0, 0, 0]];
{
  const rowOfLowerPair = new Map<number, number>();
  for (let c = 0; c < 128; c++) {
    for (let second = 0; second < 127; second++) {
      const lowerPair = (lower(c) << 7) | lower(second);
      if (PAIRS[lowerPair] !== 1) continue;
      let row = rowOfLowerPair.get(lowerPair);
      if (row === undefined) {
        const bits = [0, 0, 0, 0];
        for (let third = 0; third < 128; third++) {
          if (KEYS.has(prefixKey(lower(c), lower(second), lower(third)))) bits[third >>> 5]! |= 1 << (third & 31);
        }
        row = keywordRows.length;
        keywordRows.push(bits);
        rowOfLowerPair.set(lowerPair, row);
      }
      KEYWORD_ROW[(c << 7) | second] = row;
    }
  }
  if (keywordRows.length > 255) throw new Error('keywords: too many prefix pairs for KEYWORD_ROW');
}
export const KEYWORD_THIRD = new Uint32Array(keywordRows.flat());

/**
 * mayStartKeyword as the scan's word loop computes it inline (`c`: the word's ASCII first code
 * unit, `second`, `third`: the next two, NaN past the text): a table read for ASCII units, the
 * full test otherwise. Same answer as mayStartKeyword(text, start) everywhere.
 */
export function keywordStartAt(text: string, start: number, c: number, second: number, third: number): boolean {
  return second < 127 && third < 128
    ? (KEYWORD_THIRD[(KEYWORD_ROW[(c << 7) | second]! << 2) | (third >>> 5)]! & (1 << (third & 31))) !== 0
    : mayStartKeyword(text, start);
}

/** May a label or credential word start at `start` (a word's first character)? */
export function mayStartKeyword(text: string, start: number): boolean {
  const a = lower(text.charCodeAt(start));
  const b = lower(text.charCodeAt(start + 1));
  if (PAIRS[(slot(a) << 7) | slot(b)] !== 1) return false;
  const c = text.charCodeAt(start + 2);
  return !Number.isNaN(c) && KEYS.has(prefixKey(a, b, lower(c)));
}

/** CJK credential words are written against the text around them: found by one character class. */
export const CJK_KEYWORD_CHAR = /[密口パ暗비]/u;

/** A label starts here only after a character that is not part of a word. */
export function wordStartsAt(text: string, start: number): boolean {
  if (start === 0) return true;
  const previous = text.charCodeAt(start - 1);
  if (previous === 95 || previous === 45) return false; // _ and - join words in names and keys
  if (previous < 128) return !((previous >= 48 && previous <= 57) || ((previous | 0x20) >= 97 && (previous | 0x20) <= 122));
  // A CJK character is a word of its own ("我的password是…").
  return isCjkCode(previous) || !/[\p{L}\p{N}]/u.test(String.fromCharCode(previous));
}

/**
 * For each of `starts` (ascending) where `word` (a sticky regex) matches a whole word: `read`
 * with the match, which returns where the value it emitted ends (-1 for none). Starts inside an
 * emitted value are skipped.
 */
export function atKeywords(text: string, starts: readonly number[], word: RegExp, read: (match: RegExpExecArray, start: number) => number): void {
  let resume = 0;
  for (const start of starts) {
    if (start < resume || !wordStartsAt(text, start)) continue;
    word.lastIndex = start;
    const match = word.exec(text);
    if (match === null) continue;
    const end = read(match, start);
    if (end > 0) resume = end;
  }
}
