// The merge rules of /v1/rag/context (interface.md 4.12) on the pure merger, the classification
// lattice, and the corpus-scheme allocator the RAG flow tokenizes with: id collisions on type or
// value, cap disagreements and foreign tokens are refused; restoration is tightened to the
// active policy and never widened; unknown and missing labels rank most restrictive.
import { parsePolicy, VeilError } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { CompiledPolicy } from '../policy/index.js';
import { CorpusAllocator, corpusToken, deriveCorpusKeys, isCorpusEntryOwned, TokenAllocator } from '../token/index.js';
import type { TokenEntry } from '../types.js';
import { ClassificationLattice } from './classification.js';
import { SessionMerger, tightenEntry } from './merge.js';

function compile(yaml: string): CompiledPolicy {
  const result = parsePolicy(yaml, 'test.yaml');
  expect(result.issues).toEqual([]);
  return new CompiledPolicy(result.policy!);
}

const open = compile('name: open\nversion: "1"\nrules:\n  - {name: all, match: {}, action: tokenize, restore_mode: full}\n');
const strict = compile(
  'name: strict\nversion: "1"\nrules:\n' +
    '  - {name: ssn-out, match: {entity_type: us_ssn, destination: external_llm}, action: deny}\n' +
    '  - {name: phone-red, match: {entity_type: phone}, action: redact}\n' +
    '  - {name: card, match: {entity_type: credit_card}, action: tokenize, restore_mode: partial, restore_strategy: last4}\n' +
    '  - {name: email, match: {entity_type: email}, action: tokenize, restore_mode: masked}\n' +
    '  - {name: rest, match: {}, action: tokenize, restore_mode: full}\n' +
    'restore_strategies:\n  last4: {kind: reveal_last_n, n: 4}\n',
);
const toModel = { destination: 'external_llm' };

const email = (id: string, cap: string, value = 'ada@example.com'): TokenEntry => ({ id, type: 'email', cap, value, mode: 'full' });
const CAP_A = 'a'.repeat(32);
const CAP_B = 'b'.repeat(32);
const ID = `e_${'1'.repeat(24)}`;

function failure(run: () => void): VeilError {
  try {
    run();
  } catch (error) {
    if (error instanceof VeilError) return error;
    throw error;
  }
  throw new Error('expected a VeilError');
}

describe('SessionMerger conflicts', () => {
  const merger = (): SessionMerger => new SessionMerger({ policy: open, context: toModel });

  it('merges the same token from two slots into one entry', () => {
    const m = merger();
    m.add({ slot: 'session_state', policy: 'open', entries: [email(ID, CAP_A)] });
    m.add({ slot: 'document_sessions[0]', policy: 'open', entries: [email(ID, CAP_A, ' ADA@example.com ')] });
    expect(m.entries()).toEqual([email(ID, CAP_A)]);
  });

  it('refuses an id colliding on a different value or type', () => {
    const m = merger();
    m.add({ slot: 'document_sessions[0]', policy: 'open', entries: [email(ID, CAP_A)] });
    const value = failure(() => m.add({ slot: 'document_sessions[1]', policy: 'open', entries: [email(ID, CAP_A, 'eve@example.com')] }));
    expect(value.code).toBe('VEIL_VALIDATION_FAILED');
    expect(value.message).toBe('document_sessions[1]: token id collides with a different value in document_sessions[0]');
    expect(value.message).not.toContain('eve@');
    const type = failure(() => m.add({ slot: 'document_sessions[2]', policy: 'open', entries: [{ ...email(ID, CAP_A), type: 'url' }] }));
    expect(type.message).toBe('document_sessions[2]: token id collides with a different entity type in document_sessions[0]');
  });

  it('refuses a cap disagreement between documents', () => {
    const m = merger();
    m.add({ slot: 'document_sessions[0]', policy: 'open', entries: [email(ID, CAP_A)] });
    const error = failure(() => m.add({ slot: 'document_sessions[3]', policy: 'open', entries: [email(ID, CAP_B)] }));
    expect(error.message).toBe('document_sessions[3]: cap disagrees with document_sessions[0] for the same token');
  });

  it('refuses entries the ownership check rejects', () => {
    const m = new SessionMerger({ policy: open, context: toModel, owns: (entry) => entry.cap === CAP_A });
    m.add({ slot: 'document_sessions[0]', policy: 'open', entries: [email(ID, CAP_A)] });
    const error = failure(() => m.add({ slot: 'document_sessions[1]', policy: 'open', entries: [email(`e_${'2'.repeat(24)}`, CAP_B)] }));
    expect(error.message).toMatch(/^document_sessions\[1\]: .*conflicting ownership/);
  });
});

