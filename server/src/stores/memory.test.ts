// Runs the conformance suites against the in-memory stores, plus what only they have: the entry
// caps (StoreFullError for idempotency claims, fail-closed elsewhere) and the bounded sweeping of
// expired entries.
import { describe, expect, it } from 'vitest';
import { idempotencyStoreSuite, replayStoreSuite, revocationStoreSuite, sessionStoreSuite } from './conformance.suite.js';
import { ExpiringMap } from './memory/expiring-map.js';
import { MemoryIdempotencyStore, MemoryReplayStore, MemoryRevocationStore, MemorySessionStore } from './memory/index.js';
import { StoreFullError, StoreUnavailableError, type IdempotencyKey } from './types.js';

/** An idempotency key of one fixed caller. */
const idem = (key: string): IdempotencyKey => ({ tenant: 'tenant-a', identity: 'caller', key });

const perProcess = 'memory stores live in one process; there is no shared backend for a peer';
const noBackend = 'memory stores have no external backend that can go down';

replayStoreSuite('memory', { open: () => Promise.resolve(new MemoryReplayStore()), noPeerReason: perProcess, noOutageReason: noBackend });
revocationStoreSuite('memory', { open: () => Promise.resolve(new MemoryRevocationStore()), noPeerReason: perProcess, noOutageReason: noBackend });
sessionStoreSuite('memory', { open: () => Promise.resolve(new MemorySessionStore()), noPeerReason: perProcess, noOutageReason: noBackend });
idempotencyStoreSuite('memory', { open: () => Promise.resolve(new MemoryIdempotencyStore()), noPeerReason: perProcess, noOutageReason: noBackend });

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

  it('makes room once records expire (full sweep when at the cap)', async () => {
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

describe('ExpiringMap sweeping', () => {
  it('removes expired entries nobody reads again, a bounded slice per write', () => {
    const map = new ExpiringMap<number>((expiresAtMs) => expiresAtMs, 1_000_000, 32, 64);
    for (let index = 0; index < 10_000; index += 1) map.set(`old-${index}`, T0 + 1000, T0);
    expect(map.size).toBe(10_000);
    // Each write after expiry examines 2 entries on average: 10,000 writes sweep every old entry.
    for (let index = 0; index < 10_000; index += 1) map.set(`new-${index}`, T0 + 60_000, T0 + 2000);
    expect(map.size).toBeLessThan(10_000 + 200);
  });

  it('terminates a sweep when nothing is expired', () => {
    const map = new ExpiringMap<number>((expiresAtMs) => expiresAtMs, 10, 1, 1000);
    for (let index = 0; index < 10; index += 1) map.set(`k-${index}`, T0 + 1000, T0);
    expect(map.set('k-0', T0 + 1000, T0)).toBe(true);
    expect(map.set('k-new', T0 + 1000, T0)).toBe(false);
    expect(map.size).toBe(10);
  });
});
