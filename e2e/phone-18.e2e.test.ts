// Phones people type with separators of other keyboards, and short numbers a phone word labels
// (session 18, wave17/phone), against the real `veil serve` process: each is detected whole by
// POST /v1/detect, tokenized by /v1/transform with no digits left in the safe text, restored as
// written and never logged; short numbers without a phone word, and years, counts and decimals
// after one, stay text.
import { describe, expect, it } from 'vitest';
import { phoneCaseSuite, type DetectedEntity, type PhoneCase } from './support/phones.js';

const CASES: readonly PhoneCase[] = [
  { text: 'Her phone is 020·7946·0958, after six.', value: '020·7946·0958' },
  { text: 'Tel: 06\u202f12\u202f34\u202f56\u202f78', value: '06\u202f12\u202f34\u202f56\u202f78' },
  { text: 'call 020\u20137946\u20130958 today', value: '020\u20137946\u20130958' },
  { text: 'Dial ext. 4587 for support.', value: '4587' },
  { text: 'call 5-0199 inside the office', value: '5-0199' },
  { text: 'Tel. 2 34 56', value: '2 34 56' },
];

const NOT_PHONES: readonly string[] = [
  'We shipped 4587 boxes.',
  'Room 4587 is on the left.',
  'Call 2024 a good year.',
  'Text 4587 rows were imported.',
  'ring 1000 times',
];

describe('session-18 phone formats against the real server', () => {
  const { post } = phoneCaseSuite(CASES);

  it('leaves short numbers without a phone word, years, counts and decimals alone', async () => {
    for (const text of NOT_PHONES) {
      const body = await post('/v1/detect', { input: text, include_values: false });
      expect((body.entities as DetectedEntity[]).filter((entity) => entity.type === 'phone' && entity.confidence >= 0.5), text).toEqual([]);
    }
  });
});
