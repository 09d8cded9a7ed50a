// Chunking for /v1/rag/ingest: each strategy's boundaries, the size rules of interface.md 4.9
// and section 8, and (fast-check) the invariants every strategy keeps on arbitrary text and
// entity spans: chunks are in order and in bounds, no boundary cuts an entity or a surrogate
// pair, every non-whitespace character is covered, and window sizes hold unless an entity
// forces a window to grow.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isVeilError } from '@veil/common';
import { detectAll } from '../detect/index.js';
import { CHUNKING_STRATEGIES, chunkText, MAX_CHUNKS_PER_DOCUMENT, resolveSizes, type ChunkingOptions, type Span } from './chunking.js';

const pieces = (text: string, options: ChunkingOptions): string[] => chunkText(text, options).map((span) => text.slice(span.start, span.end));

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return isVeilError(error) ? `${error.code}: ${error.message}` : String(error);
  }
  return undefined;
}

describe('paragraph strategy', () => {
  it('splits at blank lines and trims each paragraph', () => {
    const text = '  First paragraph.\nSame paragraph.\n\n\nSecond one.\r\n \r\nThird.\n';
    expect(pieces(text, { strategy: 'paragraph' })).toEqual(['First paragraph.\nSame paragraph.', 'Second one.', 'Third.']);
    const spans = chunkText(text, { strategy: 'paragraph' });
    expect(spans[0]).toEqual({ start: 2, end: text.indexOf('\n\n') });
  });

  it('merges paragraphs when a blank line lies inside an entity', () => {
    const text = 'Ship to 1 Main Street\n\nSpringfield please.\n\nThanks.';
    const avoid = [{ start: text.indexOf('1 Main'), end: text.indexOf(' please') }];
    expect(pieces(text, { strategy: 'paragraph', avoid })).toEqual(['Ship to 1 Main Street\n\nSpringfield please.', 'Thanks.']);
  });

  it('returns nothing for whitespace-only text', () => {
    expect(chunkText(' \n\n\t ', { strategy: 'paragraph' })).toEqual([]);
  });
});

describe('sentence strategy', () => {
  it('uses the locale segmenter but keeps abbreviations and initials in their sentence', () => {
    const text = 'Dr. Smith met J. Doe today. Write to a.b@example.com. Done!\nNext line';
    expect(pieces(text, { strategy: 'sentence', language: 'en' })).toEqual([
      'Dr. Smith met J. Doe today.',
      'Write to a.b@example.com.',
      'Done!',
      'Next line',
    ]);
  });

  it('never cuts inside a detected entity', () => {
    const text = 'Call 555. Then 0100 now. Bye.';
    expect(pieces(text, { strategy: 'sentence' })).toEqual(['Call 555.', 'Then 0100 now.', 'Bye.']);
    const avoid = [{ start: 5, end: text.indexOf(' now') }];
    expect(pieces(text, { strategy: 'sentence', avoid })).toEqual(['Call 555. Then 0100 now.', 'Bye.']);
  });

  it('falls back to the root rules for an unsupported language tag', () => {
    expect(pieces('One. Two.', { strategy: 'sentence', language: 'zz-Xxxx' })).toEqual(['One.', 'Two.']);
  });
});

describe('fixed and sliding_window strategies', () => {
  const text = 'abcdefghij'.repeat(30); // 300 characters

  it('cuts fixed windows of chunk_size characters', () => {
    expect(chunkText(text, { strategy: 'fixed', chunkSize: 100 })).toEqual([
      { start: 0, end: 100 },
      { start: 100, end: 200 },
      { start: 200, end: 300 },
    ]);
  });

  it('pulls a fixed boundary back to the start of an entity it would cut', () => {
    const avoid = [{ start: 90, end: 120 }];
    expect(chunkText(text, { strategy: 'fixed', chunkSize: 100, avoid })).toEqual([
      { start: 0, end: 90 },
      { start: 90, end: 190 },
      { start: 190, end: 290 },
      { start: 290, end: 300 },
    ]);
  });

  it('grows a window over an entity longer than the window', () => {
    const avoid = [{ start: 0, end: 150 }];
    expect(chunkText(text, { strategy: 'fixed', chunkSize: 100, avoid })[0]).toEqual({ start: 0, end: 150 });
  });

  it('slides windows by chunk_size - chunk_overlap', () => {
    expect(chunkText(text, { strategy: 'sliding_window', chunkSize: 100, chunkOverlap: 40 })).toEqual([
      { start: 0, end: 100 },
      { start: 60, end: 160 },
      { start: 120, end: 220 },
      { start: 180, end: 280 },
      { start: 240, end: 300 },
    ]);
    // Default overlap: a fifth of the window.
    expect(chunkText(text, { strategy: 'sliding_window', chunkSize: 100 })[1]).toEqual({ start: 80, end: 180 });
  });

  it('counts characters as code points, never splitting a surrogate pair', () => {
    const emoji = '😀'.repeat(150); // 150 code points, 300 UTF-16 units
    const spans = chunkText(emoji, { strategy: 'fixed', chunkSize: 100 });
    expect(spans).toEqual([
      { start: 0, end: 200 },
      { start: 200, end: 300 },
    ]);
  });

  it('drops whitespace-only windows', () => {
    const sparse = `${'x'.repeat(100)}${' '.repeat(100)}${'y'.repeat(100)}`;
    expect(pieces(sparse, { strategy: 'fixed', chunkSize: 100 })).toEqual(['x'.repeat(100), 'y'.repeat(100)]);
  });
});

