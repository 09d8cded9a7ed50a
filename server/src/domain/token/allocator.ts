// Random-scheme token allocation for one session (decisions.md section 3, interface.md 2.1
// rule 2): the same (type, normalized value) always gets the same id and cap within a session,
// ids count up per prefix (`e_001`, `e_002`, ... `e_1000`), caps are 12 hex characters from a
// CSPRNG. A continuation turn seeds the allocator from the session's existing entries, so ids
// keep counting and known values keep their tokens.
import { VeilError } from '@veil/common';
import { prefixFor } from '../catalog.js';
import { randomHex } from '../random.js';
import type { TokenEntry } from '../types.js';
import { MAX_RANDOM_COUNTER, RANDOM_CAP_LENGTH, isRandomId, isValidTokenType } from './grammar.js';
import { normalizeValue } from './normalize.js';

/** Bytes per cap (12 hex characters). */
const CAP_BYTES = RANDOM_CAP_LENGTH / 2;
/** Caps drawn per call of an injected random source. */
const CAPS_PER_REFILL = 64;

export type RandomSource = (size: number) => Buffer;

export interface Allocation {
  readonly id: string;
  readonly cap: string;
  /** True when this call created the token (the caller then records a new TokenEntry). */
  readonly isNew: boolean;
}

/**
 * What tokenization needs from a token scheme: the id and cap for a value, the same ones for
 * the same (type, normalized value). TokenAllocator (random scheme) and CorpusAllocator (corpus
 * scheme, token/corpus.ts) both implement it.
 */
export interface ValueAllocator {
  allocate(type: string, value: string): Allocation;
}

/**
 * Map key: the type cannot contain NUL (grammar), so the pair is unambiguous. `region` reads
 * national phone numbers (normalizeValue).
 */
export function valueKey(type: string, value: string, region?: string): string {
  return `${type}\u0000${normalizeValue(type, value, region)}`;
}

/**
 * valueKey memoized by the value as written, for one allocator (one region): normalizeValue is a
 * pure function of the type, the written value and the region, and a text repeats its values
 * (the ratio benchmark's 100 KB body: 398 detections of 7 values, each normalized once instead of
 * per occurrence; issue 20, session 16). Lives as long as its allocator (one request's session),
 * so it holds at most the values one request detected.
 */
export class ValueKeys {
  readonly #byType = new Map<string, Map<string, string>>();
  readonly #region: string | undefined;

  constructor(region?: string) {
    this.#region = region;
  }

  /** valueKey(type, value, region). */
  of(type: string, value: string): string {
    let byValue = this.#byType.get(type);
    if (byValue === undefined) {
      byValue = new Map();
      this.#byType.set(type, byValue);
    }
    let key = byValue.get(value);
    if (key === undefined) {
      key = valueKey(type, value, this.#region);
      byValue.set(value, key);
    }
    return key;
  }
}

function counterId(prefix: string, counter: number): string {
  return `${prefix}_${String(counter).padStart(3, '0')}`;
}

/** A type's one written value, not normalized yet (TokenAllocator's lazy keys). */
interface Lone {
  readonly written: string;
  readonly token: { id: string; cap: string };
}

export class TokenAllocator implements ValueAllocator {
  /** Tokens by valueKey, for the types that have been keyed (see #lone). */
  readonly #byValue = new Map<string, { id: string; cap: string }>();
  /**
   * Types that have met one written value only (session entries and this request's values): that
   * value and its token, not normalized. Two values can share a token only if they are of one
   * type, so while a type has one written value, no other can be its spelling and its key is not
   * needed; normalizeValue (a phone parse alone is ~10-30 µs) runs for a type only once a second
   * written value of it arrives, and then for both (issue 20, session 17). Same tokens by
   * construction: every key #byValue would hold is computed before a lookup could need it.
   */
  readonly #lone = new Map<string, Lone>();
  /** Types whose values are keyed in #byValue (they met a second written value). */
  readonly #keyed = new Set<string>();
  /** Highest counter used per prefix. */
  readonly #counters = new Map<string, number>();
  /** Every id in use, so a seeded session with odd ids never gets a duplicate. */
  readonly #usedIds = new Set<string>();
  /** Injected source (tests); undefined means the process-wide CSPRNG pool. */
  readonly #random: RandomSource | undefined;
  #pool: Buffer = Buffer.alloc(0);
  #poolOffset = 0;

