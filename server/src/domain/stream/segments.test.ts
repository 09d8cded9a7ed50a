// Segmentation for the transform stream: segments are contiguous and concatenate to the input,
// cuts fall on sentence and paragraph boundaries, never inside an avoided span (a detection)
// or a surrogate pair, and overlong stretches are bounded.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectAll } from '../detect/index.js';
import { splitSegments } from './segments.js';

const texts = (text: string, options?: Parameters<typeof splitSegments>[1]): string[] => splitSegments(text, options).map((segment) => segment.text);

describe('splitSegments', () => {
  it('cuts after sentences and blank lines, keeping the whitespace with the sentence', () => {
    expect(texts('Hello there. How are you? Fine!  Bye')).toEqual(['Hello there. ', 'How are you? ', 'Fine!  ', 'Bye']);
    expect(texts('First paragraph\n\nSecond line\nstill second\n \nThird')).toEqual(['First paragraph\n\n', 'Second line\nstill second\n \n', 'Third']);
    expect(texts('He said "stop." Then left.')).toEqual(['He said "stop." ', 'Then left.']);
    expect(texts('你好。今天好吗？好！')).toEqual(['你好。', '今天好吗？', '好！']);
    expect(texts('Wait... what?! Yes.')).toEqual(['Wait... ', 'what?! ', 'Yes.']);
  });

  it('does not cut after abbreviations, initials or inside numbers and addresses', () => {
    expect(texts('Dr. Smith met J. R. Tolkien, e.g. at 3.14 p.m. on Jan. 5. Then he left.')).toEqual([
      'Dr. Smith met J. R. Tolkien, e.g. at 3.14 p.m. on Jan. 5. ',
      'Then he left.',
    ]);
    expect(texts('Mail ada.lovelace@example.com. Or visit https://example.com/a.b today.')).toEqual([
      'Mail ada.lovelace@example.com. ',
      'Or visit https://example.com/a.b today.',
    ]);
  });

  it('never cuts inside an avoided span', () => {
    const text = 'Call me at 555. 0100 tomorrow. Thanks.';
    const start = text.indexOf('555');
    const avoid = [{ start, end: text.indexOf(' tomorrow') }];
    expect(texts(text, { avoid })).toEqual(['Call me at 555. 0100 tomorrow. ', 'Thanks.']);
  });

  it('bounds overlong segments at whitespace, then anywhere but a pair or an avoided span', () => {
    const words = Array.from({ length: 400 }, (_, index) => `word${index}`).join(' ');
    for (const segment of splitSegments(words, { maxLength: 100 })) expect(segment.text.length).toBeLessThanOrEqual(100);
    const emoji = '😀'.repeat(300);
    const pieces = texts(emoji, { maxLength: 51 });
    expect(pieces.join('')).toBe(emoji);
    for (const piece of pieces) expect(piece).toMatch(/^(?:😀)+$/);
    const long = 'x'.repeat(50) + 'y'.repeat(100);
    expect(texts(long, { maxLength: 40, avoid: [{ start: 30, end: 120 }] })).toEqual(['x'.repeat(30), long.slice(30, 120), 'y'.repeat(30)]);
  });

  it('returns nothing for empty input and offsets that match the text', () => {
    expect(splitSegments('')).toEqual([]);
    const text = 'One. Two. Three.';
    for (const segment of splitSegments(text)) expect(text.slice(segment.start, segment.end)).toBe(segment.text);
  });

  it('keeps detections whole on real input', () => {
    const text = 'Reach ada@example.com. Card 4111 1111 1111 1111. SSN 078-05-1120.\n\nIP 10.0.0.7. Done.';
    const detections = detectAll(text, { language: 'en' });
    const segments = splitSegments(text, { avoid: detections });
    for (const detection of detections) {
      expect(segments.some((segment) => segment.start <= detection.start && detection.end <= segment.end)).toBe(true);
    }
    expect(segments.length).toBeGreaterThan(3);
  });

  it('property: contiguous, complete, no split pair, no cut in an avoided span', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.oneof(fc.constantFrom('.', '!', '?', ' ', '\n', '。', '"', 'a', 'B', '😀', '\u00a0'), fc.string({ maxLength: 1 })), maxLength: 300 }),
        fc.array(fc.tuple(fc.nat(), fc.nat({ max: 30 })), { maxLength: 5 }),
        fc.integer({ min: 16, max: 80 }),
        (text, rawAvoid, maxLength) => {
          const avoid = rawAvoid.map(([start, width]) => ({ start: start % (text.length + 1), end: Math.min(text.length, (start % (text.length + 1)) + width) }));
          const segments = splitSegments(text, { avoid, maxLength });
          expect(segments.map((segment) => segment.text).join('')).toBe(text);
          let position = 0;
          for (const segment of segments) {
            expect(segment.start).toBe(position);
            expect(segment.end).toBeGreaterThan(segment.start);
            position = segment.end;
            if (segment.end < text.length) {
              const code = text.charCodeAt(segment.end);
              expect(code >= 0xdc00 && code <= 0xdfff && text.charCodeAt(segment.end - 1) >= 0xd800 && text.charCodeAt(segment.end - 1) <= 0xdbff).toBe(false);
              for (const span of avoid) expect(span.start < segment.end && segment.end < span.end).toBe(false);
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
