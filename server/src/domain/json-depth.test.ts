// The structure pre-scan counts only structural brackets, colons and commas, and stops at the limit.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import sjson from 'secure-json-parse';
import { checkJsonDepth, checkJsonStructure, parseJsonText, stringEnd } from './json-depth.js';

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

describe('parseJsonText (a text that cannot hold a `__proto__` key skips secure-json-parse’s regex)', () => {
  const safely = (text: string): unknown => sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'ignore' }) as unknown;
  const outcome = (parse: () => unknown): unknown => {
    try {
      return { value: parse() };
    } catch {
      return 'refused';
    }
  };

  it('refuses every spelling of a `__proto__` key, escaped or not, at any depth, and strips a BOM', () => {
    for (const key of ['__proto__', '\\u005f_proto__', '_\\u005Fproto__', '\\u005f\\u005fproto\\u005f\\u005f', '__\\u0070roto__']) {
      expect(() => parseJsonText(`{"${key}": {"x": 1}}`)).toThrow(/not valid JSON/);
      expect(() => parseJsonText(`[1, {"a": {"${key}" : 2}}]`)).toThrow(/not valid JSON/);
    }
    expect(parseJsonText('\ufeff{"a": 1}')).toEqual({ a: 1 });
    expect(parseJsonText('{"constructor": {"prototype": 1}}')).toEqual({ constructor: { prototype: 1 } });
    expect(parseJsonText('{"text": "a \\"__proto__\\": b"}')).toEqual({ text: 'a "__proto__": b' });
  });

  it('answers as secure-json-parse does on seeded random documents with risky keys and strings', () => {
    // Keys and strings written as they appear in the text (escapes included).
    const keys = ['__proto__', '\\u005f_proto__', '_a', '_', 'x', 'constructor', '\\u005', 'a\\"_b', '__proto_', 'proto'];
    const strings = ['', '_', '__proto__', '\\u005f', 'a \\"__proto__\\": b', 'plain'];
    let seed = 15;
    const random = (bound: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % bound;
    };
    const value = (depth: number): string => {
      const kind = depth > 3 ? random(3) : random(5);
      if (kind === 0) return String(random(100));
      if (kind === 1) return `"${strings[random(strings.length)]!}"`;
      if (kind === 2) return random(2) === 0 ? 'null' : 'true';
      const count = random(4);
      const items = Array.from({ length: count }, () => (kind === 3 ? `"${keys[random(keys.length)]!}" ${random(2) === 0 ? '' : ' '}: ${value(depth + 1)}` : value(depth + 1)));
      return kind === 3 ? `{${items.join(',')}}` : `[${items.join(', ')}]`;
    };
    const counts = { parsed: 0, refused: 0 };
    for (let round = 0; round < 3000; round += 1) {
      let text = value(0);
      if (random(10) === 0) text = `\ufeff${text}`;
      if (random(20) === 0) text = text.slice(0, random(text.length + 1));
      const expected = outcome(() => safely(text));
      counts[expected === 'refused' ? 'refused' : 'parsed'] += 1;
      expect(outcome(() => parseJsonText(text))).toEqual(expected);
    }
    expect(counts.parsed).toBeGreaterThan(500);
    expect(counts.refused).toBeGreaterThan(100);
  });
});
