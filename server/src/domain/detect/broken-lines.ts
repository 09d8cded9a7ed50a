// Numbers without a check broken by one line break (session 13, wave12/evade): `my SSN is
// 078-0⏎5-1120`, `call me at +49 30 ⏎90182044`, `DNI 1234⏎5678Z`. A value with a checksum broken so
// is read by its own detector (cards, IBANs, wallets, JWTs: session 12); an SSN, a phone or a
// national id proves nothing by itself, and a line break between two numbers is also two numbers
// on two lines, so the reading here needs three things:
//
// - the break sits inside a number: digits or separators on both sides, a digit on one (at most
//   one blank on each side): the scan records such breaks (mayJoinAt) at a few reads each;
// - the text read with the break taken out holds a value of one of these types that spans the
//   break, found by the same built-in scan one level deep, its own checks and all;
// - the value's word stands before it (`ssn`, `call me at`, `DNI`: the type's context words), and
//   the first line's half is no value of that type found forwards (a line that ends a value is
//   followed by other text, not by the rest of it).
//
// The value is reported over both lines, the break included; normalization drops the break (digits,
// or letters and digits, are the whole value), so it is one token and one erasure with the value
// written on one line.
import type { Detection } from '../types.js';
import { hasWordBefore, PHONE_CONTEXT, SSN_CONTEXT, type ContextWords } from './context.js';
import { ID_CONTEXT } from './id-context.js';
import type { ReadingScanner } from './reversed.js';
import type { ScanState } from './state.js';

/** Text before the break read with it (the value's first half and its word). */
const BEFORE = 96;
/** Text after the break read with it (the value's second half). */
const AFTER = 48;
/** How far before the value its word may stand. */
const CONTEXT_DISTANCE = 48;
/** Most breaks read in one scan (each a scan of ~150 characters). */
const MAX_BREAKS = 32;

const isDigitCode = (code: number): boolean => code >= 48 && code <= 57;
/** A character a number is written with on either side of the break: a digit or a separator. */
const isNumberCode = (code: number): boolean => isDigitCode(code) || code === 45 || code === 46 || code === 41 || code === 40 || code === 43;

/**
 * May the line break at `at` (a `\n`) break a number? The characters on both sides of it (past a
 * `\r` and one blank) are digits or separators (`-` `.` `(` `)` `+`), one a digit: a break inside
 * a digit group or at a group's edge. A line ending in a number and a line starting with a word
 * (`264-81-1498⏎Birth date`, the common case in records) is not read.
 */
export function mayJoinAt(text: string, at: number): boolean {
  let before = at - 1;
  if (text.charCodeAt(before) === 13) before--;
  if (text.charCodeAt(before) === 32) before--;
  let after = at + 1;
  if (text.charCodeAt(after) === 32) after++;
  const a = text.charCodeAt(before);
  const b = text.charCodeAt(after);
  return isNumberCode(a) && isNumberCode(b) && (isDigitCode(a) || isDigitCode(b));
}

/** The context words a value of `type` broken over two lines needs before it, or undefined (not read). */
function contextFor(type: string): readonly ContextWords[] | undefined {
  if (type === 'us_ssn') return [SSN_CONTEXT];
  if (type === 'phone') return [PHONE_CONTEXT];
  const id = ID_CONTEXT[type];
  if (id === undefined) return undefined;
  return id.generic === undefined ? [id.specific] : [id.specific, id.generic];
}

/** Emit the SSNs, phones and national ids the text reads with each of `breaks` (`\n` positions) taken out. */
export function detectBrokenLines(state: ScanState, breaks: readonly number[], scan: ReadingScanner): void {
  const text = state.text;
  joinBrokenValues(state, breaks, scan, LINE_LIMITS, (at) => at + 1, ({ detection, start, lineEnd }) => {
    const words = contextFor(detection.type);
    if (words === undefined) return false;
    if (!words.some((context) => hasWordBefore(text, start, CONTEXT_DISTANCE, context))) return false;
    return !firstLineIsValue(state, detection.type, start, lineEnd);
  });
}

