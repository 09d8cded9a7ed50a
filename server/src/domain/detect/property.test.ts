// Property: on arbitrary strings (ASCII soup, full Unicode, and text built from entity-shaped
// fragments) detectAll never throws and returns spans that are sorted, non-overlapping, inside
// the text, non-empty, with value === text.slice(start, end) and confidence in [0, 1].
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Detection } from '../types.js';
import { compileCustomPatterns, detectAll } from './index.js';
import { scanBuiltin, scanBuiltinUngated } from './scan.js';

function checkInvariants(text: string, result: readonly Detection[]): void {
  let previousEnd = 0;
  for (const detection of result) {
    expect(detection.start).toBeGreaterThanOrEqual(previousEnd);
    expect(detection.end).toBeGreaterThan(detection.start);
    expect(detection.end).toBeLessThanOrEqual(text.length);
    expect(detection.value).toBe(text.slice(detection.start, detection.end));
    expect(detection.confidence).toBeGreaterThanOrEqual(0);
    expect(detection.confidence).toBeLessThanOrEqual(1);
    previousEnd = detection.end;
  }
}

const FRAGMENTS = [
  'jane@example.com', '@', '.', ':', '::', '=', '+', '(', ')', '-', '/', ' ', '\n', '4111 1111 1111 1111', '4111',
  'DE89 3704 0044 0532 0130 00', 'DE89', '123-45-6789', '192.168.0.1', '2001:db8::1', 'ffff', '00:1A:2B:3C:4D:5E',
  'https://x.org/a(b)', 'www.', 'March', '12', '2024', 'März', 'password', 'token', '"', "'", '***', 'AKIA',
  'IOSFODNN7EXAMPLE', 'eyJhbGciOiJIUzI1NiJ9', 'eyJzdWIiOiIxIn0', '-----BEGIN RSA PRIVATE KEY-----', '-----END RSA PRIVATE KEY-----',
  'MIIE', 'bc1q', '0x', '1BoatSLRHtKNngkdXEeobR76b53LETtpyT', 'SWIFT', 'DEUTDEFF', '😀', '\uD800', 'é', '+44 20 7946 0958',
  // Escapes, marks on digits, glued labels, command-line options.
  '&#64;', '&#x34;', '&commat;', '%40', '%2B', '&', '%', ';', '\u0302', 'card', 'ssn', 'tel', '_', 'mysql ', 'curl ', '-p', '-u',
  '--password ', '--token=', 'sshpass ', '|',
];

const entitySoup = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 40 }).map((parts) => parts.join(''));

// Words around every gate of the scan's word loop (scan.ts WORD_PAIRS and the quiet-word path):
// key prefixes, schemes, digit words, labels, one- and two-letter words before digits, two
// capitals, separators after a word, in any case.
const WORDS = [
  'a', 'I', 'to', 'of', 'DE', 'ab', 'X', 'the', 'quick', 'brown', 'support', 'Fox', 'fox', 'fo1_', 'sk-', 'SG.', 'ghp_', 'glpat-', 'xoxb-', 'hf_',
  'AIza', 'ya29.', 'MTk4', 'N', 'O', 'ey', 'eyJ', 'bc1', 'BC1', 'http', 'HTTPS', 'ftp', 'www', 'wWw', 'four', 'one', 'oh', 'null', 'zwei',
  'fünf', 'password', 'PIN', 'key', 'token', 'card', 'ssn', 'tel', 'dob', 'March', 'Mar', 'postgres', 'redis', 'jdbc', 'dead', 'beef', 'abcd',
  'verylongwordhere', 'abc1defghijk', 'x9613851n', 'de136695976', 'ä', 'Ωmega', '_x', 'a1', 'Z9', '12', '2024', '4111', '07', '4111111111111111',
  '078-05-1120', '4155550100', '03/04/1985', '12,', 'GB82WEST12345698765432', '2001:db8::1', '192.168.0.1',
];
const SEPARATORS = [' ', ' ', ' ', '', ',', '.', '. ', ':', '::', '+', '-', '/', '@', '=', '\n', '(', ')', '\u00a0', '—', '。'];
const wordSoup = fc
  .array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPARATORS), fc.constantFrom('as is', 'upper', 'lower')), { maxLength: 30 })
  .map((items) => items.map(([word, separator, kase]) => `${kase === 'upper' ? word.toUpperCase() : kase === 'lower' ? word.toLowerCase() : word}${separator}`).join(''));

describe('detectAll invariants', () => {
  it('holds on arbitrary ASCII and Unicode strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 300 }), entitySoup), (text) => {
        checkInvariants(text, detectAll(text));
      }),
      { numRuns: 2000 },
    );
    // 2,000 detectAll runs: 5-7 s at load 18 on the shared 2-core machine (base and new alike), past vitest's 5 s default.
  }, 60_000);

  it('holds with custom patterns and language hints', () => {
    const patterns = compileCustomPatterns([
      { entity_type: 'digits', pattern: '\\d{3,}', confidence: 0.9 },
      { entity_type: 'word', pattern: '[a-z]*', context_words: ['token'] },
      { entity_type: 'any', pattern: '.', confidence: 0.1 },
    ]);
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), entitySoup),
        fc.constantFrom('en', 'de', 'fr', 'pt-BR', 'xx', ''),
        (text, language) => {
          checkInvariants(text, detectAll(text, { customPatterns: patterns, language }));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('finds with its word gates exactly what every detector finds when every word asks them all', () => {
    fc.assert(
      fc.property(fc.oneof(wordSoup, entitySoup, fc.string({ maxLength: 200 })), fc.constantFrom(undefined, 'en', 'de', 'fr'), (text, language) => {
        expect(scanBuiltin(text, language)).toEqual(scanBuiltinUngated(text, language));
      }),
      { numRuns: 3000 },
    );
  });
});
