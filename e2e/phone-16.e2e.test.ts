// Phone numbers as generators and people write them (session 16, wave15/phone), against the real
// `veil serve` process: a country code in parentheses, an area code in parentheses glued to the
// country code, and a number after a calling verb and the one to call are detected whole by
// POST /v1/detect, tokenized by /v1/transform with no digits left in the safe text, restored as
// written, and never logged.
import { describe, expect, it } from 'vitest';
import { phoneCaseSuite, type PhoneCase } from './support/phones.js';

const CASES: readonly PhoneCase[] = [
  { text: 'Ask Raj Patel on (+30) 6946 223059 before Friday.', value: '(+30) 6946 223059' },
  { text: 'Tom Reyes ((+57)3011832288) will bring the slides.', value: '(+57)3011832288' },
  { text: 'My phone number is +90(722)197-6584x4900, call after 5.', value: '+90(722)197-6584x4900' },
  { text: 'Billing: +1(212)555-0143', value: '+1(212)555-0143' },
  { text: 'You can reach Mei Tanaka at 5308507537.', value: '5308507537' },
  { text: 'You can reach Jonas Berg at 0883449907.', value: '0883449907' },
  // Session 16 (wave15/phone2): '+(CC)', a number after "at"/"on" a weak NINO reading hid, 13-digit AT.
  { text: 'call +(370) 77844699 tomorrow', value: '+(370) 77844699' },
  { text: 'Phone: +(44) 20 7946 0958', value: '+(44) 20 7946 0958' },
  { text: 'You can reach Raj Patel at 85 3131-2421.', value: '85 3131-2421' },
  { text: 'Text me on 22 87 10 when you land.', value: '22 87 10' },
  { text: 'Please call me at 07448 78298548.', value: '07448 78298548' },
];

describe('session-16 phone formats against the real server', () => {
  const { post } = phoneCaseSuite(CASES);

  it('leaves dates and amounts after a calling verb alone', async () => {
    const text = 'Call the team on 2024-12-05 about it; contact support at 12.05.2024 or later.';
    const body = await post('/v1/detect', { input: text, include_values: false });
    expect((body.entities as { type: string }[]).filter((entity) => entity.type === 'phone')).toEqual([]);
  });
});
