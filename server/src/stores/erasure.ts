// A revocation store that tells the process of each revocation it adds: state derived from
// session values and kept across requests (the output guard's search keys of a session state,
// domain/guard/session-forms.ts) is dropped before the add and again once it is durable, so an
// erased value's derived forms never outlive its revocation on this process.
import type { AppStores, RevocationStore } from './types.js';

/** `store` with `onAdd` called before each add and after it settles (whatever its outcome). */
export function notifyingRevocations(store: RevocationStore, onAdd: () => void): RevocationStore {
  return {
    add: async (partition, digests, nowMs) => {
      onAdd();
      try {
        return await store.add(partition, digests, nowMs);
      } finally {
        onAdd();
      }
    },
    // Optional members stay absent when the store has none (callers test their presence).
    ...(store.extend !== undefined ? { extend: store.extend.bind(store) } : {}),
    ...(store.holdsAny !== undefined ? { holdsAny: store.holdsAny.bind(store) } : {}),
    revoked: (partitions, digests) => store.revoked(partitions, digests),
    count: (partition) => store.count(partition),
    keyCheck: (check) => store.keyCheck(check),
    close: () => store.close(),
  };
}

/** The stores with their revocation store notifying `onAdd` (AppStores is a plain object of stores). */
export function withRevocationNotice(stores: AppStores, onAdd: () => void): AppStores {
  return { ...stores, revocation: notifyingRevocations(stores.revocation, onAdd) };
}
