import { parsePhoneNumberFromString as parseMax, type CountryCode } from 'libphonenumber-js/max';
import maxMetadata from 'libphonenumber-js/max/metadata';
import examples from 'libphonenumber-js/mobile/examples';
import { describe, expect, it } from 'vitest';
import { parsePhoneNumberFromString } from './phone-parse.js';
import { seeded } from '../repair/corpus.js';
import { normalizeValue } from './normalize.js';

/** What token/normalize.ts reads of a parse. */
interface Parsed {
  readonly number: string;
  readonly ext?: string | undefined;
  isPossible(): boolean;
}

function reading(parsed: Parsed | undefined): string {
  return parsed === undefined ? 'none' : `${parsed.number}|${parsed.ext ?? ''}|${parsed.isPossible()}`;
}

const SHARED = Object.entries(maxMetadata.country_calling_codes as Record<string, string[]>).filter(([, countries]) => countries.length > 1);

/** A number of `length` national digits, its first digits drawn from the country's example-like ranges at random. */
function nationalDigits(random: () => number, length: number): string {
  let digits = '';
  for (let i = 0; i < length; i++) digits += String(Math.floor(random() * 10));
  return digits;
}

function formatted(random: () => number, digits: string): string {
  const separators = [' ', '-', '.', '', ' '];
  let out = '';
  for (let i = 0; i < digits.length; i++) {
    out += digits[i]!;
    if (i < digits.length - 1 && random() < 0.3) out += separators[Math.floor(random() * separators.length)]!;
  }
  if (random() < 0.15 && digits.length > 4) out = `(${out.slice(0, 3)}) ${out.slice(3)}`;
  if (random() < 0.1) out += ` ext. ${Math.floor(random() * 9000) + 1}`;
  return out;
}

describe('phone-parse: the same number, extension and possibility as libphonenumber-js/max', () => {
  it('every calling code several countries share, lengths 2-17, international and national forms', () => {
    const random = seeded(17);
    let compared = 0;
    let disputed = 0;
    for (let round = 0; round < 120; round++) {
      for (const [code, countries] of SHARED) {
        const length = 2 + Math.floor(random() * 16);
        const digits = nationalDigits(random, length);
        const international = `+${code} ${formatted(random, digits)}`;
        expect(reading(parsePhoneNumberFromString(international)), international).toBe(reading(parseMax(international)));
        const region = countries[Math.floor(random() * countries.length)] as CountryCode;
        const national = random() < 0.5 ? formatted(random, digits) : `0${formatted(random, digits)}`;
        expect(reading(parsePhoneNumberFromString(national, region)), `${national} ${region}`).toBe(reading(parseMax(national, region)));
        compared += 2;
        if (length === 7 || length === 9) disputed += 1;
      }
    }
    expect(compared).toBeGreaterThan(2000);
    expect(disputed).toBeGreaterThan(50);
  });

  it('North American numbers of 7 and 10 digits under each of the 25 regions, the lengths its plans disagree on', () => {
    const random = seeded(1);
    const nanp = (maxMetadata.country_calling_codes as Record<string, string[]>)['1']!;
    for (let round = 0; round < 40; round++) {
      for (const region of nanp) {
        for (const length of [7, 10, 11]) {
          const digits = nationalDigits(random, length);
          // `+1 1…`: a national prefix `1` after the calling code, stripped or put back by the exact country's lengths.
          for (const text of [`+1 ${formatted(random, digits)}`, `+1 1${formatted(random, digits)}`, formatted(random, digits), `1 ${formatted(random, digits)}`]) {
            expect(reading(parsePhoneNumberFromString(text, region as CountryCode)), `${text} ${region}`).toBe(reading(parseMax(text, region as CountryCode)));
            expect(reading(parsePhoneNumberFromString(text)), text).toBe(reading(parseMax(text)));
          }
        }
      }
    }
  });

  it("each shared code's countries' example numbers, cut short and behind a national prefix (+290 5-digit numbers: the exact country decides)", () => {
    let compared = 0;
    for (const [code, countries] of SHARED) {
      for (const country of countries) {
        const example = (examples as Record<string, string | undefined>)[country];
        if (example === undefined) continue;
        for (let cut = 0; cut <= 4; cut++) {
          for (const prefix of ['', '1', '0', '8']) {
            const text = `+${code} ${prefix}${example.slice(cut)}`;
            expect(reading(parsePhoneNumberFromString(text)), `${text} (${country})`).toBe(reading(parseMax(text)));
            compared += 1;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(500);
  });

  it('other calling codes and odd inputs', () => {
    const random = seeded(5);
    const codes = Object.keys(maxMetadata.country_calling_codes);
    for (let round = 0; round < 1500; round++) {
      const code = codes[Math.floor(random() * codes.length)]!;
      const text = `+${code}${formatted(random, nationalDigits(random, 1 + Math.floor(random() * 15)))}`;
      expect(reading(parsePhoneNumberFromString(text)), text).toBe(reading(parseMax(text)));
    }
    for (const text of ['', '+', '+1', 'abc', '+1 (415) 555-0134 ext 12', '00 44 20 7946 0958', '+44 1534 123456', '+7 701 123 4567']) {
      expect(reading(parsePhoneNumberFromString(text)), text).toBe(reading(parseMax(text)));
      expect(reading(parsePhoneNumberFromString(text, 'GB')), text).toBe(reading(parseMax(text, 'GB')));
    }
  });

  it('normalizeValue of the benchmark body phone is its E.164 form', () => {
    expect(normalizeValue('phone', '+1 415 555 0134', 'US')).toBe('+14155550134');
    expect(normalizeValue('phone', '(416) 555-0134', 'CA')).toBe('+14165550134');
  });
});
