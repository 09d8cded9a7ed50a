// Per-request state of the cross-cutting layers (principal, audit state and facts, error code,
// raw body, idempotency claim), kept on the request object itself under a private symbol rather
// than in a WeakMap keyed by the request: a property read is a few instructions, where every
// WeakMap entry costs a hash lookup and ephemeron work in each garbage collection, and a request
// carries half a dozen of them. The symbol is module-private, so only the module that created a
// slot can read or write it, as with the WeakMap it replaces.
import type { FastifyRequest } from 'fastify';

export interface RequestSlot<T> {
  get(request: FastifyRequest): T | undefined;
  set(request: FastifyRequest, value: T): void;
  delete(request: FastifyRequest): void;
}

/** A named slot (the name only labels the symbol, for debugging). */
export function requestSlot<T>(name: string): RequestSlot<T> {
  const key = Symbol(name);
  type Holder = Record<symbol, T | undefined>;
  return {
    get: (request) => (request as unknown as Holder)[key],
    set: (request, value) => {
      (request as unknown as Holder)[key] = value;
    },
    delete: (request) => {
      (request as unknown as Holder)[key] = undefined;
    },
  };
}
