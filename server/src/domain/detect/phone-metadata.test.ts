// The cached-regex phone validator must agree with libphonenumber-js/max isValid(): every
// country's example numbers are valid, and random digit strings get the same verdict; the layout
// check accepts only the digit groups a plan prints.
import { getCountries, getCountryCallingCode, getExampleNumber, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/mobile/examples';
import { describe, expect, it } from 'vitest';
import { checkInternational, checkNational, nationalLayoutRegion } from './phone-metadata.js';

function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

describe('phone validity', () => {
  it('accepts the example mobile number of every country, nationally and internationally', () => {
    for (const country of getCountries()) {
      const example = getExampleNumber(country, examples);
      if (example === undefined) continue;
      expect(checkInternational(`${example.countryCallingCode}${example.nationalNumber}`).valid, country).toBe(true);
      expect(checkNational(example.nationalNumber, country).valid, country).toBe(true);
    }
  });

  it('agrees with isValid() on random international numbers', () => {
    const random = rng(7);
    const countries = ['US', 'GB', 'DE', 'FR', 'NL', 'IT', 'ES', 'PT', 'BR', 'IN', 'JP', 'AU', 'CH', 'PL'] as const;
    let disagreements = 0;
    let total = 0;
    for (const country of countries) {
      const callingCode = getCountryCallingCode(country);
      for (let k = 0; k < 300; k++) {
        const length = 8 + Math.floor(random() * 4);
        let national = '';
        for (let j = 0; j < length; j++) national += String(Math.floor(random() * 10));
        const reference = parsePhoneNumberFromString(`+${callingCode}${national}`)?.isValid() ?? false;
        if (checkInternational(`${callingCode}${national}`).valid !== reference) disagreements++;
        total++;
      }
    }
    // Both strip the trunk prefix the same way; allow a sliver for its edge cases.
    expect(disagreements / total).toBeLessThan(0.005);
  });

  it('rejects numbers of impossible length', () => {
    expect(checkInternational('12').valid).toBe(false);
    expect(checkInternational('1'.repeat(20)).valid).toBe(false);
    expect(checkNational('0', 'DE').valid).toBe(false);
  });
});

describe('nationalLayoutRegion: the digit groups a numbering plan prints', () => {
  it('finds a region whose national format prints exactly these groups', () => {
    expect(nationalLayoutRegion([3, 3, 3], '730064218')).toBeDefined(); // CZ
    expect(nationalLayoutRegion([4, 3, 4], '01614960932')).toBe('GB'); // trunk zero on the area code
    expect(nationalLayoutRegion([1, 3, 3, 2, 2], '89123456789')).toBe('RU'); // trunk prefix as its own group
  });

  it('refuses the same digits in groups no plan prints, or without the trunk prefix a plan prints', () => {
    expect(nationalLayoutRegion([3, 2, 3], '42355843')).toBeUndefined(); // Norway prints 42 35 58 43
    expect(nationalLayoutRegion([2, 2, 2, 2], '42355843')).toBeDefined();
    expect(nationalLayoutRegion([1, 2, 2, 2, 2], '612345678')).toBeUndefined(); // France prints 06 12 34 56 78
    expect(nationalLayoutRegion([2, 2, 2, 2, 2], '0612345678')).toBeDefined();
    expect(nationalLayoutRegion([3, 3, 3], '612345678')).toBeUndefined(); // Spain prints 612 34 56 78
    expect(nationalLayoutRegion([2, 2, 2, 2], '00000000')).toBeUndefined(); // valid nowhere
  });
});
