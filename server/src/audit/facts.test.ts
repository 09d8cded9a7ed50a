// Audit facts merged across calls (audit/facts.ts): entity counts per type built from a list of
// entities and from a detect summary (a plain record) add up the same way, types union, and
// nothing but types and counts is kept (a type named __proto__ included).
import { describe, expect, it } from 'vitest';
import { entityFacts, mergeFacts, transformFacts, type CollectedFacts } from './facts.js';

describe('entityFacts and mergeFacts', () => {
  it('counts entities per type, tokenized and redacted, and adds them across calls and shapes', () => {
    const into: CollectedFacts = {};
    mergeFacts(into, entityFacts([
      { type: 'email', action_applied: 'tokenize' },
      { type: 'phone', action_applied: 'redact' },
      { type: 'email', action_applied: 'tokenize' },
      { type: '__proto__', action_applied: 'allow' },
    ]));
    mergeFacts(into, { entity_types: ['email', 'iban'], type_counts: { email: 2, iban: 1, bogus: Number.NaN, none: 0 }, entity_count: 3 });
    expect(into.type_counts).toEqual(new Map([['email', 4], ['phone', 1], ['__proto__', 1], ['iban', 1]]));
    expect(into.blocked_type_counts).toEqual(new Map([['phone', 1]]));
    expect([...into.entity_types!].sort()).toEqual(['__proto__', 'email', 'iban', 'phone']);
    expect({ count: into.entity_count, tokenized: into.entities_tokenized, blocked: into.entities_blocked }).toEqual({ count: 7, tokenized: 2, blocked: 1 });
  });

  it('takes a transform response\'s stats for the counts and its entities for the types', () => {
    const facts = transformFacts({ entities: [{ type: 'email', action_applied: 'tokenize' }], stats: { entities_detected: 2, entities_transformed: 1, entities_blocked: 0 } });
    const into = mergeFacts({}, facts);
    expect(into).toMatchObject({ entity_count: 2, entities_tokenized: 1, entities_blocked: 0 });
    expect(into.type_counts).toEqual(new Map([['email', 1]]));
  });

  it('adds per-type counts given as a Map (what entityFacts builds, so nothing is converted per request)', () => {
    const built = entityFacts([{ type: 'email', action_applied: 'redact' }]);
    expect(built.type_counts).toBeInstanceOf(Map);
    const into = mergeFacts({}, { type_counts: new Map([['email', 2], ['bogus', Number.NaN]]), blocked_type_counts: new Map([['phone', 1]]) });
    mergeFacts(into, built);
    expect(into.type_counts).toEqual(new Map([['email', 3]]));
    expect(into.blocked_type_counts).toEqual(new Map([['phone', 1], ['email', 1]]));
  });

  it('keeps the entity counts when a transform response\'s stats leave them out', () => {
    const facts = transformFacts({ entities: [{ type: 'email', action_applied: 'tokenize' }, { type: 'iban', action_applied: 'redact' }], stats: { entities_detected: 3 } });
    expect(mergeFacts({}, facts)).toMatchObject({ entity_count: 3, entities_tokenized: 1, entities_blocked: 1 });
  });
});
