// inferMetadata: salutations give gender and formality, the request hint gives language,
// policy-declared roles next to a person give role, and emails, phones and ids link to the person
// they belong to (by index), never across another person or a blank line.
import { describe, expect, it } from 'vitest';
import type { Detection } from '../types.js';
import { inferMetadata } from './metadata.js';

/** Detections for the quoted values of `text`, in order: [type, value] pairs. */
function spans(text: string, items: [string, string][]): Detection[] {
  let from = 0;
  return items.map(([type, value]) => {
    const start = text.indexOf(value, from);
    if (start < 0) throw new Error(`${value} not in text`);
    from = start + value.length;
    return { type, start, end: start + value.length, value, confidence: 0.9, detector: 'builtin_regex' };
  });
}

describe('inferMetadata', () => {
  it('reads gender and formality from salutations in several languages', () => {
    const cases: [string, string, 'female' | 'male' | undefined, 'formal' | 'informal'][] = [
      ['Dear Mrs. Jane Doe,', 'Jane Doe', 'female', 'formal'],
      ['Mr John Smith called', 'John Smith', 'male', 'formal'],
      ['Sehr geehrte Frau Anna Schmidt,', 'Anna Schmidt', 'female', 'formal'],
      ['Sehr geehrter Herr Max Müller,', 'Max Müller', 'male', 'formal'],
      ['Bonjour Madame Claire Dubois', 'Claire Dubois', 'female', 'formal'],
      ['Monsieur Paul Martin', 'Paul Martin', 'male', 'formal'],
      ['Estimada Sra. Lucía Pérez', 'Lucía Pérez', 'female', 'formal'],
      ['Gentile Signor Marco Rossi', 'Marco Rossi', 'male', 'formal'],
      ['Geachte mevrouw Eva de Vries', 'Eva de Vries', 'female', 'formal'],
      ['Prezado Senhor João Silva', 'João Silva', 'male', 'formal'],
      ['Dr. Alex Kim will see you', 'Alex Kim', undefined, 'formal'],
      ['Hi Sam, thanks', 'Sam', undefined, 'informal'],
      ['Liebe Anna, danke', 'Anna', 'female', 'informal'],
    ];
    for (const [text, name, gender, formality] of cases) {
      const [person] = inferMetadata(text, spans(text, [['person', name]]));
      expect(person?.gender, text).toBe(gender);
      expect(person?.formality, text).toBe(formality);
    }
  });

  it('leaves gender and formality unset without a salutation', () => {
    const text = 'Report by Jane Doe';
    const [person] = inferMetadata(text, spans(text, [['person', 'Jane Doe']]));
    expect(person).not.toHaveProperty('gender');
    expect(person).not.toHaveProperty('formality');
  });

  it('sets language from the hint, primary subtag only', () => {
    const text = 'Anruf von Max';
    const result = inferMetadata(text, spans(text, [['person', 'Max']]), { language: 'de-CH' });
    expect(result[0]?.language).toBe('de');
    expect(inferMetadata(text, spans(text, [['person', 'Max']]))[0]).not.toHaveProperty('language');
  });

  it('assigns declared roles only, with localized synonyms', () => {
    const text = 'Patient Jane Doe was seen. Die Patientin Anna Schmidt kam. Customer Bob Lee paid.';
    const detections = spans(text, [['person', 'Jane Doe'], ['person', 'Anna Schmidt'], ['person', 'Bob Lee']]);
    const result = inferMetadata(text, detections, { roles: ['patient'] });
    expect(result.map((d) => d.role)).toEqual(['patient', 'patient', undefined]);
    expect(inferMetadata(text, detections, { roles: ['customer'] }).map((d) => d.role)).toEqual([undefined, undefined, 'customer']);
    expect(inferMetadata(text, detections).every((d) => d.role === undefined)).toBe(true);
  });

  it('links emails, phones and ids to the nearest person before them', () => {
    const text = 'Name: Jane Doe\nEmail: contact@example.org\nPhone: +44 20 7946 0958\nSSN: 123-45-6789\n\nName: Bob Lee\nPhone: +1 415 555 0100';
    const detections = spans(text, [
      ['person', 'Jane Doe'], ['email', 'contact@example.org'], ['phone', '+44 20 7946 0958'], ['us_ssn', '123-45-6789'],
      ['person', 'Bob Lee'], ['phone', '+1 415 555 0100'],
    ]);
    const result = inferMetadata(text, detections);
    expect(result.map((d) => d.belongs_to)).toEqual([undefined, 0, 0, 0, undefined, 4]);
  });

  it('prefers the person whose name is in the email local part', () => {
    const text = 'Jane Doe and Bob Lee met; write to bob.lee@example.org';
    const detections = spans(text, [['person', 'Jane Doe'], ['person', 'Bob Lee'], ['email', 'bob.lee@example.org']]);
    expect(inferMetadata(text, detections)[2]?.belongs_to).toBe(1);
  });

  it('links a contact written right before its person', () => {
    const text = 'Contacts: jd@example.org (Jane Doe)';
    const detections = spans(text, [['email', 'jd@example.org'], ['person', 'Jane Doe']]);
    expect(inferMetadata(text, detections)[0]?.belongs_to).toBe(1);
  });

  it('does not link across a blank line, beyond the window, or non-personal types', () => {
    const text = `Jane Doe\n\nSupport: help@example.org ${'x'.repeat(300)} +44 20 7946 0958 https://example.org`;
    const detections = spans(text, [['person', 'Jane Doe'], ['email', 'help@example.org'], ['phone', '+44 20 7946 0958'], ['url', 'https://example.org']]);
    const result = inferMetadata(text, detections, { window: 200 });
    expect(result.map((d) => d.belongs_to)).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('keeps order, length and the original fields', () => {
    const text = 'Mr John Smith, john@example.org';
    const detections = spans(text, [['person', 'John Smith'], ['email', 'john@example.org']]);
    const result = inferMetadata(text, detections, { language: 'en' });
    expect(result).toHaveLength(2);
    expect(result[1]).toMatchObject({ type: 'email', value: 'john@example.org', belongs_to: 0, language: 'en' });
    expect(detections[0]).not.toHaveProperty('gender');
  });
});