describe('size rules', () => {
  it('requires chunk_size >= 100 and chunk_overlap < chunk_size', () => {
    expect(codeOf(() => resolveSizes({ strategy: 'fixed', chunkSize: 99 }))).toMatch(/^VEIL_VALIDATION_FAILED: chunk_size:/);
    expect(codeOf(() => resolveSizes({ strategy: 'fixed', chunkSize: 100.5 }))).toMatch(/^VEIL_VALIDATION_FAILED: chunk_size:/);
    expect(codeOf(() => resolveSizes({ strategy: 'sliding_window', chunkSize: 100, chunkOverlap: 100 }))).toMatch(/^VEIL_VALIDATION_FAILED: chunk_overlap:/);
    expect(codeOf(() => resolveSizes({ strategy: 'sliding_window', chunkSize: 100, chunkOverlap: -1 }))).toMatch(/^VEIL_VALIDATION_FAILED: chunk_overlap:/);
    expect(resolveSizes({ strategy: 'sliding_window', chunkSize: 100, chunkOverlap: 99 })).toEqual({ size: 100, overlap: 99 });
  });

  it('refuses size knobs where they have no meaning', () => {
    expect(codeOf(() => resolveSizes({ strategy: 'paragraph', chunkSize: 500 }))).toMatch(/chunk_size: applies only to/);
    expect(codeOf(() => resolveSizes({ strategy: 'sentence', chunkSize: 500 }))).toMatch(/chunk_size: applies only to/);
    expect(codeOf(() => resolveSizes({ strategy: 'fixed', chunkSize: 500, chunkOverlap: 10 }))).toMatch(/chunk_overlap: applies only to/);
  });

  it('refuses a document that yields too many chunks', () => {
    const text = 'x'.repeat(100 * (MAX_CHUNKS_PER_DOCUMENT + 1));
    expect(codeOf(() => chunkText(text, { strategy: 'fixed', chunkSize: 100 }))).toMatch(/^VEIL_LIMIT_EXCEEDED: text:/);
  });
});

