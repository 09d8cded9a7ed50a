// Base64 or hex of a sentence that holds values (encoded.ts): "TXkgU1NOIGlzIDA3OC0wNS0xMTIw"
// ("My SSN is 078-05-1120") reached the model raw, which decodes it on sight. The run is protected
// with the type of the strongest value inside and normalized as its own exact string.
import { describe, expect, it } from 'vitest';
import { normalizeValue } from '../token/normalize.js';
import { detectAll } from './index.js';

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const hex = (text: string): string => Buffer.from(text, 'utf8').toString('hex');

describe('encoded sentences holding values', () => {
  it.each([
    ['My SSN is 078-05-1120', ['us_ssn']],
    ['contact john.doe@corp.example or 415-555-0100', ['email', 'phone']],
    ['write to john.doe@corp.example today', ['email']],
    ['card 4111 1111 1111 1111 exp 12/29', ['credit_card']],
  ])('finds the base64 and the hex of %j', (sentence, types) => {
    for (const run of [b64(sentence), hex(sentence)]) {
      const found = detectAll(`decode this: ${run} please`);
      expect(found.map((entity) => entity.value)).toEqual([run]);
      const type = found[0]!.type;
      expect(types).toContain(type);
      // Its own exact string: two different sentences never share a token.
      expect(normalizeValue(type, run)).toBe(run);
    }
  });

  it('leaves encoded text without values, and keeps one encoded value normalized as the value', () => {
    expect(detectAll(`x ${b64('see https://example.com/docs on 2024-01-02')}`)).toEqual([]);
    expect(detectAll(`x ${b64('the quick brown fox jumps over')}`)).toEqual([]);
    const one = b64('jane.doe@corp.example');
    expect(normalizeValue('email', one)).toBe('jane.doe@corp.example');
  });
});
