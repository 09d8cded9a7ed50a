// Unit tests of random-scheme allocation (decisions.md section 3): stable tokens per value,
// per-prefix counters, CSPRNG caps drawn in batches, and seeding from an existing session.
import { describe, expect, it } from 'vitest';
import type { TokenEntry } from '../types.js';
import { TokenAllocator, ValueKeys, valueKey } from './allocator.js';
import { parseToken, renderToken } from './grammar.js';

/** A deterministic random source that counts its calls. */
function countingRandom(): { source: (size: number) => Buffer; calls: number[] } {
  const calls: number[] = [];
  let next = 0;
  return {
    calls,
    source: (size) => {
      calls.push(size);
      return Buffer.from(Array.from({ length: size }, () => next++ % 256));
    },
  };
}

function entry(id: string, type: string, value: string, cap = 'aaaaaaaaaaaa'): TokenEntry {
  return { id, type, cap, value, mode: 'full' };
}

describe('TokenAllocator', () => {
  it('gives the same token to the same value and to its normalized spellings', () => {
    const allocator = new TokenAllocator();
    const first = allocator.allocate('email', 'Alice@Example.com');
    expect(first.isNew).toBe(true);
    expect(allocator.allocate('email', ' alice@example.COM ')).toEqual({ id: first.id, cap: first.cap, isNew: false });
    const card = allocator.allocate('credit_card', '4111 1111 1111 1111');
    expect(allocator.allocate('credit_card', '4111-1111-1111-1111').id).toBe(card.id);
  });

  it('counts per prefix, zero-padded, and grows past 999', () => {
    const allocator = new TokenAllocator();
    expect(allocator.allocate('email', 'a@x.io').id).toBe('e_001');
    expect(allocator.allocate('email', 'b@x.io').id).toBe('e_002');
    expect(allocator.allocate('person', 'Ann').id).toBe('p_001');
    expect(allocator.allocate('custom:ticket', 'T-1').id).toBe('c_001');
    expect(allocator.allocate('custom:order', 'O-1').id).toBe('c_002');
    // The same value under another type is another entity.
    expect(allocator.allocate('person', 'a@x.io').id).toBe('p_002');

    const seeded = new TokenAllocator([entry('e_999', 'email', 'z@x.io')]);
    expect(seeded.allocate('email', 'new@x.io').id).toBe('e_1000');
  });

  it('draws 12-hex caps from the random source in batches', () => {
    const random = countingRandom();
    const allocator = new TokenAllocator([], random.source);
    const caps = new Set<string>();
    for (let i = 0; i < 64; i++) caps.add(allocator.allocate('email', `user${i}@x.io`).cap);
    expect(random.calls).toEqual([384]);
    allocator.allocate('email', 'one-more@x.io');
    expect(random.calls).toEqual([384, 384]);
    expect(caps.size).toBe(64);
    for (const cap of caps) expect(cap).toMatch(/^[0-9a-f]{12}$/);
  });

  it('uses the CSPRNG by default and renders parseable tokens', () => {
    const allocator = new TokenAllocator();
    const { id, cap } = allocator.allocate('us_ssn', '123-45-6789');
    expect(id).toBe('ssn_001');
    const rendered = renderToken({ type: 'us_ssn', id, cap });
    expect(parseToken(rendered)).toEqual({ type: 'us_ssn', id, cap });
    expect(new TokenAllocator().allocate('us_ssn', '123-45-6789').cap).not.toBe(cap);
  });

  it('continues a session from its existing entries', () => {
    const existing = [
      entry('e_001', 'email', 'a@x.io', '111111111111'),
      entry('e_007', 'email', 'b@x.io', '222222222222'),
      entry('p_002', 'person', 'Ann', '333333333333'),
      // A corpus-scheme id does not move the counters.
      entry('e_0123456789abcdef01234567', 'email', 'c@x.io', '0123456789abcdef0123456789abcdef'),
    ];
    const allocator = new TokenAllocator(existing);
    expect(allocator.allocate('email', 'B@X.IO')).toEqual({ id: 'e_007', cap: '222222222222', isNew: false });
    expect(allocator.allocate('person', 'Ann')).toEqual({ id: 'p_002', cap: '333333333333', isNew: false });
    expect(allocator.allocate('email', 'new@x.io').id).toBe('e_008');
    expect(allocator.allocate('person', 'Bob').id).toBe('p_003');
  });

  it('never reissues an id already present in the session', () => {
    // An odd map where a type shares a prefix with a different counter history.
    const allocator = new TokenAllocator([entry('c_001', 'custom:ticket', 'T-1'), entry('c_002', 'custom:order', 'O-1')]);
    expect(allocator.allocate('custom:ticket', 'T-2').id).toBe('c_003');
  });

  it('rejects a type outside the token grammar and a short random source', () => {
    expect(() => new TokenAllocator().allocate('Email', 'a@x.io')).toThrow();
    expect(() => new TokenAllocator().allocate('custom:', 'x')).toThrow();
    expect(() => new TokenAllocator([], () => Buffer.alloc(3)).allocate('email', 'a@x.io')).toThrow();
  });
});

