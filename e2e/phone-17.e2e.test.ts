// Phones people write that no numbering plan accepts, and bare digit runs a sentence cue makes a
// phone (session 17, wave16/phone), against the real `veil serve` process: each is detected whole
// by POST /v1/detect, tokenized by /v1/transform with no digits left in the safe text, restored
// as written and never logged; the same digits without the cue stay text, and the weak NINO
// reading of "at" that lost its digits to a phone leaves no piece even at a low threshold.
import { describe, expect, it } from 'vitest';
import { phoneCaseSuite, type DetectedEntity, type PhoneCase } from './support/phones.js';

const CASES: readonly PhoneCase[] = [
  { text: 'call +54 9 3859 7059 tomorrow', value: '+54 9 3859 7059' },
  { text: 'My phone number is +261 0739258145, call after 5.', value: '+261 0739258145' },
  { text: 'Phone: 9868791763413', value: '9868791763413' },
  { text: 'Write down +54 9 3514 2310 for Tom Reyes.', value: '+54 9 3514 2310' },
  { text: 'Ask Mei Tanaka on 33 50 57 before Friday.', value: '33 50 57' },
  { text: 'Ask Lena Fischer on 6347461576 before Friday.', value: '6347461576' },
  { text: 'WhatsApp me on 6364520852.', value: '6364520852' },
  { text: 'The desk is 6364520852 ext 12.', value: '6364520852 ext 12' },
];

const NOT_PHONES: readonly string[] = [
  'Order 9868791763413 shipped.',
  'Revenue grew +12 345 678 this year.',
  'Ask Tom on 12 03 24 about it.',
  'Write down 7776637064 for Raj.',
  'Ask Jonas on 2-616-41299-3 before Friday.',
];

describe('session-17 phone formats against the real server', () => {
  const { post } = phoneCaseSuite(CASES);

  it('leaves the same digits without a cue, dates and ids alone', async () => {
    for (const text of NOT_PHONES) {
      const body = await post('/v1/detect', { input: text, include_values: false });
      expect((body.entities as DetectedEntity[]).filter((entity) => entity.type === 'phone' && entity.confidence >= 0.5), text).toEqual([]);
    }
  });

  it('leaves no piece of a weak NINO reading that lost its digits to a phone, at a low threshold', async () => {
    const text = 'You can reach Raj Patel at 85 3131-2421.';
    const body = await post('/v1/detect', { input: text, include_values: false, threshold: 0.3 });
    const found = (body.entities as DetectedEntity[]).map((entity) => `${entity.type}:${text.slice(entity.span.start, entity.span.end)}`);
    expect(found).toEqual(['phone:85 3131-2421']);
  });
});
