// Values split across JSON members: `{"user": "alice.smith", "domain": "@corp.example"}`, a card
// as `[4111, 1111, 1111, 1111]` or as strings, `{"cc": "+44", "number": "7700 900123"}`, an IBAN
// in groups. Each member alone is no personal data, so the per-slot scan lets every part through.
//
// The rule (a class, not a list of shapes): adjacent scalar siblings of one object or array
// (strings and numbers, in order; anything else breaks the run) are also read as one text, the
// parts joined by a space, or by nothing where one side of the seam is an `@`, after the words of
// the container's key and the run's member keys as context. A pattern detection there that
// crosses a seam is a value split across members; each member gets the part of it that it holds
// (a detection of the same type over that part), so every part becomes its own token of the
// entity's type and nothing of the value stays raw. Names (person, location, organization) are
// left to the per-slot scan: a first and a last name field are two values, not one split.
//
// A long string (a sentence) takes part with its edges only: its head joins the member before it
// and its tail the member after, and a run breaks between them, so a paragraph is never read
// twice and cost stays bounded. A run is read only when it holds an `@` or six digits or more
// (what a split e-mail address, card, IBAN, phone or national id leaves), so most ordinary JSON
// costs no extra pass. Only detections at NUMBER_MIN_CONFIDENCE or above count, like a number's.
// Pure: detection is passed in.
import type { Detection } from '../types.js';

/**
 * A part of a split value: a detection of the value's type over the member's part, with the whole
 * value as read joined (what a revocation of the value names; TokenEntry.wholes).
 */
export interface SplitPart extends Detection {
  readonly whole: string;
}

/** The whole value a detection is a part of, when it is one (spreads of a SplitPart keep it). */
export function wholeOf(detection: Detection): string | undefined {
  const whole = (detection as Partial<SplitPart>).whole;
  return typeof whole === 'string' ? whole : undefined;
}

/** Characters of a long slot read at each edge; a slot up to twice this is read whole. */
export const JOIN_EDGE = 64;

/** Types a per-slot scan owns (two name fields are two values). */
const NOT_JOINED: ReadonlySet<string> = new Set(['person', 'location', 'organization']);

/** One piece of a run: `text` is `slot`'s text from `offset` on. */
interface Segment {
  readonly slot: number;
  readonly offset: number;
  readonly text: string;
}

function seam(left: string, right: string): string {
  return left.endsWith('@') || right.startsWith('@') ? '' : ' ';
}

/**
 * Runs of segments: adjacent scalar slots; a long slot ends one run with its head and starts the
 * next with its tail. A slot that holds nothing (null: a JSON null, a boolean, an empty
 * container; an empty string) is passed over (session 12: `["4111", null, "1111", …]`).
 */
function runsOf(slots: readonly (string | null | undefined)[]): Segment[][] {
  const runs: Segment[][] = [];
  let run: Segment[] = [];
  const close = (): void => {
    if (run.length >= 2) runs.push(run);
    run = [];
  };
  slots.forEach((text, slot) => {
    if (text === null || text === '') return;
    if (text === undefined) {
      close();
      return;
    }
    if (text.length <= 2 * JOIN_EDGE) {
      run.push({ slot, offset: 0, text });
      return;
    }
    run.push({ slot, offset: 0, text: text.slice(0, JOIN_EDGE) });
    close();
    run.push({ slot, offset: text.length - JOIN_EDGE, text: text.slice(text.length - JOIN_EDGE) });
  });
  close();
  return runs;
}

/** Fewest digits a run must hold to be read (an SSN has 9, a national phone number 7 or more). */
const MIN_RUN_DIGITS = 6;
const DIGIT = /\p{Nd}/gu;

/**
 * Can the run hold a split value at all: an `@` (an e-mail address) or at least MIN_RUN_DIGITS
 * digits (cards, IBANs, phones, national ids)? Span records (`{"type": "phone", "start": 19,
 * "end": 32}`) and short counts are not read, which keeps ordinary JSON at one pass.
 */
function mayHoldValue(run: readonly Segment[]): boolean {
  let digits = 0;
  for (const segment of run) {
    if (segment.text.includes('@')) return true;
    digits += segment.text.match(DIGIT)?.length ?? 0;
    if (digits >= MIN_RUN_DIGITS) return true;
  }
  return false;
}

/** The run read as one text after `prefix`, and where each segment starts in it. */
function joined(prefix: string, run: readonly Segment[]): { text: string; starts: number[] } {
  let text = prefix;
  const starts: number[] = [];
  run.forEach((segment, index) => {
    if (index > 0) text += seam(run[index - 1]!.text, segment.text);
    starts.push(text.length);
    text += segment.text;
  });
  return { text, starts };
}

/**
 * Is the detection still there when only the members it touches are read (after the keys)? A
 * neighbour's value is no context: in `{"type": "phone", "start": 149, "end": 163}` the word
 * `phone` is data, and `149 163` is no phone number without it.
 */
function standsAlone(
  prefix: string,
  run: readonly Segment[],
  first: number,
  last: number,
  detection: Detection,
  starts: readonly number[],
  detect: (text: string) => readonly Detection[],
  minConfidence: number,
): boolean {
  const own = joined(prefix, run.slice(first, last + 1));
  const shift = own.starts[0]! - starts[first]!;
  const start = detection.start + shift;
  const end = detection.end + shift;
  return detect(own.text).some((other) => other.type === detection.type && other.confidence >= minConfidence && other.start <= start && end <= other.end);
}

/**
 * Detections of values split across the slots of one container, per slot index, in the slot's
 * own coordinates (sorted, non-overlapping). `slots[i]` is the text of a scalar member (a string,
 * or a number's JSON text), null for a member that holds nothing (passed over), or undefined for
 * anything else (it breaks the run); `context` is read before each run.
 */
export function splitValueParts(
  slots: readonly (string | null | undefined)[],
  context: string,
  detect: (text: string) => readonly Detection[],
  minConfidence: number,
): Map<number, Detection[]> {
  const parts = new Map<number, Detection[]>();
  const prefix = context.length > 0 ? `${context}: ` : '';
  for (const run of runsOf(slots)) {
    if (!mayHoldValue(run)) continue;
    const { text, starts } = joined(prefix, run);
    for (const detection of detect(text)) {
      if (detection.start < prefix.length || detection.confidence < minConfidence || NOT_JOINED.has(detection.type)) continue;
      const touched = run
        .map((segment, index) => ({ segment, index, start: Math.max(detection.start, starts[index]!), end: Math.min(detection.end, starts[index]! + segment.text.length) }))
        .filter((piece) => piece.start < piece.end);
      if (touched.length < 2 || !standsAlone(prefix, run, touched[0]!.index, touched.at(-1)!.index, detection, starts, detect, minConfidence)) continue;
      for (const piece of touched) {
        const { segment } = piece;
        const start = piece.start - starts[piece.index]! + segment.offset;
        const end = piece.end - starts[piece.index]! + segment.offset;
        const own = slots[segment.slot] ?? '';
        const list = parts.get(segment.slot) ?? [];
        if (list.some((other) => other.start < end && start < other.end)) continue;
        const part: SplitPart = { type: detection.type, start, end, value: own.slice(start, end), confidence: detection.confidence, detector: detection.detector, whole: detection.value };
        list.push(part);
        parts.set(segment.slot, list);
      }
    }
  }
  for (const list of parts.values()) list.sort((a, b) => a.start - b.start);
  return parts;
}