const LINE_LIMITS: BreakLimits = { before: BEFORE, after: AFTER, maxBreaks: MAX_BREAKS, cap: 0.85 };

/** How far a joined reading reaches, how many breaks one scan reads, and the joined value's highest confidence. */
export interface BreakLimits {
  readonly before: number;
  readonly after: number;
  readonly maxBreaks: number;
  readonly cap: number;
}

/** A value found in a joined reading: where it starts in the text, and the break it spans. */
export interface BrokenValue {
  readonly detection: Detection;
  /** Where it starts in the text. */
  readonly start: number;
  /** The `\n` of the break. */
  readonly at: number;
  /** Where the first line's text ends (before a `\r`). */
  readonly lineEnd: number;
  /** Where the next line's text starts (past its indentation). */
  readonly next: number;
  readonly reading: string;
  /** The break's offset in the reading. */
  readonly breakAt: number;
}

/**
 * The loop the readers of broken values share (this file, broken-addresses.ts, broken-indent.ts):
 * for each of `breaks` (at most `limits.maxBreaks`), the text from `limits.before` units before the
 * line's end, then from `nextStart` (-1: not this break) to the next line's end (at most
 * `limits.after` units), is scanned one level deep; the first value that spans the break and that
 * `keep` accepts is reported over both lines (its confidence capped at `limits.cap`), and what the
 * scan found of either half gives way to it (joinFound).
 */
export function joinBrokenValues(
  state: ScanState,
  breaks: readonly number[],
  scan: ReadingScanner,
  limits: BreakLimits,
  nextStart: (at: number, lineEnd: number) => number,
  keep: (value: BrokenValue) => boolean,
): void {
  const text = state.text;
  const n = text.length;
  const found: Detection[] = [];
  for (let k = 0; k < breaks.length && k < limits.maxBreaks; k++) {
    const at = breaks[k]!;
    const lineEnd = text.charCodeAt(at - 1) === 13 ? at - 1 : at;
    const next = nextStart(at, lineEnd);
    if (next < 0) continue;
    const from = Math.max(0, lineEnd - limits.before);
    let to = next;
    while (to < n && to - next < limits.after && text.charCodeAt(to) !== 10 && text.charCodeAt(to) !== 13) to++;
    const breakAt = lineEnd - from;
    const shift = next - lineEnd;
    const reading = `${text.slice(from, lineEnd)}${text.slice(next, to)} `;
    for (const detection of scan(reading)) {
      if (detection.confidence < 0.5 || detection.start >= breakAt || detection.end <= breakAt) continue;
      const start = from + detection.start;
      if (!keep({ detection, start, at, lineEnd, next, reading, breakAt })) continue;
      const end = from + detection.end + shift;
      found.push({ type: detection.type, start, end, value: text.slice(start, end), confidence: Math.min(detection.confidence, limits.cap), detector: 'builtin_regex' });
      break;
    }
  }
  joinFound(state, found);
}

/** What the scan found of either half of a line break gives way to the joined values `found`. */
export function joinFound(state: ScanState, found: readonly Detection[]): void {
  if (found.length === 0) return;
  const kept = state.out.filter((detection) => !found.some((joined) => detection.start < joined.end && detection.end > joined.start));
  state.out.length = 0;
  state.out.push(...kept, ...found);
}

/**
 * Is the first line's half [start, end) (blanks trimmed) a value of `type` found forwards? Then the
 * line already ended a value, and what follows the break is other text (`+1 415 555 0142⏎2 items`).
 * The second half may be a shorter value of its own (`555 0142` after `call me at +1 415⏎`): the
 * first half, no value alone, is what the join completes.
 */
export function firstLineIsValue(state: ScanState, type: string, start: number, end: number): boolean {
  const text = state.text;
  while (start < end && text.charCodeAt(start) === 32) start++;
  while (end > start && (text.charCodeAt(end - 1) === 32 || text.charCodeAt(end - 1) === 13)) end--;
  return state.out.some((detection) => detection.type === type && detection.start <= start && detection.end >= end);
}
