// Numbers written backwards to get them past a filter ("my card number backwards: 1881 8888 8888
// 2104", "call 2410 555 514 1+"): a model reverses them on request as surely as it reads them.
//
// loose-digits.ts records each run of digit groups of nine digits or more where no value was
// found (a seed: its start and end); this pass reads each such run reversed (a `+` right after
// it is read as the value's leading `+`), with the text before it for context, through the same
// built-in scan one level deep, and keeps a card (issuer and Luhn) or a phone (a leading `+` and
// a numbering plan) that the reversed run spells whole, when the value's word stands before it.
// The reversed forms are the ones normalization can tell from a forward value (unreverseValue):
// a card whose digits fail Luhn or the issuer prefixes forwards, a phone ending in `+`; a
// reversed SSN is another valid SSN, and is left alone.
import type { Detection } from '../types.js';
import { CARD_CONTEXT, hasWordBefore, PHONE_CONTEXT } from './context.js';
import { luhnValid } from './checksums.js';
import { emit, type ScanState } from './state.js';

/** The scanner a reading goes through (scanBuiltin without the reading passes). */
export type ReadingScanner = (text: string) => Detection[];

/** Text before a run scanned with its reading: the context words the detectors look for. */
const CONTEXT_BEFORE = 64;
/** How far before the run the value's word may stand. */
const CONTEXT_DISTANCE = 48;
/** Most reversed runs read in one scan (each costs a scan of ~100 characters). */
const MAX_SEEDS = 64;

function reverse(text: string): string {
  let out = '';
  for (let k = text.length - 1; k >= 0; k--) out += text.charAt(k);
  return out;
}

/** Emit the cards and phones the reversed runs at `seeds` (start, end pairs) spell. */
export function detectReversedNumbers(state: ScanState, seeds: readonly number[], scan: ReadingScanner): void {
  const text = state.text;
  // A reversed phone's digits may read as a shorter phone forwards ("2410 555 514" of
  // "2410 555 514 1+"): a phone whose digits go on to a `+` is read reversed too (overlap joins the two).
  const all = [...seeds];
  for (const found of state.out) {
    if (found.type !== 'phone' || text.charCodeAt(found.start) === 43) continue;
    const plus = plusAfter(text, found.end);
    if (plus >= 0) all.push(found.start, plus);
  }
  readReversed(state, all, scan);
}

/** Most characters between a phone found forwards and the `+` that ends its reversed run ("44028109 03| 94+"). */
const PLUS_REACH = 8;

/** Where the `+` is that ends the digits and separators going on at `from` (within PLUS_REACH), or -1. */
function plusAfter(text: string, from: number): number {
  for (let k = from; k < text.length && k - from <= PLUS_REACH; k++) {
    const code = text.charCodeAt(k);
    if (code === 43) return k > from && text.charCodeAt(k - 1) === 32 ? -1 : k;
    if (!((code >= 48 && code <= 57) || code === 32 || code === 45 || code === 46)) return -1;
  }
  return -1;
}

function readReversed(state: ScanState, seeds: readonly number[], scan: ReadingScanner): void {
  const text = state.text;
  for (let k = 0; k + 1 < seeds.length && k < MAX_SEEDS * 2; k += 2) {
    const start = seeds[k]!;
    let end = seeds[k + 1]!;
    const plus = text.charCodeAt(end) === 43;
    if (plus) end++;
    const cardWord = hasWordBefore(text, start, CONTEXT_DISTANCE, CARD_CONTEXT);
    const phoneWord = plus && hasWordBefore(text, start, CONTEXT_DISTANCE, PHONE_CONTEXT);
    if (!cardWord && !phoneWord) continue;
    const from = Math.max(0, start - CONTEXT_BEFORE);
    const prefix = text.slice(from, start);
    const reading = `${prefix}${reverse(text.slice(start, end))} `;
    for (const found of scan(reading)) {
      if (found.confidence < 0.5 || found.start !== prefix.length || found.end !== prefix.length + end - start) continue;
      if ((found.type === 'credit_card' && cardWord) || (found.type === 'phone' && phoneWord)) {
        emit(state, found.type, start, end, Math.min(found.confidence, 0.85));
        break;
      }
    }
  }
}

/** Digits of a card value failing Luhn forwards and passing reversed: the card it spells. */
function unreversedCard(value: string): string | undefined {
  const digits = value.replace(/[^0-9]/g, '');
  if (digits.length < 13 || digits.length > 19 || luhnValid(digits, 0, digits.length)) return undefined;
  const back = reverse(digits);
  return luhnValid(back, 0, back.length) ? back : undefined;
}

/**
 * A value detectReversedNumbers found, read forwards: a card whose digits fail Luhn (the forward
 * detectors never report one) and pass it reversed, a phone that ends in `+`. Any other value is
 * returned as it is. Normalization calls it, so `1881 8888 8888 2104` and `4012 8888 8888 1881`
 * are one token and one erasure.
 */
export function unreverseValue(type: string, value: string): string {
  if (type === 'credit_card') return unreversedCard(value) ?? value;
  if (type === 'phone') {
    const trimmed = value.trimEnd();
    if (trimmed.endsWith('+') && !trimmed.startsWith('+')) return reverse(trimmed);
  }
  return value;
}
