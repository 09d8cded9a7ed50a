// Unit tests of the strict token grammar: render, parse and the candidate scan, including the
// "token-ish" boundary (what is reported as malformed and what is left as plain text).
import { describe, expect, it } from 'vitest';
import { MAX_CANDIDATE_INNER, findTokens, parseToken, renderToken } from './grammar.js';

const CAP12 = '0123456789ab';
const CAP32 = '0123456789abcdef0123456789abcdef';
const HEX24 = 'abcdef0123456789abcdef01';

describe('renderToken', () => {
  it('renders built-in and custom types', () => {
    expect(renderToken({ type: 'email', id: 'e_001', cap: CAP12 })).toBe(`{{email:e_001:${CAP12}}}`);
    expect(renderToken({ type: 'custom:ticket', id: 'c_001', cap: CAP12 })).toBe(`{{custom:ticket:c_001:${CAP12}}}`);
    expect(renderToken({ type: 'person', id: `p_${HEX24}`, cap: CAP32 })).toBe(`{{person:p_${HEX24}:${CAP32}}}`);
  });

  it('refuses a token the grammar would not parse back', () => {
    expect(() => renderToken({ type: 'Email', id: 'e_001', cap: CAP12 })).toThrow();
    expect(() => renderToken({ type: 'email', id: 'e_1', cap: CAP12 })).toThrow();
    expect(() => renderToken({ type: 'email', id: 'e_001', cap: CAP32 })).toThrow();
    expect(() => renderToken({ type: 'custom', id: 'c_001', cap: CAP12 })).toThrow();
    expect(() => renderToken({ type: 'custom:Bad', id: 'c_001', cap: CAP12 })).toThrow();
  });
});

describe('parseToken', () => {
  it('parses random-scheme, corpus-scheme and custom tokens', () => {
    expect(parseToken(`{{email:e_001:${CAP12}}}`)).toEqual({ type: 'email', id: 'e_001', cap: CAP12 });
    expect(parseToken(`{{email:e_1000:${CAP12}}}`)).toEqual({ type: 'email', id: 'e_1000', cap: CAP12 });
    expect(parseToken(`{{person:p_${HEX24}:${CAP32}}}`)).toEqual({ type: 'person', id: `p_${HEX24}`, cap: CAP32 });
    expect(parseToken(`{{custom:ticket_id:c_042:${CAP12}}}`)).toEqual({ type: 'custom:ticket_id', id: 'c_042', cap: CAP12 });
    // A custom type whose name is itself "custom" parses from the right unambiguously.
    expect(parseToken(`{{custom:custom:c_001:${CAP12}}}`)).toEqual({ type: 'custom:custom', id: 'c_001', cap: CAP12 });
  });

  it.each([
    ['missing cap', '{{email:e_001}}'],
    ['empty cap', '{{email:e_001:}}'],
    ['uppercase cap', `{{email:e_001:${CAP12.toUpperCase()}}}`],
    ['uppercase type', `{{EMAIL:e_001:${CAP12}}}`],
    ['uppercase id', `{{email:E_001:${CAP12}}}`],
    ['short cap', `{{email:e_001:${CAP12.slice(1)}}}`],
    ['long cap', `{{email:e_001:${CAP12}0}}`],
    ['corpus cap on a counter id', `{{email:e_001:${CAP32}}}`],
    ['counter cap on a corpus id', `{{email:e_${HEX24}:${CAP12}}}`],
    ['two-digit counter', `{{email:e_01:${CAP12}}}`],
    ['ten-digit counter', `{{email:e_0123456789:${CAP12}}}`],
    ['id without prefix', `{{email:_001:${CAP12}}}`],
    ['bare custom type', `{{custom:c_001:${CAP12}}}`],
    ['custom type without name', `{{custom::c_001:${CAP12}}}`],
    ['custom name starting with a digit', `{{custom:1x:c_001:${CAP12}}}`],
    ['five parts', `{{a:b:c:e_001:${CAP12}}}`],
    ['spaces', `{{ email:e_001:${CAP12} }}`],
    ['single braces', `{email:e_001:${CAP12}}`],
    ['triple braces', `{{{email:e_001:${CAP12}}}}`],
    ['trailing newline', `{{email:e_001:${CAP12}}}\n`],
    ['leading text', `x{{email:e_001:${CAP12}}}`],
    ['zero-width space', `{{email:e_001:${CAP12.slice(0, 4)}\u200b${CAP12.slice(4)}}}`],
    ['fullwidth braces', `\uff5b\uff5bemail:e_001:${CAP12}\uff5d\uff5d`],
    ['cyrillic e in type', `{{\u0435mail:e_001:${CAP12}}}`],
    ['empty', ''],
  ])('rejects %s', (_name, text) => {
    expect(parseToken(text)).toBeNull();
  });
});