describe('tightening to the active policy', () => {
  const options = { policy: strict, context: toModel };

  it('takes the tighter of the source floor and the active decision', () => {
    expect(tightenEntry(email(ID, CAP_A), 'open', options).mode).toBe('masked');
    expect(tightenEntry({ ...email(ID, CAP_A), mode: 'none' }, 'strict', options).mode).toBe('none');
  });

  it('restores a value the active policy redacts as none', () => {
    const phone: TokenEntry = { id: 'ph_001', type: 'phone', cap: 'c'.repeat(12), value: '+1 415 555 0134', mode: 'full' };
    expect(tightenEntry(phone, 'open', options).mode).toBe('none');
  });

  it('refuses a value the active policy denies for this destination', () => {
    const ssn: TokenEntry = { id: 'ssn_001', type: 'us_ssn', cap: 'c'.repeat(12), value: '123-45-6789', mode: 'full' };
    const error = failure(() => tightenEntry(ssn, 'open', options));
    expect(error.code).toBe('VEIL_POLICY_DENIED');
    expect(error.message).not.toContain('123-45');
    // The same policy sending to a local model does not deny.
    expect(tightenEntry(ssn, 'open', { policy: strict, context: { destination: 'local_llm' } }).mode).toBe('full');
  });

  it('pins an entry from another policy so the active policy cannot widen it', () => {
    const tightened = tightenEntry({ ...email(ID, CAP_A), mode: 'abstract' }, 'open', { policy: open, context: toModel });
    expect(tightened).toMatchObject({ mode: 'abstract' });
    expect(tightened.override).toBeUndefined(); // same policy: its own caller overrides still apply
    const foreign = tightenEntry({ ...email(ID, CAP_A), mode: 'partial' }, 'other', { policy: open, context: toModel });
    expect(foreign).toMatchObject({ mode: 'partial', override: 'partial' });
  });

  it('masks a partial restore whose strategy cannot be resolved unambiguously', () => {
    const card: TokenEntry = { id: 'cc_001', type: 'credit_card', cap: 'c'.repeat(12), value: '4111111111111111', mode: 'partial', strategy: 'last2' };
    // A strategy name of another policy: masked.
    expect(tightenEntry(card, 'other', options)).toMatchObject({ mode: 'masked', override: 'masked' });
    // Same policy, same strategy: kept.
    expect(tightenEntry({ ...card, strategy: 'last4' }, 'strict', options)).toMatchObject({ mode: 'partial', strategy: 'last4' });
    // Same policy, two different strategies: masked.
    expect(tightenEntry(card, 'strict', options).mode).toBe('masked');
  });

  it('combines two slots to the tighter mode', () => {
    const m = new SessionMerger({ policy: open, context: toModel });
    m.add({ slot: 'a', policy: 'open', entries: [{ ...email(ID, CAP_A), mode: 'full' }] });
    m.add({ slot: 'b', policy: 'open', entries: [{ ...email(ID, CAP_A), mode: 'masked', override: 'abstract' }] });
    expect(m.entries()).toEqual([{ ...email(ID, CAP_A), mode: 'masked', override: 'abstract' }]);
  });
});

