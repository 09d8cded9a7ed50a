// Runs the conformance suites against the in-memory stores, plus what only they have: the entry
// caps (StoreFullError for idempotency claims, fail-closed elsewhere), the byte bounds, the
// expiry of revocations and its extension, and the heap-ordered removal of expired entries.
import { describe, expect, it } from 'vitest';
import { idempotencyStoreSuite, replayStoreSuite, revocationStoreSuite, sessionStoreSuite } from './conformance.suite.js';
import { ExpiringMap } from './memory/expiring-map.js';
import { MemoryIdempotencyStore, MemoryReplayStore, MemoryRevocationStore, MemorySessionStore } from './memory/index.js';
import { QuotaExceededError, StoreFullError, StoreUnavailableError, type IdempotencyKey } from './types.js';

/** An idempotency key of one fixed caller. */
const idem = (key: string): IdempotencyKey => ({ tenant: 'tenant-a', identity: 'caller', key });

const perProcess = 'memory stores live in one process; there is no shared backend for a peer';
const noBackend = 'memory stores have no external backend that can go down';
const common = { noPeerReason: perProcess, noOutageReason: noBackend };

replayStoreSuite('memory', {
  ...common,
  open: () => Promise.resolve(new MemoryReplayStore()),
  openWithQuota: (quota) => Promise.resolve(new MemoryReplayStore({ maxPerOwner: quota })),
});
revocationStoreSuite('memory', {
  ...common,
  open: () => Promise.resolve(new MemoryRevocationStore()),
  openWithQuota: (quota) => Promise.resolve(new MemoryRevocationStore({ maxPerOwner: quota })),
});
sessionStoreSuite('memory', {
  ...common,
  open: () => Promise.resolve(new MemorySessionStore()),
  openWithQuota: (quota) => Promise.resolve(new MemorySessionStore({ maxPerOwner: quota })),
});
idempotencyStoreSuite('memory', {
  ...common,
  open: () => Promise.resolve(new MemoryIdempotencyStore()),
  openWithQuota: (quota) => Promise.resolve(new MemoryIdempotencyStore({ maxPerOwner: quota })),
});
// The retention only matters for a store that forgets: the suite must hold for one too.
revocationStoreSuite('memory, expiring', { ...common, open: () => Promise.resolve(new MemoryRevocationStore({ retentionMs: 60 * 60_000 })) });

const T0 = 1_700_000_000_000;

describe('memory store caps', () => {
  it('refuses a new idempotency claim with StoreFullError when full, but serves existing keys', async () => {
    const store = new MemoryIdempotencyStore({ maxEntries: 3 });
    for (const key of ['a', 'b', 'c']) expect(await store.claim(idem(key), 'fp', T0, 1000, 60_000)).toEqual({ state: 'claimed' });
    await expect(store.claim(idem('d'), 'fp', T0, 1000, 60_000)).rejects.toBeInstanceOf(StoreFullError);
    expect(await store.claim(idem('a'), 'fp', T0 + 1, 1000, 60_000)).toEqual({ state: 'in_progress' });
    // Reclaim and completion of existing keys still work at the cap.
    expect(await store.claim(idem('b'), 'fp', T0 + 1000, 1000, 60_000)).toEqual({ state: 'claimed' });
    await store.complete(idem('c'), 'fp', { status: 200, headers: {}, body: 'ok' }, T0 + 1, 60_000);
    expect(await store.claim(idem('c'), 'fp', T0 + 2, 1000, 60_000)).toEqual({ state: 'completed', response: { status: 200, headers: {}, body: 'ok' } });
    // A release frees a slot.
    await store.release(idem('a'), 'fp');
    expect(await store.claim(idem('d'), 'fp', T0 + 3, 1000, 60_000)).toEqual({ state: 'claimed' });
  });

  it('makes room once records expire', async () => {
    const store = new MemoryIdempotencyStore({ maxEntries: 2 });
    await store.claim(idem('a'), 'fp', T0, 1000, 5000);
    await store.claim(idem('b'), 'fp', T0, 1000, 5000);
    await expect(store.claim(idem('c'), 'fp', T0 + 4999, 1000, 5000)).rejects.toBeInstanceOf(StoreFullError);
    expect(await store.claim(idem('c'), 'fp', T0 + 5000, 1000, 5000)).toEqual({ state: 'claimed' });
  });

  it('fails closed (StoreUnavailableError) for replay, session and revocation stores at their caps', async () => {
    const replay = new MemoryReplayStore({ maxEntries: 1 });
    expect(await replay.advance('s1', 1, T0 + 1000, T0)).toBe(true);
    await expect(replay.advance('s2', 1, T0 + 1000, T0)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await replay.advance('s1', 2, T0 + 1000, T0)).toBe(true);
    await replay.deny('s1', T0 + 1000, T0);
    await expect(replay.deny('s2', T0 + 1000, T0)).rejects.toBeInstanceOf(StoreUnavailableError);

    const sessions = new MemorySessionStore({ maxEntries: 1 });
    await sessions.put('s1', 'p', T0 + 1000, T0);
    await expect(sessions.put('s2', 'p', T0 + 1000, T0)).rejects.toBeInstanceOf(StoreUnavailableError);

    const revocation = new MemoryRevocationStore({ maxEntries: 2 });
    expect(await revocation.add('t', ['a', 'b'], T0)).toBe(2);
    expect(await revocation.add('t', ['a'], T0)).toBe(0);
    await expect(revocation.add('t', ['c'], T0)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await revocation.count('t')).toBe(2);
  });
});