describe('ValueKeys (valueKey memoized per written value; session 16)', () => {
  /** Seeded draws, so a failure repeats. */
  function seeded(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state / 2147483648;
    };
  }
  const TYPES = ['email', 'phone', 'credit_card', 'us_ssn', 'iban', 'ip_address', 'mac_address', 'url', 'date', 'api_key', 'jwt', 'connection_string', 'person', 'custom:ticket'];
  const PIECES = ['Alice@Example.com', ' alice@example.COM ', '+1 415 555 0134', '(415) 555-O134', '030 1234567', '4111 1111 1111 1111', '4111-1111-1111-1111', '219-09-9999', 'DE89 3704 0044 0532 0130 00', '192.168.10.24', '192.168.1O.24', 'AA:BB:CC:DD:EE:FF', 'https://example.org/account', '12/03/2024', '03.12.2024', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc', 'postgres://u:p@h/db', 'Jane Doe', 'ＪＡＮＥ', '=2D', '<b></b>', '\n', ' ', '5', 'S', 'B'];

  it('answers valueKey for every draw, repeated or not, in each region', () => {
    for (const region of [undefined, 'US', 'DE', 'FR', 'GB']) {
      const random = seeded(region === undefined ? 7 : region.charCodeAt(0) * 31 + region.charCodeAt(1));
      const keys = new ValueKeys(region);
      const drawn: [string, string][] = [];
      for (let index = 0; index < 1500; index++) {
        const repeat = drawn.length > 0 && random() < 0.4;
        let pair: [string, string];
        if (repeat) pair = drawn[Math.floor(random() * drawn.length)]!;
        else {
          const parts = Array.from({ length: 1 + Math.floor(random() * 3) }, () => PIECES[Math.floor(random() * PIECES.length)]!);
          pair = [TYPES[Math.floor(random() * TYPES.length)]!, parts.join(random() < 0.5 ? '' : ' ')];
          drawn.push(pair);
        }
        expect(keys.of(pair[0], pair[1])).toBe(valueKey(pair[0], pair[1], region));
      }
    }
  });

  it('keeps a type apart from another with the same written value', () => {
    const keys = new ValueKeys();
    expect(keys.of('phone', '4111 1111 1111 1111')).toBe(valueKey('phone', '4111 1111 1111 1111'));
    expect(keys.of('credit_card', '4111 1111 1111 1111')).toBe(valueKey('credit_card', '4111 1111 1111 1111'));
  });
});

