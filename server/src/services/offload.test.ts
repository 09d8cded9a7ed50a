// Where detection runs (services/offload.ts): short texts with cheap caller patterns stay on the
// event loop; a long text, or caller patterns whose scan of even a short text would be long (a
// counted repetition expands into a large program), leave it for a worker thread.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileCustomPatterns, patternScanCost } from '../domain/detect/index.js';
import { ANCHOR_WEIGHT, createOffload, detectsInline, INLINE_PATTERN_STEPS, jsonCost, patternsInline, TEXT_ANCHOR_WEIGHT, TEXT_INLINE_FACTOR, textCost, transformsInline } from './offload.js';
import { textWithEntities } from '../bench/attacks.js';

const THRESHOLD = 65_536;
const patterns = (...sources: string[]) => compileCustomPatterns(sources.map((pattern, index) => ({ entity_type: `p${index}`, pattern })));

describe('textCost (what a transform weighs: values cost per value, not per byte)', () => {
  const full = (text: string): number => textCost(text, Infinity);

  it('adds ANCHOR_WEIGHT per digit or value punctuation to the length, nothing for letters and spaces', () => {
    expect(full('plain words here')).toBe(16);
    expect(full('+1 415 555 0134')).toBe(15 + 12 * ANCHOR_WEIGHT);
    expect(full('jane@example.com')).toBe(16 + 2 * ANCHOR_WEIGHT);
    expect(full('https://x.io/a_b=c-d:e')).toBe(22 + 9 * ANCHOR_WEIGHT);
  });

  it('is the character-at-a-time count on any text, anchors or not, stopping once past stopAt', () => {
    // The reference: the rule as written, one character and one set lookup at a time.
    const anchors = new Set('0123456789@:/.+-_=');
    const reference = (text: string, stopAt: number, weight: number): number => {
      let total = text.length;
      for (let index = 0; index < text.length && total <= stopAt; index += 1) if (anchors.has(text[index]!)) total += weight;
      return total;
    };
    const texts = fc.oneof(fc.string({ unit: fc.constantFrom(...'09@:/.+-_=aZ \u00e9\u0660\uff10\ud83d\ude00\u0130') }), fc.string({ unit: 'binary' }));
    fc.assert(
      fc.property(texts, fc.integer({ min: 0, max: 400 }), fc.constantFrom(ANCHOR_WEIGHT, TEXT_ANCHOR_WEIGHT), (text, stopAt, weight) => {
        expect(textCost(text, stopAt, weight)).toBe(reference(text, stopAt, weight));
        expect(textCost(text, Infinity, weight)).toBe(reference(text, Infinity, weight));
      }),
      { numRuns: 3000 },
    );
  });

  it('gives the same count on long texts, counted over their UTF-8 bytes in slices (session 11), stops included', () => {
    const anchors = new Set('0123456789@:/.+-_=');
    const reference = (text: string, stopAt: number, weight: number): number => {
      let total = text.length;
      for (let index = 0; index < text.length && total <= stopAt; index += 1) if (anchors.has(text[index]!)) total += weight;
      return total;
    };
    // Pieces that put surrogate pairs, lone surrogates and non-ASCII digits across the 16 K slice boundaries.
    const piece = fc.constantFrom('a', ' ', '7', '@', '.', '-', '\u00e9', '\u0660', '\uff10', '\ud83d\ude00', '\ud800', '\udfff', 'word ', '+1 415 555 0134 ');
    const longTexts = fc.array(piece, { minLength: 1200, maxLength: 9000 }).map((pieces) => pieces.join(''));
    fc.assert(
      fc.property(longTexts, fc.double({ min: 0.5, max: 3, noNaN: true }), fc.constantFrom(ANCHOR_WEIGHT, TEXT_ANCHOR_WEIGHT), (text, factor, weight) => {
        const stopAt = Math.floor(text.length * factor);
        expect(textCost(text, stopAt, weight)).toBe(reference(text, stopAt, weight));
        expect(textCost(text, text.length, weight)).toBe(reference(text, text.length, weight));
        expect(textCost(text, Infinity, weight)).toBe(reference(text, Infinity, weight));
      }),
      // No shrinking: a failing text of thousands of pieces would take minutes to shrink.
      { numRuns: 150, endOnFailure: true },
    );
    const benchmark = textWithEntities(100 * 1024, 180);
    for (const stopAt of [0, benchmark.length, 200_000, THRESHOLD * TEXT_INLINE_FACTOR, Infinity]) {
      expect(textCost(benchmark, stopAt, TEXT_ANCHOR_WEIGHT)).toBe(reference(benchmark, stopAt, TEXT_ANCHOR_WEIGHT));
    }
  });

  it('weighs anchors by the weight asked for (a text transform: TEXT_ANCHOR_WEIGHT)', () => {
    expect(textCost('+1 415 555 0134', Infinity, TEXT_ANCHOR_WEIGHT)).toBe(15 + 12 * TEXT_ANCHOR_WEIGHT);
    expect(textCost('plain words here', Infinity, TEXT_ANCHOR_WEIGHT)).toBe(16);
  });

  it('transformsInline: the decision for one text, exact at its budget of TEXT_INLINE_FACTOR thresholds', () => {
    const phone = '+1 415 555 0134';
    const cost = 15 + 12 * TEXT_ANCHOR_WEIGHT;
    expect(transformsInline(phone, cost / TEXT_INLINE_FACTOR)).toBe(true);
    expect(transformsInline(phone, (cost - 1) / TEXT_INLINE_FACTOR)).toBe(false);
    expect(transformsInline('x'.repeat(THRESHOLD * TEXT_INLINE_FACTOR), THRESHOLD)).toBe(true);
    expect(transformsInline('x'.repeat(THRESHOLD * TEXT_INLINE_FACTOR + 1), THRESHOLD)).toBe(false);
  });

  it('keeps a long text of prose with sparse values inline and sends a shorter text of values to a worker', () => {
    // The 100 KB benchmark text: above the threshold by length, within the budget by cost.
    const sparse = textWithEntities(100 * 1024, 180);
    expect(sparse.length).toBeGreaterThan(THRESHOLD);
    expect(transformsInline(sparse, THRESHOLD)).toBe(true);
    // Values every ~60 characters: the same length goes to a worker.
    expect(transformsInline(textWithEntities(100 * 1024, 60), THRESHOLD)).toBe(false);
    // Distinct phone numbers (the costliest class per byte): ~14 KB stays, 16 KB leaves.
    const phones = (count: number) => Array.from({ length: count }, (_, index) => `+1 415 555 ${String(index).padStart(4, '0')}`).join(', ');
    expect(transformsInline(phones(800), THRESHOLD)).toBe(true);
    expect(phones(940).length).toBeLessThan(16_500);
    expect(transformsInline(phones(940), THRESHOLD)).toBe(false);
    // Prose without anchors up to the budget's length (each full stop counts like a value's character).
    const prose = 'The meeting moved to Tuesday and everyone agreed on the new plan '.repeat(3_800);
    expect(prose.length).toBeGreaterThan(3 * THRESHOLD);
    expect(transformsInline(prose, THRESHOLD)).toBe(true);
  });

  it('stays cheap to decide: a short text is not read, a long one only until its cost passes the budget', () => {
    // Under budget / (1 + weight) characters the answer is true whatever the text holds.
    const short = '9'.repeat(Math.floor((THRESHOLD * TEXT_INLINE_FACTOR) / (1 + TEXT_ANCHOR_WEIGHT)));
    expect(transformsInline(short, THRESHOLD)).toBe(true);
    expect(transformsInline(`${short}9`, THRESHOLD)).toBe(false);
  });

  it('stops counting once past stopAt, and jsonCost weighs a document\'s strings with it when asked', () => {
    const digits = '7'.repeat(100_000);
    expect(textCost(digits, 1_000)).toBeGreaterThan(1_000);
    expect(textCost(digits, 1_000)).toBeLessThan(digits.length + 1_000);
    const document = { calls: ['+1 415 555 0134', '+1 415 555 0135'], note: 'hi' };
    expect(jsonCost(document, THRESHOLD, (text) => text.length * 2)).toBe(jsonCost(document, THRESHOLD) + 32);
  });
});

