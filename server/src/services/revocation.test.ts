// Erasure digests (revocation.ts): what a revoke request writes is what a session's stored value
// is checked under. Names erase whatever their case ("John Smith" revoked erases "JOHN SMITH"
// and "john smith"); the canonical digest is still written, so a replica of the previous release
// (which checks only that one) honours the revocation during an upgrade; other types keep their
// own normalization (an e-mail's case never mattered, a password's always does).
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { entryDigests, revocationDigests, sessionDigests } from './revocation.js';

const KEY = Buffer.alloc(32, 7);
const erases = (type: string, revoked: string, stored: string): boolean => {
  const written = new Set(revocationDigests(KEY, type, revoked, 'US'));
  return entryDigests(KEY, { type, value: stored }, ['US']).some((digest) => written.has(digest));
};

describe('revocation digests', () => {
  it('erases a name in every casing and spacing', () => {
    for (const type of ['person', 'organization', 'location']) {
      for (const stored of ['John Smith', 'JOHN SMITH', 'john  smith', 'John Smith ']) {
        expect(erases(type, 'John Smith', stored), `${type}: ${stored}`).toBe(true);
        expect(erases(type, 'john smith', stored), `${type}: ${stored}`).toBe(true);
      }
      expect(erases(type, 'John Smith', 'John Smyth')).toBe(false);
    }
  });

  it('still writes the canonical digest an earlier release checks', () => {
    const [canonical, lower] = revocationDigests(KEY, 'person', 'John Smith', 'US');
    expect(lower).toBeDefined();
    expect(entryDigests(KEY, { type: 'person', value: 'John Smith' }, ['US'])).toContain(canonical);
    expect(revocationDigests(KEY, 'person', 'john smith', 'US')).toHaveLength(1);
  });

  it('keeps case where it is part of the value', () => {
    expect(erases('password', 'Hunter2x', 'hunter2x')).toBe(false);
    expect(erases('email', 'Jane@Example.com', 'jane@example.com')).toBe(true);
    expect(revocationDigests(KEY, 'email', 'Jane@Example.com', 'US')).toHaveLength(1);
  });

  it('is HMAC-SHA-256 of v1|<type length>:<type>|<form>, the format every revocation store holds', () => {
    const expected = createHmac('sha256', KEY).update('v1|5:email|jane@example.com').digest('hex');
    expect(revocationDigests(KEY, 'email', 'Jane@Example.com', 'US')).toEqual([expected]);
    const digests = sessionDigests(KEY, { language: 'en', entries: [{ id: 'e_001', type: 'email', value: 'jane@example.com' }, { id: 'p_001', type: 'phone', value: '(415) 555-0134' }] }, 'US');
    expect(digests[0]).toEqual({ id: 'e_001', digest: expected });
    expect(digests).toContainEqual({ id: 'p_001', digest: createHmac('sha256', KEY).update('v1|5:phone|+14155550134').digest('hex') });
  });
});
