// Token repair (decisions.md section 9, threats.md 6): every mangling the repair promises is
// restored to the exact token, every smuggling variant stays unresolvable, ordinary braces stay
// plain text, and on text with intact tokens the lenient scan equals the strict one.
import { DEFAULT_POLICY } from '@veil/common';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompiledPolicy } from '../policy/index.js';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { findTokens, renderToken } from '../token/index.js';
import type { Token } from '../types.js';
import { findTokensLenient, MAX_LENIENT_SPAN } from './lenient.js';

const CAP12 = '0123456789ab';
const CAP32 = '0123456789abcdef0123456789abcdef';
const HEX24 = 'abcdef0123456789abcdef01';

const EMAIL: Token = { type: 'email', id: 'e_001', cap: CAP12 };
const CARD: Token = { type: 'credit_card', id: 'cc_002', cap: 'fedcba987654' };
const TICKET: Token = { type: 'custom:ticket_id', id: 'c_001', cap: 'aabbccddeeff' };
const CORPUS: Token = { type: 'person', id: `p_${HEX24}`, cap: CAP32 };

/** The single valid token the lenient scan finds in `text`, or null. */
function repairedIn(text: string): { token: Token; raw: string } | null {
  const valid = findTokensLenient(text).filter((candidate) => candidate.token !== null);
  if (valid.length !== 1) return null;
  return { token: valid[0]!.token!, raw: valid[0]!.raw };
}

const manglings: [string, (token: Token) => string][] = [
  ['intact', (t) => `{{${t.type}:${t.id}:${t.cap}}}`],
  ['spaces inside the braces', (t) => `{{ ${t.type}:${t.id}:${t.cap} }}`],
  ['spaces around colons', (t) => `{{${t.type} : ${t.id} : ${t.cap}}}`],
  ['space after colons', (t) => `{{${t.type}: ${t.id}: ${t.cap}}}`],
  ['tabs', (t) => `{{\t${t.type}\t:\t${t.id}:${t.cap}\t}}`],
  ['line break before the cap', (t) => `{{${t.type}:${t.id}:\n${t.cap}}}`],
  ['line breaks inside the braces', (t) => `{{\n${t.type}:${t.id}:${t.cap}\r\n}}`],
  ['uppercase type', (t) => `{{${t.type.toUpperCase()}:${t.id}:${t.cap}}}`],
  ['title-case type', (t) => `{{${t.type[0]!.toUpperCase()}${t.type.slice(1)}:${t.id}:${t.cap}}}`],
  ['lost opening brace', (t) => `{${t.type}:${t.id}:${t.cap}}}`],
  ['lost closing brace', (t) => `{{${t.type}:${t.id}:${t.cap}}`],
  ['markdown-escaped braces', (t) => `\\{\\{${t.type}:${t.id}:${t.cap}\\}\\}`],
  ['escaped opening braces only', (t) => `\\{\\{${t.type}:${t.id}:${t.cap}}}`],
  ['escaped underscore in the type', (t) => `{{${t.type.replaceAll('_', '\\_')}:${t.id}:${t.cap}}}`],
  ['escaped, spaced and upper-cased', (t) => `\\{\\{ ${t.type.toUpperCase().replaceAll('_', '\\_')} : ${t.id} : ${t.cap} \\}\\}`],
  ['escaped with a lost brace', (t) => `\\{${t.type}:${t.id}:${t.cap}\\}\\}`],
];

describe('findTokensLenient: repairs', () => {
  for (const token of [EMAIL, CARD, TICKET, CORPUS]) {
    it.each(manglings)(`restores ${token.type}: %s`, (_name, mangle) => {
      const mangled = mangle(token);
      const text = `Please contact ${mangled} today.`;
      const found = repairedIn(text);
      expect(found, mangled).not.toBeNull();
      expect(found!.token).toEqual(token);
      expect(found!.raw).toBe(mangled);
    });
  }

  it('repairs several mangled tokens in one text, in order', () => {
    const text = `A {{ EMAIL : e_001 : ${CAP12} }} B \\{\\{credit\\_card:cc_002:fedcba987654\\}\\} C {{email:e_001:${CAP12}}`;
    const found = findTokensLenient(text);
    expect(found.map((candidate) => candidate.token?.id)).toEqual(['e_001', 'cc_002', 'e_001']);
    for (const candidate of found) expect(text.slice(candidate.start, candidate.end)).toBe(candidate.raw);
  });
});