describe('TokenAllocator keys a type only once it meets a second written value (session 17)', () => {
  /** The allocator as it was before session 17: every value keyed, seeded entries first-wins. */
  class EagerAllocator {
    readonly #byValue = new Map<string, { id: string; cap: string }>();
    readonly #counters = new Map<string, number>();
    readonly #used = new Set<string>();
    readonly #region: string | undefined;
    #caps = 0;
    constructor(existing: readonly TokenEntry[], region?: string) {
      this.#region = region;
      for (const item of existing) {
        this.#used.add(item.id);
        const key = valueKey(item.type, item.value, region);
        if (!this.#byValue.has(key)) this.#byValue.set(key, { id: item.id, cap: item.cap });
        const separator = item.id.lastIndexOf('_');
        const counter = Number(item.id.slice(separator + 1));
        const prefix = item.id.slice(0, separator);
        if (counter > (this.#counters.get(prefix) ?? 0)) this.#counters.set(prefix, counter);
      }
    }
    allocate(type: string, value: string): { id: string; cap: string; isNew: boolean } {
      const key = valueKey(type, value, this.#region);
      const known = this.#byValue.get(key);
      if (known !== undefined) return { ...known, isNew: false };
      const prefix = type === 'email' ? 'e' : type === 'phone' ? 'ph' : type === 'person' ? 'p' : type === 'credit_card' ? 'cc' : 'c';
      let counter = this.#counters.get(prefix) ?? 0;
      let id: string;
      do id = `${prefix}_${String(++counter).padStart(3, '0')}`;
      while (this.#used.has(id));
      this.#counters.set(prefix, counter);
      this.#used.add(id);
      const cap = (this.#caps++).toString(16).padStart(12, '0');
      this.#byValue.set(key, { id, cap });
      return { id, cap, isNew: true };
    }
  }
  /** Caps 0, 1, 2, ... as 12 hex characters, as EagerAllocator draws them. */
  function counterSource(): (size: number) => Buffer {
    let next = 0;
    return (size) => {
      const out = Buffer.alloc(size);
      for (let at = 0; at < size; at += 6) out.writeUIntBE(next++, at, 6);
      return out;
    };
  }
  function seeded(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state / 2147483648;
    };
  }
  // Spellings of few values per type, so draws meet the same value written several ways.
  const SPELLINGS: Readonly<Record<string, readonly string[]>> = {
    email: ['Alice@Example.com', ' alice@example.COM ', 'alice [at] example [dot] com', 'bob@example.com', 'BOB@example.com'],
    phone: ['+1 415 555 0134', '(415) 555-O134', '415.555.0134', '+44 20 7946 0958', '020 7946 0958', '0049 30 1234567'],
    person: ['Jane Doe', 'jane doe', 'JANE  DOE', 'Ann'],
    credit_card: ['4111 1111 1111 1111', '4111-1111-1111-1111', '5500 0000 0000 0004'],
    'custom:ticket': ['T-1', 'T-1 ', 't-1'],
  };
  const TYPES = Object.keys(SPELLINGS);

  it('gives every draw the token the eager allocator gives, with and without seeded entries, in each region', () => {
    for (const region of [undefined, 'US', 'GB', 'DE']) {
      for (let run = 0; run < 60; run++) {
        const random = seeded(run * 7919 + (region?.charCodeAt(0) ?? 1));
        const draw = (): [string, string] => {
          const type = TYPES[Math.floor(random() * TYPES.length)]!;
          const spellings = SPELLINGS[type]!;
          return [type, spellings[Math.floor(random() * spellings.length)]!];
        };
        const existing: TokenEntry[] = [];
        const seededCount = Math.floor(random() * 4);
        for (let index = 0; index < seededCount; index++) {
          const [type, value] = draw();
          const prefix = new EagerAllocator([]).allocate(type, value).id.split('_')[0]!;
          existing.push(entry(`${prefix}_${String(10 + index).padStart(3, '0')}`, type, value, `${index}`.padStart(12, 'f')));
        }
        const lazy = new TokenAllocator(existing, counterSource(), region);
        const eager = new EagerAllocator(existing, region);
        const count = 1 + Math.floor(random() * 8);
        for (let index = 0; index < count; index++) {
          const [type, value] = draw();
          expect(lazy.allocate(type, value), `${region} run ${run} ${type} ${JSON.stringify(value)}`).toEqual(eager.allocate(type, value));
        }
      }
    }
  });

  it('joins a value to the first spelling of its type once a second spelling arrives', () => {
    const allocator = new TokenAllocator([], undefined, 'US');
    const first = allocator.allocate('phone', '+1 415 555 0134');
    expect(allocator.allocate('phone', '+1 415 555 0134')).toEqual({ ...first, isNew: false });
    expect(allocator.allocate('phone', '(415) 555-0134')).toEqual({ ...first, isNew: false });
    expect(allocator.allocate('phone', '+44 20 7946 0958').isNew).toBe(true);
    // A seeded lone entry joins the same way; two seeded spellings of one value keep the first's token.
    const seededOne = new TokenAllocator([entry('ph_004', 'phone', '415.555.0134', 'bbbbbbbbbbbb')]);
    expect(seededOne.allocate('phone', '+1 (415) 555-0134')).toEqual({ id: 'ph_004', cap: 'bbbbbbbbbbbb', isNew: false });
    const seededTwo = new TokenAllocator([entry('ph_001', 'phone', '415.555.0134', '111111111111'), entry('ph_002', 'phone', '(415) 555 0134', '222222222222')]);
    expect(seededTwo.allocate('phone', '4155550134')).toEqual({ id: 'ph_001', cap: '111111111111', isNew: false });
  });
});
