// Unicode forms of values (issue 18 item 5): full-width digits and `＠` (CJK input methods),
// Arabic-Indic and other scripts' digits, Unicode dashes, the ideographic full stop and invisible
// characters are detected on the folded view, and every span maps back exactly: the original
// slice folds to the value the detector saw on the folded text (property-tested).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldText, foldWithOffsets } from '../text/fold.js';
import { detectAll } from './index.js';
import { found } from '../../../test/support/detections.js';

const FULL_WIDTH_DIGITS = '０１２３４５６７８９';
const ARABIC_INDIC = '٠١٢٣٤٥٦٧٨٩';
const PERSIAN = '۰۱۲۳۴۵۶۷۸۹';
const DEVANAGARI = '०१२३४५६७८९';

function digitsIn(value: string, alphabet: string): string {
  return value.replace(/[0-9]/g, (d) => alphabet[Number(d)]!);
}

describe('values typed in other forms', () => {
  it.each([
    ['SSN ０７８－０５－１１２３', 'us_ssn', '０７８－０５－１１２３'],
    ['SSN ٠٧٨-٠٥-١١٢٣', 'us_ssn', '٠٧٨-٠٥-١١٢٣'],
    ['SSN 078\u201305\u20131123', 'us_ssn', '078\u201305\u20131123'],
    ['SSN 078\u201105\u20111123', 'us_ssn', '078\u201105\u20111123'],
    ['カード ４１１１ １１１１ １１１１ １１１１ です', 'credit_card', '４１１１ １１１１ １１１１ １１１１'],
    ['card 4111\u00a01111\u00a01111\u00a01111', 'credit_card', '4111\u00a01111\u00a01111\u00a01111'],
    ['电话 ＋１ ４１５ ５５５ ０１３２', 'phone', '＋１ ４１５ ５５５ ０１３２'],
    ['call (۴۱۵) ۵۵۵-۰۱۳۲', 'phone', '(۴۱۵) ۵۵۵-۰۱۳۲'],
    ['メール jane＠example.com まで', 'email', 'jane＠example.com'],
    ['メール jane@example。com まで', 'email', 'jane@example。com'],
    ['ｊａｎｅ＠ｅｘａｍｐｌｅ．ｃｏｍ', 'email', 'ｊａｎｅ＠ｅｘａｍｐｌｅ．ｃｏｍ'],
    ['IBAN ＤＥ８９ ３７０４ ００４４ ０５３２ ０１３０ ００', 'iban', 'ＤＥ８９ ３７０４ ００４４ ０５３２ ０１３０ ００'],
    ['card 4111\u200b1111\u200b1111\u200b1111', 'credit_card', '4111\u200b1111\u200b1111\u200b1111'],
    ['IP １９２．１６８．１．２０', 'ip_address', '１９２．１６８．１．２０'],
  ])('finds %j', (text, type, value) => {
    expect(found(text)).toEqual([[type, value]]);
  });

  it('keeps invisible characters on the edges out of the span', () => {
    expect(found('SSN \u200b078-05-1123\u200b!')).toEqual([['us_ssn', '078-05-1123']]);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties.

/** Values with the context that makes each one certain, as ASCII. */
const VALUES: readonly [type: string, before: string, value: string][] = [
  ['us_ssn', 'SSN ', '078-05-1123'],
  ['credit_card', 'card ', '4111 1111 1111 1111'],
  ['credit_card', 'card ', '5555-5555-5555-4444'],
  ['phone', 'phone ', '+1 415 555 0132'],
  ['phone', 'phone ', '(415) 555-0132'],
  ['email', 'mail ', 'jane.doe@example.com'],
  ['iban', 'IBAN ', 'DE89 3704 0044 0532 0130 00'],
  ['ip_address', 'host ', '192.168.10.24'],
];

/** One way of writing a character differently, applied to the digits, dashes, dots and `@`. */
const variant = fc.constantFrom<(value: string) => string>(
  (v) => digitsIn(v, FULL_WIDTH_DIGITS),
  (v) => digitsIn(v, ARABIC_INDIC),
  (v) => digitsIn(v, PERSIAN),
  (v) => digitsIn(v, DEVANAGARI),
  (v) => v.replaceAll('-', '\u2013'),
  (v) => v.replaceAll('-', '\u2011'),
  (v) => v.replaceAll('-', '\uff0d'),
  (v) => v.replaceAll(' ', '\u3000'),
  (v) => v.replaceAll(' ', '\u00a0'),
  (v) => v.replaceAll('@', '\uff20'),
  (v) => v.replace(/\.com$/, '\u3002com'),
  (v) => v.replaceAll('.', '\uff0e'),
  (v) => v.replaceAll('+', '\uff0b').replaceAll('(', '\uff08').replaceAll(')', '\uff09'),
  (v) => v,
);

const SURROUNDINGS = ['', 'ok ', '東京 ', 'Grüße ', 'مرحبا ', 'Привет ', '😀 ', '\u200b', '(', '"'];

describe('Unicode properties', () => {
  it('finds a value written with any mix of variants, at a span that folds back to the value', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...VALUES),
        fc.array(variant, { minLength: 1, maxLength: 3 }),
        fc.constantFrom(...SURROUNDINGS),
        fc.constantFrom(...SURROUNDINGS),
        ([type, before, value], variants, left, right) => {
          const written = variants.reduce((text, apply) => apply(text), value);
          const text = `${left}${before}${written} ${right}`;
          const hits = detectAll(text).filter((d) => d.type === type && d.confidence >= 0.5);
          expect(hits).toHaveLength(1);
          const hit = hits[0]!;
          expect(hit.value).toBe(text.slice(hit.start, hit.end));
          expect(foldText(hit.value)).toBe(foldText(value));
        },
      ),
      { numRuns: 1500 },
    );
  });

  const PIECES = [
    ...VALUES.map(([, before, value]) => `${before}${value}`),
    ' ', '-', '\u2013', '\u2011', '\u200b', '\u00a0', '\u3000', '＠', '。', '．', '４', '٣', '۷', 'é', 'e\u0301', '東', '😀', 'ﬁ', '½', '㍿',
  ];
  const textArb = fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }).map((parts) => parts.join(''));

  it('a cut trims the same characters on either view: a symbol that folds to letters is content', () => {
    // Found by the property below (seed -69163843): the SSN cuts the e-mail's local part, and
    // the square era name ㍿ (folded: 株式会社) was trimmed as punctuation on the original text only.
    const text = 'SSN 078-05-1123＠㍿．SSN 078-05-1123';
    const view = foldWithOffsets(text);
    const email = detectAll(text).find((detection) => detection.type === 'email');
    const folded = detectAll(view.text).find((detection) => detection.type === 'email');
    expect(folded).toBeDefined();
    expect(email).toBeDefined();
    expect(foldText(email!.value)).toBe(folded!.value);
  });

  it('reports spans whose fold is what the detectors saw on the folded text (widened to whole characters)', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        const view = foldWithOffsets(text);
        const onFolded = detectAll(view.text).map((d) => {
          const original = view.originalSpan(d.start, d.end);
          const widened = view.foldedSpan(original.start, original.end);
          return `${d.type}\u0000${view.text.slice(widened.start, widened.end)}`;
        });
        for (const detection of detectAll(text)) {
          expect(detection.value).toBe(text.slice(detection.start, detection.end));
          expect(onFolded).toContain(`${detection.type}\u0000${foldText(detection.value)}`);
        }
      }),
      { numRuns: 1500 },
    );
  });
});
