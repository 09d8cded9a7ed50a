// The conformance suites: one per store interface, run unchanged by every implementation
// (memory.test.ts, sqlite.test.ts, redis.redis.test.ts), in the manner of undici's shared cache
// store tests. Time is always a parameter (an injected clock: T0 plus offsets), so TTL expiry is
// tested without sleeping. A runner supplies a factory; the optional parts (a peer over the same
// backend, a broken backend, a per-tenant quota) are skipped with a written reason when the
// backend has no such thing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  GLOBAL_PARTITION,
  QuotaExceededError,
  StoreFullError,
  StoreUnavailableError,
  type ClaimResult,
  type IdempotencyKey,
  type IdempotencyStore,
  type ReplayStore,
  type RevocationStore,
  type SessionStore,
  type StoredResponse,
} from './types.js';

interface Closable {
  close(): Promise<void>;
}

export interface StoreFactory<T extends Closable> {
  /** A fresh, empty store (each test gets its own). */
  open(): Promise<T>;
  /**
   * A second store over the same backend as the latest open() (another replica or process).
   * Absent for per-process backends; `noPeerReason` then says why.
   */
  openPeer?: () => Promise<T>;
  readonly noPeerReason?: string;
  /** A store whose backend is down (dead port, unusable file). Absent: `noOutageReason` says why. */
  openBroken?: () => Promise<T>;
  readonly noOutageReason?: string;
  /**
   * A fresh store whose per-owner quota is `quota` entries (global cap well above it). Absent
   * when the backend has no quota for this store; `noQuotaReason` then says why.
   */
  openWithQuota?: (quota: number) => Promise<T>;
  readonly noQuotaReason?: string;
}

/** Injected clock origin: any fixed instant works, every backend compares against the caller's now. */
const T0 = 1_700_000_000_000;
const SECOND = 1000;
const MINUTE = 60 * SECOND;
/** "Fast" for an outage: well under a request timeout. */
const OUTAGE_BUDGET_MS = 1500;

/** An idempotency key of one caller (tenant `t1`, identity `caller-1` unless given). */
function K(key: string, tenant: string | null = 't1', identity = 'caller-1'): IdempotencyKey {
  return { tenant, identity, key };
}

function sessionId(label: string): string {
  // 128-bit hex like the real ids, distinct per label.
  return Buffer.from(label.padEnd(16, '.').slice(0, 16)).toString('hex');
}

/** Register `body` as a test, or a skipped one carrying the reason it does not apply. */
function itWhen(condition: boolean, title: string, reason: string | undefined, body: () => Promise<void>): void {
  if (condition) it(title, body);
  else it.skip(`${title} (not applicable: ${reason ?? 'no reason given'})`, body);
}

/** Assert that a store call fails closed with StoreUnavailableError within the outage budget. */
async function expectUnavailable(call: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  const outcome = await call().then(
    (value: unknown) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const elapsed = performance.now() - started;
  expect(outcome.ok, 'the call should have failed').toBe(false);
  if (!outcome.ok) {
    expect(outcome.error).toBeInstanceOf(StoreUnavailableError);
    expect(outcome.error).not.toBeInstanceOf(StoreFullError);
  }
  expect(elapsed).toBeLessThan(OUTAGE_BUDGET_MS);
}

/** Assert that a call is refused with QuotaExceededError (retryAtMs as given, when given). */
async function expectQuota(call: () => Promise<unknown>, retryAtMs?: number | 'none'): Promise<void> {
  const error: unknown = await call().then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error, 'the call should have been refused').toBeInstanceOf(QuotaExceededError);
  if (retryAtMs === 'none') expect((error as QuotaExceededError).retryAtMs).toBeUndefined();
  else if (retryAtMs !== undefined) expect((error as QuotaExceededError).retryAtMs).toBe(retryAtMs);
}

/** Open a store with a quota for one test, closed afterwards. */
async function withQuota<T extends Closable>(factory: StoreFactory<T>, quota: number, body: (store: T) => Promise<void>): Promise<void> {
  const store = await factory.openWithQuota!(quota);
  try {
    await body(store);
  } finally {
    await store.close();
  }
}

/** Run `count` calls at once (all issued before any settles). */
function concurrently<R>(count: number, call: (index: number) => Promise<R>): Promise<R[]> {
  return Promise.all(Array.from({ length: count }, (_unused, index) => call(index)));
}

function useStore<T extends Closable>(factory: StoreFactory<T>): () => T {
  let store: T | undefined;
  const opened: Closable[] = [];
  beforeEach(async () => {
    store = await factory.open();
    opened.push(store);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((each) => each.close()));
    store = undefined;
  });
  return () => {
    if (store === undefined) throw new Error('store not open');
    return store;
  };
}

