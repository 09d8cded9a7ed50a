// The linear-time engine behind caller and policy patterns: JavaScript escapes mean the same as
// in JavaScript, offsets are UTF-16, errors are fixed texts that never quote the pattern, the
// program-size bound, and the classic catastrophic-backtracking corpus completing on near-miss
// inputs (a backtracking engine takes exponential time on each of them).
import { describe, expect, it } from 'vitest';
import { LinearRegex, MAX_PROGRAM_SIZE, PatternSyntaxError, translateJavaScriptSyntax } from './linear-regex.js';

function spans(source: string, text: string, ignoreCase = false): [number, number][] {
  return [...LinearRegex.compile(source, { ignoreCase }).matches(text)].map(({ start, end }) => [start, end]);
}

describe('translateJavaScriptSyntax', () => {
  it.each([
    ['\\u00e9', '\\x{e9}'],
    ['\\u{1F600}', '\\x{1F600}'],
    ['\\uD83D\\uDE00', '\\x{1f600}'],
    ['\\cA', '\\x{1}'],
    ['\\p{Script=Greek}', '\\p{Greek}'],
    ['\\P{sc=Latin}', '\\P{Latin}'],
    ['\\p{gc=Lu}', '\\p{Lu}'],
    ['\\p{Letter}+\\P{Uppercase_Letter}', '\\p{L}+\\P{Lu}'],
    ['\\p{General_Category=Decimal_Number}', '\\p{Nd}'],
    ['\\\\u0041', '\\\\u0041'],
    ['[\\d-]+\\.x', '[\\d-]+\\.x'],
  ])('%s -> %s', (source, expected) => {
    expect(translateJavaScriptSyntax(source)).toBe(expected);
  });

  it('means what JavaScript means', () => {
    for (const [source, text] of [
      ['caf\\u00e9', 'café'],
      ['\\u{1F600}+', 'x😀😀y'],
      ['\\uD83D\\uDE00', '😀'],
      ['\\p{Script=Greek}+', 'abc αβγ'],
      ['\\p{Letter}+', '12 Ünïcode 34'],
    ] as const) {
      const expected = [...text.matchAll(new RegExp(source, 'gu'))].map((match) => [match.index, match.index + match[0].length]);
      expect(spans(source, text)).toEqual(expected);
    }
  });
});

describe('LinearRegex', () => {
  it('reports UTF-16 offsets after astral characters and lone surrogates', () => {
    expect(spans('K-\\d+', '😀😀 K-42 and K-7')).toEqual([
      [5, 9],
      [14, 17],
    ]);
    expect(spans('a+', '\ud800aa\udc00a')).toEqual([
      [1, 3],
      [4, 5],
    ]);
  });

  it('matches case-insensitively when asked, including non-ASCII letters', () => {
    expect(spans('straße', 'STRAßE', true)).toEqual([[0, 6]]);
    expect(spans('é', 'É', true)).toEqual([[0, 1]]);
    expect(spans('é', 'É')).toEqual([]);
  });

  it('never reports empty matches and always terminates on them', () => {
    expect(spans('x*', 'ab😀xx😀 x')).toEqual([
      [4, 6],
      [9, 10],
    ]);
    expect(spans('\\b', 'a b')).toEqual([]);
  });

  it('tests without positions', () => {
    const regex = LinearRegex.compile('^\\+44');
    expect(regex.test('+44 20 7946 0958')).toBe(true);
    expect(regex.test('+1 415')).toBe(false);
  });

  it.each([
    ['(a)\\1', 'unsupported syntax'],
    ['(?<n>a)\\k<n>', 'unsupported syntax'],
    ['(?=secret)x', 'unsupported syntax'],
    ['(?!secret)x', 'unsupported syntax'],
    ['(?<=secret)x', 'unsupported syntax'],
    ['(?<!secret)x', 'unsupported syntax'],
    ['a{2,1}', 'too complex or has an invalid repetition'],
    ['(secret{100}){100}', 'too complex or has an invalid repetition'],
    ['[\\p{L}\\p{N}]{1001}', 'too complex or has an invalid repetition'],
    ['(secret', 'invalid regular expression'],
    ['[secret', 'invalid regular expression'],
  ])('rejects %j with a fixed reason that does not quote it', (source, reason) => {
    let caught: unknown;
    try {
      LinearRegex.compile(source);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(PatternSyntaxError);
    const message = (caught as PatternSyntaxError).message;
    expect(message).toContain(reason);
    expect(message).not.toContain('secret');
    expect(message).not.toContain(source);
  });

  it('reuses a compiled pattern for the same source and flags only', () => {
    const first = LinearRegex.compile('T-\\d+');
    expect(LinearRegex.compile('T-\\d+')).toBe(first);
    expect(LinearRegex.compile('T-\\d+', { ignoreCase: true })).not.toBe(first);
    expect(spans('T-\\d+', 't-1 T-2', true)).toEqual([
      [0, 3],
      [4, 7],
    ]);
    expect(spans('T-\\d+', 't-1 T-2')).toEqual([[4, 7]]);
  });

  it('bounds the compiled program size, not the literal length', () => {
    expect(() => LinearRegex.compile('a'.repeat(1024))).not.toThrow();
    expect(() => LinearRegex.compile(`.{${MAX_PROGRAM_SIZE}}`)).toThrow(PatternSyntaxError);
    expect(() => LinearRegex.compile('.{500}')).not.toThrow();
  });

  // Patterns that take exponential (or high-polynomial) time on a backtracking engine when the
  // input almost matches. Each runs on a 20,000-character near miss; completing at all is the
  // property (a backtracking engine would not finish any of them).
  it.each([
    ['(a+)+$', `${'a'.repeat(20_000)}!`],
    ['(a|a)+$', `${'a'.repeat(20_000)}!`],
    ['(a|aa)+$', `${'a'.repeat(20_000)}!`],
    ['(a*)*b', 'a'.repeat(20_000)],
    ['(.*a){12}', 'a'.repeat(20_000)],
    ['(\\w+\\s?)+$', `${'word '.repeat(4_000)}!`],
    ['^(([a-z])+.)+[A-Z]([a-z])+$', `${'abcdefgh'.repeat(2_500)}!`],
    ['(x+x+)+y', 'x'.repeat(20_000)],
    ['^(\\d+)*$', `${'1'.repeat(20_000)}x`],
    ['(?i)(a|A)+$', `${'aA'.repeat(10_000)}!`],
  ])('completes %j on a near-miss input', (source, text) => {
    const regex = LinearRegex.compile(source);
    expect(regex.test(text)).toBe(source === '(.*a){12}');
    expect([...regex.matches(text)].length).toBe(source === '(.*a){12}' ? 1 : 0);
  });
});
