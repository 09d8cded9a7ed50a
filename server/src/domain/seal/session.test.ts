// Tests of sealed session state (decisions.md section 4, threats.md 3 and 4): round trips,
// scope binding through the associated data, key rotation, and the guarantee that every
// malformed, tampered, foreign or expired blob fails with VEIL_SESSION_EXPIRED and nothing else.
import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { VeilError } from '@veil/common';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TokenEntry } from '../types.js';
import { KeyRing } from './keyring.js';
import { MAX_SESSION_BLOB_CHARS, SESSION_KINDS, newSessionId, openSession, sealSession } from './session.js';
import type { OpenExpectation, SessionKind, SessionPayload } from './session.js';

const KEY_A = Buffer.alloc(32, 0xa1);
const KEY_B = Buffer.alloc(32, 0xb2);
const ringA = new KeyRing('a', [{ kid: 'a', key: KEY_A }]);
const NOW = 1_700_000_000;

function entries(count: number): TokenEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `e_${String(i + 1).padStart(3, '0')}`,
    type: 'email',
    cap: randomBytes(6).toString('hex'),
    value: `user${i}@example.com`,
    mode: 'full' as const,
  }));
}

function payload(overrides: Partial<SessionPayload> = {}): SessionPayload {
  return {
    sid: newSessionId(),
    kind: 'transform',
    tenant: 'acme',
    language: 'en',
    policy: 'default',
    policyVersion: '1.0.0',
    counter: 1,
    iat: NOW,
    exp: NOW + 3600,
    entries: entries(3),
    ...overrides,
  };
}

function expectFor(sealed: SessionPayload): OpenExpectation {
  return { kinds: [sealed.kind], tenant: sealed.tenant, classification: sealed.classification };
}