  readonly #keys: ValueKeys;

  /**
   * `existing`: the entries of the session being continued; `random`: a source for tests;
   * `region`: where national phone numbers are read (the language's region; US when absent).
   */
  constructor(existing: readonly TokenEntry[] = [], random?: RandomSource, region?: string) {
    this.#random = random;
    this.#keys = new ValueKeys(region);
    for (const entry of existing) {
      this.#usedIds.add(entry.id);
      // First entry wins: a map that already holds two spellings keeps restoring both, and new
      // mentions reuse the earlier token.
      this.#remember(entry.type, entry.value, { id: entry.id, cap: entry.cap });
      if (isRandomId(entry.id)) {
        const separator = entry.id.lastIndexOf('_');
        const prefix = entry.id.slice(0, separator);
        const counter = Number(entry.id.slice(separator + 1));
        if (counter > (this.#counters.get(prefix) ?? 0)) this.#counters.set(prefix, counter);
      }
    }
  }

  /** The token already given to a spelling of (type, value), if any. */
  #known(type: string, value: string): { id: string; cap: string } | undefined {
    const lone = this.#lone.get(type);
    if (lone !== undefined) {
      if (lone.written === value) return lone.token;
      // A second written value of the type: key the first one, then look up by key from now on.
      this.#lone.delete(type);
      const key = this.#keys.of(type, lone.written);
      if (!this.#byValue.has(key)) this.#byValue.set(key, lone.token);
    } else if (!this.#keyed.has(type)) {
      return undefined;
    }
    this.#keyed.add(type);
    return this.#byValue.get(this.#keys.of(type, value));
  }

  /** Records `token` for (type, value) unless a spelling of it already has one (first wins). */
  #remember(type: string, value: string, token: { id: string; cap: string }): void {
    if (this.#known(type, value) === undefined) this.#store(type, value, token);
  }

  /** Records `token` for (type, value), which #known just found without one. */
  #store(type: string, value: string, token: { id: string; cap: string }): void {
    if (this.#keyed.has(type)) this.#byValue.set(this.#keys.of(type, value), token);
    else this.#lone.set(type, { written: value, token });
  }

  /** The id and cap for `value` of `type`, allocating them if the value is new. */
  allocate(type: string, value: string): Allocation {
    if (!isValidTokenType(type)) throw new Error('TokenAllocator: entity type does not match the token grammar');
    const known = this.#known(type, value);
    if (known !== undefined) return { id: known.id, cap: known.cap, isNew: false };

    const prefix = prefixFor(type);
    let counter = this.#counters.get(prefix) ?? 0;
    let id: string;
    do {
      counter++;
      if (counter > MAX_RANDOM_COUNTER) {
        throw new VeilError('VEIL_LIMIT_EXCEEDED', undefined, 'token counter exhausted for one session');
      }
      id = counterId(prefix, counter);
    } while (this.#usedIds.has(id));
    this.#counters.set(prefix, counter);

    const cap = this.#nextCap();
    this.#usedIds.add(id);
    this.#store(type, value, { id, cap });
    return { id, cap, isNew: true };
  }

  #nextCap(): string {
    if (this.#random === undefined) return randomHex(CAP_BYTES);
    if (this.#poolOffset + CAP_BYTES > this.#pool.length) {
      const size = CAP_BYTES * CAPS_PER_REFILL;
      const pool = this.#random(size);
      if (pool.length < size) throw new Error('TokenAllocator: random source returned too few bytes');
      this.#pool = pool;
      this.#poolOffset = 0;
    }
    const cap = this.#pool.toString('hex', this.#poolOffset, this.#poolOffset + CAP_BYTES);
    this.#poolOffset += CAP_BYTES;
    return cap;
  }
}
