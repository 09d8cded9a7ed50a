// The structure pre-scan counts only structural brackets, colons and commas, and stops at the limit.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkJsonDepth, checkJsonStructure, stringEnd } from './json-depth.js';

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

describe('stringEnd (the pre-scan skips a string with one native search)', () => {
  it('finds the closing quote past escaped quotes and escaped backslashes', () => {
    expect(stringEnd('abc"', 0)).toBe(3);
    expect(stringEnd('"', 0)).toBe(0);
    expect(stringEnd('a\\"b"', 0)).toBe(4);
    expect(stringEnd('a\\\\"b"', 0)).toBe(3);
    expect(stringEnd('\\\\\\"x\\\\\\\\"', 0)).toBe(9);
    expect(stringEnd('no end \\"', 0)).toBe(9);
  });

  // The character-at-a-time scan this replaced: a backslash skips the next character.
  function referenceEnd(text: string, from: number): number {
    for (let index = from; index < text.length; index += 1) {
      const code = text.charCodeAt(index);
      if (code === 0x5c) index += 1;
      else if (code === 0x22) return index;
    }
    return text.length;
  }

  it('agrees with the character-at-a-time scan on any text of quotes, backslashes and structure', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', 'a', ' '), { maxLength: 60 }), fc.nat(5), (chars, offset) => {
        const text = chars.join('');
        const from = Math.min(offset, text.length);
        expect(Math.min(stringEnd(text, from), text.length)).toBe(referenceEnd(text, from));
      }),
      { numRuns: 2000 },
    );
  });

  it('judges whole bodies exactly as before: same acceptance, same bound named', () => {
    const limits = { maxDepth: 3, maxKeys: 2, maxValues: 6 };
    const verdict = (check: () => void): string => {
      try {
        check();
        return 'ok';
      } catch (error) {
        return (error as Error).message;
      }
    };
    // The former scan in full, strings skipped a character at a time.
    function referenceCheck(text: string): void {
      const members: number[] = [];
      let depth = 0;
      let values = 1;
      for (let index = 0; index < text.length; index += 1) {
        const code = text.charCodeAt(index);
        if (code === 0x22) {
          index = referenceEnd(text, index + 1);
        } else if (code === 0x7b || code === 0x5b) {
          depth += 1;
          if (depth > limits.maxDepth) throw new Error(`body: nested deeper than ${limits.maxDepth} levels`);
          members[depth] = code === 0x7b ? 0 : -1;
          values += 1;
          if (values > limits.maxValues) throw new Error(`body: holds more than ${limits.maxValues} JSON values`);
        } else if (code === 0x7d || code === 0x5d) {
          if (depth > 0) depth -= 1;
        } else if (code === 0x3a && depth > 0 && members[depth]! >= 0) {
          members[depth] = members[depth]! + 1;
          if (members[depth]! > limits.maxKeys) throw new Error(`body: an object has more than ${limits.maxKeys} members`);
        } else if (code === 0x2c) {
          values += 1;
          if (values > limits.maxValues) throw new Error(`body: holds more than ${limits.maxValues} JSON values`);
        }
      }
    }
    fc.assert(
      fc.property(fc.array(fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', 'a'), { maxLength: 40 }), (chars) => {
        const text = chars.join('');
        expect(verdict(() => checkJsonStructure(text, limits))).toBe(verdict(() => referenceCheck(text)));
      }),
      { numRuns: 3000 },
    );
  });
});
