// Unit and property tests of corpus-scheme tokens (decisions.md section 3, threats.md 3):
// deterministic per (tenant, corpus, type, normalized value), unrelated across scopes, with a
// pinned encoding so existing corpora keep their tokens.
import { createHmac, hkdfSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { corpusToken, deriveCorpusKeys } from './corpus.js';
import { parseToken, renderToken } from './grammar.js';

const keys = deriveCorpusKeys(Buffer.alloc(32, 7));
const base = { tenant: 'acme', corpusId: 'kb-1', type: 'email', value: 'alice@example.com' };

describe('deriveCorpusKeys', () => {
  it('derives two distinct 32-byte keys with HKDF-SHA256', () => {
    expect(keys.idKey).toHaveLength(32);
    expect(keys.capKey).toHaveLength(32);
    expect(keys.idKey.equals(keys.capKey)).toBe(false);
    const expected = Buffer.from(hkdfSync('sha256', Buffer.alloc(32, 7), Buffer.from('veil/corpus/v1'), 'veil/corpus/id/v1', 32));
    expect(keys.idKey.equals(expected)).toBe(true);
    expect(deriveCorpusKeys(Buffer.alloc(32, 8)).idKey.equals(keys.idKey)).toBe(false);
  });
});

describe('corpusToken', () => {
  it('matches the pinned encoding (changing it would orphan every ingested corpus)', () => {
    const field = (text: string): Buffer => {
      const bytes = Buffer.from(text, 'utf8');
      const header = Buffer.alloc(5);
      header[0] = 1;
      header.writeUInt32BE(bytes.length, 1);
      return Buffer.concat([header, bytes]);
    };
    const message = Buffer.concat(['veil-corpus-token-v1', 'acme', 'kb-1', 'email', 'alice@example.com'].map(field));
    const id = createHmac('sha256', keys.idKey).update(message).digest('hex').slice(0, 24);
    const cap = createHmac('sha256', keys.capKey).update(message).digest('hex').slice(0, 32);
    expect(corpusToken(keys, base)).toEqual({ id: `e_${id}`, cap });
  });

  it('is deterministic over normalized values and renders a parseable token', () => {
    const token = corpusToken(keys, base);
    expect(corpusToken(keys, { ...base, value: ' Alice@EXAMPLE.com ' })).toEqual(token);
    expect(token.id).toMatch(/^e_[0-9a-f]{24}$/);
    expect(token.cap).toMatch(/^[0-9a-f]{32}$/);
    expect(parseToken(renderToken({ type: 'email', ...token }))).toEqual({ type: 'email', ...token });
    expect(corpusToken(keys, { ...base, type: 'custom:ticket', value: 'T-1' }).id).toMatch(/^c_[0-9a-f]{24}$/);
  });

  it('differs across tenants, corpora, types, values and secrets', () => {
    const reference = corpusToken(keys, base);
    const variants = [
      corpusToken(keys, { ...base, tenant: 'other' }),
      corpusToken(keys, { ...base, tenant: null }),
      corpusToken(keys, { ...base, tenant: '' }),
      corpusToken(keys, { ...base, corpusId: 'kb-2' }),
      corpusToken(keys, { ...base, type: 'person' }),
      corpusToken(keys, { ...base, value: 'bob@example.com' }),
      corpusToken(deriveCorpusKeys(Buffer.alloc(32, 9)), base),
    ];
    for (const variant of variants) {
      expect(variant.id.slice(-24)).not.toBe(reference.id.slice(-24));
      expect(variant.cap).not.toBe(reference.cap);
    }
  });

  it('encodes fields unambiguously', () => {
    const a = corpusToken(keys, { ...base, tenant: 'ab', corpusId: 'c' });
    const b = corpusToken(keys, { ...base, tenant: 'a', corpusId: 'bc' });
    expect(a.id).not.toBe(b.id);
    // The platform marker is not the string "null" or the empty tenant.
    expect(corpusToken(keys, { ...base, tenant: null }).id).not.toBe(corpusToken(keys, { ...base, tenant: 'null' }).id);
  });

  it('rejects a type outside the grammar', () => {
    expect(() => corpusToken(keys, { ...base, type: 'E-mail' })).toThrow();
  });

  it('property: deterministic, well-formed, and scope-separated', () => {
    const scope = fc.record({
      tenant: fc.option(fc.string({ maxLength: 12 }), { nil: null }),
      corpusId: fc.string({ minLength: 1, maxLength: 12 }),
      type: fc.constantFrom('email', 'person', 'phone', 'custom:ticket'),
      value: fc.string({ minLength: 1, maxLength: 30 }),
    });
    fc.assert(
      fc.property(scope, scope, (first, second) => {
        const one = corpusToken(keys, first);
        expect(corpusToken(keys, first)).toEqual(one);
        expect(one.id).toMatch(/^[a-z]+_[0-9a-f]{24}$/);
        expect(one.cap).toMatch(/^[0-9a-f]{32}$/);
        const two = corpusToken(keys, second);
        const sameScope =
          first.tenant === second.tenant && first.corpusId === second.corpusId && first.type === second.type;
        if (!sameScope) expect(two.cap).not.toBe(one.cap);
      }),
      { numRuns: 1000 },
    );
  });
});
