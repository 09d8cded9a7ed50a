// Custom patterns: linear-time compilation and rejection, error messages that never echo the pattern or
// a sample, linear matching on patterns that would backtrack catastrophically, empty matches,
// context words, and the validation helpers behind POST /v1/patterns and /v1/entity-types.
import { isVeilError, type VeilError } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { compileCustomPatterns, detectAll, validateCustomPattern, validateEntityTypeName, type CompiledPattern } from './index.js';
import type { CustomPattern } from '../types.js';

function compileError(patterns: readonly CustomPattern[], prefix?: string): VeilError {
  try {
    compileCustomPatterns(patterns, prefix);
  } catch (error) {
    if (isVeilError(error)) return error;
    throw error;
  }
  throw new Error('expected a validation error');
}

function run(text: string, patterns: CompiledPattern[]) {
  return detectAll(text, { customPatterns: patterns }).filter((d) => d.detector === 'custom_pattern');
}

describe('compileCustomPatterns', () => {
  it('compiles and runs a pattern as custom:<name>', () => {
    const patterns = compileCustomPatterns([{ entity_type: 'ticket_id', pattern: 'TCK-[0-9]{6}', confidence: 0.95 }]);
    expect(patterns[0]).toMatchObject({ type: 'custom:ticket_id', confidence: 0.95 });
    const matches = run('see TCK-123456 and TCK-654321.', patterns);
    expect(matches.map((m) => [m.type, m.value, m.confidence, m.detector])).toEqual([
      ['custom:ticket_id', 'TCK-123456', 0.95, 'custom_pattern'],
      ['custom:ticket_id', 'TCK-654321', 0.95, 'custom_pattern'],
    ]);
  });

  it('accepts and strips a custom: prefix on entity_type and defaults confidence to 0.8', () => {
    const [pattern] = compileCustomPatterns([{ entity_type: 'custom:emp_no', pattern: 'E\\d{5}' }]);
    expect(pattern).toMatchObject({ type: 'custom:emp_no', confidence: 0.8 });
  });

  it.each([
    ['(a)\\1', 'unsupported syntax'],
    ['(?=x)abc', 'unsupported syntax'],
    ['(?!x)abc', 'unsupported syntax'],
    ['(?<=x)abc', 'unsupported syntax'],
    ['(unclosed', 'invalid regular expression'],
    ['a{2,1}', 'invalid'],
  ])('rejects %j naming the field, never the pattern', (source, expected) => {
    const error = compileError([{ entity_type: 'ok', pattern: 'fine' }, { entity_type: 'x', pattern: source }]);
    expect(error.code).toBe('VEIL_VALIDATION_FAILED');
    expect(error.status).toBe(400);
    expect(error.message).toContain('custom_patterns[1].pattern');
    expect(error.message).toContain(expected);
    expect(error.message).not.toContain(source);
  });

  it('uses the given field prefix', () => {
    const error = compileError([{ entity_type: 'x', pattern: '(?=a)' }], 'policy.custom_patterns');
    expect(error.message.startsWith('policy.custom_patterns[0].pattern')).toBe(true);
  });

  it('limits the number of patterns and their length', () => {
    const many = Array.from({ length: 33 }, () => ({ entity_type: 'x', pattern: 'a' }));
    expect(compileError(many).message).toContain('at most 32');
    expect(compileCustomPatterns(many.slice(0, 32))).toHaveLength(32);
    const long = 'a'.repeat(1001);
    const error = compileError([{ entity_type: 'x', pattern: long }]);
    expect(error.message).toContain('custom_patterns[0].pattern');
    expect(error.message).not.toContain(long);
    expect(compileCustomPatterns([{ entity_type: 'x', pattern: 'a'.repeat(1000) }])).toHaveLength(1);
  });

  it.each([
    [{ entity_type: 'Ticket', pattern: 'a' }, 'custom_patterns[0].entity_type'],
    [{ entity_type: '', pattern: 'a' }, 'custom_patterns[0].entity_type'],
    [{ entity_type: '9lives', pattern: 'a' }, 'custom_patterns[0].entity_type'],
    [{ entity_type: 'x'.repeat(65), pattern: 'a' }, 'custom_patterns[0].entity_type'],
    [{ entity_type: 'x', pattern: '' }, 'custom_patterns[0].pattern'],
    [{ entity_type: 'x', pattern: 'a', confidence: 1.5 }, 'custom_patterns[0].confidence'],
    [{ entity_type: 'x', pattern: 'a', confidence: -0.1 }, 'custom_patterns[0].confidence'],
    [{ entity_type: 'x', pattern: 'a', context_words: Array.from({ length: 21 }, () => 'w') }, 'custom_patterns[0].context_words'],
    [{ entity_type: 'x', pattern: 'a', context_words: ['w'.repeat(65)] }, 'custom_patterns[0].context_words[0]'],
  ])('names the failing field for %j', (pattern, field) => {
    const error = compileError([pattern]);
    expect(error.message.startsWith(field)).toBe(true);
  });

  it('matches (a+)+$ in linear time on a 100k near-miss', () => {
    const [pattern] = compileCustomPatterns([{ entity_type: 'x', pattern: '(a+)+$' }]);
    const text = `${'a'.repeat(100_000)}b`;
    expect(run(text, [pattern!])).toEqual([]);
  });

  it('terminates on patterns that match the empty string', () => {
    const patterns = compileCustomPatterns([
      { entity_type: 'empty', pattern: 'x*' },
      { entity_type: 'anchor', pattern: '\\b' },
    ]);
    const matches = run('ab😀xx😀 x', patterns);
    expect(matches.map((m) => m.value)).toEqual(['xx', 'x']);
  });

  it('reports UTF-16 offsets after astral characters', () => {
    const patterns = compileCustomPatterns([{ entity_type: 'code', pattern: 'K-\\d+' }]);
    const text = '😀😀 K-42';
    const [match] = run(text, patterns);
    expect(match).toMatchObject({ start: 5, end: 9, value: 'K-42' });
    expect(text.slice(match!.start, match!.end)).toBe('K-42');
  });

  it('raises confidence by 0.15 when a context word is within 60 characters', () => {
    const patterns = compileCustomPatterns([
      { entity_type: 'ticket', pattern: 'T-\\d{4}', confidence: 0.6, context_words: ['Ticket', 'case'] },
    ]);
    const near = run('Your ticket: T-1234', patterns);
    expect(near[0]?.confidence).toBeCloseTo(0.75);
    const after = run('T-1234 is your CASE number', patterns);
    expect(after[0]?.confidence).toBeCloseTo(0.75);
    const far = run(`ticket ${'x'.repeat(80)} T-1234`, patterns);
    expect(far[0]?.confidence).toBeCloseTo(0.6);
    const partial = run('tickets T-1234', patterns);
    expect(partial[0]?.confidence).toBeCloseTo(0.6);
    const capped = compileCustomPatterns([{ entity_type: 'ticket', pattern: 'T-\\d{4}', confidence: 0.95, context_words: ['ticket'] }]);
    expect(run('ticket T-1234', capped)[0]?.confidence).toBe(1);
  });

  it('lets a higher-confidence custom match win an overlap with a built-in one', () => {
    const patterns = compileCustomPatterns([{ entity_type: 'acct', pattern: 'ACCT:\\S+', confidence: 0.99 }]);
    const result = detectAll('ACCT:jane@example.com', { customPatterns: patterns });
    expect(result.map((d) => d.type)).toEqual(['custom:acct']);
  });

  it('rejects patterns that were not compiled by compileCustomPatterns', () => {
    expect(() => detectAll('x', { customPatterns: [{ type: 'custom:x', confidence: 1 }] })).toThrow(TypeError);
  });
});

