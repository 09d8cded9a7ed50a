// The NER label filter: field labels the model tags as names are dropped only where they stand
// right before a value a regex detector found; real names, and label words used as names, stay.
import { describe, expect, it } from 'vitest';
import { detectAll } from './index.js';
import { dropLabelSpans, LABEL_WORDS } from './ner-filter.js';
import { mergeDetections } from '../../services/transform.js';
import type { Detection } from '../types.js';

function ner(text: string, word: string, type = 'person'): Detection {
  const start = text.indexOf(word);
  return { type, start, end: start + word.length, value: word, confidence: 0.85, detector: 'python_ner' };
}

describe('NER label filter', () => {
  it('knows the catalog label words', () => {
    for (const word of ['email', 'e-mail', 'phone', 'iban', 'ssn', 'call', 'passport']) expect(LABEL_WORDS.has(word)).toBe(true);
    expect(LABEL_WORDS.has('maria')).toBe(false);
  });

  it.each([
    ['Email jane.doe@example.com today', 'Email', 'person'],
    ['Email: jane.doe@example.com', 'Email', 'person'],
    ['IBAN DE89370400440532013000 please', 'IBAN', 'organization'],
    ['Phone: +44 20 7946 0958', 'Phone', 'person'],
  ])('drops the label in %j', (text, word, type) => {
    const regex = detectAll(text, { customPatterns: [], language: 'en' });
    expect(regex.length).toBeGreaterThan(0);
    const merged = mergeDetections(regex, [ner(text, word, type)]);
    expect(merged.some((detection) => detection.detector === 'python_ner')).toBe(false);
    expect(merged.map((detection) => detection.type)).toEqual(regex.map((detection) => detection.type));
  });

  it('keeps real names, label words used as names, and labels with no value after them', () => {
    const cases: [string, string][] = [
      ['Ask Maria Gonzalez about jane.doe@example.com', 'Maria Gonzalez'],
      ['Tin will send the report', 'Tin'], // a first name that is also an SSN context word
      ['Email is down again, says ops', 'Email'], // no value follows: not a field label here
      ['Maria Email wrote to jane.doe@example.com', 'Maria Email'],
    ];
    for (const [text, word] of cases) {
      const regex = detectAll(text, { customPatterns: [], language: 'en' });
      const span = ner(text, word);
      expect(dropLabelSpans([span], regex)).toEqual([span]);
    }
  });

  it('leaves locations and organizations that are not label words alone', () => {
    const text = 'Acme Corp in Berlin: jane.doe@example.com';
    const regex = detectAll(text, { customPatterns: [], language: 'en' });
    const spans = [ner(text, 'Acme Corp', 'organization'), ner(text, 'Berlin', 'location')];
    expect(dropLabelSpans(spans, regex)).toEqual(spans);
  });
});