describe('detectsInline', () => {
  it('keeps a short text with cheap patterns (or none) on the event loop', () => {
    expect(detectsInline(1024, [], THRESHOLD)).toBe(true);
    expect(detectsInline(THRESHOLD, [], THRESHOLD)).toBe(true);
    expect(detectsInline(1024, patterns('TICKET-[0-9]{6}'), THRESHOLD)).toBe(true);
  });

  it('sends a text over the size threshold to a worker', () => {
    expect(detectsInline(THRESHOLD + 1, [], THRESHOLD)).toBe(false);
    // The patterns' own bound does not depend on the threshold (a transform weighs its text apart).
    expect(patternsInline(THRESHOLD * 4, [])).toBe(true);
    expect(patternsInline(THRESHOLD * 4, patterns('.{1000}'))).toBe(false);
  });

  it('sends a short text to a worker when the patterns make its scan long', () => {
    const heavy = patterns('.{1000}');
    expect(patternScanCost(heavy)).toBeGreaterThan(1000);
    expect(detectsInline(64 * 1024, heavy, THRESHOLD)).toBe(false);
    // The budget counts every pattern: many medium ones add up like one large one.
    const medium = patterns(...Array.from({ length: 32 }, () => '[a-z]{60}'));
    expect(16 * 1024 * patternScanCost(medium)).toBeGreaterThan(INLINE_PATTERN_STEPS);
    expect(detectsInline(16 * 1024, medium, THRESHOLD)).toBe(false);
    expect(detectsInline(100, medium, THRESHOLD)).toBe(true);
  });

  it('finds the caller values on the worker', async () => {
    const offload = createOffload({ threshold: THRESHOLD, defaultRegion: 'US' });
    try {
      const text = `${'x'.repeat(3000)} ref ABCD-1234 ${'y'.repeat(3000)}`;
      const raw = [{ entity_type: 'ref', pattern: '[A-Z]{4}-[0-9]{4}' }, { entity_type: 'wide', pattern: '[a-z]{900}' }];
      const compiled = compileCustomPatterns(raw);
      expect(detectsInline(text.length, compiled, THRESHOLD)).toBe(false);
      const found = await offload.detect({ text, compiled, raw });
      expect(found.filter((detection) => detection.type === 'custom:ref').map((detection) => text.slice(detection.start, detection.end))).toEqual(['ABCD-1234']);
      expect(found.filter((detection) => detection.type === 'custom:wide')).toHaveLength(6);
    } finally {
      await offload.close();
    }
  });
});