describe('memory store bounds', () => {
  it('a tenant at its quota is refused while the global cap still has room for others', async () => {
    const store = new MemoryIdempotencyStore({ maxEntries: 10, maxPerOwner: 3 });
    const as = (tenant: string, key: string): IdempotencyKey => ({ tenant, identity: 'caller', key });
    for (const key of ['a1', 'a2', 'a3']) await store.claim(as('a', key), 'fp', T0, 1000, 60_000);
    const refused = await store.claim(as('a', 'a4'), 'fp', T0, 1000, 60_000).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(QuotaExceededError);
    expect((refused as QuotaExceededError).retryAtMs).toBe(T0 + 60_000);
    for (const owner of ['b', 'c']) for (const key of ['1', '2', '3']) await store.claim(as(owner, key), 'fp', T0, 1000, 60_000);
    // 9 of 10 held: the tenth fits, the eleventh hits the global cap (StoreFullError, 503).
    expect(await store.claim(as('d', '1'), 'fp', T0, 1000, 60_000)).toEqual({ state: 'claimed' });
    await expect(store.claim(as('d', '2'), 'fp', T0, 1000, 60_000)).rejects.toBeInstanceOf(StoreFullError);
  });

  it('bounds recorded responses in bytes: what does not fit is kept as result_unavailable', async () => {
    const store = new MemoryIdempotencyStore({ maxBytesPerOwner: 4096 });
    const big = { status: 200, headers: {}, body: 'x'.repeat(5000) };
    const ofA = idem('k');
    await store.claim(ofA, 'fp', T0, 1000, 60_000);
    await store.complete(ofA, 'fp', big, T0 + 1, 60_000);
    expect(await store.claim(ofA, 'fp', T0 + 2, 1000, 60_000)).toEqual({ state: 'result_unavailable' });
    // Another tenant's share is its own.
    const ofB: IdempotencyKey = { tenant: 'tenant-b', identity: 'caller', key: 'k2' };
    await store.claim(ofB, 'fp', T0, 1000, 60_000);
    const small = { status: 200, headers: {}, body: 'ok' };
    await store.complete(ofB, 'fp', small, T0 + 1, 60_000);
    expect(await store.claim(ofB, 'fp', T0 + 2, 1000, 60_000)).toEqual({ state: 'completed', response: small });
  });

  it('bounds session payload bytes per tenant', async () => {
    const store = new MemorySessionStore({ maxBytesPerOwner: 1000 });
    await store.put('s1', 'p'.repeat(600), T0 + 1000, T0, 'a');
    await expect(store.put('s2', 'p'.repeat(600), T0 + 1000, T0, 'a')).rejects.toBeInstanceOf(QuotaExceededError);
    // Growing an existing session needs the bytes too.
    await expect(store.put('s1', 'p'.repeat(1200), T0 + 1000, T0, 'a')).rejects.toBeInstanceOf(QuotaExceededError);
    await store.put('s2', 'p'.repeat(600), T0 + 1000, T0, 'b');
    expect(await store.get('s1', T0)).toHaveLength(600);
  });

  it('forgets a revocation its retention after it was last needed, and extends it for blobs issued meanwhile', async () => {
    const retention = 10_000;
    const store = new MemoryRevocationStore({ retentionMs: retention, maxPerOwner: 2 });
    expect(store.extend).toBeDefined();
    expect(await store.add('t', ['d1', 'd2'], T0)).toBe(2);
    await expect(store.add('t', ['d3'], T0 + 1)).rejects.toSatisfy((error: unknown) => error instanceof QuotaExceededError && error.retryAtMs === T0 + retention);
    // A blob holding d1's value is issued at T0 + 5 s: d1 must now outlive that blob.
    let computed = 0;
    await store.extend!(['t', '*'], () => {
      computed += 1;
      return ['d1', 'unrelated'];
    }, T0 + 5000);
    expect(computed).toBe(1);
    // At T0 + retention d2 has expired: room for d3; d1 is still revoked.
    expect(await store.add('t', ['d3'], T0 + retention)).toBe(1);
    expect(await store.revoked(['t'], ['d1', 'd2', 'd3'])).toEqual(new Set(['d1', 'd3']));
    // Partitions without revocations never pay for the digests.
    await store.extend!(['other'], () => {
      computed += 1;
      return ['d1'];
    }, T0);
    expect(computed).toBe(1);
    // After its extended retention d1 goes too.
    expect(await store.add('t', ['d4'], T0 + 5000 + retention)).toBe(1);
    expect(await store.revoked(['t'], ['d1', 'd3', 'd4'])).toEqual(new Set(['d3', 'd4']));
  });

  it('holdsAny is false exactly when revoked finds nothing in those partitions, whatever the digests (expired ones included)', async () => {
    const retention = 10_000;
    for (const store of [new MemoryRevocationStore(), new MemoryRevocationStore({ retentionMs: retention })]) {
      const all = ['d1', 'd2', 'd3'];
      const agrees = async (partitions: string[]): Promise<void> => {
        const found = await store.revoked(partitions, all);
        expect(store.holdsAny(partitions)).toBe(found.size > 0);
      };
      for (const partitions of [[], ['a'], ['a', '*'], ['*']]) await agrees(partitions);
      await store.add('a', ['d1'], T0);
      for (const partitions of [['a'], ['b'], ['b', '*'], ['a', '*']]) await agrees(partitions);
      await store.add('*', ['d2'], T0);
      for (const partitions of [['b'], ['b', '*'], ['*']]) await agrees(partitions);
      // An expired digest not yet removed is still held (and still found: fail closed).
      expect(store.holdsAny(['a'])).toBe(true);
    }
  });

  it('a store that never forgets has no extend', () => {
    expect(new MemoryRevocationStore().extend).toBeUndefined();
  });
});

