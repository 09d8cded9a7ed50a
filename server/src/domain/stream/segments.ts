// Sentence and paragraph segmentation for /v1/transform/stream frames (decisions.md section 8):
// the input is cut into segments, one frame each. Spans are preserved exactly: segments are
// contiguous, in order, and their texts concatenate to the input. A cut is placed after
// sentence-ending punctuation followed by whitespace (the whitespace stays with the sentence),
// after CJK full stops, and after a blank line; never inside a caller-supplied span to avoid
// (detections, so an entity is never split between frames), never between the halves of a
// surrogate pair, and never after a known abbreviation or a single-letter initial ("Dr.",
// "e.g.", "J. Smith"). Overlong segments are cut at the last whitespace before maxLength.
// Linear in the input.

export interface Segment {
  /** UTF-16 offset of the first character. */
  readonly start: number;
  /** UTF-16 offset just past the last character. */
  readonly end: number;
  readonly text: string;
}

export interface SegmentOptions {
  /** Spans (UTF-16, end exclusive) that must not be cut, e.g. detections; any order. */
  readonly avoid?: readonly { readonly start: number; readonly end: number }[];
  /** Soft upper bound of a segment's length in UTF-16 units (default 2000; minimum 16). */
  readonly maxLength?: number;
}

export const DEFAULT_MAX_SEGMENT = 2000;

/** Words that end in a period without ending a sentence (lowercase, without the period). */
const ABBREVIATIONS = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'mt', 'no', 'nr', 'vs', 'etc', 'e.g', 'i.e', 'cf', 'approx', 'dept',
  'inc', 'ltd', 'co', 'corp', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec',
  'fig', 'p', 'pp', 'a.m', 'p.m', 'vol', 'ca', 'bzw', 'usw', 'z.b', 'd.h', 'hr', 'fr', 'frau', 'herr', 'mme', 'mlle', 'sra',
]);

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d || code === 0x0c || code === 0xa0 || code === 0x3000;
}

/** `.`, `!`, `?`, `…` end a sentence when whitespace follows. */
function isTerminator(code: number): boolean {
  return code === 0x2e || code === 0x21 || code === 0x3f || code === 0x2026;
}

/** CJK full stop, exclamation and question marks end a sentence without whitespace. */
function isCjkTerminator(code: number): boolean {
  return code === 0x3002 || code === 0xff01 || code === 0xff1f;
}

/** Closing quotes and brackets that belong to the sentence they close. */
function isCloser(code: number): boolean {
  return code === 0x22 || code === 0x27 || code === 0x29 || code === 0x5d || code === 0x201d || code === 0x2019 || code === 0xbb || code === 0x300d || code === 0x300f;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function isAsciiLetter(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a);
}

/** Does the `.` at `dot` end an abbreviation or an initial rather than a sentence? */
export function isAbbreviation(text: string, dot: number): boolean {
  let start = dot;
  while (start > 0 && dot - start < 12) {
    const code = text.charCodeAt(start - 1);
    if (!isAsciiLetter(code) && code !== 0x2e) break;
    start -= 1;
  }
  if (start === dot) return false;
  if (start > 0 && isAsciiLetter(text.charCodeAt(start - 1))) return false; // word longer than the window
  const word = text.slice(start, dot).toLowerCase();
  if (word.length === 1 && text.charCodeAt(start) <= 0x5a) return true; // an initial: "J."
  return ABBREVIATIONS.has(word);
}

