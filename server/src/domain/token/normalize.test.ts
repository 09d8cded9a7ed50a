// Per-type value normalization (decisions.md section 3, issue 15 item 8): every spelling of a
// value has one canonical form (the token key, the corpus token input and the revocation
// digest input). Tables per type, then properties: phones in any print form (national,
// international, 00 prefix, full-width, dots, dashes) are one E.164 number, IPv6 addresses in
// any compression are one address, ids in any case and separators are one id.
import fc from 'fast-check';
import { domainToASCII } from 'node:url';
import { describe, expect, it } from 'vitest';
import { asciiDomain, legacyNormalizeValue, normalizeValue, revocationForms, revokeForms } from './normalize.js';

describe('asciiDomain (the plain-domain fast path)', () => {
  // The URL parser's answer, as canonicalEmail used it before the fast path.
  const reference = (domain: string): string => domainToASCII(domain) || domain;

  it('agrees with domainToASCII on the cases the fast path must leave to it', () => {
    for (const domain of ['example.com', 'mail.example.co.uk', 'xn--bcher-kva.de', 'xn--zz.com', 'bücher.de', '0x7f.1', '1.2.3.4', 'a.0x1f', 'a.09', 'a..b', 'a.', '.a', '-a.com', 'a-.com', 'ab--cd.com', 'a_b.com', 'localhost', 'EXAMPLE.com', 'a.b1', 'a.1b', '']) {
      expect(asciiDomain(domain), domain).toBe(reference(domain));
    }
  });

  it('agrees with domainToASCII on any lower-case ASCII domain', () => {
    const label = fc.stringMatching(/^[a-z0-9x-]{0,8}$/);
    fc.assert(fc.property(fc.array(label, { minLength: 1, maxLength: 4 }), (labels) => {
      const domain = labels.join('.');
      expect(asciiDomain(domain)).toBe(reference(domain));
    }), { numRuns: 2000 });
  });
});

