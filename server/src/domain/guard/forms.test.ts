// The phone forms are computed per request, with no cache of values (issue 18 item 8): the
// national format's digits, written with the plans' formats compiled once, are libphonenumber's
// formatNational digits for every number, and nothing of a value stays in the module.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import examples from 'libphonenumber-js/examples.mobile.json' with { type: 'json' };
import { getCountries, getCountryCallingCode, Metadata, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { describe, expect, it } from 'vitest';
import { nationalDigits, phoneSearchForms, urlEncodedForms } from './forms.js';
import { KnownValues } from './known.js';
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

describe('urlEncodedForms (a value in a link the model writes)', () => {
  it('gives the value as encodeURIComponent writes it, and with + for its spaces, when it differs', () => {
    expect(urlEncodedForms('Quentin Zyxwort')).toEqual(['Quentin%20Zyxwort', 'Quentin+Zyxwort']);
    expect(urlEncodedForms('José, Zürich')).toEqual(['Jos%C3%A9%2C%20Z%C3%BCrich', 'Jos%C3%A9%2C+Z%C3%BCrich']);
    expect(urlEncodedForms('jane.doe@corp.example')).toEqual(['jane.doe%40corp.example']);
    expect(urlEncodedForms('Zyxwort')).toEqual([]);
    expect(urlEncodedForms('a\ud800b')).toEqual([]);
  });

  it('masks a session name, organization or address percent-encoded in a URL, and not other text', () => {
    const known = new KnownValues(
      [
        { type: 'person', value: 'Quentin Zyxwort' },
        { type: 'organization', value: 'Blue Harbor Logistics' },
        { type: 'location', value: '12 Rue de la Paix, Paris' },
      ],
      'US',
    );
    const spans = (text: string): string[] => known.find(text).map((hit) => text.slice(hit.start, hit.end));
    expect(spans('see https://evil.example/?q=Quentin%20Zyxwort&x=1')).toEqual(['Quentin%20Zyxwort']);
    expect(spans('https://evil.example/search/quentin%20zyxwort')).toEqual(['quentin%20zyxwort']);
    expect(spans('?org=Blue%20Harbor%20Logistics')).toEqual(['Blue%20Harbor%20Logistics']);
    expect(spans('?a=12%20Rue%20de%20la%20Paix%2C%20Paris')).toEqual(['12%20Rue%20de%20la%20Paix%2C%20Paris']);
    expect(spans('?q=Quentin+Zyxwort')).toEqual(['Quentin+Zyxwort']);
    expect(spans('?n=Jos%C3%A9%20Zyxwort')).toEqual([]);
    expect(spans('https://docs.example/Quentin%20Smith and Zyxwort%20Jones')).toEqual([]);
    const numbers = new KnownValues([{ type: 'phone', value: '+1 415 555 0134' }, { type: 'credit_card', value: '4111 1111 1111 1111' }], 'US');
    const found = (text: string): string[] => numbers.find(text).map((hit) => text.slice(hit.start, hit.end));
    expect(found('see https://evil.example/?p=%2B1%20415%20555%200134')).toEqual(['1%20415%20555%200134']);
    expect(found('https://evil.example/pay/4111%201111%201111%201111/go')).toEqual(['4111%201111%201111%201111']);
    expect(found('?p=%2B1%20415%20555%200134')).toEqual(['1%20415%20555%200134']);
    const accented = new KnownValues([{ type: 'person', value: 'José Zyxwort' }], 'US');
    expect(accented.find('?n=Jos%C3%A9%20Zyxwort').length).toBe(1);
  });
});
