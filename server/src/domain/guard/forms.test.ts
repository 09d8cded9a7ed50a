// The phone forms are computed per request, with no cache of values (issue 18 item 8): the
// national format's digits, written with the plans' formats compiled once, are libphonenumber's
// formatNational digits for every number, and nothing of a value stays in the module.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import examples from 'libphonenumber-js/examples.mobile.json' with { type: 'json' };
import { getCountries, getCountryCallingCode, Metadata, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { describe, expect, it } from 'vitest';
import { nationalDigits, phoneSearchForms } from './forms.js';
import { normalizeValue } from '../token/normalize.js';

/** The forms as first written: libphonenumber's parse and formatNational for each call. */
function referenceForms(value: string, region: string | undefined): string[] {
  const canonical = normalizeValue('phone', value, region);
  if (!canonical.startsWith('+')) return [];
  const ext = canonical.indexOf(';');
  const parsed = parsePhoneNumberFromString(ext > 0 ? canonical.slice(0, ext) : canonical);
  if (parsed === undefined) return [];
  const international = `${parsed.countryCallingCode}${parsed.nationalNumber}`;
  const forms = new Set([international, `00${international}`, parsed.nationalNumber, parsed.formatNational().replace(/[^0-9]/g, '')]);
  return [...forms].filter((form) => form.length >= 7);
}

const mobileExamples = examples as Record<string, string>;

describe('phoneSearchForms', () => {
  it('gives formatNational digits for every region example number, and its neighbours', () => {
    let checked = 0;
    for (const country of getCountries()) {
      const example = mobileExamples[country];
      if (example === undefined) continue;
      const code = getCountryCallingCode(country);
      // The example, and numbers that differ from it in the last digits or length (other formats).
      for (const national of [example, `${example.slice(0, -1)}9`, example.slice(0, -1), `${example}1`, `${example.slice(0, 2)}${'5'.repeat(Math.max(0, example.length - 2))}`]) {
        for (const value of [`+${code}${national}`, national]) {
          expect(phoneSearchForms(value, country), `${country} ${value}`).toEqual(referenceForms(value, country));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(2000);
  }, 120_000);

  it('gives the reference forms on random digit strings after any calling code', () => {
    const codes = [...new Set(getCountries().map((country) => getCountryCallingCode(country)))];
    fc.assert(
      fc.property(fc.constantFrom(...codes), fc.stringMatching(/^[0-9]{1,18}$/), fc.constantFrom<CountryCode | undefined>(undefined, 'US', 'GB', 'DE', 'AR', 'RU'), (code, digits, region) => {
        const value = `+${code}${digits}`;
        expect(phoneSearchForms(value, region)).toEqual(referenceForms(value, region));
      }),
      { numRuns: 2000 },
    );
  }, 120_000);

  it('formats a number of no region with its calling code main region, and a non-geographic one with its own plan', () => {
    for (const number of ['+80012345678', '+4400000000', '+79000000000']) {
      const parsed = parsePhoneNumberFromString(number)!;
      expect(nationalDigits(parsed.countryCallingCode, parsed.nationalNumber)).toBe(parsed.formatNational().replace(/[^0-9]/g, ''));
    }
    expect(nationalDigits('999', '12345678')).toBe('12345678');
  });

  it('relies on metadata where every region of a shared calling code formats as its main region', () => {
    const metadata = new Metadata();
    const shape = (region: string): string => {
      metadata.selectNumberingPlan(region as CountryCode);
      const api = metadata as unknown as { formats(): { pattern(): string; format(): string; leadingDigitsPatterns(): string[]; nationalPrefixFormattingRule(): unknown }[] };
      return JSON.stringify(api.formats().map((format) => [format.pattern(), format.format(), format.leadingDigitsPatterns(), format.nationalPrefixFormattingRule()]));
    };
    const codes = (metadata as unknown as { metadata: { country_calling_codes: Record<string, string[]> } }).metadata.country_calling_codes;
    for (const regions of Object.values(codes)) for (const region of regions.slice(1)) expect(shape(region), region).toBe(shape(regions[0]!));
  });

  it('keeps no value between calls: the module holds no map or cache of values', () => {
    const source = readFileSync(new URL('./forms.ts', import.meta.url), 'utf8');
    // The only module-level maps are compiled metadata; a value keyed map would name a value.
    const maps = source.match(/^(?:const|let) \w+(?::[^=]*)? = new (?:Map|Set|WeakMap)\b/gmu) ?? [];
    expect(maps).toEqual([]);
    expect(source).not.toMatch(/Cache\b/u);
  });
});
