// Values written one character at a time ("g h p _ R 7 m K …", "8 1 . 2 . 6 9 . 1 6 0",
// "A B 1 2 3 4 5 6 C"): a person letter-spaces a value to get it past a filter, and a model reads
// it back whole. Digits alone are read by loose-digits.ts (by their groups); this pass reads the
// rest.
//
// The scan's loop seeds this pass at one-character words followed by at least three more
// characters each after one space ("a b c d"); each run (single characters joined by single
// spaces, at least MIN_CHARS of them, a longer blank read as a word break) is read with its
// spaces taken out, with the text before it for context words, by the same built-in scan one
// level deep. A value found in the reading is kept when it lies inside the run, spans at least
// MIN_VALUE characters of it and is not a URL (a spaced word reads as a domain by chance) nor a
// card, SSN, phone or IBAN (loose-digits.ts and iban.ts judge those, with the value's word); it is
// reported over the spaced characters it covers.
import type { Detection } from '../types.js';
import { emit, type ScanState } from './state.js';

/** The scanner a reading goes through (scanBuiltin without the reading passes). */
export type ReadingScanner = (text: string) => Detection[];

/** Fewest spaced characters read (an IPv4 address `1 . 2 . 3 . 4` has seven). */
const MIN_CHARS = 8;
/** Fewest characters of a value found in a reading. */
const MIN_VALUE = 7;
/** Most characters of one run read (a long JWT spaced out). */
const MAX_CHARS = 2048;
/** Text before a run read with it (the context words the detectors look for). */
const CONTEXT_BEFORE = 64;
/**
 * Types not taken from a reading: a spaced word reads as a domain by chance; cards, SSNs and
 * phones written digit by digit are loose-digits.ts's, which reads them by their groups, and
 * IBANs one character at a time are iban.ts's, both always with the value's word before them.
 */
const SKIPPED: ReadonlySet<string> = new Set(['url', 'credit_card', 'us_ssn', 'phone', 'iban']);

function isBlank(code: number): boolean {
  return code === 32;
}

/** A visible character a run may hold (not a blank, a line break or a control). */
function isRunChar(code: number): boolean {
  return code > 32 && code !== 127;
}

/**
 * True at a one-character word [start, start + 1) that begins a letter-spaced run: three more
 * characters follow, each after one space ("4 1 . 2"). The scan's loop checks this per
 * one-character word; the pass reads the run.
 */
export function mayStartLetterSpaced(text: string, start: number): boolean {
  return (
    isBlank(text.charCodeAt(start + 1)) && isRunChar(text.charCodeAt(start + 2)) &&
    isBlank(text.charCodeAt(start + 3)) && isRunChar(text.charCodeAt(start + 4)) &&
    isBlank(text.charCodeAt(start + 5)) && isRunChar(text.charCodeAt(start + 6)) &&
    !isRunChar(text.charCodeAt(start - 1)) && !isRunChar(text.charCodeAt(start + 7))
  );
}

/** Emit the values the letter-spaced runs at `starts` (ascending) spell. */
export function detectLetterSpaced(state: ScanState, starts: readonly number[], scan: ReadingScanner): void {
  const text = state.text;
  let readUpTo = -1;
  for (const start of starts) {
    if (start < readUpTo) continue;
    // The run: characters at start, start + 2, …; a blank of two or three spaces between two of
    // them is a word break (kept as one space in the reading).
    const positions: number[] = [];
    let reading = '';
    let pos = start;
    while (pos < text.length && positions.length < MAX_CHARS && isRunChar(text.charCodeAt(pos)) && !isRunChar(text.charCodeAt(pos + 1))) {
      positions.push(pos);
      reading += text.charAt(pos);
      let gap = pos + 1;
      while (gap < text.length && gap - pos <= 4 && isBlank(text.charCodeAt(gap))) gap++;
      if (gap - pos < 2 || gap - pos > 4 || gap >= text.length || !isRunChar(text.charCodeAt(gap))) {
        pos++;
        break;
      }
      if (gap - pos > 2) {
        positions.push(-1);
        reading += ' ';
      }
      pos = gap;
    }
    readUpTo = pos;
    let chars = 0;
    for (const at of positions) if (at >= 0) chars++;
    if (chars < MIN_CHARS) continue;
    const from = Math.max(0, start - CONTEXT_BEFORE);
    const prefix = text.slice(from, start);
    for (const found of scan(`${prefix}${reading} `)) {
      const first = found.start - prefix.length;
      const last = found.end - prefix.length - 1;
      if (found.confidence < 0.5 || SKIPPED.has(found.type) || first < 0 || last >= positions.length || last - first + 1 < MIN_VALUE) continue;
      const begin = positions[first]!;
      const finish = positions[last]!;
      if (begin < 0 || finish < 0) continue;
      emit(state, found.type, begin, finish + 1, Math.min(found.confidence, 0.85));
    }
  }
}