describe('findTokensLenient: smuggling variants stay unresolvable (threats.md 6)', () => {
  const token = `{{email:e_001:${CAP12}}}`;
  it.each([
    ['uppercase cap', `{{email:e_001:${CAP12.toUpperCase()}}}`],
    ['short cap', `{{email:e_001:${CAP12.slice(1)}}}`],
    ['long cap', `{{email:e_001:${CAP12}0}}`],
    ['uppercase id', `{{email:E_001:${CAP12}}}`],
    ['escaped underscore in the id', `{{email:e\\_001:${CAP12}}}`],
    ['space inside the cap', `{{email:e_001:${CAP12.slice(0, 6)} ${CAP12.slice(6)}}}`],
    ['line break inside the cap', `{{email:e_001:${CAP12.slice(0, 6)}\n${CAP12.slice(6)}}}`],
    ['space inside the type', `{{em ail:e_001:${CAP12}}}`],
    ['zero-width space inside the cap', `{{email:e_001:${CAP12.slice(0, 4)}\u200b${CAP12.slice(4)}}}`],
    ['zero-width space between parts', `{{email\u200b:e_001:${CAP12}}}`],
    ['zero-width space after the braces', `{{\u200bemail:e_001:${CAP12}}}`],
    ['zero-width joiner before the closing braces', `{{email:e_001:${CAP12}\u200d}}`],
    ['no-break space around a colon', `{{email\u00a0:e_001:${CAP12}}}`],
    ['fullwidth braces', `\uff5b\uff5bemail:e_001:${CAP12}\uff5d\uff5d`],
    ['cyrillic e in the type', `{{\u0435mail:e_001:${CAP12}}}`],
    ['Kelvin sign in an upper-cased type', `{{\u212aEY:e_001:${CAP12}}}`.replace('\u212aEY', 'EMAI\u212a')],
    ['dotted capital I in the type', `{{EMA\u0130L:e_001:${CAP12}}}`],
    ['triple braces', `{${token}}`],
    ['triple opening braces', `{${token}`],
    ['triple closing braces', `${token}}`],
    ['quadruple braces', `{{${token}}}`],
    ['escaped triple braces', `\\{\\{\\{email:e_001:${CAP12}\\}\\}\\}`],
    ['both sides lost a brace', `{email:e_001:${CAP12}}`],
    ['no braces', `email:e_001:${CAP12}`],
    ['missing cap', '{{ email : e_001 }}'],
    ['five parts', `{{a:b:email:e_001:${CAP12}}}`],
    ['bare custom type', `{{ custom : c_001 : ${CAP12} }}`],
    ['corpus cap on a counter id', `{{ email : e_001 : ${CAP32} }}`],
    ['escaped backslash before the cap', `{{email:e_001:\\${CAP12}}}`],
  ])('%s', (_name, text) => {
    const found = findTokensLenient(`before ${text} after`);
    expect(found.filter((candidate) => candidate.token !== null), text).toEqual([]);
  });

  it('never carves a valid token out of a nested token', () => {
    const inner = `{{email:e_001:${CAP12}}}`;
    for (const wrapped of [`{{x:${inner}:y}}`, `{{ ${inner} }}`, `\\{${inner}\\}`]) {
      const found = findTokensLenient(wrapped).filter((candidate) => candidate.token !== null);
      // The strict scan finds the inner token itself in some of these; repair adds nothing.
      expect(found, wrapped).toEqual(findTokens(wrapped).filter((candidate) => candidate.token !== null));
    }
  });
});

describe('findTokensLenient: ordinary text', () => {
  it.each([
    '{ name: value }',
    '{ email: e_001: 0123456789abc }',
    '{"email": "e_001", "cap": "0123456789ab"}',
    '{{ user.name }}',
    '{{#if admin}}yes{{/if}}',
    'function f() {\n  return { a: 1 };\n}',
    '\\{ not a token \\}',
    '{{a:b:c}}',
    '{ {email:e_001:0123456789ab} }',
    '',
  ])('leaves %j as the strict scan does', (text) => {
    expect(findTokensLenient(text)).toEqual(findTokens(text));
  });
});

const lowerHex = (length: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...Array.from('0123456789abcdef')), minLength: length, maxLength: length });
const digits = (min: number, max: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...Array.from('0123456789')), minLength: min, maxLength: max });
const lowerLetters = (min: number, max: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...Array.from('abcdefghijklmnopqrstuvwxyz')), minLength: min, maxLength: max });
const typeName = fc
  .tuple(lowerLetters(1, 1), fc.string({ unit: fc.constantFrom(...Array.from('abcdefghijklmnopqrstuvwxyz0123456789_')), maxLength: 20 }))
  .map(([head, tail]) => head + tail)
  .filter((name) => name !== 'custom');