describe('ClassificationLattice', () => {
  const lattice = new ClassificationLattice(['public', 'internal', 'confidential', 'restricted']);

  it('ranks labels in order; unknown and missing rank most restrictive', () => {
    expect(lattice.rank('public')).toBe(0);
    expect(lattice.rank('confidential')).toBe(2);
    expect(lattice.rank('top-secret')).toBe(3);
    expect(lattice.rank(undefined)).toBe(3);
    expect(lattice.effectiveRank(['public', 'confidential'])).toBe(2);
    expect(lattice.effectiveRank(['public', undefined])).toBe(3);
  });

  it('refuses an unknown access level', () => {
    expect(lattice.accessRank('internal')).toBe(1);
    expect(failure(() => lattice.accessRank('secret')).message).toBe('access_level: must be one of rag.classification_levels');
  });

  it('takes the clearance from the credential: absent or unknown is the lowest, a request only lowers it', () => {
    const credential = (level: string | undefined) => ({ unrestricted: false, credential: level });
    expect(lattice.clearanceRank(credential(undefined), undefined)).toBe(0);
    expect(lattice.clearanceRank(credential('top-secret'), undefined)).toBe(0);
    expect(lattice.clearanceRank(credential('confidential'), undefined)).toBe(2);
    // A request may lower the clearance, never raise it.
    expect(lattice.clearanceRank(credential('confidential'), 'internal')).toBe(1);
    expect(lattice.clearanceRank(credential('confidential'), 'restricted')).toBe(2);
    expect(lattice.clearanceRank(credential(undefined), 'restricted')).toBe(0);
    expect(() => lattice.clearanceRank(credential('confidential'), 'secret')).toThrow(VeilError);
    // Dev mode: the top, lowered by the request.
    expect(lattice.clearanceRank({ unrestricted: true }, undefined)).toBe(3);
    expect(lattice.clearanceRank({ unrestricted: true }, 'public')).toBe(0);
    expect(lattice.label(lattice.topRank)).toBe('restricted');
  });
});

describe('CorpusAllocator', () => {
  const keys = deriveCorpusKeys(Buffer.alloc(32, 9));
  const scope = { tenant: 'acme', corpusId: 'kb' };

  it('hands out the corpus token, new once per value', () => {
    const allocator = new CorpusAllocator(keys, scope);
    const first = allocator.allocate('email', 'Ada@Example.com');
    expect(first).toEqual({ ...corpusToken(keys, { ...scope, type: 'email', value: 'ada@example.com' }), isNew: true });
    expect(allocator.allocate('email', 'ada@example.com')).toEqual({ id: first.id, cap: first.cap, isNew: false });
    // Another allocator (another document of the corpus) gets the same token.
    expect(new CorpusAllocator(keys, scope).allocate('email', 'ada@example.com')).toMatchObject({ id: first.id, cap: first.cap });
    expect(new CorpusAllocator(keys, { ...scope, corpusId: 'kb2' }).allocate('email', 'ada@example.com').id).not.toBe(first.id);
    expect(new CorpusAllocator(keys, { ...scope, tenant: 'other' }).allocate('email', 'ada@example.com').id).not.toBe(first.id);
    expect(new TokenAllocator().allocate('email', 'ada@example.com').id).toBe('e_001');
  });

  it('treats seeded entries as known and checks ownership', () => {
    const token = corpusToken(keys, { ...scope, type: 'email', value: 'ada@example.com' });
    const entry: TokenEntry = { ...token, type: 'email', value: 'ada@example.com', mode: 'full' };
    expect(new CorpusAllocator(keys, scope, [entry]).allocate('email', 'ada@example.com').isNew).toBe(false);
    expect(isCorpusEntryOwned(keys, scope, entry)).toBe(true);
    expect(isCorpusEntryOwned(keys, { ...scope, corpusId: 'kb2' }, entry)).toBe(false);
    expect(isCorpusEntryOwned(keys, scope, { ...entry, value: 'eve@example.com' })).toBe(false);
    expect(isCorpusEntryOwned(keys, scope, { ...entry, cap: 'f'.repeat(32) })).toBe(false);
  });
});