describe('real detections', () => {
  it('keeps every detected value whole in one chunk, whatever the strategy', () => {
    const text = Array.from({ length: 40 }, (_, index) => `Row ${index}: mail person${index}@example.com or call +1 415 555 01${String(index).padStart(2, '0')}.`).join(' ');
    const detections = detectAll(text, {});
    expect(detections.length).toBeGreaterThan(40);
    for (const strategy of CHUNKING_STRATEGIES) {
      const sized = strategy === 'fixed' || strategy === 'sliding_window';
      const spans = chunkText(text, { strategy, avoid: detections, ...(sized ? { chunkSize: 100 } : {}) });
      for (const detection of detections) {
        const holders = spans.filter((span) => span.start <= detection.start && detection.end <= span.end);
        expect(holders.length, `${strategy}: ${detection.type}`).toBeGreaterThan(0);
        for (const span of spans) {
          const cuts = (span.start > detection.start && span.start < detection.end) || (span.end > detection.start && span.end < detection.end);
          expect(cuts).toBe(false);
        }
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

const alphabet = fc.constantFrom('a', 'b', ' ', '.', '\n', 'é', '😀', '。', 'Z', '!');
const documents = fc.array(alphabet, { minLength: 0, maxLength: 600 }).map((chars) => chars.join(''));

/** Random non-overlapping entity spans on code point boundaries of `text`. */
function entitySpans(text: string, seeds: readonly [number, number][]): Span[] {
  const boundaries: number[] = [];
  for (let unit = 0; unit <= text.length; ) {
    boundaries.push(unit);
    const code = text.charCodeAt(unit);
    unit += code >= 0xd800 && code <= 0xdbff ? 2 : 1;
  }
  const spans: Span[] = [];
  let floor = 0;
  for (const [startSeed, lengthSeed] of seeds) {
    const candidates = boundaries.filter((position) => position >= floor);
    if (candidates.length < 2) break;
    const startIndex = startSeed % (candidates.length - 1);
    const endIndex = Math.min(candidates.length - 1, startIndex + 1 + (lengthSeed % 40));
    spans.push({ start: candidates[startIndex]!, end: candidates[endIndex]! });
    floor = candidates[endIndex]!;
  }
  return spans;
}

const codePoints = (text: string): number => [...text].length;

describe('chunking properties', () => {
  const arbitraryOptions = fc.record({
    strategy: fc.constantFrom(...CHUNKING_STRATEGIES),
    size: fc.integer({ min: 100, max: 250 }),
    overlapFraction: fc.double({ min: 0, max: 0.99, noNaN: true }),
    seeds: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 12 }),
  });

  it('keeps chunks ordered, in bounds, whole around entities and pairs, and covering the text', () => {
    fc.assert(
      fc.property(documents, arbitraryOptions, (text, { strategy, size, overlapFraction, seeds }) => {
        const avoid = entitySpans(text, seeds);
        const sized = strategy === 'fixed' || strategy === 'sliding_window';
        const overlap = Math.min(size - 1, Math.floor(size * overlapFraction));
        const options: ChunkingOptions = {
          strategy,
          avoid,
          ...(sized ? { chunkSize: size } : {}),
          ...(strategy === 'sliding_window' ? { chunkOverlap: overlap } : {}),
        };
        const spans = chunkText(text, options);
        let previousStart = -1;
        let previousEnd = 0;
        for (const span of spans) {
          expect(span.start).toBeGreaterThanOrEqual(0);
          expect(span.end).toBeLessThanOrEqual(text.length);
          expect(span.start).toBeLessThan(span.end);
          expect(span.start).toBeGreaterThan(previousStart);
          if (strategy === 'paragraph' || strategy === 'sentence' || strategy === 'fixed') expect(span.start).toBeGreaterThanOrEqual(previousEnd);
          previousStart = span.start;
          previousEnd = span.end;
          // Never between the halves of a surrogate pair.
          for (const edge of [span.start, span.end]) {
            const code = text.charCodeAt(edge);
            expect(edge < text.length && code >= 0xdc00 && code <= 0xdfff).toBe(false);
          }
          // Never inside an entity.
          for (const entity of avoid) {
            expect(span.start > entity.start && span.start < entity.end).toBe(false);
            expect(span.end > entity.start && span.end < entity.end).toBe(false);
          }
          // Not all whitespace.
          expect(text.slice(span.start, span.end).trim()).not.toBe('');
          if (sized) {
            const length = codePoints(text.slice(span.start, span.end));
            const forced = avoid.some((entity) => entity.start < span.end && entity.end > span.start && (entity.start <= span.start || entity.end >= span.end));
            if (!forced) expect(length).toBeLessThanOrEqual(size);
          }
        }
        // Every non-whitespace character belongs to a chunk.
        for (let unit = 0; unit < text.length; unit += 1) {
          if (/\s/.test(text[unit]!)) continue;
          expect(spans.some((span) => span.start <= unit && unit < span.end)).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('gives consecutive sliding windows the requested overlap unless an entity moves a boundary', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 300, maxLength: 900, unit: fc.constantFrom('a', 'b', 'c') }), fc.integer({ min: 100, max: 200 }), fc.integer({ min: 0, max: 99 }), (text, size, overlap) => {
        const spans = chunkText(text, { strategy: 'sliding_window', chunkSize: size, chunkOverlap: overlap });
        for (let index = 1; index < spans.length; index += 1) {
          expect(spans[index]!.start - spans[index - 1]!.start).toBe(size - overlap);
          expect(spans[index - 1]!.end - spans[index - 1]!.start).toBe(size);
        }
        expect(spans.at(-1)!.end).toBe(text.length);
      }),
      { numRuns: 200 },
    );
  });
});
