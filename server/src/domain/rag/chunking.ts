// Document chunking for /v1/rag/ingest (interface.md 4.9): `paragraph` (default), `sentence`
// (Intl.Segmenter), `fixed` and `sliding_window`. Pure: it returns UTF-16 ranges into the
// original document; the HTTP edge converts them to code points like every other offset.
//
// Entities are never cut in half: the caller detects on the whole document first and passes the
// detected spans as `avoid`; no chunk boundary ever falls strictly inside one of them (a fixed
// window grows past chunk_size when an entity straddles its end rather than split the value, so
// the token a value gets is always whole inside one chunk). Sizes count code points ("characters"
// in the API's unit), so a boundary never falls between the halves of a surrogate pair either.
// Chunks that hold only whitespace are dropped; paragraph and sentence chunks are trimmed.
import { VeilError } from '@veil/common';
import { isAbbreviation } from '../stream/segments.js';
import { utf16ToCodePoints } from '../text/codepoints.js';

export const CHUNKING_STRATEGIES = ['paragraph', 'sentence', 'fixed', 'sliding_window'] as const;
export type ChunkingStrategy = (typeof CHUNKING_STRATEGIES)[number];

/** interface.md section 8: chunk_size is at least 100 when supplied. */
export const MIN_CHUNK_SIZE = 100;
export const MAX_CHUNK_SIZE = 1_000_000;
export const DEFAULT_CHUNK_SIZE = 1000;
/** A document yielding more chunks than this is refused (each chunk carries a sealed blob). */
export const MAX_CHUNKS_PER_DOCUMENT = 10_000;

export interface Span {
  readonly start: number;
  readonly end: number;
}

export interface ChunkingOptions {
  readonly strategy: ChunkingStrategy;
  /** Code points per chunk (fixed, sliding_window). */
  readonly chunkSize?: number | undefined;
  /** Code points shared by consecutive windows (sliding_window only). */
  readonly chunkOverlap?: number | undefined;
  /** Locale for sentence segmentation. */
  readonly language?: string | undefined;
  /** UTF-16 spans (any order, may overlap) that no boundary may cut: the detected entities. */
  readonly avoid?: readonly Span[] | undefined;
}

/** The sliding-window overlap when none is given: a fifth of the window. */
export function defaultOverlap(chunkSize: number): number {
  return Math.floor(chunkSize / 5);
}

/**
 * Validate the size knobs against the strategy. chunk_size belongs to fixed and sliding_window,
 * chunk_overlap to sliding_window only; sending one where it has no meaning is refused rather
 * than silently ignored, so a caller never believes a limit applied that did not.
 */
export function resolveSizes(options: ChunkingOptions): { size: number; overlap: number } {
  const { strategy, chunkSize, chunkOverlap } = options;
  if (chunkSize !== undefined && strategy !== 'fixed' && strategy !== 'sliding_window') {
    throw new VeilError('VEIL_VALIDATION_FAILED', `chunk_size: applies only to the fixed and sliding_window strategies`);
  }
  if (chunkOverlap !== undefined && strategy !== 'sliding_window') {
    throw new VeilError('VEIL_VALIDATION_FAILED', 'chunk_overlap: applies only to the sliding_window strategy');
  }
  const size = chunkSize ?? DEFAULT_CHUNK_SIZE;
  if (!Number.isSafeInteger(size) || size < MIN_CHUNK_SIZE || size > MAX_CHUNK_SIZE) {
    throw new VeilError('VEIL_VALIDATION_FAILED', `chunk_size: must be an integer from ${MIN_CHUNK_SIZE} to ${MAX_CHUNK_SIZE}`);
  }
  const overlap = strategy === 'sliding_window' ? (chunkOverlap ?? defaultOverlap(size)) : 0;
  if (!Number.isSafeInteger(overlap) || overlap < 0 || overlap >= size) {
    throw new VeilError('VEIL_VALIDATION_FAILED', 'chunk_overlap: must be an integer from 0 to chunk_size - 1');
  }
  return { size, overlap };
}