describe('validateCustomPattern', () => {
  it('reports code-point match spans in the sample', () => {
    const result = validateCustomPattern({ entity_type: 'ticket', pattern: 'T-\\d+' }, '😀 T-1 and T-22');
    expect(result).toEqual({ valid: true, matches: [{ start: 2, end: 5 }, { start: 10, end: 14 }] });
  });

  it('accepts a bare pattern string', () => {
    expect(validateCustomPattern('a+')).toEqual({ valid: true });
  });

  it.each([
    [{ entity_type: 'x', pattern: '(a)\\1' }, 'pattern: unsupported syntax'],
    [{ entity_type: 'x', pattern: '(?=secret)' }, 'pattern: unsupported syntax'],
    [{ entity_type: 'BAD', pattern: 'a' }, 'entity_type:'],
    [{ entity_type: 'x' }, 'pattern: must be a string'],
    [null, 'pattern: must be an object'],
    [42, 'pattern: must be an object'],
  ])('never throws, and names the field for %j', (input, expected) => {
    const result = validateCustomPattern(input, 'sample with secret 4111');
    expect(result.valid).toBe(false);
    expect(result.error).toContain(expected);
    expect(result.error).not.toContain('secret');
    expect(result.error).not.toContain('4111');
  });

  it('terminates on an empty-matching pattern', () => {
    const result = validateCustomPattern({ entity_type: 'x', pattern: 'z*' }, 'abc');
    expect(result).toEqual({ valid: true, matches: [] });
  });
});

describe('validateEntityTypeName', () => {
  it.each([
    ['ticket_id', 'custom:ticket_id'],
    ['custom:ticket_id', 'custom:ticket_id'],
    ['a', 'custom:a'],
    ['email', 'custom:email'],
  ])('accepts %j', (name, type) => {
    expect(validateEntityTypeName(name)).toEqual({ valid: true, type });
  });

  it.each(['', 'custom:', 'Ticket', 'TICKET', '9ticket', 'ticket-id', 'ticket id', 'x'.repeat(65), 'tïcket'])('rejects %j without echoing it', (name) => {
    const result = validateEntityTypeName(name);
    expect(result.valid).toBe(false);
    expect(result.error).toMatch(/^name: /);
    if (name.length > 1) expect(result.error).not.toContain(name);
  });

  it('rejects non-strings', () => {
    expect(validateEntityTypeName(undefined)).toEqual({ valid: false, error: 'name: must be a string' });
    expect(validateEntityTypeName(12)).toEqual({ valid: false, error: 'name: must be a string' });
  });
});
