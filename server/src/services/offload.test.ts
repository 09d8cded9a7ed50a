// Where detection runs (services/offload.ts): short texts with cheap caller patterns stay on the
// event loop; a long text, or caller patterns whose scan of even a short text would be long (a
// counted repetition expands into a large program), leave it for a worker thread.
import { describe, expect, it } from 'vitest';
import { compileCustomPatterns, patternScanCost } from '../domain/detect/index.js';
import { ANCHOR_WEIGHT, createOffload, detectsInline, INLINE_PATTERN_STEPS, jsonCost, textCost, textWithin } from './offload.js';

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

  it('textWithin: the decision for one text, exact at the bound', () => {
    const phone = '+1 415 555 0134';
    expect(textWithin(phone, 15 + 12 * ANCHOR_WEIGHT)).toBe(true);
    expect(textWithin(phone, 15 + 12 * ANCHOR_WEIGHT - 1)).toBe(false);
    expect(textWithin('x'.repeat(THRESHOLD), THRESHOLD)).toBe(true);
  });

  it('keeps prose near its length and puts a text of values far above it', () => {
    const prose = 'The meeting moved to Tuesday, and everyone agreed on the new plan. '.repeat(900);
    const phones = Array.from({ length: 3_700 }, (_, index) => `+1 415 555 ${String(index).padStart(4, '0')}`).join(', ');
    expect(full(prose)).toBeLessThan(prose.length * 1.1);
    expect(full(phones)).toBeGreaterThan(phones.length * 3);
    // Under the threshold by length, over it by cost: the decision sends it to a worker.
    expect(phones.length).toBeLessThan(THRESHOLD);
    expect(textWithin(phones, THRESHOLD)).toBe(false);
    expect(textWithin(prose.slice(0, 50_000), THRESHOLD)).toBe(true);
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
