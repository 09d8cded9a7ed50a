// The revocation store wrapper that tells the process of each revocation (stores/erasure.ts):
// called before the add and after it settles, failed or not; every other call passes through;
// optional members stay absent when the store has none.
import { describe, expect, it } from 'vitest';
import { notifyingRevocations, withRevocationNotice } from './erasure.js';
import type { AppStores, RevocationStore } from './types.js';

function fakeStore(options: { failAdd?: boolean; optional?: boolean } = {}): { store: RevocationStore; calls: string[] } {
  const calls: string[] = [];
  const store: RevocationStore = {
    add: async (partition, digests) => {
      calls.push(`add ${partition} ${digests.length}`);
      await Promise.resolve();
      if (options.failAdd === true) throw new Error('quota');
      return digests.length;
    },
    revoked: (partitions, digests) => {
      calls.push(`revoked ${partitions.join()} ${digests.length}`);
      return Promise.resolve(new Set(digests.slice(0, 1)));
    },
    count: () => Promise.resolve(7),
    keyCheck: (check) => Promise.resolve(check),
    close: () => Promise.resolve(),
    ...(options.optional === true ? { holdsAny: () => false, extend: () => Promise.resolve() } : {}),
  };
  return { store, calls };
}

describe('notifyingRevocations', () => {
  it('notifies before the add and after it is durable', async () => {
    const { store, calls } = fakeStore();
    const wrapped = notifyingRevocations(store, () => calls.push('notice'));
    expect(await wrapped.add('acme', ['d1', 'd2'], 1)).toBe(2);
    expect(calls).toEqual(['notice', 'add acme 2', 'notice']);
  });

  it('notifies after a failed add too, and the failure passes through', async () => {
    const { store, calls } = fakeStore({ failAdd: true });
    const wrapped = notifyingRevocations(store, () => calls.push('notice'));
    await expect(wrapped.add('acme', ['d1'], 1)).rejects.toThrow('quota');
    expect(calls).toEqual(['notice', 'add acme 1', 'notice']);
  });

  it('passes every other call through and keeps optional members absent or present', async () => {
    const plain = notifyingRevocations(fakeStore().store, () => undefined);
    expect(plain.holdsAny).toBeUndefined();
    expect(plain.extend).toBeUndefined();
    expect(await plain.revoked(['acme'], ['a', 'b'])).toEqual(new Set(['a']));
    expect(await plain.count('acme')).toBe(7);
    expect(await plain.keyCheck('k')).toBe('k');
    const memory = notifyingRevocations(fakeStore({ optional: true }).store, () => undefined);
    expect(memory.holdsAny?.(['acme'])).toBe(false);
    expect(memory.extend).toBeTypeOf('function');
  });

  it('withRevocationNotice replaces only the revocation store', () => {
    const { store } = fakeStore();
    const close = (): Promise<void> => Promise.resolve();
    const stores = { replay: {}, idempotency: {}, revocation: store, close } as unknown as AppStores;
    const noticed = withRevocationNotice(stores, () => undefined);
    expect(noticed.revocation).not.toBe(store);
    expect(noticed.replay).toBe(stores.replay);
    expect(Object.getOwnPropertyDescriptor(noticed, 'close')?.value).toBe(close);
  });
});
