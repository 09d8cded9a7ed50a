// The word loop's inline gates of session 14 (scan.ts), each held to the function whose answer it
// stands for: keywordStartAt (the table read the scan inlines) against mayStartKeyword over every
// three-unit start of ASCII (and non-ASCII or missing second and third units), and the length and
// next-unit test before mayStartBase64 (base64MayStartAfter) against mayStartBase64 itself; the
// spelled-e-mail regex's gate (an "at" mark the loop saw, email-spelled.ts) by the scan's answers
// with the gate against the scan that always runs the regex (scanBuiltinUngated), on texts made of
// the regex's pieces, the values the loop steps over, and the Unicode letters `iu` folds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { atWordAt } from './email-spelled.js';
import { base64MayStartAfter, mayStartBase64 } from './encoded.js';
import { keywordStartAt, mayStartKeyword } from './keywords.js';
import { scanBuiltin, scanBuiltinUngated } from './scan.js';

const NON_ASCII = ['ü', 'Ü', 'ú', 'Ú', 'ó', '°', 'é', 'ß', '\u00a0', '密', '😀'];

describe('keywordStartAt (the scan inline)', () => {
  it('answers as mayStartKeyword for every ASCII word start, any second and third unit', () => {
    const seconds: string[] = [];
    for (let code = 0; code < 128; code++) seconds.push(String.fromCharCode(code));
    seconds.push(...NON_ASCII);
    const wrong: string[] = [];
    let allowed = 0;
    for (let c = 0; c < 128; c++) {
      if (!/[A-Za-z0-9_]/.test(String.fromCharCode(c))) continue;
      const first = String.fromCharCode(c);
      for (const second of seconds) {
        // Each start followed by every third unit, by a non-ASCII one, and by nothing (the text's end).
        for (const third of [...seconds, '']) {
          for (const text of [`${first}${second}${third}`, `x ${first}${second}${third}x`]) {
            const start = text.startsWith('x ') ? 2 : 0;
            const expected = mayStartKeyword(text, start);
            const got = keywordStartAt(text, start, c, text.charCodeAt(start + 1), text.charCodeAt(start + 2));
            if (got !== expected) wrong.push(JSON.stringify(text));
            if (got) allowed++;
          }
        }
      }
    }
    expect(wrong.slice(0, 20)).toEqual([]);
    expect(allowed).toBeGreaterThan(0);
  });

  it('allows the label words in any case and refuses words of prose', () => {
    for (const word of ['password', 'PASSWORD', 'Token', 'a/c', 'n° ', 'Prüfnummer', 'Führerschein', 'núm', 'cód', 'policy', 'POLICY']) {
      expect(keywordStartAt(word, 0, word.charCodeAt(0), word.charCodeAt(1), word.charCodeAt(2))).toBe(true);
    }
    for (const word of ['the', 'quick', 'dog', 'while', 'team', 'fo', 'p']) {
      expect(keywordStartAt(word, 0, word.charCodeAt(0), word.charCodeAt(1), word.charCodeAt(2))).toBe(false);
    }
  });
});

