// Numbers with `S` for 5 or `B` for 8 (session 15, wave14/evade2): `card 4S56 7S2B 4B9B 6B4B`,
// `my SSN is 078-0S-1120`, `call me at 41S-SSS-0142`. The round-4 measurement stands (units and
// tiers: `8B`, `B2B`, `S3`; `SOS`, `BOSS` in prose), so the reading is narrow:
//
// - trigger: the scan's word loop marks a text holding a word that starts with a digit and holds an
//   upper-case `S` or `B`, or starts with one of them and a digit (markSBWord); only a marked text
//   is searched for a digit beside `S` or `B` (the search alone costs ~15 % of a prose scan);
// - the chain around it: words of digits, `S` and `B` only (text/lookalike-sb.ts), joined by one
//   number separator (blank, `-`, `.`), no word character on either side, at least nine characters
//   of digits and letters with at least twice as many digits as letters;
// - the chain read with the letters as digits, with the text before it (the value's word), by the
//   same built-in scan one level deep: a card is kept on its own check (Luhn and issuer), an SSN or
//   a phone only after its value word (value-words.ts). Nothing else is read so.
//
// The value is reported over the text as written; normalization reads the letters as digits
// (token/normalize.ts), so it is one token and one erasure with the plain number.
import type { Detection } from '../types.js';
import { readSBDigits } from '../text/lookalike-sb.js';
import type { ReadingScanner } from './reversed.js';
import { hasValueWordBefore } from './value-words.js';

const SEED = /[0-9][SB]|[SB][0-9]/g;
/** Most seeds looked at in one text. */
const MAX_SEEDS = 16;
/** Text before the chain read with it (the value's word). */
const BEFORE = 64;
/** Longest chain read. */
const CHAIN_MAX = 40;

const isDigit = (code: number): boolean => code >= 48 && code <= 57;
const isSB = (code: number): boolean => code === 83 || code === 66;
const isChainCode = (code: number): boolean => isDigit(code) || isSB(code);
const isSeparator = (code: number): boolean => code === 32 || code === 45 || code === 46;
const isWordCode = (code: number): boolean => isDigit(code) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;

const CHECKED: ReadonlySet<string> = new Set(['credit_card']);
const ON_WORD: ReadonlySet<string> = new Set(['us_ssn', 'phone']);

/** The chain [start, end) of digit-and-S/B words around `at`, or undefined. */
function chainAround(text: string, at: number): { start: number; end: number } | undefined {
  let start = at;
  while (start > 0 && at - start < CHAIN_MAX) {
    const c = text.charCodeAt(start - 1);
    if (isChainCode(c)) start--;
    else if (isSeparator(c) && start > 1 && isChainCode(text.charCodeAt(start - 2))) start--;
    else break;
  }
  let end = at;
  while (end < text.length && end - start < CHAIN_MAX) {
    const c = text.charCodeAt(end);
    if (isChainCode(c)) end++;
    else if (isSeparator(c) && isChainCode(text.charCodeAt(end + 1))) end++;
    else break;
  }
  if ((start > 0 && isWordCode(text.charCodeAt(start - 1))) || (end < text.length && isWordCode(text.charCodeAt(end)))) return undefined;
  let digits = 0;
  let letters = 0;
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (isDigit(c)) digits++;
    else if (isSB(c)) letters++;
  }
  return digits + letters >= 9 && digits >= 2 * letters ? { start, end } : undefined;
}

/** Scans (their state objects) that saw a word of digits with `S` or `B`. */
const marked = new WeakSet<object>();

/** Mark `scan` when the word [start, end) starts with a digit and holds `S` or `B`, or starts with one of them and a digit. */
export function markSBWord(scan: object, text: string, start: number, end: number): void {
  const c = text.charCodeAt(start);
  if (isSB(c)) {
    if (isDigit(text.charCodeAt(start + 1))) marked.add(scan);
    return;
  }
  for (let k = start + 1; k < end; k++) {
    if (isSB(text.charCodeAt(k))) {
      marked.add(scan);
      return;
    }
  }
}

/** Add the cards, SSNs and phones read with `S` as 5 and `B` as 8 to `out`, when `scan` was marked (markSBWord). */
export function addLookalikeSB(scan: object, text: string, out: Detection[], read: ReadingScanner): void {
  if (!marked.has(scan)) return;
  marked.delete(scan);
  SEED.lastIndex = 0;
  const found: Detection[] = [];
  let readUpTo = -1;
  for (let seeds = 0; seeds < MAX_SEEDS; seeds++) {
    const match = SEED.exec(text);
    if (match === null) break;
    if (match.index < readUpTo) continue;
    const chain = chainAround(text, match.index + 1);
    if (chain === undefined) continue;
    readUpTo = chain.end;
    SEED.lastIndex = chain.end;
    const from = Math.max(0, chain.start - BEFORE);
    const reading = `${text.slice(from, chain.start)}${readSBDigits(text.slice(chain.start, chain.end))} `;
    for (const detection of read(reading)) {
      if (detection.confidence < 0.5) continue;
      const start = from + detection.start;
      const end = from + detection.end;
      if (end > chain.end || end <= chain.start || start < chain.start - 1) continue;
      const written = text.slice(start, end);
      if (readSBDigits(written) === written) continue;
      if (!CHECKED.has(detection.type) && !(ON_WORD.has(detection.type) && hasValueWordBefore(text, detection.type, start))) continue;
      found.push({ type: detection.type, start, end, value: written, confidence: Math.min(detection.confidence, 0.9), detector: 'builtin_regex' });
      break;
    }
  }
  if (found.length === 0) return;
  const kept = out.filter((detection) => !found.some((read) => detection.start < read.end && detection.end > read.start));
  out.length = 0;
  out.push(...kept, ...found);
}
