// Extensions a dialling verb names alone (session 19, wave18/phone), against the real `veil serve`
// process: each is detected whole by POST /v1/detect, tokenized by /v1/transform with no digits left
// in the safe text, restored as written and never logged; the extension word alone, a number after a
// verb without the extension word, and "ext" as a field name stay text.
import { describe, expect, it } from 'vitest';
import { phoneCaseSuite, type DetectedEntity, type PhoneCase } from './support/phones.js';

const CASES: readonly PhoneCase[] = [
  { text: 'For billing, dial ext 305.', value: '305' },
  { text: 'Please ring me on extension 42 tomorrow.', value: '42' },
];

const NOT_PHONES: readonly string[] = [
  'See ext 12 of the form.',
  'dial 12',
];

describe('session-19 phone formats against the real server', () => {
  // A 2-3 digit extension's digits are in any log by chance: look for the whole sentence instead.
  const { post } = phoneCaseSuite(CASES, { logNeedle: ({ text }) => text });

  it('leaves the extension word alone and a number after a verb without it', async () => {
    for (const text of NOT_PHONES) {
      const body = await post('/v1/detect', { input: text, include_values: false });
      expect((body.entities as DetectedEntity[]).filter((entity) => entity.type === 'phone' && entity.confidence >= 0.5), text).toEqual([]);
    }
  });
});