/** Asserts that `open` throws exactly VeilError VEIL_SESSION_EXPIRED. */
function expectExpired(open: () => unknown): void {
  let thrown: unknown;
  try {
    open();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(VeilError);
  expect((thrown as VeilError).code).toBe('VEIL_SESSION_EXPIRED');
  expect((thrown as VeilError).status).toBe(410);
}

function bodyBytes(blob: string): { prefix: string; bytes: Buffer } {
  const cut = blob.lastIndexOf('.') + 1;
  return { prefix: blob.slice(0, cut), bytes: Buffer.from(blob.slice(cut), 'base64url') };
}

/**
 * Seal arbitrary plaintext bytes exactly as sealSession does (same key derivation and AD), so
 * tests can check that open validates authentic-but-malformed plaintexts. Pins the format.
 */
function forge(plaintext: Buffer, scope: { kid: string; secret: Buffer; kind: string; tenant: string | null; classification?: string }): string {
  const key = Buffer.from(hkdfSync('sha256', scope.secret, Buffer.alloc(0), 'veil/session/v1', 32));
  let ad = 'veil-session|v1';
  for (const field of [scope.kid, scope.kind, scope.tenant, scope.classification ?? null]) ad += field === null ? '|-' : `|${field.length}:${field}`;
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: 16 });
  cipher.setAAD(Buffer.from(ad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return `v1.${scope.kid}.${Buffer.concat([nonce, body]).toString('base64url')}`;
}

const forgeScope = { kid: 'a', secret: KEY_A, kind: 'transform', tenant: 'acme' };
const validWire = (): Record<string, unknown> => ({
  s: newSessionId(),
  k: 'transform',
  t: 'acme',
  l: 'en',
  p: 'default',
  pv: '1',
  n: 1,
  ia: NOW,
  ex: NOW + 60,
  e: [['e_001', 'email', '0123456789ab', 'a@x.io', 'full']],
});
const jsonPlaintext = (wire: unknown): Buffer => Buffer.concat([Buffer.from([0]), Buffer.from(JSON.stringify(wire))]);

describe('KeyRing', () => {
  it('lists kids and returns copies of the configured secrets', () => {
    const ring = new KeyRing('b', [
      { kid: 'a', key: KEY_A },
      { kid: 'b', key: KEY_B },
    ]);
    expect(ring.currentKid).toBe('b');
    expect(ring.kids).toEqual(['a', 'b']);
    expect(ring.get('a')!.equals(KEY_A)).toBe(true);
    expect(ring.get('zz')).toBeUndefined();
    ring.get('a')!.fill(0);
    expect(ring.get('a')!.equals(KEY_A)).toBe(true);
  });

  it('rejects bad rings with messages that name kids, never keys', () => {
    const secretHex = KEY_A.toString('hex');
    const cases: [string, () => KeyRing][] = [
      ['short key', () => new KeyRing('a', [{ kid: 'a', key: Buffer.alloc(31) }])],
      ['long key', () => new KeyRing('a', [{ kid: 'a', key: Buffer.alloc(33) }])],
      ['bad kid', () => new KeyRing('a b', [{ kid: 'a b', key: KEY_A }])],
      ['long kid', () => new KeyRing('k'.repeat(65), [{ kid: 'k'.repeat(65), key: KEY_A }])],
      ['duplicate kid', () => new KeyRing('a', [{ kid: 'a', key: KEY_A }, { kid: 'a', key: KEY_B }])],
      ['current kid missing', () => new KeyRing('c', [{ kid: 'a', key: KEY_A }])],
      ['empty ring', () => new KeyRing('a', [])],
    ];
    for (const [name, build] of cases) {
      let message = '';
      try {
        build();
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, name).toMatch(/session key ring/);
      expect(message).not.toContain(secretHex);
    }
  });
});

describe('newSessionId', () => {
  it('is 128 random bits as 32 hex characters', () => {
    const ids = new Set(Array.from({ length: 1000 }, newSessionId));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('sealSession and openSession', () => {
  it.each(SESSION_KINDS)('round-trips a %s session', (kind) => {
    const sealed = payload({ kind });
    const blob = sealSession(ringA, sealed);
    expect(blob).toMatch(/^v1\.a\.[A-Za-z0-9_-]+$/);
    expect(openSession(ringA, blob, expectFor(sealed), NOW)).toEqual(sealed);
  });

  it('round-trips every optional field and entry variant', () => {
    const sealed = payload({
      kind: 'chunk',
      tenant: null,
      corpusId: 'kb-1',
      classification: 'confidential',
      counter: 0,
      entries: [
        { id: 'e_001', type: 'email', cap: '0123456789ab', value: 'a@x.io', mode: 'partial', strategy: 'last4' },
        { id: 'cc_001', type: 'credit_card', cap: 'ba9876543210', value: '4111', mode: 'full', override: 'masked' },
        { id: 'c_001', type: 'custom:ticket', cap: 'aaaaaaaaaaaa', value: 'T-1', mode: 'full', strategy: 's', override: 'none' },
        { id: `p_${'ab'.repeat(12)}`, type: 'person', cap: 'cd'.repeat(16), value: 'Zoë 😀 "quoted"\n', mode: 'abstract' },
        { id: 'e_002', type: 'email', cap: '0123456789cd', value: 'b@x.io', mode: 'full', destination: 'local_llm' },
        { id: 'e_003', type: 'email', cap: '0123456789ef', value: 'c@x.io', mode: 'partial', strategy: 's', classification: 'restricted' },
        { id: 'e_004', type: 'email', cap: '012345678900', value: 'd@x.io', mode: 'full', override: 'none', destination: 'tool', classification: 'public' },
      ],
    });
    expect(openSession(ringA, sealSession(ringA, sealed), expectFor(sealed), NOW)).toEqual(sealed);
  });

  it('round-trips large maps without compression, so blob length is no oracle on values', () => {
    const sealed = payload({ entries: entries(500) });
    const blob = sealSession(ringA, sealed);
    expect(openSession(ringA, blob, expectFor(sealed), NOW)).toEqual(sealed);
    // Same length, different compressibility: the blobs are exactly as long as each other.
    const repetitive = payload({ entries: [{ id: 'e_001', type: 'email', cap: 'aaaaaaaaaaaa', value: 'a'.repeat(4000), mode: 'full' }] });
    const random = payload({
      entries: [{ id: 'e_001', type: 'email', cap: 'aaaaaaaaaaaa', value: Array.from({ length: 4000 }, (_, index) => String.fromCharCode(97 + ((index * 7919) % 26))).join(''), mode: 'full' }],
    });
    expect(sealSession(ringA, repetitive).length).toBe(sealSession(ringA, random).length);
  });

  it('uses a fresh nonce for every seal', () => {
    const sealed = payload();
    const blobs = new Set(Array.from({ length: 300 }, () => sealSession(ringA, sealed)));
    expect(blobs.size).toBe(300);
    const nonces = new Set([...blobs].map((blob) => bodyBytes(blob).bytes.subarray(0, 12).toString('hex')));
    expect(nonces.size).toBe(300);
  });

  it('accepts any of several expected kinds', () => {
    const sealed = payload({ kind: 'context' });
    const blob = sealSession(ringA, sealed);
    expect(openSession(ringA, blob, { kinds: ['query', 'context'], tenant: 'acme' }, NOW).kind).toBe('context');
  });

  it('rejects a blob opened with the wrong kind, tenant, classification or key', () => {
    const sealed = payload({ kind: 'chunk', classification: 'internal' });
    const blob = sealSession(ringA, sealed);
    const right = expectFor(sealed);
    expectExpired(() => openSession(ringA, blob, { ...right, kinds: ['transform'] }, NOW));
    expectExpired(() => openSession(ringA, blob, { ...right, kinds: [] }, NOW));
    expectExpired(() => openSession(ringA, blob, { ...right, tenant: 'other' }, NOW));
    expectExpired(() => openSession(ringA, blob, { ...right, tenant: null }, NOW));
    expectExpired(() => openSession(ringA, blob, { ...right, classification: 'public' }, NOW));
    expectExpired(() => openSession(ringA, blob, { ...right, classification: undefined }, NOW));
    expectExpired(() => openSession(new KeyRing('a', [{ kid: 'a', key: KEY_B }]), blob, right, NOW));

    // A blob without classification does not open where one is expected, and a platform blob
    // does not open for a tenant.
    const plain = payload({ tenant: null });
    const plainBlob = sealSession(ringA, plain);
    expectExpired(() => openSession(ringA, plainBlob, { kinds: ['transform'], tenant: null, classification: 'internal' }, NOW));
    expectExpired(() => openSession(ringA, plainBlob, { kinds: ['transform'], tenant: 'acme' }, NOW));
    expectExpired(() => openSession(ringA, plainBlob, { kinds: ['transform'], tenant: '' }, NOW));
  });

  it('expires at exp (now >= exp)', () => {
    const sealed = payload({ iat: NOW, exp: NOW + 10 });
    const blob = sealSession(ringA, sealed);
    expect(openSession(ringA, blob, expectFor(sealed), NOW + 9).sid).toBe(sealed.sid);
    expectExpired(() => openSession(ringA, blob, expectFor(sealed), NOW + 10));
    expectExpired(() => openSession(ringA, blob, expectFor(sealed), NOW + 10_000));
  });

  it('rotates keys: old blobs open while their kid is listed, new blobs use the current kid', () => {
    const sealed = payload();
    const underA = sealSession(ringA, sealed);
    const ringAB = new KeyRing('b', [
      { kid: 'a', key: KEY_A },
      { kid: 'b', key: KEY_B },
    ]);
    expect(openSession(ringAB, underA, expectFor(sealed), NOW)).toEqual(sealed);
    const underB = sealSession(ringAB, sealed);
    expect(underB.startsWith('v1.b.')).toBe(true);
    const ringB = new KeyRing('b', [{ kid: 'b', key: KEY_B }]);
    expect(openSession(ringB, underB, expectFor(sealed), NOW)).toEqual(sealed);
    expectExpired(() => openSession(ringB, underA, expectFor(sealed), NOW));
    // Relabelling a blob with another listed kid does not help.
    expectExpired(() => openSession(ringAB, underA.replace('v1.a.', 'v1.b.'), expectFor(sealed), NOW));
  });

  it('refuses to seal a malformed payload', () => {
    expect(() => sealSession(ringA, payload({ sid: 'short' }))).toThrow(/sid/);
    expect(() => sealSession(ringA, payload({ counter: -1 }))).toThrow(/counter/);
    expect(() => sealSession(ringA, payload({ exp: NOW - 1 }))).toThrow(/exp/);
    expect(() => sealSession(ringA, payload({ kind: 'nope' as SessionKind }))).toThrow(/kind/);
    expect(() => sealSession(ringA, payload({ entries: [{ id: 'e_001', type: 'email', cap: 'XYZ', value: 'v', mode: 'full' }] }))).toThrow(/entries/);
    const duplicate = entries(1)[0]!;
    expect(() => sealSession(ringA, payload({ entries: [duplicate, duplicate] }))).toThrow(/duplicate/);
  });
});

describe('tampering and garbage (threats.md 4)', () => {
  const sealed = payload({ entries: entries(2) });
  const blob = sealSession(ringA, sealed);
  const right = expectFor(sealed);

  it('rejects every single-bit flip of the decoded bytes', () => {
    const { prefix, bytes } = bodyBytes(blob);
    for (let bit = 0; bit < bytes.length * 8; bit++) {
      const flipped = Buffer.from(bytes);
      flipped[bit >> 3]! ^= 1 << (bit & 7);
      expectExpired(() => openSession(ringA, prefix + flipped.toString('base64url'), right, NOW));
    }
  });

  it('rejects every single-bit flip of the blob string', () => {
    for (let index = 0; index < blob.length; index++) {
      for (let bit = 0; bit < 8; bit++) {
        const code = blob.charCodeAt(index) ^ (1 << bit);
        const flipped = blob.slice(0, index) + String.fromCharCode(code) + blob.slice(index + 1);
        expectExpired(() => openSession(ringA, flipped, right, NOW));
      }
    }
  });

  it('rejects truncation, extension, splicing, empty and huge blobs', () => {
    for (let length = 0; length < blob.length; length++) expectExpired(() => openSession(ringA, blob.slice(0, length), right, NOW));
    for (const suffix of ['A', 'AA', 'AAAA', '=', '==', '.', '.x', ' ', '\n', '\u0000']) {
      expectExpired(() => openSession(ringA, blob + suffix, right, NOW));
    }
    expectExpired(() => openSession(ringA, ` ${blob}`, right, NOW));
    expectExpired(() => openSession(ringA, blob.replace(/-/g, '+').replace(/_/g, '/'), right, NOW));

    // Nonce or tag taken from another blob of the same scope.
    const other = bodyBytes(sealSession(ringA, sealed)).bytes;
    const { prefix, bytes } = bodyBytes(blob);
    const nonceSwap = Buffer.concat([other.subarray(0, 12), bytes.subarray(12)]);
    const tagSwap = Buffer.concat([bytes.subarray(0, bytes.length - 16), other.subarray(other.length - 16)]);
    expectExpired(() => openSession(ringA, prefix + nonceSwap.toString('base64url'), right, NOW));
    expectExpired(() => openSession(ringA, prefix + tagSwap.toString('base64url'), right, NOW));

    for (const garbage of ['', 'v1', 'v1.', 'v1.a', 'v1.a.', 'v1..AAAA', 'v2.a.AAAA', 'v1.zz.' + bodyBytes(blob).bytes.toString('base64url'), 'v1.a.b.c']) {
      expectExpired(() => openSession(ringA, garbage, right, NOW));
    }
    expectExpired(() => openSession(ringA, `v1.a.${'A'.repeat(MAX_SESSION_BLOB_CHARS)}`, right, NOW));
  });

  it('rejects non-string and arbitrary values with VEIL_SESSION_EXPIRED only', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expectExpired(() => openSession(ringA, value, right, NOW));
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (value) => {
        expectExpired(() => openSession(ringA, value, right, NOW));
        expectExpired(() => openSession(ringA, `v1.a.${value}`, right, NOW));
      }),
      { numRuns: 1000 },
    );
  });

  it('rejects authentic but malformed plaintexts', () => {
    // The forging helper itself produces an openable blob (it pins the format).
    expect(openSession(ringA, forge(jsonPlaintext(validWire()), forgeScope), { kinds: ['transform'], tenant: 'acme' }, NOW).entries).toHaveLength(1);

    const mutations: [string, (wire: Record<string, unknown>) => unknown][] = [
      ['unknown field', (wire) => ({ ...wire, x: 1 })],
      ['proto field', (wire) => JSON.parse(JSON.stringify(wire).replace('{', '{"__proto__":{"polluted":1},'))],
      ['missing sid', (wire) => {
        const rest = { ...wire };
        Reflect.deleteProperty(rest, 's');
        return rest;
      }],
      ['bad sid', (wire) => ({ ...wire, s: 'XYZ' })],
      ['kind mismatch', (wire) => ({ ...wire, k: 'query' })],
      ['tenant mismatch', (wire) => ({ ...wire, t: 'other' })],
      ['classification smuggled', (wire) => ({ ...wire, cl: 'restricted' })],
      ['counter float', (wire) => ({ ...wire, n: 1.5 })],
      ['counter string', (wire) => ({ ...wire, n: '1' })],
      ['exp before iat', (wire) => ({ ...wire, ex: NOW - 100 })],
      ['entries object', (wire) => ({ ...wire, e: {} })],
      ['entry too short', (wire) => ({ ...wire, e: [['e_001', 'email', '0123456789ab', 'a@x.io']] })],
      ['entry bad mode', (wire) => ({ ...wire, e: [['e_001', 'email', '0123456789ab', 'a@x.io', 'everything']] })],
      ['entry bad cap', (wire) => ({ ...wire, e: [['e_001', 'email', '0123456789AB', 'a@x.io', 'full']] })],
      ['entry value number', (wire) => ({ ...wire, e: [['e_001', 'email', '0123456789ab', 5, 'full']] })],
      ['entry bad override', (wire) => ({ ...wire, e: [['e_001', 'email', '0123456789ab', 'a', 'full', null, 'x']] })],
      ['entry null override without extras', (wire) => ({ ...wire, e: [['e_001', 'email', '0123456789ab', 'a', 'full', null, null]] })],
      ['entry empty extras', (wire) => ({ ...wire, e: [['e_001', 'email', '0123456789ab', 'a', 'full', null, null, {}]] })],
      ['entry unknown extra', (wire) => ({ ...wire, e: [['e_001', 'email', '0123456789ab', 'a', 'full', null, null, { x: 'y' }]] })],
      ['entry extras not an object', (wire) => ({ ...wire, e: [['e_001', 'email', '0123456789ab', 'a', 'full', null, null, 'local_llm']] })],
      ['entry empty destination', (wire) => ({ ...wire, e: [['e_001', 'email', '0123456789ab', 'a', 'full', null, null, { d: '' }]] })],
      ['entry classification number', (wire) => ({ ...wire, e: [['e_001', 'email', '0123456789ab', 'a', 'full', null, null, { cl: 3 }]] })],
      ['entry too long', (wire) => ({ ...wire, e: [['e_001', 'email', '0123456789ab', 'a', 'full', null, null, { d: 'x' }, 'more']] })],
      ['array root', () => []],
      ['null root', () => null],
    ];
    for (const [name, mutate] of mutations) {
      const forged = forge(jsonPlaintext(mutate(validWire())), forgeScope);
      expect(() => openSession(ringA, forged, { kinds: ['transform'], tenant: 'acme' }, NOW), name).toThrow(VeilError);
      expectExpired(() => openSession(ringA, forged, { kinds: ['transform'], tenant: 'acme' }, NOW));
    }
    const badPlaintexts = [
      Buffer.alloc(0),
      Buffer.from([2, 0x7b, 0x7d]),
      Buffer.concat([Buffer.from([0]), Buffer.from('{"s":')]),
      Buffer.concat([Buffer.from([1]), Buffer.from('not deflate')]),
    ];
    for (const plaintext of badPlaintexts) {
      expectExpired(() => openSession(ringA, forge(plaintext, forgeScope), { kinds: ['transform'], tenant: 'acme' }, NOW));
    }
  });

  it('bounds decompression (a deflate bomb is rejected)', () => {
    const bomb = Buffer.concat([Buffer.from([1]), deflateRawSync(Buffer.alloc(40 * 1024 * 1024, 0x20))]);
    expectExpired(() => openSession(ringA, forge(bomb, forgeScope), { kinds: ['transform'], tenant: 'acme' }, NOW));
  });
});
