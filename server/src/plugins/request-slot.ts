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

/** A request's route as Fastify describes it (url pattern, config, body limit). */
export type RouteOptions = FastifyRequest['routeOptions'];

const routeOptionsSlot = requestSlot<RouteOptions>('veil.routeOptions');

/**
 * `request.routeOptions`, read once per request: Fastify's getter builds a new object of a dozen
 * fields (and asks the router for its version strategy) on every read, and the layers around a
 * request (auth, rate limit, admission, the body parser, audit, metrics) read it eight to ten
 * times between them. The route does not change during a request, so the first read serves all.
 */
export function routeOptionsOf(request: FastifyRequest): RouteOptions {
  let options = routeOptionsSlot.get(request);
  if (options === undefined) {
    options = request.routeOptions;
    routeOptionsSlot.set(request, options);
  }
  return options;
}