/** Candidate cut positions (natural boundaries), ascending, excluding 0 and text.length. */
function naturalBoundaries(text: string): number[] {
  const cuts: number[] = [];
  const length = text.length;
  let index = 0;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code === 0x0a) {
      // A blank line: two or more line breaks with only horizontal whitespace between.
      let cursor = index + 1;
      let breaks = 1;
      while (cursor < length) {
        const next = text.charCodeAt(cursor);
        if (next === 0x0a) breaks += 1;
        else if (next !== 0x20 && next !== 0x09 && next !== 0x0d) break;
        cursor += 1;
      }
      if (breaks >= 2 && cursor < length) cuts.push(cursor);
      index = cursor;
      continue;
    }
    if (isCjkTerminator(code)) {
      let cursor = index + 1;
      while (cursor < length && (isCloser(text.charCodeAt(cursor)) || isCjkTerminator(text.charCodeAt(cursor)))) cursor += 1;
      while (cursor < length && isSpace(text.charCodeAt(cursor))) cursor += 1;
      if (cursor < length) cuts.push(cursor);
      index = cursor;
      continue;
    }
    if (isTerminator(code)) {
      let cursor = index + 1;
      while (cursor < length && (isTerminator(text.charCodeAt(cursor)) || isCloser(text.charCodeAt(cursor)))) cursor += 1;
      const afterMarks = cursor;
      while (cursor < length && isSpace(text.charCodeAt(cursor))) cursor += 1;
      const sentenceEnd = cursor > afterMarks && cursor < length && !(code === 0x2e && afterMarks === index + 1 && isAbbreviation(text, index));
      if (sentenceEnd) cuts.push(cursor);
      index = Math.max(cursor, index + 1);
      continue;
    }
    index += 1;
  }
  return cuts;
}

/** Merge `avoid` into sorted, disjoint intervals. */
function normalizeAvoid(avoid: readonly { readonly start: number; readonly end: number }[]): { start: number; end: number }[] {
  const sorted = avoid.filter((span) => span.end > span.start).map((span) => ({ start: span.start, end: span.end })).sort((a, b) => a.start - b.start);
  const merged: { start: number; end: number }[] = [];
  for (const span of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && span.start < last.end) last.end = Math.max(last.end, span.end);
    else merged.push(span);
  }
  return merged;
}

/** Split `text` into contiguous segments whose texts concatenate to `text`. */
export function splitSegments(text: string, options: SegmentOptions = {}): Segment[] {
  if (text.length === 0) return [];
  const maxLength = Math.max(16, options.maxLength ?? DEFAULT_MAX_SEGMENT);
  const avoid = normalizeAvoid(options.avoid ?? []);
  /** The avoided interval strictly containing `position`, if any (binary search). */
  const blockedBy = (position: number): { start: number; end: number } | undefined => {
    let low = 0;
    let high = avoid.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (avoid[middle]!.start < position) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    const span = found >= 0 ? avoid[found] : undefined;
    return span !== undefined && position < span.end ? span : undefined;
  };
  const splitsPair = (position: number): boolean => position > 0 && position < text.length && isLowSurrogate(text.charCodeAt(position));

  const segments: Segment[] = [];
  let start = 0;
  const emit = (end: number): void => {
    segments.push({ start, end, text: text.slice(start, end) });
    start = end;
  };
  /** Cut overlong stretches between `start` and `limit` (a natural boundary or the end). */
  const capLength = (limit: number): void => {
    while (limit - start > maxLength) {
      let cut = -1;
      for (let probe = start + maxLength; probe > start + maxLength / 2; probe -= 1) {
        if (isSpace(text.charCodeAt(probe - 1)) && !isSpace(text.charCodeAt(probe)) && blockedBy(probe) === undefined) {
          cut = probe;
          break;
        }
      }
      if (cut < 0) {
        cut = start + maxLength;
        const span = blockedBy(cut);
        if (span !== undefined) cut = span.start > start ? span.start : span.end;
        if (splitsPair(cut)) cut += 1;
        if (cut >= limit) return;
      }
      emit(cut);
    }
  };

  for (const boundary of naturalBoundaries(text)) {
    if (boundary <= start) continue;
    if (blockedBy(boundary) !== undefined || splitsPair(boundary)) continue;
    capLength(boundary);
    if (boundary > start) emit(boundary);
  }
  capLength(text.length);
  if (start < text.length) emit(text.length);
  return segments;
}
