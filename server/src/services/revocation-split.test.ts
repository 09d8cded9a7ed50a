// Red-team finding (session 11 Open list, closed in session 12, wave11/red): a value split across
// JSON members is tokenized part by part (structured/joins.ts), each part its own token of the
// value's type, so revoking the whole value erased none of the parts in sessions made before the
// revocation (the revocation index keys the digest of (type, normalized value), and no part's
// value is the whole). Now each part's entry carries the whole values it belongs to
// (TokenEntry.wholes, sealed with the session) and is checked under their digests too.
import { randomBytes } from 'node:crypto';
import { DEFAULT_POLICY } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { detectAll } from '../domain/detect/index.js';
import { CompiledPolicy } from '../domain/policy/index.js';
import { KeyRing } from '../domain/seal/keyring.js';
import { newSessionId, openSession, sealSession, type SessionPayload } from '../domain/seal/session.js';
import { tokenizeJsonDocument } from '../domain/structured/json.js';
import { SlotScanner } from '../domain/structured/slots.js';
import { TokenAllocator } from '../domain/token/index.js';
import type { TokenEntry } from '../domain/types.js';
import { entryDigests, revocationDigests } from './revocation.js';

const policy = new CompiledPolicy(DEFAULT_POLICY);
const KEY = randomBytes(32);

function scannerOf(document: unknown, previous: readonly TokenEntry[] = []): SlotScanner {
  const scanner = new SlotScanner({ detect: (text) => detectAll(text, { language: 'en' }), policy, context: {}, allocator: new TokenAllocator(previous) });
  tokenizeJsonDocument(document, scanner);
  return scanner;
}

function entriesOf(document: unknown) {
  return scannerOf(document).newEntries;
}

/** Is the entry erased by revoking (type, value) as a revoke request writes it? */
function erasedBy(entry: Parameters<typeof entryDigests>[1], type: string, value: string): boolean {
  const revoked = new Set(revocationDigests(KEY, type, value, 'US'));
  return entryDigests(KEY, entry, ['US']).some((digest) => revoked.has(digest));
}

describe('revoking a whole split value erases its parts', () => {
  it.each([
    [{ card: ['4111', '1111', '1111', '1111'] }, 'credit_card', '4111-1111-1111-1111'],
    [[{ g: '5500' }, { g: '0000' }, { g: '0000' }, { g: '0004' }], 'credit_card', '5500000000000004'],
    [{ user: 'alice.smith', domain: '@corp.example' }, 'email', 'Alice.Smith@corp.example'],
    [{ iban: ['DE89', '3704', '0044', '0532', '0130', '00'] }, 'iban', 'DE89370400440532013000'],
    [{ ssn: { area: '078', group: '05', serial: '1120' } }, 'us_ssn', '078-05-1120'],
  ])('%j: every part entry is erased by revoking %s %s', (document, type, value) => {
    const entries = entriesOf(document);
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      expect(entry.type).toBe(type);
      expect(entry.wholes?.length).toBeGreaterThan(0);
      expect(erasedBy(entry, type, value)).toBe(true);
    }
  });

  it('a part shared by two values is erased by revoking either, and by neither other value', () => {
    const entries = entriesOf({ a: ['4111', '1111', '1111', '1111'], b: ['5500', '0000', '0000', '0004'], c: ['4111', '1111', '1111', '1111'] });
    const shared = entries.find((entry) => entry.value === '4111')!;
    expect(erasedBy(shared, 'credit_card', '4111111111111111')).toBe(true);
    expect(erasedBy(shared, 'credit_card', '5500000000000004')).toBe(false);
    const other = entries.find((entry) => entry.value === '5500')!;
    expect(erasedBy(other, 'credit_card', '4111111111111111')).toBe(false);
    expect(erasedBy(other, 'credit_card', '5500 0000 0000 0004')).toBe(true);
  });

  it('a part first tokenized in an earlier turn is linked to the wholes of a later one', () => {
    const first = entriesOf({ card: ['4111', '1111', '1111', '1111'] });
    const later = scannerOf({ other: ['4111', '1111', '1111', '1129'] }, first);
    const continued = [...later.linked(first), ...later.newEntries];
    const shared = continued.find((entry) => entry.value === '4111')!;
    expect(erasedBy(shared, 'credit_card', '4111111111111111')).toBe(true);
    expect(erasedBy(shared, 'credit_card', '4111111111111129')).toBe(true);
    expect(continued.find((entry) => entry.value === '1129')?.wholes).toEqual(['4111 1111 1111 1129']);
  });

  it('values that are not split carry no wholes', () => {
    for (const entry of entriesOf({ email: 'jane.doe@corp.example', card: '4111 1111 1111 1111' })) expect(entry.wholes).toBeUndefined();
  });

  it('the link is sealed with the session and read back', () => {
    const ring = new KeyRing('k', [{ kid: 'k', key: randomBytes(32) }]);
    const entries = entriesOf({ card: ['4111', '1111', '1111', '1111'] });
    const now = Math.floor(Date.now() / 1000);
    const payload: SessionPayload = { sid: newSessionId(), kind: 'transform', tenant: null, language: 'en', policy: 'default', policyVersion: '1', counter: 0, iat: now, exp: now + 60, entries: [...entries] };
    const opened = openSession(ring, sealSession(ring, payload), { kinds: ['transform'], tenant: null }, now);
    expect(opened.entries).toEqual(entries);
    for (const entry of opened.entries) expect(erasedBy(entry, 'credit_card', '4111111111111111')).toBe(true);
  });
});