// ---------------------------------------------------------------------------------------------
// ReplayStore

export function replayStoreSuite(name: string, factory: StoreFactory<ReplayStore>): void {
  describe(`ReplayStore conformance: ${name}`, () => {
    const store = useStore(factory);
    const expires = T0 + 10 * MINUTE;

    it('records strictly increasing counters and rejects equal or lower ones', async () => {
      const id = sessionId('increasing');
      expect(await store().advance(id, 1, expires, T0)).toBe(true);
      expect(await store().advance(id, 1, expires, T0 + 1)).toBe(false);
      expect(await store().advance(id, 0, expires, T0 + 2)).toBe(false);
      expect(await store().advance(id, 2, expires, T0 + 3)).toBe(true);
      expect(await store().advance(id, 7, expires, T0 + 4)).toBe(true);
      expect(await store().advance(id, 3, expires, T0 + 5)).toBe(false);
      expect(await store().advance(id, 7, expires, T0 + 6)).toBe(false);
      expect(await store().advance(id, 8, expires, T0 + 7)).toBe(true);
    });

    it('keeps sessions independent', async () => {
      expect(await store().advance(sessionId('a'), 5, expires, T0)).toBe(true);
      expect(await store().advance(sessionId('b'), 1, expires, T0)).toBe(true);
      expect(await store().advance(sessionId('a'), 5, expires, T0)).toBe(false);
      expect(await store().advance(sessionId('b'), 2, expires, T0)).toBe(true);
    });

    it('accepts large counters exactly', async () => {
      const id = sessionId('large');
      const big = 2 ** 52;
      expect(await store().advance(id, big, expires, T0)).toBe(true);
      expect(await store().advance(id, big, expires, T0)).toBe(false);
      expect(await store().advance(id, big + 1, expires, T0)).toBe(true);
    });

    it('forgets a record at its expiry (injected clock)', async () => {
      const id = sessionId('expiry');
      expect(await store().advance(id, 5, T0 + MINUTE, T0)).toBe(true);
      expect(await store().advance(id, 5, T0 + MINUTE, T0 + MINUTE - 1)).toBe(false);
      // At expiresAtMs the record is gone: the blob it protected has expired too.
      expect(await store().advance(id, 1, T0 + 2 * MINUTE, T0 + MINUTE)).toBe(true);
      expect(await store().advance(id, 1, T0 + 2 * MINUTE, T0 + MINUTE + 1)).toBe(false);
    });

    it('never shortens a live record when a later counter carries an earlier expiry', async () => {
      const id = sessionId('no-shorten');
      expect(await store().advance(id, 1, T0 + 10 * MINUTE, T0)).toBe(true);
      expect(await store().advance(id, 2, T0 + MINUTE, T0 + 1)).toBe(true);
      expect(await store().advance(id, 2, T0 + 11 * MINUTE, T0 + 5 * MINUTE)).toBe(false);
    });

    it('extends a live record to the later expiry', async () => {
      const id = sessionId('extend');
      expect(await store().advance(id, 1, T0 + MINUTE, T0)).toBe(true);
      expect(await store().advance(id, 2, T0 + 10 * MINUTE, T0 + 1)).toBe(true);
      expect(await store().advance(id, 2, T0 + 10 * MINUTE, T0 + 5 * MINUTE)).toBe(false);
    });

    it('deny-lists a session id until its expiry', async () => {
      const id = sessionId('deny');
      expect(await store().isDenied(id, T0)).toBe(false);
      await store().deny(id, T0 + MINUTE, T0);
      expect(await store().isDenied(id, T0)).toBe(true);
      expect(await store().isDenied(id, T0 + MINUTE - 1)).toBe(true);
      expect(await store().isDenied(id, T0 + MINUTE)).toBe(false);
      expect(await store().isDenied(sessionId('other'), T0)).toBe(false);
    });

    it('never shortens a deny entry, extends it, and ignores one already expired', async () => {
      const id = sessionId('deny-extend');
      await store().deny(id, T0 + 10 * MINUTE, T0);
      await store().deny(id, T0 + MINUTE, T0);
      expect(await store().isDenied(id, T0 + 5 * MINUTE)).toBe(true);
      await store().deny(id, T0 + 20 * MINUTE, T0 + 5 * MINUTE);
      expect(await store().isDenied(id, T0 + 15 * MINUTE)).toBe(true);
      expect(await store().isDenied(id, T0 + 20 * MINUTE)).toBe(false);
      const stale = sessionId('deny-stale');
      await store().deny(stale, T0, T0);
      expect(await store().isDenied(stale, T0)).toBe(false);
    });

    it('keeps the deny list and the counters apart', async () => {
      const id = sessionId('apart');
      await store().deny(id, expires, T0);
      expect(await store().advance(id, 1, expires, T0)).toBe(true);
      const other = sessionId('apart-2');
      expect(await store().advance(other, 1, expires, T0)).toBe(true);
      expect(await store().isDenied(other, T0)).toBe(false);
    });

    it('100 concurrent advances with one counter: exactly one true', async () => {
      const id = sessionId('race');
      const results = await concurrently(100, () => store().advance(id, 1, expires, T0));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    itWhen(factory.openPeer !== undefined, 'a peer sees counters and denials; 100 advances split across two instances: one true', factory.noPeerReason, async () => {
      const peer = await factory.openPeer!();
      try {
        const id = sessionId('peer');
        expect(await store().advance(id, 1, expires, T0)).toBe(true);
        expect(await peer.advance(id, 1, expires, T0)).toBe(false);
        await peer.deny(id, expires, T0);
        expect(await store().isDenied(id, T0)).toBe(true);
        const raced = sessionId('peer-race');
        const results = await concurrently(100, (index) => (index % 2 === 0 ? store() : peer).advance(raced, 1, expires, T0));
        expect(results.filter(Boolean)).toHaveLength(1);
      } finally {
        await peer.close();
      }
    });


    itWhen(factory.openWithQuota !== undefined, 'refuses a new record past its owner\'s quota only; the owner\'s own records and other owners go on', factory.noQuotaReason, async () => {
      await withQuota(factory, 2, async (quotaStore) => {
        expect(await quotaStore.advance(sessionId('q1'), 1, T0 + MINUTE, T0, 'tenant-a')).toBe(true);
        expect(await quotaStore.advance(sessionId('q2'), 1, T0 + 2 * MINUTE, T0, 'tenant-a')).toBe(true);
        await expectQuota(() => quotaStore.advance(sessionId('q3'), 1, expires, T0, 'tenant-a'), T0 + MINUTE);
        // Its existing sessions continue; another tenant is unaffected.
        expect(await quotaStore.advance(sessionId('q1'), 2, T0 + MINUTE, T0 + 1, 'tenant-a')).toBe(true);
        expect(await quotaStore.advance(sessionId('q4'), 1, expires, T0, 'tenant-b')).toBe(true);
        // The deny list has a quota of its own.
        await quotaStore.deny(sessionId('d1'), expires, T0, 'tenant-a');
        await quotaStore.deny(sessionId('d2'), expires, T0, 'tenant-a');
        await expectQuota(() => quotaStore.deny(sessionId('d3'), expires, T0, 'tenant-a'), expires);
        await quotaStore.deny(sessionId('d1'), expires + MINUTE, T0, 'tenant-a');
        await quotaStore.deny(sessionId('d4'), expires, T0, 'tenant-b');
        expect(await quotaStore.isDenied(sessionId('d4'), T0)).toBe(true);
        // Once its earliest record expires, the tenant has room again.
        expect(await quotaStore.advance(sessionId('q3'), 1, expires, T0 + MINUTE, 'tenant-a')).toBe(true);
      });
    });

    itWhen(factory.openBroken !== undefined, 'fails closed with StoreUnavailableError, fast, when the backend is down', factory.noOutageReason, async () => {
      const broken = await factory.openBroken!();
      try {
        await expectUnavailable(() => broken.advance(sessionId('down'), 1, expires, T0));
        await expectUnavailable(() => broken.deny(sessionId('down'), expires, T0));
        await expectUnavailable(() => broken.isDenied(sessionId('down'), T0));
      } finally {
        await broken.close();
      }
    });
  });
}

// ---------------------------------------------------------------------------------------------
// RevocationStore

export function revocationStoreSuite(name: string, factory: StoreFactory<RevocationStore>): void {
  describe(`RevocationStore conformance: ${name}`, () => {
    const store = useStore(factory);
    const digest = (label: string): string => Buffer.from(label).toString('base64url');

    it('adds digests and reports how many were new', async () => {
      expect(await store().add('tenant-a', [digest('x'), digest('y')], T0)).toBe(2);
      expect(await store().add('tenant-a', [digest('y'), digest('z')], T0)).toBe(1);
      expect(await store().add('tenant-a', [digest('x')], T0)).toBe(0);
      expect(await store().add('tenant-a', [], T0)).toBe(0);
      expect(await store().count('tenant-a')).toBe(3);
    });

    it('counts a digest repeated within one call once', async () => {
      expect(await store().add('tenant-a', [digest('d'), digest('d'), digest('d')], T0)).toBe(1);
      expect(await store().count('tenant-a')).toBe(1);
    });

    it('looks up across the given partitions only', async () => {
      await store().add('tenant-a', [digest('a-only')], T0);
      await store().add('tenant-b', [digest('b-only')], T0);
      await store().add(GLOBAL_PARTITION, [digest('global')], T0);
      const all = [digest('a-only'), digest('b-only'), digest('global'), digest('never')];
      expect(await store().revoked(['tenant-a', GLOBAL_PARTITION], all)).toEqual(new Set([digest('a-only'), digest('global')]));
      expect(await store().revoked(['tenant-b', GLOBAL_PARTITION], all)).toEqual(new Set([digest('b-only'), digest('global')]));
      expect(await store().revoked(['tenant-c'], all)).toEqual(new Set());
      expect(await store().revoked([GLOBAL_PARTITION], all)).toEqual(new Set([digest('global')]));
      expect(await store().revoked([], all)).toEqual(new Set());
      expect(await store().revoked(['tenant-a'], [])).toEqual(new Set());
    });

    it('reports a digest revoked in two partitions once', async () => {
      await store().add('tenant-a', [digest('both')], T0);
      await store().add(GLOBAL_PARTITION, [digest('both')], T0);
      const found = await store().revoked(['tenant-a', GLOBAL_PARTITION], [digest('both'), digest('both')]);
      expect([...found]).toEqual([digest('both')]);
    });

    it('counts per partition: a tenant never sees the global or another tenant count', async () => {
      await store().add('tenant-a', [digest('1'), digest('2')], T0);
      await store().add('tenant-b', [digest('1')], T0);
      await store().add(GLOBAL_PARTITION, [digest('1'), digest('2'), digest('3')], T0);
      expect(await store().count('tenant-a')).toBe(2);
      expect(await store().count('tenant-b')).toBe(1);
      expect(await store().count(GLOBAL_PARTITION)).toBe(3);
      expect(await store().count('tenant-unknown')).toBe(0);
    });

    it('keeps partitions whose names contain separators apart', async () => {
      const tricky = ['a', 'a:b', 'a}', '{a}', 'a b', 'a%3Ab', '**'];
      for (const [index, partition] of tricky.entries()) await store().add(partition, [digest(`p${index}`)], T0);
      for (const [index, partition] of tricky.entries()) {
        expect(await store().count(partition)).toBe(1);
        expect(await store().revoked([partition], tricky.map((_p, i) => digest(`p${i}`)))).toEqual(new Set([digest(`p${index}`)]));
      }
      expect(await store().count(GLOBAL_PARTITION)).toBe(0);
    });

    it('adds a bulk revoke of 2,500 digests whole', async () => {
      const many = Array.from({ length: 2500 }, (_unused, index) => digest(`bulk-${index}`));
      expect(await store().add('tenant-bulk', many, T0)).toBe(2500);
      expect(await store().add('tenant-bulk', [...many, digest('bulk-new')], T0)).toBe(1);
      expect(await store().count('tenant-bulk')).toBe(2501);
      expect((await store().revoked(['tenant-bulk'], many.slice(0, 20))).size).toBe(20);
    });

    it('keeps the first key check it is given', async () => {
      expect(await store().keyCheck('check-a')).toBe('check-a');
      expect(await store().keyCheck('check-b')).toBe('check-a');
      expect(await store().keyCheck('check-a')).toBe('check-a');
    });

    it('100 concurrent adds of one digest count it once', async () => {
      const added = await concurrently(100, () => store().add('tenant-race', [digest('raced')], T0));
      expect(added.reduce((sum, value) => sum + value, 0)).toBe(1);
      expect(await store().count('tenant-race')).toBe(1);
    });

    itWhen(factory.openPeer !== undefined, 'a peer sees revocations and counts', factory.noPeerReason, async () => {
      const peer = await factory.openPeer!();
      try {
        expect(await store().add('tenant-a', [digest('shared')], T0)).toBe(1);
        expect(await peer.revoked(['tenant-a'], [digest('shared')])).toEqual(new Set([digest('shared')]));
        expect(await peer.add('tenant-a', [digest('shared')], T0)).toBe(0);
        expect(await peer.count('tenant-a')).toBe(1);
        // The key check is the store's, not the process's: a peer with another key sees the first.
        expect(await store().keyCheck('first-key')).toBe('first-key');
        expect(await peer.keyCheck('second-key')).toBe('first-key');
      } finally {
        await peer.close();
      }
    });


    itWhen(factory.openWithQuota !== undefined, 'refuses an add past its partition\'s quota whole; other partitions go on', factory.noQuotaReason, async () => {
      await withQuota(factory, 3, async (quotaStore) => {
        expect(await quotaStore.add('tenant-a', [digest('1'), digest('2'), digest('3')], T0)).toBe(3);
        await expectQuota(() => quotaStore.add('tenant-a', [digest('1'), digest('4')], T0));
        // Nothing of a refused add is applied.
        expect(await quotaStore.count('tenant-a')).toBe(3);
        expect(await quotaStore.revoked(['tenant-a'], [digest('4')])).toEqual(new Set());
        // Repeating what is already revoked takes no room.
        expect(await quotaStore.add('tenant-a', [digest('2'), digest('3')], T0)).toBe(0);
        expect(await quotaStore.add('tenant-b', [digest('4'), digest('5'), digest('6')], T0)).toBe(3);
        expect(await quotaStore.add(GLOBAL_PARTITION, [digest('7')], T0)).toBe(1);
        await expectQuota(() => quotaStore.add('tenant-b', [digest('7')], T0));
        expect(await quotaStore.revoked(['tenant-b', GLOBAL_PARTITION], [digest('4'), digest('7')])).toEqual(new Set([digest('4'), digest('7')]));
      });
    });

    itWhen(factory.openBroken !== undefined, 'fails closed with StoreUnavailableError, fast, when the backend is down', factory.noOutageReason, async () => {
      const broken = await factory.openBroken!();
      try {
        await expectUnavailable(() => broken.add('tenant-a', [digest('x')], T0));
        await expectUnavailable(() => broken.revoked(['tenant-a', GLOBAL_PARTITION], [digest('x')]));
        await expectUnavailable(() => broken.count('tenant-a'));
      } finally {
        await broken.close();
      }
    });
  });
}

// ---------------------------------------------------------------------------------------------
// SessionStore

export function sessionStoreSuite(name: string, factory: StoreFactory<SessionStore>): void {
  describe(`SessionStore conformance: ${name}`, () => {
    const store = useStore(factory);
    const expires = T0 + 10 * MINUTE;

    it('stores, returns, overwrites and deletes payloads', async () => {
      const id = sessionId('crud');
      expect(await store().get(id, T0)).toBeUndefined();
      await store().put(id, 'first', expires, T0);
      expect(await store().get(id, T0)).toBe('first');
      await store().put(id, 'second', expires, T0 + 1);
      expect(await store().get(id, T0 + 1)).toBe('second');
      expect(await store().delete(id, T0 + 2)).toBe(true);
      expect(await store().get(id, T0 + 2)).toBeUndefined();
      expect(await store().delete(id, T0 + 3)).toBe(false);
      expect(await store().delete(sessionId('never'), T0)).toBe(false);
    });

    it('keeps payloads byte-exact (colons, unicode, 256 KB)', async () => {
      const payloads = ['', '123:456:', 'ünïcödé ✓ 𝄞 \u0000 end', 'x'.repeat(256 * 1024)];
      for (const [index, payload] of payloads.entries()) {
        await store().put(sessionId(`exact-${index}`), payload, expires, T0);
        expect(await store().get(sessionId(`exact-${index}`), T0)).toBe(payload);
      }
    });

    it('expires a session at its expiry (injected clock)', async () => {
      const id = sessionId('ttl');
      await store().put(id, 'payload', T0 + MINUTE, T0);
      expect(await store().get(id, T0 + MINUTE - 1)).toBe('payload');
      expect(await store().get(id, T0 + MINUTE)).toBeUndefined();
      expect(await store().delete(id, T0 + MINUTE)).toBe(false);
    });

    it('a put renews the expiry; a put already expired removes the session', async () => {
      const id = sessionId('renew');
      await store().put(id, 'payload', T0 + MINUTE, T0);
      await store().put(id, 'payload', T0 + 5 * MINUTE, T0 + 30 * SECOND);
      expect(await store().get(id, T0 + 2 * MINUTE)).toBe('payload');
      await store().put(id, 'payload', T0, T0 + 3 * MINUTE);
      expect(await store().get(id, T0 + 3 * MINUTE)).toBeUndefined();
    });

    itWhen(factory.openPeer !== undefined, 'a peer sees sessions and deletions', factory.noPeerReason, async () => {
      const peer = await factory.openPeer!();
      try {
        const id = sessionId('peer');
        await store().put(id, 'shared', expires, T0);
        expect(await peer.get(id, T0)).toBe('shared');
        expect(await peer.delete(id, T0)).toBe(true);
        expect(await store().get(id, T0)).toBeUndefined();
      } finally {
        await peer.close();
      }
    });


    itWhen(factory.openWithQuota !== undefined, 'refuses a new session past its owner\'s quota only; renewals and other owners go on', factory.noQuotaReason, async () => {
      await withQuota(factory, 2, async (quotaStore) => {
        await quotaStore.put(sessionId('s1'), 'p', T0 + MINUTE, T0, 'tenant-a');
        await quotaStore.put(sessionId('s2'), 'p', expires, T0, 'tenant-a');
        await expectQuota(() => quotaStore.put(sessionId('s3'), 'p', expires, T0, 'tenant-a'), T0 + MINUTE);
        await quotaStore.put(sessionId('s1'), 'renewed', T0 + MINUTE, T0 + 1, 'tenant-a');
        await quotaStore.put(sessionId('s4'), 'p', expires, T0, 'tenant-b');
        expect(await quotaStore.get(sessionId('s4'), T0)).toBe('p');
        expect(await quotaStore.delete(sessionId('s1'), T0 + 2)).toBe(true);
        await quotaStore.put(sessionId('s3'), 'p', expires, T0 + 3, 'tenant-a');
        expect(await quotaStore.get(sessionId('s3'), T0 + 3)).toBe('p');
      });
    });

    itWhen(factory.openBroken !== undefined, 'fails closed with StoreUnavailableError, fast, when the backend is down', factory.noOutageReason, async () => {
      const broken = await factory.openBroken!();
      try {
        await expectUnavailable(() => broken.put(sessionId('down'), 'payload', expires, T0));
        await expectUnavailable(() => broken.get(sessionId('down'), T0));
        await expectUnavailable(() => broken.delete(sessionId('down'), T0));
      } finally {
        await broken.close();
      }
    });
  });
}

// ---------------------------------------------------------------------------------------------
// IdempotencyStore

export function idempotencyStoreSuite(name: string, factory: StoreFactory<IdempotencyStore>): void {
  describe(`IdempotencyStore conformance: ${name}`, () => {
    const store = useStore(factory);
    const inProgressTtl = MINUTE;
    const ttl = 24 * 60 * MINUTE;
    const response: StoredResponse = {
      status: 201,
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r-1' },
      body: '{"safe_text":"Hello [PERSON_1] ✓","n":1}',
    };
    const claim = (key: IdempotencyKey, fingerprint: string, nowMs: number): Promise<ClaimResult> =>
      store().claim(key, fingerprint, nowMs, inProgressTtl, ttl);

    it('claims a fresh key, then reports in_progress to an identical request', async () => {
      expect(await claim(K('k'), 'fp-1', T0)).toEqual({ state: 'claimed' });
      expect(await claim(K('k'), 'fp-1', T0 + 1)).toEqual({ state: 'in_progress' });
      expect(await claim(K('k'), 'fp-1', T0 + inProgressTtl - 1)).toEqual({ state: 'in_progress' });
    });

    it('reports mismatch for another fingerprint, in progress or completed', async () => {
      await claim(K('k'), 'fp-1', T0);
      expect(await claim(K('k'), 'fp-2', T0 + 1)).toEqual({ state: 'mismatch' });
      await store().complete(K('k'), 'fp-1', response, T0 + 2, ttl);
      expect(await claim(K('k'), 'fp-2', T0 + 3)).toEqual({ state: 'mismatch' });
    });

    it('replays a completed response exactly', async () => {
      await claim(K('k'), 'fp-1', T0);
      await store().complete(K('k'), 'fp-1', response, T0 + 5, ttl);
      const replay = await claim(K('k'), 'fp-1', T0 + 10);
      expect(replay).toEqual({ state: 'completed', response });
      // And again: a replay does not consume the record.
      expect(await claim(K('k'), 'fp-1', T0 + 20)).toEqual({ state: 'completed', response });
    });

    it('reports result_unavailable when the response was too large to keep', async () => {
      await claim(K('k'), 'fp-1', T0);
      await store().complete(K('k'), 'fp-1', undefined, T0 + 5, ttl);
      expect(await claim(K('k'), 'fp-1', T0 + 10)).toEqual({ state: 'result_unavailable' });
      expect(await claim(K('k'), 'fp-2', T0 + 10)).toEqual({ state: 'mismatch' });
    });

    it('lets an identical request reclaim an abandoned claim after the in-progress TTL', async () => {
      await claim(K('k'), 'fp-1', T0);
      expect(await claim(K('k'), 'fp-1', T0 + inProgressTtl)).toEqual({ state: 'claimed' });
      // The reclaim restarts the in-progress window.
      expect(await claim(K('k'), 'fp-1', T0 + inProgressTtl + 1)).toEqual({ state: 'in_progress' });
      expect(await claim(K('k'), 'fp-1', T0 + 2 * inProgressTtl)).toEqual({ state: 'claimed' });
    });

    it('keeps an abandoned claim a mismatch for another fingerprint until the key expires', async () => {
      await claim(K('k'), 'fp-1', T0);
      expect(await claim(K('k'), 'fp-2', T0 + inProgressTtl + 1)).toEqual({ state: 'mismatch' });
      expect(await claim(K('k'), 'fp-2', T0 + ttl)).toEqual({ state: 'claimed' });
    });

    it('release lets an identical retry claim again; a release with another fingerprint does nothing', async () => {
      await claim(K('k'), 'fp-1', T0);
      await store().release(K('k'), 'fp-2');
      expect(await claim(K('k'), 'fp-1', T0 + 1)).toEqual({ state: 'in_progress' });
      await store().release(K('k'), 'fp-1');
      expect(await claim(K('k'), 'fp-1', T0 + 2)).toEqual({ state: 'claimed' });
      await store().release(K('k'), 'fp-1');
      await store().release(K('never'), 'fp-1');
      // Released keys are free: another body may use the key afterwards.
      expect(await claim(K('k'), 'fp-2', T0 + 3)).toEqual({ state: 'claimed' });
    });

    it('a late release does not erase a completed response', async () => {
      await claim(K('k'), 'fp-1', T0);
      await store().complete(K('k'), 'fp-1', response, T0 + 1, ttl);
      await store().release(K('k'), 'fp-1');
      expect(await claim(K('k'), 'fp-1', T0 + 2)).toEqual({ state: 'completed', response });
    });

    it('forgets a completed key after its TTL (injected clock)', async () => {
      await claim(K('k'), 'fp-1', T0);
      await store().complete(K('k'), 'fp-1', response, T0 + 10, ttl);
      expect(await claim(K('k'), 'fp-1', T0 + 10 + ttl - 1)).toEqual({ state: 'completed', response });
      expect(await claim(K('k'), 'fp-2', T0 + 10 + ttl)).toEqual({ state: 'claimed' });
    });

    it('completes a key whose claim was lost, but never one held by another fingerprint', async () => {
      await store().complete(K('orphan'), 'fp-1', response, T0, ttl);
      expect(await claim(K('orphan'), 'fp-1', T0 + 1)).toEqual({ state: 'completed', response });
      await claim(K('held'), 'fp-1', T0);
      await store().complete(K('held'), 'fp-2', response, T0 + 1, ttl);
      expect(await claim(K('held'), 'fp-1', T0 + 2)).toEqual({ state: 'in_progress' });
    });

    it('treats keys of another tenant or another identity as different keys', async () => {
      // Same header value, four partitions: each claims its own record.
      expect(await claim(K('key-1', 'tenant-a', 'alice'), 'fp-1', T0)).toEqual({ state: 'claimed' });
      expect(await claim(K('key-1', 'tenant-a', 'bob'), 'fp-2', T0)).toEqual({ state: 'claimed' });
      expect(await claim(K('key-1', 'tenant-b', 'alice'), 'fp-3', T0)).toEqual({ state: 'claimed' });
      expect(await claim(K('key-1', null, 'alice'), 'fp-4', T0)).toEqual({ state: 'claimed' });
      // A completed response replays only in its own partition.
      await store().complete(K('key-1', 'tenant-a', 'alice'), 'fp-1', response, T0 + 1, ttl);
      expect(await claim(K('key-1', 'tenant-a', 'alice'), 'fp-1', T0 + 2)).toEqual({ state: 'completed', response });
      expect(await claim(K('key-1', 'tenant-a', 'bob'), 'fp-1', T0 + 2)).toEqual({ state: 'mismatch' });
      expect(await claim(K('key-2', 'tenant-a', 'bob'), 'fp-1', T0 + 2)).toEqual({ state: 'claimed' });
      // A release in one partition leaves the others alone.
      await store().release(K('key-1', 'tenant-a', 'bob'), 'fp-2');
      expect(await claim(K('key-1', 'tenant-a', 'alice'), 'fp-1', T0 + 3)).toEqual({ state: 'completed', response });
      expect(await claim(K('key-1', 'tenant-b', 'alice'), 'fp-3', T0 + 3)).toEqual({ state: 'in_progress' });
    });

    it('never lets separators in a tenant, identity or key forge another partition', async () => {
      // Pairs that a naive `tenant|identity|key` concatenation would map to the same string.
      const pairs: [IdempotencyKey, IdempotencyKey][] = [
        [K('c', 'a|b', 'x'), K('b|c', 'a', 'x')],
        [K('k', 'a', 'b|c'), K('c|k', 'a', 'b')],
        [K('k', null, 'x'), K('k', '-', 'x')],
        [K('1:x|k', 't', 'y'), K('k', 't', 'y|1:x')],
        [K('k', 'tenant-a\u0000', 'x'), K('k', 'tenant-a', '\u0000x')],
        [K('{k}', 't:a', 'x'), K('k}', 't:a', 'x{')],
      ];
      for (const [index, [first, second]] of pairs.entries()) {
        expect(await claim(first, `fp-a${index}`, T0), `pair ${index} first`).toEqual({ state: 'claimed' });
        expect(await claim(second, `fp-b${index}`, T0), `pair ${index} second`).toEqual({ state: 'claimed' });
      }
    });

    it('100 concurrent claims of one key: exactly one claimed, the rest in_progress', async () => {
      const results = await concurrently(100, () => claim(K('race'), 'fp-1', T0));
      expect(results.filter((result) => result.state === 'claimed')).toHaveLength(1);
      expect(results.filter((result) => result.state === 'in_progress')).toHaveLength(99);
    });

    it('100 concurrent claims with mixed bodies: one claimed, the other bodies mismatch', async () => {
      const results = await concurrently(100, (index) => claim(K('mixed'), `fp-${index % 3}`, T0));
      expect(results.filter((result) => result.state === 'claimed')).toHaveLength(1);
      expect(results.every((result) => ['claimed', 'in_progress', 'mismatch'].includes(result.state))).toBe(true);
    });

    itWhen(factory.openPeer !== undefined, 'a peer sees claims and completions; 100 claims split across two instances: one claimed', factory.noPeerReason, async () => {
      const peer = await factory.openPeer!();
      try {
        expect(await claim(K('peer'), 'fp-1', T0)).toEqual({ state: 'claimed' });
        expect(await peer.claim(K('peer'), 'fp-1', T0 + 1, inProgressTtl, ttl)).toEqual({ state: 'in_progress' });
        await store().complete(K('peer'), 'fp-1', response, T0 + 2, ttl);
        expect(await peer.claim(K('peer'), 'fp-1', T0 + 3, inProgressTtl, ttl)).toEqual({ state: 'completed', response });
        const results = await concurrently(100, (index) => (index % 2 === 0 ? store() : peer).claim(K('peer-race'), 'fp-1', T0, inProgressTtl, ttl));
        expect(results.filter((result) => result.state === 'claimed')).toHaveLength(1);
      } finally {
        await peer.close();
      }
    });

    itWhen(factory.openWithQuota !== undefined, 'refuses a new key past its tenant\'s quota only; existing keys, releases and other tenants go on', factory.noQuotaReason, async () => {
      await withQuota(factory, 2, async (quotaStore) => {
        // Two identities of tenant-a share its quota; tenant-b and the untenanted callers have their own.
        const claimAs = (key: IdempotencyKey, fingerprint: string, nowMs: number): Promise<ClaimResult> =>
          quotaStore.claim(key, fingerprint, nowMs, inProgressTtl, ttl);
        const alice = (key: string): IdempotencyKey => K(key, 'tenant-a', 'alice');
        expect(await claimAs(alice('k1'), 'fp', T0)).toEqual({ state: 'claimed' });
        expect(await claimAs(K('k2', 'tenant-a', 'bob'), 'fp', T0 + 1)).toEqual({ state: 'claimed' });
        // Refused before anything is stored; the hint is when the earliest record expires.
        await expectQuota(() => claimAs(alice('k3'), 'fp', T0 + 2), T0 + ttl);
        expect(await claimAs(K('k1', 'tenant-b', 'alice'), 'fp', T0 + 2)).toEqual({ state: 'claimed' });
        expect(await claimAs(K('k1', null, 'alice'), 'fp', T0 + 2)).toEqual({ state: 'claimed' });
        // The tenant's own keys still answer: in progress, completed, reclaimed.
        expect(await claimAs(alice('k1'), 'fp', T0 + 3)).toEqual({ state: 'in_progress' });
        await quotaStore.complete(alice('k1'), 'fp', response, T0 + 4, ttl);
        expect(await claimAs(alice('k1'), 'fp', T0 + 5)).toEqual({ state: 'completed', response });
        expect(await claimAs(K('k2', 'tenant-a', 'bob'), 'fp', T0 + 1 + inProgressTtl)).toEqual({ state: 'claimed' });
        // A released claim frees its room.
        await quotaStore.release(K('k2', 'tenant-a', 'bob'), 'fp');
        expect(await claimAs(alice('k3'), 'fp', T0 + 2 * inProgressTtl)).toEqual({ state: 'claimed' });
        await expectQuota(() => claimAs(alice('k4'), 'fp', T0 + 2 * inProgressTtl));
        // Expired records free their room too (injected clock).
        expect(await claimAs(alice('k4'), 'fp', T0 + 4 + ttl + 2 * inProgressTtl)).toEqual({ state: 'claimed' });
      });
    });

    itWhen(factory.openBroken !== undefined, 'fails closed with StoreUnavailableError, fast, when the backend is down', factory.noOutageReason, async () => {
      const broken = await factory.openBroken!();
      try {
        await expectUnavailable(() => broken.claim(K('down'), 'fp-1', T0, inProgressTtl, ttl));
        await expectUnavailable(() => broken.complete(K('down'), 'fp-1', response, T0, ttl));
        await expectUnavailable(() => broken.release(K('down'), 'fp-1'));
      } finally {
        await broken.close();
      }
    });
  });
}
