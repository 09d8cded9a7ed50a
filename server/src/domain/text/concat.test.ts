// A value split into string literals concatenated in code (markup.ts, the `' + '` joint): the
// fold reads `'jane.doe' + '@corp.example'` as one address and `"4111" + "1111" + …` as one card,
// so each reached the model raw no more; the token covers the literals and their joints.
import { describe, expect, it } from 'vitest';
import { detectAll } from '../detect/index.js';
import { normalizeValue } from '../token/normalize.js';
import { foldText } from './fold.js';

const found = (text: string): string[] => detectAll(text).filter((entity) => entity.confidence >= 0.5).map((entity) => `${entity.type}:${entity.value}`);

describe('values split into concatenated literals', () => {
  it('fold the joint away between two value characters, to a space between two digits', () => {
    expect(foldText(`x = 'jane.doe' + '@corp.example'`)).toBe(`x = 'jane.doe@corp.example'`);
    expect(foldText(`x = "4111"+"1111"`)).toBe(`x = "4111 1111"`);
    // Elsewhere the joint stays: a variable between literals, or a mismatched quote.
    expect(foldText(`url = 'https://' + host + '/api'`)).toBe(`url = 'https://' + host + '/api'`);
    expect(foldText(`x = 'a' + "b"`)).toBe(`x = 'a' + "b"`);
  });

  it('find the value whole and normalize it as the plain one', () => {
    expect(found(`email = 'jane.doe' + '@corp.example'`)).toEqual([`email:jane.doe' + '@corp.example`]);
    expect(found(`card = "4111" + "1111" + "1111" + "1111"`)).toEqual([`credit_card:4111" + "1111" + "1111" + "1111`]);
    expect(found(`ssn: '078'+'05'+'1120'`)).toEqual([`us_ssn:078'+'05'+'1120`]);
    const key = `sk-proj-abc123DEF456' + 'ghi789JKL012mno345PQR678`;
    expect(found(`key = '${key}'`)).toEqual([`api_key:${key}`]);
    expect(normalizeValue('api_key', key)).toBe('sk-proj-abc123DEF456ghi789JKL012mno345PQR678');
    expect(normalizeValue('email', `jane.doe' + '@corp.example`)).toBe('jane.doe@corp.example');
  });

  it('leave ordinary concatenations alone', () => {
    expect(found(`print('Hello, ' + 'world')`)).toEqual([]);
    expect(found(`path = 'v1.2' + '.3'`)).toEqual([]);
  });
});