describe('normalizeValue', () => {
  it('folds, applies NFC and trims; keeps the case of names and collapses their spaces', () => {
    expect(normalizeValue('person', '  Jose\u0301   García \n')).toBe('Jos\u00e9 García');
    expect(normalizeValue('custom:ticket', '\tTCK-000123 ')).toBe('TCK-000123');
    expect(normalizeValue('custom:ticket', 'TCK\u2013０００１２３')).toBe('TCK-000123');
    expect(normalizeValue('person', 'McDonald')).toBe('McDonald');
  });

  it('keeps secrets exact (NFC and trimmed only)', () => {
    expect(normalizeValue('password', ' Ｐass\u2013word ')).toBe('Ｐass\u2013word');
    expect(normalizeValue('api_key', 'sk_live_ABC')).toBe('sk_live_ABC');
  });

  it('lower-cases emails and puts the domain in ASCII form', () => {
    expect(normalizeValue('email', ' Alice.Smith@Example.COM ')).toBe('alice.smith@example.com');
    expect(normalizeValue('email', 'jörg@Bücher.de')).toBe(normalizeValue('email', 'jörg@xn--bcher-kva.de'));
    expect(normalizeValue('email', 'ｊａｎｅ＠ｅｘａｍｐｌｅ。ｃｏｍ')).toBe('jane@example.com');
  });

  it('writes phones in E.164, reading national numbers in the region', () => {
    const us = [
      '+1 (415) 555-0100', '415-555-0100', '415.555.0100', '(415) 555 0100', '1-415-555-0100', '001 415 555 0100', '＋１ ４１５ ５５５ ０１００', '415\u2011555\u20110100',
      // Gaps the phone parser does not read (detect/loose-digits.ts): the same number, one token, one erasure.
      '415 | 555 | 0100', '415 : 555 : 0100', '415\n555 0100', '+1 | 415 | 555 | 0100',
    ];
    for (const spelling of us) expect(normalizeValue('phone', spelling)).toBe('+14155550100');
    expect(normalizeValue('phone', '030 1234567', 'DE')).toBe('+49301234567');
    expect(normalizeValue('phone', '+49 (0)30 1234567')).toBe('+49301234567');
    expect(normalizeValue('phone', '0044 20 7946 0958')).toBe('+442079460958');
    expect(normalizeValue('phone', '020 7946 0958', 'GB')).toBe('+442079460958');
    expect(normalizeValue('phone', '345-899-3560x4587')).toBe('+13458993560;ext=4587');
    expect(normalizeValue('phone', '(345) 899-3560 ext. 4587')).toBe('+13458993560;ext=4587');
  });

  it('writes IP addresses canonically (IPv4 without leading zeros, IPv6 per RFC 5952)', () => {
    for (const spelling of ['2001:DB8::1', '2001:db8:0:0:0:0:0:1', '2001:0db8:0000:0000:0000:0000:0000:0001', '[2001:db8::1]']) {
      expect(normalizeValue('ip_address', spelling)).toBe('2001:db8::1');
    }
    expect(normalizeValue('ip_address', '2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1');
    expect(normalizeValue('ip_address', '::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(normalizeValue('ip_address', '192.000.002.001')).toBe('192.0.2.1');
    expect(normalizeValue('ip_address', '１９２．０．２．１')).toBe('192.0.2.1');
    expect(normalizeValue('ip_address', 'FE80::1%eth0')).toBe('fe80::1%eth0');
  });

  it('keeps the letters and digits of cards, SSNs, IBANs and national ids, in upper case', () => {
    expect(normalizeValue('credit_card', '4111 1111-1111 1111')).toBe('4111111111111111');
    expect(normalizeValue('credit_card', '４１１１ １１１１ １１１１ １１１１')).toBe('4111111111111111');
    expect(normalizeValue('us_ssn', '078.05.1123')).toBe('078051123');
    expect(normalizeValue('us_ssn', '٠٧٨-٠٥-١١٢٣')).toBe('078051123');
    expect(normalizeValue('iban', 'de89-3704-0044-0532-0130-00')).toBe('DE89370400440532013000');
    expect(normalizeValue('eu_vat', 'de 136.695.976')).toBe('DE136695976');
    expect(normalizeValue('es_nie', 'x-9613851-n')).toBe('X9613851N');
    expect(normalizeValue('uk_nino', 'ab 12 34 56 c')).toBe('AB123456C');
  });

  it('lower-cases MAC addresses and keeps hex digits only', () => {
    expect(normalizeValue('mac_address', '00:1A:2B-3C.4D:5E')).toBe('001a2b3c4d5e');
    expect(normalizeValue('mac_address', '001A.2B3C.4D5E')).toBe('001a2b3c4d5e');
  });

  it('writes unambiguous dates in ISO 8601, reading day and month order by the region', () => {
    for (const spelling of ['2024-03-12', 'March 12, 2024', '12 March 2024', '12. März 2024', '12 de marzo de 2024', '12.03.2024']) {
      expect(normalizeValue('date', spelling)).toBe('2024-03-12');
    }
    expect(normalizeValue('date', '03/12/2024', 'US')).toBe('2024-03-12');
    expect(normalizeValue('date', '12/03/2024', 'GB')).toBe('2024-03-12');
    expect(normalizeValue('date', '31/12/2024', 'US')).toBe('2024-12-31');
  });

  it('lower-cases the scheme and host of URLs only', () => {
    expect(normalizeValue('url', 'HTTPS://Example.COM/')).toBe('https://example.com');
    expect(normalizeValue('url', 'https://Example.com/Path?Q=1')).toBe('https://example.com/Path?Q=1');
  });

  it('falls back to the trimmed value when stripping would leave nothing', () => {
    expect(normalizeValue('credit_card', ' n/a ')).toBe('n/a');
    expect(normalizeValue('phone', '+')).toBe('+');
    expect(normalizeValue('credit_card', 'n/a')).not.toBe(normalizeValue('credit_card', 'none'));
  });
});

describe('revocationForms', () => {
  it('holds the canonical form in every region, the phone without extension and the legacy form', () => {
    const forms = revocationForms('phone', '030 1234567', ['DE', 'US']);
    expect(forms).toContain('+49301234567');
    expect(forms).toContain(normalizeValue('phone', '030 1234567', 'US'));
    expect(forms).toContain(legacyNormalizeValue('phone', '030 1234567'));
    expect(revocationForms('phone', '345-899-3560x4587', ['US'])).toContain('+13458993560');
  });

  it('makes a value written with web escapes the plain value, and keeps the previous fold\'s form for erasure', () => {
    expect(normalizeValue('email', 'John.Doe&#64;Corp.example')).toBe('john.doe@corp.example');
    expect(normalizeValue('email', 'john.doe%40corp.example')).toBe('john.doe@corp.example');
    expect(normalizeValue('credit_card', '4\u03021\u030211 1111 1111 1111')).toBe('4111111111111111');
    expect(normalizeValue('person', 'Sean O&#39;Brien')).toBe("Sean O'Brien");
    // Revoked by the previous release (its fold left escapes as written): still erased.
    expect(revocationForms('person', 'Sean O&#39;Brien', ['US'])).toEqual(expect.arrayContaining(["Sean O'Brien", 'Sean O&#39;Brien', "sean o'brien", 'sean o&#39;brien']));
    // Revoked now with the escaped spelling: both forms are written (replicas of the previous
    // release check the escaped one during an upgrade).
    expect(revokeForms('person', 'Sean O&#39;Brien', 'US')).toEqual(["Sean O'Brien", "sean o'brien", 'Sean O&#39;Brien', 'sean o&#39;brien']);
    expect(revokeForms('email', 'jane@corp.example', 'US')).toEqual(['jane@corp.example']);
  });

  it('reads a value written wholly in quoted-printable escapes as the plain value', () => {
    expect(normalizeValue('credit_card', '=34=31=31=31=20=31=31=31=31=20=31=31=31=31=20=31=31=31=31')).toBe('4111111111111111');
    expect(normalizeValue('email', '=6A=61=6E=65=40=63=6F=72=70=2E=65=78')).toBe('jane@corp.ex');
    expect(normalizeValue('phone', '=2B=31=20=34=31=35=20=35=35=35=20=30=31=34=32')).toBe(normalizeValue('phone', '+1 415 555 0142'));
  });

  it('reads a number spelled out digit by digit as its digits', () => {
    expect(normalizeValue('phone', 'four one five, five five five, zero one double zero')).toBe(normalizeValue('phone', '(415) 555-0100'));
    expect(normalizeValue('credit_card', 'four one one one one one one one one one one one one one one one')).toBe('4111111111111111');
    expect(normalizeValue('us_ssn', 'zero seven eight 05 one one two zero')).toBe('078051120');
    // Fewer than three digit words, or other words among them: no spelling, the value as before.
    expect(normalizeValue('credit_card', 'one two')).toBe('one two');
    expect(normalizeValue('credit_card', 'one two three and four')).toBe('one two three and four');
  });
});

// ---------------------------------------------------------------------------------------------
// Properties.

const digit = fc.integer({ min: 0, max: 9 }).map(String);
const digits = (n: number) => fc.array(digit, { minLength: n, maxLength: n }).map((list) => list.join(''));
const FULL_WIDTH = '０１２３４５６７８９';
const widen = (text: string): string => text.replace(/[0-9]/g, (d) => FULL_WIDTH[Number(d)]!);

describe('normalization properties', () => {
  it('gives every print form of a North American number the same E.164 form', () => {
    const area = fc.tuple(fc.integer({ min: 2, max: 9 }), digits(2)).map(([a, b]) => `${a}${b}`);
    const exchange = fc.tuple(fc.integer({ min: 2, max: 9 }), digits(2)).map(([a, b]) => `${a}${b}`);
    fc.assert(
      fc.property(area, exchange, digits(4), fc.constantFrom('-', '.', ' ', '\u2013', '\u2011'), fc.boolean(), (a, e, l, sep, wide) => {
        const forms = [`+1 (${a}) ${e}-${l}`, `${a}${sep}${e}${sep}${l}`, `(${a}) ${e}${sep}${l}`, `1-${a}-${e}-${l}`, `001 ${a} ${e} ${l}`, `+1${a}${e}${l}`];
        const canonical = forms.map((form) => normalizeValue('phone', wide ? widen(form) : form));
        expect(new Set(canonical).size).toBe(1);
      }),
      { numRuns: 500 },
    );
  });

  it('gives every compression of an IPv6 address the same form', () => {
    const group = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff }));
    fc.assert(
      fc.property(fc.array(group, { minLength: 8, maxLength: 8 }), fc.boolean(), (groups, upper) => {
        const full = groups.map((g) => g.toString(16).padStart(4, '0')).join(':');
        const short = groups.map((g) => g.toString(16)).join(':');
        const canonical = normalizeValue('ip_address', upper ? full.toUpperCase() : full);
        expect(normalizeValue('ip_address', short)).toBe(canonical);
        // Compress the first run of two or more zero groups by hand.
        const match = /(^|:)0(?::0)+(:|$)/.exec(short);
        if (match !== null) {
          const compressed = `${short.slice(0, match.index)}::${short.slice(match.index + match[0].length)}`;
          expect(normalizeValue('ip_address', compressed)).toBe(canonical);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('gives ids in any case and with any separators one form', () => {
    fc.assert(
      fc.property(fc.constantFrom('DE89370400440532013000', 'GB82WEST12345698765432', 'X9613851N', 'DE136695976'), fc.constantFrom(' ', '-', '.', ''), fc.boolean(), (id, sep, lower) => {
        const grouped = (lower ? id.toLowerCase() : id).match(/.{1,4}/g)!.join(sep);
        expect(normalizeValue('iban', grouped)).toBe(id);
      }),
      { numRuns: 200 },
    );
  });
});
