// Corpus-scheme tokens for RAG (decisions.md section 3, interface.md 2.1 rule 3): the same
// normalized value gets the same token in every document and query of one corpus, and an
// unrelated token in another corpus, another tenant or the random scheme. Ids and caps are
// HMACs under two keys derived from the server secret, so neither reveals the value and a cap
// cannot be computed from an id.
import { createHmac, hkdfSync } from 'node:crypto';
import { prefixFor } from '../catalog.js';
import { secretKeyOf } from '../keys.js';
import type { TokenEntry } from '../types.js';
import { ValueKeys, type Allocation, type ValueAllocator } from './allocator.js';
import { capsEqual } from './caps.js';
import { CORPUS_CAP_LENGTH, CORPUS_ID_SUFFIX_LENGTH, isValidTokenType } from './grammar.js';
import { normalizeValue } from './normalize.js';

export interface CorpusKeys {
  readonly idKey: Buffer;
  readonly capKey: Buffer;
}

/** HKDF salt: fixes the purpose of the derivation independently of the info labels. */
const SALT = Buffer.from('veil/corpus/v1', 'utf8');
const ID_INFO = 'veil/corpus/id/v1';
const CAP_INFO = 'veil/corpus/cap/v1';
/** Domain separation inside the HMAC input, so the same keys could never collide with another use. */
const DOMAIN = 'veil-corpus-token-v1';

/** Derive the id and cap keys from the server secret (HKDF-SHA256, distinct info labels). */
export function deriveCorpusKeys(serverSecret: Buffer): CorpusKeys {
  return {
    idKey: Buffer.from(hkdfSync('sha256', serverSecret, SALT, ID_INFO, 32)),
    capKey: Buffer.from(hkdfSync('sha256', serverSecret, SALT, CAP_INFO, 32)),
  };
}

/**
 * Unambiguous encoding of the HMAC input: every field is a tag byte, then (for strings) a
 * 4-byte big-endian UTF-8 length and the bytes. ("ab","c") and ("a","bc") differ, and a null
 * tenant (platform caller) is tag 0, which no tenant string can produce.
 */
function encodeFields(fields: readonly (string | null)[]): Buffer {
  const parts: Buffer[] = [];
  for (const field of fields) {
    if (field === null) {
      parts.push(Buffer.from([0]));
      continue;
    }
    const bytes = Buffer.from(field, 'utf8');
    const header = Buffer.allocUnsafe(5);
    header.writeUInt8(1, 0);
    header.writeUInt32BE(bytes.length, 1);
    parts.push(header, bytes);
  }
  return Buffer.concat(parts);
}

/**
 * Corpus token for a value: id `<prefix>_` + first 24 hex of HMAC(idKey, input), cap first 32
 * hex of HMAC(capKey, input), input = (tenant, corpus id, type, normalized value).
 */
export function corpusToken(
  keys: CorpusKeys,
  input: { readonly tenant: string | null; readonly corpusId: string; readonly type: string; readonly value: string; readonly region?: string | undefined },
): { id: string; cap: string } {
  if (!isValidTokenType(input.type)) throw new Error('corpusToken: entity type does not match the token grammar');
  const message = encodeFields([DOMAIN, input.tenant, input.corpusId, input.type, normalizeValue(input.type, input.value, input.region)]);
  const idHex = createHmac('sha256', secretKeyOf(keys.idKey)).update(message).digest('hex');
  const capHex = createHmac('sha256', secretKeyOf(keys.capKey)).update(message).digest('hex');
  return {
    id: `${prefixFor(input.type)}_${idHex.slice(0, CORPUS_ID_SUFFIX_LENGTH)}`,
    cap: capHex.slice(0, CORPUS_CAP_LENGTH),
  };
}

/** The tenant and corpus a corpus-scheme session belongs to. */
export interface CorpusScope {
  readonly tenant: string | null;
  readonly corpusId: string;
  /**
   * Region national phone numbers are read in (detector.default_region; US when absent): one
   * fixed region per deployment, so documents and queries in any language share tokens.
   */
  readonly region?: string | undefined;
}

/**
 * Corpus-scheme allocation for one session: every value gets corpusToken's id and cap, so the
 * same value has the same token in every document and query of the corpus. `isNew` is true the
 * first time a value is seen by this allocator (the caller then records a TokenEntry); seeding
 * with the session's existing entries makes their values known.
 */
export class CorpusAllocator implements ValueAllocator {
  readonly #keys: CorpusKeys;
  readonly #scope: CorpusScope;
  readonly #seen = new Map<string, { id: string; cap: string }>();
  readonly #valueKeys: ValueKeys;

  constructor(keys: CorpusKeys, scope: CorpusScope, existing: readonly TokenEntry[] = []) {
    this.#keys = keys;
    this.#scope = scope;
    this.#valueKeys = new ValueKeys(scope.region);
    for (const entry of existing) {
      const key = this.#valueKeys.of(entry.type, entry.value);
      if (!this.#seen.has(key)) this.#seen.set(key, { id: entry.id, cap: entry.cap });
    }
  }

  allocate(type: string, value: string): Allocation {
    const key = this.#valueKeys.of(type, value);
    const known = this.#seen.get(key);
    if (known !== undefined) return { ...known, isNew: false };
    const token = corpusToken(this.#keys, { tenant: this.#scope.tenant, corpusId: this.#scope.corpusId, type, value, region: this.#scope.region });
    this.#seen.set(key, token);
    return { ...token, isNew: true };
  }
}

/**
 * Is `entry` the token this tenant and corpus derive for its value? A corpus session's entries
 * all are; anything else was not issued for this corpus (a merge rejects it as foreign).
 */
export function isCorpusEntryOwned(keys: CorpusKeys, scope: CorpusScope, entry: TokenEntry): boolean {
  if (!isValidTokenType(entry.type)) return false;
  const expected = corpusToken(keys, { tenant: scope.tenant, corpusId: scope.corpusId, type: entry.type, value: entry.value, region: scope.region });
  return expected.id === entry.id && capsEqual(expected.cap, entry.cap);
}
