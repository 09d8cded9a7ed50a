// Extensions a dialling verb names alone and vanity toll-free numbers (session 19, wave18/phone),
// against the real `veil serve` process: each is detected whole by POST /v1/detect, tokenized by
// /v1/transform with no digits left in the safe text, restored as written and never logged; the
// extension word alone, a model name and a lower-case word stay text.
import { describe, expect, it } from 'vitest';
import { phoneCaseSuite, type DetectedEntity, type PhoneCase } from './support/phones.js';

const CASES: readonly PhoneCase[] = [
  { text: 'For billing, dial ext 305.', value: '305' },
  { text: 'Please ring me on extension 42 tomorrow.', value: '42' },
  { text: 'Order today at 1-800-FLOWERS.', value: '1-800-FLOWERS' },
  { text: 'Reach us at 1-888-GOT-JUNK for a pickup.', value: '1-888-GOT-JUNK' },
  { text: 'call 800-CONTACTS now', value: '800-CONTACTS' },
];

const NOT_PHONES: readonly string[] = [
  'See ext 12 of the form.',
  'dial 12',
  'The 800-POUND gorilla sat down.',
  'We ordered 1-855-abcdefg.',
  'part 1-800-FLOWERS12345',
];

describe('session-19 phone formats against the real server', () => {
  // A 2-3 digit extension's digits are in any log by chance: look for the value as written when it
  // holds letters (a vanity number), else for the whole sentence.
  const { post } = phoneCaseSuite(CASES, { logNeedle: ({ text, value }) => (/[A-Z]/.test(value) ? value : text) });

  it('leaves the extension word alone, model names and lower-case words alone', async () => {
    for (const text of NOT_PHONES) {
      const body = await post('/v1/detect', { input: text, include_values: false });
      expect((body.entities as DetectedEntity[]).filter((entity) => entity.type === 'phone' && entity.confidence >= 0.5), text).toEqual([]);
    }
  });
});