describe('findTokens', () => {
  it('finds tokens in order with UTF-16 offsets and raw text', () => {
    const first = `{{email:e_001:${CAP12}}}`;
    const second = `{{custom:ticket:c_001:${CAP12}}}`;
    const text = `Hi 😀 ${first}, see ${second}.`;
    const found = findTokens(text);
    expect(found).toHaveLength(2);
    expect(found[0]).toEqual({ start: text.indexOf(first), end: text.indexOf(first) + first.length, raw: first, token: { type: 'email', id: 'e_001', cap: CAP12 } });
    expect(found[1]!.token).toEqual({ type: 'custom:ticket', id: 'c_001', cap: CAP12 });
    expect(text.slice(found[1]!.start, found[1]!.end)).toBe(second);
  });

  it('finds adjacent tokens separately', () => {
    const token = `{{email:e_001:${CAP12}}}`;
    const found = findTokens(`${token}${token}`);
    expect(found.map((candidate) => candidate.start)).toEqual([0, token.length]);
    expect(found.every((candidate) => candidate.token !== null)).toBe(true);
  });

  it('reports malformed attempts with a null token', () => {
    const samples = [
      '{{email:e_001}}',
      `{{email:e_001:${CAP12.toUpperCase()}}}`,
      `{{email:e_001:${CAP12.slice(2)}}}`,
      `{{Email:e_001:${CAP12}}}`,
      `{{email:e_001:${CAP12.slice(0, 3)}\u200b${CAP12.slice(3)}}}`,
      `{{\u0435mail:e_001:${CAP12}}}`.replace('\u0435mail', 'e\u0435ail'),
    ];
    for (const sample of samples) {
      const found = findTokens(`before ${sample} after`);
      expect(found, sample).toHaveLength(1);
      expect(found[0]!.token, sample).toBeNull();
      expect(found[0]!.raw).toBe(sample);
    }
  });

  it('reports nested and over-braced forms as one malformed candidate, never a valid token', () => {
    const token = `{{email:e_001:${CAP12}}}`;
    for (const wrapped of [`{${token}}`, `{{${token}}}`, `{${token}`, `${token}}`]) {
      const found = findTokens(`x ${wrapped} y`);
      expect(found, wrapped).toHaveLength(1);
      expect(found[0]!.token, wrapped).toBeNull();
      expect(found[0]!.raw, wrapped).toBe(wrapped);
    }
  });

  it('leaves template syntax and other non-token braces alone', () => {
    for (const text of [
      '{{ user.name }}',
      '{{name}}',
      '{{#if admin}}yes{{/if}}',
      '{{ a:b:c }}',
      '{{}}',
      '{{:e_001:abc}}',
      '{{1:2}}',
      '{"a":{"b":1}}',
      `\uff5b\uff5bemail:e_001:${CAP12}\uff5d\uff5d`,
      `{{email:e_001:${CAP12}`,
      `{{email:\ne_001:${CAP12}}}`,
    ]) {
      expect(findTokens(text), text).toEqual([]);
    }
  });

  it('does not report candidates longer than the bound', () => {
    const longType = 'a'.repeat(MAX_CANDIDATE_INNER);
    expect(findTokens(`{{${longType}:e_001:${CAP12}}}`)).toEqual([]);
  });

  it('recovers after an unterminated candidate and finds the next token', () => {
    const token = `{{email:e_001:${CAP12}}}`;
    const text = `{{email:e_002 and then ${token}`;
    const found = findTokens(text);
    expect(found).toHaveLength(1);
    expect(found[0]!.start).toBe(text.indexOf(token));
    expect(findTokens(`{{x:${token}`)[0]!.token).not.toBeNull();
  });

  it('stays linear on adversarial input', () => {
    const inputs = [
      '{'.repeat(500_000),
      '{{a:'.repeat(200_000),
      `{{${'a:'.repeat(400_000)}`,
      `{{a:b${'}'.repeat(400_000)}`,
      `{{${'a'.repeat(MAX_CANDIDATE_INNER)}`.repeat(3000),
    ];
    for (const input of inputs) {
      findTokens(input);
    }
  });
});