/** Sorted, disjoint intervals from `spans` (touching intervals stay apart: their meeting point is a legal cut). */
function mergeSpans(spans: readonly Span[]): Span[] {
  const sorted = spans.filter((span) => span.end > span.start).map((span) => ({ start: span.start, end: span.end }));
  sorted.sort((a, b) => a.start - b.start);
  const merged: { start: number; end: number }[] = [];
  for (const span of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && span.start < last.end) last.end = Math.max(last.end, span.end);
    else merged.push(span);
  }
  return merged;
}

/** Cut positions that fall strictly inside a protected interval are illegal. */
class CutGuard {
  readonly #intervals: readonly Span[];

  constructor(spans: readonly Span[]) {
    this.#intervals = mergeSpans(spans);
  }

  /** The interval strictly containing `position`, if any (binary search). */
  blocking(position: number): Span | undefined {
    let low = 0;
    let high = this.#intervals.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (this.#intervals[middle]!.start < position) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    const span = found >= 0 ? this.#intervals[found] : undefined;
    return span !== undefined && position < span.end ? span : undefined;
  }

  /** The largest legal cut at or before `position`. */
  before(position: number): number {
    return this.blocking(position)?.start ?? position;
  }

  /** The smallest legal cut at or after `position`. */
  after(position: number): number {
    return this.blocking(position)?.end ?? position;
  }
}

function isWhitespace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0x85 || code === 0xa0 || code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff;
}

/** `[start, end)` without leading and trailing whitespace; null when nothing is left. */
function trimmed(text: string, start: number, end: number): Span | null {
  let from = start;
  let to = end;
  while (from < to && isWhitespace(text.charCodeAt(from))) from += 1;
  while (to > from && isWhitespace(text.charCodeAt(to - 1))) to -= 1;
  return from < to ? { start: from, end: to } : null;
}

function hasContent(text: string, start: number, end: number): boolean {
  return trimmed(text, start, end) !== null;
}

function pushChunk(chunks: Span[], chunk: Span): void {
  if (chunks.length >= MAX_CHUNKS_PER_DOCUMENT) {
    throw new VeilError('VEIL_LIMIT_EXCEEDED', `text: the document yields more than ${MAX_CHUNKS_PER_DOCUMENT} chunks; use a larger chunk_size`);
  }
  chunks.push(chunk);
}

/**
 * Split at the given boundaries (UTF-16, ascending), skipping any boundary inside a protected
 * span (its neighbours merge), then trim each piece and drop empty ones.
 */
function splitAt(text: string, boundaries: readonly number[], guard: CutGuard): Span[] {
  const chunks: Span[] = [];
  let start = 0;
  const emit = (end: number): void => {
    const piece = trimmed(text, start, end);
    // Trimming stops short of a protected span (a span may begin or end with whitespace).
    if (piece !== null) pushChunk(chunks, { start: guard.before(piece.start), end: guard.after(piece.end) });
    start = end;
  };
  for (const boundary of boundaries) {
    if (boundary <= start || boundary >= text.length) continue;
    if (guard.blocking(boundary) !== undefined) continue;
    emit(boundary);
  }
  emit(text.length);
  return chunks;
}

/** Boundaries after every blank line (a line break, optional horizontal space, a line break). */
function paragraphBoundaries(text: string): number[] {
  const boundaries: number[] = [];
  const separator = /\r?\n[ \t\f\v\r]*\n\s*/g;
  for (const match of text.matchAll(separator)) boundaries.push(match.index + match[0].length);
  return boundaries;
}

function sentenceSegmenter(language: string | undefined): Intl.Segmenter {
  try {
    return new Intl.Segmenter(language, { granularity: 'sentence' });
  } catch {
    // A syntactically valid but unsupported tag: the root locale's rules still work.
    return new Intl.Segmenter(undefined, { granularity: 'sentence' });
  }
}

