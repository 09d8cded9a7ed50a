// The structure pre-scan counts only structural brackets, colons and commas, and stops at the limit.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkJsonDepth, checkJsonStructure } from './json-depth.js';

describe('checkJsonDepth', () => {
  it('accepts documents within the limit and ignores brackets inside strings', () => {
    expect(() => checkJsonDepth(`{"a":${'['.repeat(10)}${']'.repeat(10)}}`, 11)).not.toThrow();
    expect(() => checkJsonDepth(`{"a":"${'[{'.repeat(1000)}\\"["}`, 2)).not.toThrow();
  });

  it('refuses deeper documents with 413 VEIL_PAYLOAD_TOO_LARGE naming the field, quoting nothing', () => {
    expect(() => checkJsonDepth(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)).toThrow(/^body: nested deeper than 128 levels$/);
    expect(() => checkJsonDepth('{"a":{"b":[1]}}', 2, 'delta')).toThrow(expect.objectContaining({ code: 'VEIL_PAYLOAD_TOO_LARGE', status: 413, message: 'delta: nested deeper than 2 levels' }));
  });
});

describe('checkJsonStructure', () => {
  const limits = { maxDepth: 8, maxKeys: 3, maxValues: 10 };

  it('counts the members of each object and the values of the whole text, not what is inside strings', () => {
    expect(() => checkJsonStructure('{"a":1,"b":{"c":2,"d":3,"e":4},"f":[1,2]}', limits)).not.toThrow();
    expect(() => checkJsonStructure(`{"a":"${':,{['.repeat(50)}\\":","b":2}`, limits)).not.toThrow();
    // Colons inside arrays (in strings) and the members of nested objects are counted per object.
    expect(() => checkJsonStructure('[{"a":1,"b":2,"c":3},{"a":1,"b":2,"c":3}]', { ...limits, maxValues: 100 })).not.toThrow();
  });

  it('refuses an object with too many members, naming the bound and nothing of the text', () => {
    const error = (() => {
      try {
        checkJsonStructure('{"k1":1,"k2":2,"k3":3,"canary":4}', limits, 'file');
      } catch (thrown) {
        return thrown as { code: string; status: number; message: string };
      }
      return undefined;
    })();
    expect(error).toMatchObject({ code: 'VEIL_PAYLOAD_TOO_LARGE', status: 413, message: 'file: an object has more than 3 members' });
  });

  it('refuses a text with too many values, before any object is built', () => {
    expect(() => checkJsonStructure(`[${Array.from({ length: 11 }, () => '1').join(',')}]`, limits)).toThrow(/^body: holds more than 10 JSON values$/);
    const keys = `{${Array.from({ length: 600_000 }, (_, index) => `"k${index}":1`).join(',')}}`;
    expect(() => checkJsonStructure(keys, { maxDepth: 128, maxKeys: 10_000, maxValues: 10_000_000 })).toThrow(/more than 10000 members/);
  });
});

describe('checkJsonStructure skips strings by searching for their closing quote', () => {
  /** The character-at-a-time scan the search replaced: the oracle for any text, valid JSON or not. */
  function reference(text: string, limits: { maxDepth: number; maxKeys: number; maxValues: number }): string | undefined {
    const members: number[] = [];
    let depth = 0;
    let values = 1;
    let inString = false;
    for (let index = 0; index < text.length; index += 1) {
      const ch = text[index];
      if (inString) {
        if (ch === '\\') index += 1;
        else if (ch === '"') inString = false;
        continue;
      }
      if (ch === '"') inString = true;
      else if (ch === '{' || ch === '[') {
        depth += 1;
        if (depth > limits.maxDepth) return 'depth';
        members[depth] = ch === '{' ? 0 : -1;
        values += 1;
        if (values > limits.maxValues) return 'values';
      } else if ((ch === '}' || ch === ']') && depth > 0) depth -= 1;
      else if (ch === ':' && depth > 0 && members[depth]! >= 0) {
        members[depth] = members[depth]! + 1;
        if (members[depth]! > limits.maxKeys) return 'keys';
      } else if (ch === ',') {
        values += 1;
        if (values > limits.maxValues) return 'values';
      }
    }
    return undefined;
  }
  const outcome = (text: string, limits: { maxDepth: number; maxKeys: number; maxValues: number }): string | undefined => {
    try {
      checkJsonStructure(text, limits);
      return undefined;
    } catch (error) {
      const message = (error as Error).message;
      return message.includes('nested deeper') ? 'depth' : message.includes('members') ? 'keys' : 'values';
    }
  };

  it('agrees with a character-at-a-time scan on any text of quotes, backslashes and structure', () => {
    const text = fc.array(fc.constantFrom('{', '}', '[', ']', '"', '\\', ':', ',', 'a', ' '), { maxLength: 60 }).map((chars) => chars.join(''));
    const limits = fc.record({ maxDepth: fc.integer({ min: 1, max: 4 }), maxKeys: fc.integer({ min: 1, max: 4 }), maxValues: fc.integer({ min: 2, max: 12 }) });
    fc.assert(
      fc.property(text, limits, (value, bound) => {
        expect(outcome(value, bound)).toBe(reference(value, bound));
      }),
      { numRuns: 5000 },
    );
  });

  it('does not count structure inside strings with escaped quotes and backslash runs', () => {
    const limits = { maxDepth: 1, maxKeys: 1, maxValues: 2 };
    expect(() => checkJsonStructure('{"a":"x\\\\\\"[[,:{"}', limits)).not.toThrow();
    expect(() => checkJsonStructure('{"a":"x\\\\"}[', limits)).toThrow(/holds more than 2/);
  });
});