describe('base64MayStartAfter (before mayStartBase64)', () => {
  it('is true wherever mayStartBase64 is, for words of every length up to 40 and every unit after them', () => {
    const lead = 'TWFuIGlzIGRpc3Rpbmd1aXNoZWQsIG5vdCBvbmx5IGJ5IGhpcyByZWFzb24';
    const hex = '48656c6c6f20776f726c6420616e642061206c6f6e67';
    const wrong: string[] = [];
    let passed = 0;
    for (let length = 1; length <= 40; length++) {
      for (const body of [lead, hex, 'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz', '2'.repeat(60)]) {
        const word = body.slice(0, length);
        for (let next = 0; next < 160; next++) {
          for (const text of [`${word}${String.fromCharCode(next)}`, ` ${word}${String.fromCharCode(next)}`, word]) {
            const start = text.startsWith(' ') ? 1 : 0;
            const end = start + length;
            if (!mayStartBase64(text, start, end)) continue;
            passed++;
            if (!base64MayStartAfter(length, text.charCodeAt(end))) wrong.push(JSON.stringify(text));
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(passed).toBeGreaterThan(0);
  });

  it('is the test the scan inlines: 12 units, or + / - after the word', () => {
    expect(base64MayStartAfter(12, 32)).toBe(true);
    expect(base64MayStartAfter(11, 32)).toBe(false);
    expect(base64MayStartAfter(11, Number.NaN)).toBe(false);
    for (const next of ['+', '/', '-']) expect(base64MayStartAfter(4, next.charCodeAt(0))).toBe(true);
  });
});

describe('the spelled-e-mail gate', () => {
  it('reads an at-word in any case the regex folds, between spaces or tabs only', () => {
    for (const word of ['at', 'AT', 'At', 'arroba', 'AROBASE', 'chiocciola', 'Klammeraffe', '\u212alammeraffe', 'apenſtaartje', 'MAŁPA', 'małpa', 'ät', 'ÄT']) {
      expect(atWordAt(`x ${word} y`, 2, 2 + word.length)).toBe(true);
      expect(atWordAt(`x\t${word}\ty`, 2, 2 + word.length)).toBe(true);
      expect(atWordAt(`x.${word} y`, 2, 2 + word.length)).toBe(false);
      expect(atWordAt(`x ${word}. y`, 2, 2 + word.length)).toBe(false);
    }
    for (const word of ['a', 'an', 'are', 'atom', 'make', 'klammer']) expect(atWordAt(`x ${word} y`, 2, 2 + word.length)).toBe(false);
  });

  it('reads an at-word written with any code unit the iu flags match with its letters (every BMP unit tried)', () => {
    const words = ['at', 'arroba', 'arobase', 'chiocciola', 'ät', 'klammeraffe', 'apenstaartje', 'małpa'];
    const matching = new Map<string, string[]>();
    for (const letter of new Set(words.join(''))) {
      const one = new RegExp(`^${letter}$`, 'iu');
      const units: string[] = [];
      for (let unit = 0; unit < 0x10000; unit++) if (one.test(String.fromCharCode(unit))) units.push(String.fromCharCode(unit));
      matching.set(letter, units);
    }
    const wrong: string[] = [];
    for (const word of words) {
      for (let k = 0; k < word.length; k++) {
        for (const unit of matching.get(word[k]!)!) {
          const spelled = word.slice(0, k) + unit + word.slice(k + 1);
          expect(new RegExp(`^(?:${words.join('|')})$`, 'iu').test(spelled)).toBe(true);
          if (!atWordAt(` ${spelled} `, 1, 1 + spelled.length)) wrong.push(spelled);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(matching.get('k')).toContain('\u212a');
    expect(matching.get('s')).toContain('ſ');
  });

  // Pieces of every AT_MARK alternative, of local parts and domains, and values the loop steps over
  // (e-mails, URLs, IBANs with spaces, IPv6, a PEM block), joined with and without separators.
  const PIECES = [
    'jane.roe', 'jane', 'roe', 'j.r_2', 'corp', 'example', 'com', 'fi', 'at', 'AT', 'At', 'arroba', 'Arobase', 'chiocciola', 'klammeraffe',
    '\u212alammeraffe', 'apenſtaartje', 'małpa', 'MAŁPA', 'ät', 'Ät', 'a', 'A', 'dot', 'DOT', 'punto', 'point', '.', ' . ', '@', ' @ ', '@ ', ' @',
    '(', ')', '[', ']', '{', '}', '<', '>', '(at)', '[at]', '{ at }', '<AT>', '(a)', '[a]', 'jane@example.com', 'x@y.org (at) corp',
    'https://example.org/a at b', 'https://u:p@host.example/x', 'DE89 3704 0044 0532 0130 00', '2001:db8::1', 'fe80:: at ',
    '-----BEGIN RSA PRIVATE KEY-----\nMIIE at\n-----END RSA PRIVATE KEY-----', 'look', 'we', 'meet', '4111 1111 1111 1111', '😀', 'é',
    // Whole spelled addresses, and marks inside values the loop steps over.
    'jane.roe @ corp.example', 'jane.roe@ corp.example', 'jane_roe @corp.example', 'jane dot roe at corp dot example', 'jan(a)firma.fi',
    'jane [at] corp [dot] example', 'j o h n @ c o r p . e x a m p l e', 'https://x.org/jane(at)corp.example', 'https://x.org/a@ corp.example',
    'https://x.org/j.r_2 at corp dot example', 'GB82WEST12345698765432(at)corp.example', 'sk-abc123def456ghi789jkl012 @ corp.example',
  ];
  const SEPARATORS = [' ', ' ', ' ', '\t', '', '  ', '\n', ',', '. '];
  const atSoup = fc
    .array(fc.tuple(fc.constantFrom(...PIECES), fc.constantFrom(...SEPARATORS)), { maxLength: 24 })
    .map((items) => items.map(([piece, separator]) => `${piece}${separator}`).join(''));

  it('finds what the scan that always runs the regex finds', () => {
    fc.assert(
      fc.property(atSoup, fc.constantFrom(undefined, 'en', 'de'), (text, language) => {
        expect(scanBuiltin(text, language)).toEqual(scanBuiltinUngated(text, language));
      }),
      { numRuns: 2000 },
    );
  }, 120_000);

  it('still finds the spelled addresses the regex anchors on', () => {
    for (const text of ['mail jane.roe at corp dot example today', 'jane.roe (at) corp.example', 'jane.roe @ corp.example', 'jan(a)firma.fi', 'jane.roe\tarroba\tcorp.example', 'jane.roe ÄT corp.example', 'j o h n @ c o r p . e x a m p l e']) {
      expect(scanBuiltin(text, 'en').some((found) => found.type === 'email')).toBe(true);
    }
  });
});