/**
 * Sentence boundaries from the locale's segmenter, minus those right after an abbreviation or an
 * initial ("Dr.", "e.g.", "J."), which ICU's default rules treat as sentence ends.
 */
function sentenceBoundaries(text: string, language: string | undefined): number[] {
  const boundaries: number[] = [];
  for (const segment of sentenceSegmenter(language).segment(text)) {
    if (segment.index === 0) continue;
    let dot = segment.index - 1;
    while (dot > 0 && isWhitespace(text.charCodeAt(dot))) dot -= 1;
    if (text.charCodeAt(dot) === 0x2e && isAbbreviation(text, dot)) continue;
    boundaries.push(segment.index);
  }
  return boundaries;
}

/** Code point index -> UTF-16 offset, or null when the two coincide (no surrogates). */
function codePointOffsets(text: string): Uint32Array | null {
  if (!/[\uD800-\uDFFF]/.test(text)) return null;
  const offsets = new Uint32Array(text.length + 1);
  let point = 0;
  let unit = 0;
  while (unit < text.length) {
    offsets[point] = unit;
    const code = text.charCodeAt(unit);
    const pair = code >= 0xd800 && code <= 0xdbff && unit + 1 < text.length && (text.charCodeAt(unit + 1) & 0xfc00) === 0xdc00;
    unit += pair ? 2 : 1;
    point += 1;
  }
  offsets[point] = unit;
  return offsets.subarray(0, point + 1);
}

/**
 * Fixed and sliding windows, computed in code points. A window ends at start + size, pulled back
 * to the start of an entity it would cut, or pushed past the entity when the entity begins at or
 * before the window start (an entity longer than the window gets a chunk of its own size). The
 * next window starts `size - overlap` later, likewise moved off any entity; it always advances
 * and never starts after the previous window's end, so the windows cover the document.
 */
function windows(text: string, avoid: readonly Span[], size: number, overlap: number): Span[] {
  const toUnits = codePointOffsets(text);
  const length = toUnits === null ? text.length : toUnits.length - 1;
  let guardSpans = avoid;
  if (toUnits !== null) {
    const flat: number[] = [];
    for (const span of avoid) flat.push(span.start, span.end);
    const points = utf16ToCodePoints(text, flat);
    guardSpans = avoid.map((_, index) => ({ start: points[index * 2]!, end: points[index * 2 + 1]! }));
  }
  const guard = new CutGuard(guardSpans);
  const unit = (point: number): number => (toUnits === null ? point : toUnits[point]!);
  const step = size - overlap;
  const chunks: Span[] = [];
  let start = 0;
  while (start < length) {
    let end = Math.min(start + size, length);
    const pulled = guard.before(end);
    end = pulled > start ? pulled : guard.after(end);
    if (hasContent(text, unit(start), unit(end))) pushChunk(chunks, { start: unit(start), end: unit(end) });
    if (end >= length) break;
    const target = start + step;
    const pulledStart = guard.before(target);
    let next = pulledStart > start ? pulledStart : guard.after(target);
    if (next > end) next = end;
    start = next;
  }
  return chunks;
}

/** Chunk `text` (UTF-16 ranges, ascending by start). */
export function chunkText(text: string, options: ChunkingOptions): Span[] {
  const { size, overlap } = resolveSizes(options);
  const avoid = options.avoid ?? [];
  switch (options.strategy) {
    case 'paragraph':
      return splitAt(text, paragraphBoundaries(text), new CutGuard(avoid));
    case 'sentence':
      return splitAt(text, sentenceBoundaries(text, options.language), new CutGuard(avoid));
    case 'fixed':
      return windows(text, avoid, size, 0);
    case 'sliding_window':
      return windows(text, avoid, size, overlap);
  }
}
