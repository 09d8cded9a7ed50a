// revokedIn: a rehydrate computes its revocation digests only when the store may hold a
// revocation for the caller (RevocationStore.holdsAny); the answer is the same either way.
import { describe, expect, it } from 'vitest';
import { MemoryRevocationStore } from '../stores/memory/index.js';
import { GLOBAL_PARTITION, type RevocationStore } from '../stores/types.js';
import type { EntryDigest } from './executor.js';
import { revokedIn } from './rehydrate.js';

const T0 = 1_700_000_000_000;
const DIGESTS: readonly EntryDigest[] = [
  { id: 'e_001', digest: 'd-email' },
  { id: 'e_001', digest: 'd-email-legacy' },
  { id: 'ph_001', digest: 'd-phone' },
];

/** The digests, counting how often they were computed. */
function counted(): { digests: () => readonly EntryDigest[]; calls: () => number } {
  let calls = 0;
  return {
    digests: () => {
      calls += 1;
      return DIGESTS;
    },
    calls: () => calls,
  };
}

/** The memory store seen through the interface only (no holdsAny): what a Redis or SQLite store is. */
function withoutHoldsAny(store: MemoryRevocationStore): RevocationStore {
  return { add: (...a) => store.add(...a), revoked: (...a) => store.revoked(...a), count: (p) => store.count(p), keyCheck: (c) => store.keyCheck(c), close: () => store.close() };
}

describe('revokedIn', () => {
  it('computes no digest while the caller\'s partitions hold no revocation, and finds them once one does', async () => {
    const store = new MemoryRevocationStore();
    const empty = counted();
    expect(await revokedIn(store, 'tenant-a', empty.digests)).toEqual([]);
    expect(empty.calls()).toBe(0);
    // Another tenant's revocation changes nothing for tenant-a.
    await store.add('tenant-b', ['d-phone'], T0);
    expect(await revokedIn(store, 'tenant-a', empty.digests)).toEqual([]);
    expect(empty.calls()).toBe(0);
    // tenant-b's own rehydrate computes them and finds the phone.
    const own = counted();
    expect(await revokedIn(store, 'tenant-b', own.digests)).toEqual(['ph_001']);
    expect(own.calls()).toBe(1);
    // A platform-wide revocation reaches every tenant and the platform caller.
    await store.add(GLOBAL_PARTITION, ['d-email-legacy'], T0);
    for (const tenant of ['tenant-a', null]) {
      const global = counted();
      expect(await revokedIn(store, tenant, global.digests)).toEqual(['e_001']);
      expect(global.calls()).toBe(1);
    }
  });

  it('answers as the full lookup does, for every mix of revocations and callers', async () => {
    const partitions = ['tenant-a', 'tenant-b', GLOBAL_PARTITION];
    const digests = DIGESTS.map((item) => item.digest);
    // Every assignment of each digest to no partition or one of three: 4^3 stores.
    for (let mask = 0; mask < 64; mask += 1) {
      const store = new MemoryRevocationStore();
      for (let index = 0; index < digests.length; index += 1) {
        const at = (mask >> (index * 2)) & 3;
        if (at > 0) await store.add(partitions[at - 1]!, [digests[index]!], T0);
      }
      for (const tenant of ['tenant-a', 'tenant-b', 'tenant-c', null]) {
        const full = await revokedIn(withoutHoldsAny(store), tenant, () => DIGESTS);
        expect(await revokedIn(store, tenant, () => DIGESTS)).toEqual(full);
      }
    }
  });

  it('always computes and looks up the digests on a store that cannot answer holdsAny', async () => {
    const store = withoutHoldsAny(new MemoryRevocationStore());
    const asked = counted();
    expect(await revokedIn(store, 'tenant-a', asked.digests)).toEqual([]);
    expect(asked.calls()).toBe(1);
  });
});