describe('ExpiringMap', () => {
  it('removes expired entries nobody reads again, a bounded slice per write', () => {
    const map = new ExpiringMap<number>({ maxEntries: 1_000_000 });
    for (let index = 0; index < 10_000; index += 1) map.set(`old-${index}`, index, T0 + 1000, T0);
    expect(map.size).toBe(10_000);
    map.set('first-new', 0, T0 + 60_000, T0 + 2000);
    // One write removes a bounded slice, not all 10,000 at once.
    expect(map.size).toBeGreaterThan(9_900);
    for (let index = 0; index < 1000; index += 1) map.set(`new-${index}`, index, T0 + 60_000, T0 + 2000);
    expect(map.size).toBe(1001);
  });

  it('removes entries earliest first across owners, and updates keep the order', () => {
    const map = new ExpiringMap<string>({ maxEntries: 100 });
    const expiries = [50, 10, 40, 30, 20, 60];
    expiries.forEach((offset, index) => map.set(`k${index}`, 'v', T0 + offset, T0, `owner-${index % 3}`));
    // k0 (50) moves to 5: it goes first now; k5 (60) moves to 15.
    map.touch('k0', T0 + 5);
    map.touch('k5', T0 + 15);
    const order: string[] = [];
    for (let now = T0; now <= T0 + 60; now += 1) {
      const before = new Set(['k0', 'k1', 'k2', 'k3', 'k4', 'k5'].filter((key) => map.peek(key) !== undefined));
      map.purge(now, 100);
      for (const key of before) if (map.peek(key) === undefined) order.push(key);
    }
    expect(order).toEqual(['k0', 'k1', 'k5', 'k4', 'k3', 'k2']);
    expect(map.size).toBe(0);
  });

  it('refuses a new key when full of live entries, with the earliest expiry as the hint', () => {
    const map = new ExpiringMap<number>({ maxEntries: 3, maxPerOwner: 2 });
    expect(map.set('a1', 1, T0 + 300, T0, 'a')).toBeUndefined();
    expect(map.set('a2', 1, T0 + 100, T0, 'a')).toBeUndefined();
    expect(map.set('a3', 1, T0 + 500, T0, 'a')).toEqual({ scope: 'owner', retryAtMs: T0 + 100 });
    expect(map.set('b1', 1, T0 + 200, T0, 'b')).toBeUndefined();
    expect(map.set('c1', 1, T0 + 500, T0, 'c')).toEqual({ scope: 'total', retryAtMs: T0 + 100 });
    // Replacing a live key never fails on the count.
    expect(map.set('a1', 2, T0 + 400, T0, 'a')).toBeUndefined();
    // Once a2 expires its room is reused.
    expect(map.set('c1', 1, T0 + 500, T0 + 100, 'c')).toBeUndefined();
    expect(map.countOf('a')).toBe(1);
    expect(map.size).toBe(3);
  });

  it('keeps owner and byte accounting exact through replaces, deletes and expiry', () => {
    const map = new ExpiringMap<string>({ maxEntries: 1000, sizeOf: (value) => value.length, maxBytes: 100 });
    for (let index = 0; index < 500; index += 1) {
      const key = `k${index % 17}`;
      const owner = `o${index % 5}`;
      if (index % 7 === 0) map.delete(key);
      else map.set(key, 'x'.repeat(index % 6), T0 + (index % 11) * 10, T0 + index, owner);
    }
    let bytes = 0;
    let live = 0;
    for (let index = 0; index < 17; index += 1) {
      const entry = map.peek(`k${index}`);
      if (entry === undefined) continue;
      live += 1;
      bytes += entry.value.length;
    }
    expect(map.size).toBe(live);
    expect(map.bytes).toBe(bytes);
    map.purge(Number.POSITIVE_INFINITY, 10_000);
    expect(map.size).toBe(0);
    expect(map.bytes).toBe(0);
  });
});