const tokenType = fc.oneof(typeName, typeName.map((name) => `custom:${name}`));
const validToken: fc.Arbitrary<Token> = fc.oneof(
  fc.tuple(tokenType, lowerLetters(1, 6), digits(3, 9), lowerHex(12)).map(([type, prefix, counter, cap]) => ({ type, id: `${prefix}_${counter}`, cap })),
  fc.tuple(tokenType, lowerLetters(1, 6), lowerHex(24), lowerHex(32)).map(([type, prefix, suffix, cap]) => ({ type, id: `${prefix}_${suffix}`, cap })),
);
const filler = fc.string({ unit: fc.oneof(fc.constantFrom('{', '}', '\\', ':', ' ', '\n', '_', 'a', 'E', '0', '.'), fc.constantFrom('x', 'é', '😀', '\u200b')), maxLength: 24 });

describe('findTokensLenient: properties', () => {
  it('equals the strict scan on text whose tokens are intact', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(filler, validToken), { maxLength: 6 }), filler, (pieces, tail) => {
        const text = pieces.map(([before, token]) => before + renderToken(token)).join('') + tail;
        expect(findTokensLenient(text)).toEqual(findTokens(text));
      }),
      { numRuns: 400 },
    );
  });

  it('repairs any valid token under any promised mangling', () => {
    fc.assert(
      fc.property(validToken, fc.constantFrom(...manglings.map(([, mangle]) => mangle)), (token, mangle) => {
        const mangled = mangle(token);
        const found = repairedIn(`x ${mangled} y`);
        expect(found?.token).toEqual(token);
      }),
      { numRuns: 400 },
    );
  });

  it('never throws, returns ordered non-overlapping spans, and stays inside the span bound', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(filler, validToken.map((token) => manglings[3]![1](token))), { maxLength: 8 }), (parts) => {
        const text = parts.join('');
        const found = findTokensLenient(text);
        let last = 0;
        for (const candidate of found) {
          expect(candidate.start).toBeGreaterThanOrEqual(last);
          expect(candidate.end).toBeGreaterThan(candidate.start);
          expect(text.slice(candidate.start, candidate.end)).toBe(candidate.raw);
          if (candidate.token !== null) expect(candidate.raw.length).toBeLessThanOrEqual(MAX_LENIENT_SPAN);
          last = candidate.end;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('stays linear on adversarial input', () => {
    const inputs = [
      '{'.repeat(500_000),
      '{ '.repeat(300_000),
      '\\{'.repeat(300_000),
      '{{a:'.repeat(200_000),
      `{{ ${'a : '.repeat(200_000)}`,
      `{a${' '.repeat(MAX_LENIENT_SPAN)}`.repeat(2000),
      `{{${'a'.repeat(MAX_LENIENT_SPAN)}`.repeat(2000),
      `{{email:e_001:${CAP12}}`.repeat(20_000),
    ];
    for (const input of inputs) {
      findTokensLenient(input);
    }
  });
});

describe('rehydrateText with the lenient scan', () => {
  const policy = new CompiledPolicy(DEFAULT_POLICY);
  const entries = indexEntries([{ id: 'e_001', type: 'email', cap: CAP12, value: 'ada@example.com', mode: 'full' }]);
  const restore = (output: string, lenient: boolean) =>
    rehydrateText({ output, entries, policy, language: 'en', caller: {}, channel: 'user_output', ...(lenient ? { scan: findTokensLenient } : {}) });

  it('restores a mangled token only when the repair scan is plugged in', () => {
    const output = `Mail {{ EMAIL : e_001 : ${CAP12} }} now.`;
    expect(restore(output, false).restoredText).toBe(output);
    expect(restore(output, true)).toEqual({ restoredText: 'Mail ada@example.com now.', tokensResolved: 1, tokensUnresolved: [] });
  });

  it('never fuzzily matches a cap: one changed character restores nothing', () => {
    for (const cap of [`${CAP12.slice(0, 11)}c`, `1${CAP12.slice(1)}`, CAP12.split('').reverse().join('')]) {
      const output = `Mail {{ EMAIL : e_001 : ${cap} }} and {{email:e_001:${cap}}}.`;
      const result = restore(output, true);
      expect(result.restoredText).toBe(output);
      expect(result.tokensResolved).toBe(0);
    }
  });

  it('reports a mangled token with a wrong cap as unknown, verbatim', () => {
    const output = `Mail {{ EMAIL : e_001 : ${'f'.repeat(12)} }} now.`;
    const result = restore(output, true);
    expect(result.restoredText).toBe(output);
    expect(result.tokensUnresolved).toEqual([{ token: `{{ EMAIL : e_001 : ${'f'.repeat(12)} }}`, reason: 'unknown' }]);
  });
});
