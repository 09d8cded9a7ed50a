// The layers around a request read Fastify's `request.routeOptions` (a getter that builds a new
// object on every read) once per request between them (routeOptionsOf), not once per layer.
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, post, type TestApp } from '../../test/support/harness.js';

/** Count Veil's reads of routeOptions on this app's requests (a getter defined on the app's request prototype, which shadows Fastify's). */
function countRouteOptionReads(app: FastifyInstance): { reads: number } {
  const symbol = Object.getOwnPropertySymbols(app).find((candidate) => candidate.description === 'fastify.Request');
  if (symbol === undefined) throw new Error("no request constructor on the app (Fastify's internals moved)");
  const prototype = ((app as unknown as Record<symbol, { prototype: object }>)[symbol]!).prototype;
  let holder: object | null = prototype;
  let owner: object | undefined;
  while (holder !== null && owner === undefined) {
    if (Object.hasOwn(holder, 'routeOptions')) owner = holder;
    holder = Object.getPrototypeOf(holder) as object | null;
  }
  // Fastify's getter, called on the request (Reflect.get with the request as receiver).
  if (owner === undefined) throw new Error('no routeOptions on the request prototype chain');
  const base = owner;
  const counter = { reads: 0 };
  Object.defineProperty(prototype, 'routeOptions', {
    configurable: true,
    get(this: unknown) {
      // Veil's own reads only: a dependency's (@fastify/cors reads it twice) is not ours to cut.
      const caller = new Error().stack?.split('\n')[2] ?? '';
      if (!caller.includes('/node_modules/')) counter.reads += 1;
      return Reflect.get(base, 'routeOptions', this) as unknown;
    },
  });
  return counter;
}

describe('routeOptionsOf', () => {
  let test: TestApp | undefined;
  afterEach(async () => {
    await test?.close();
    test = undefined;
  });

  it('reads routeOptions once per request across auth, rate limit, admission, parser, audit and metrics', async () => {
    // Rate limit and the failed-authentication throttle on, so every layer that reads the route runs.
    test = await buildTestApp({ env: { VEIL_RATE_LIMIT__ENABLED: 'true' } });
    const counter = countRouteOptionReads(test.app);
    const transformed = await post(test.app, '/v1/transform', { input: 'Mail jane.doe@example.com or call +1 415 555 0100.' });
    expect(transformed.status).toBe(200);
    expect(counter.reads).toBe(1);
    const restored = await post(test.app, '/v1/rehydrate', { output: transformed.body.safe_text, session_state: transformed.body.session_state });
    expect(restored.status).toBe(200);
    expect(counter.reads).toBe(2);
    // A refused request too (validation), whose audit event is built from the error.
    const refused = await post(test.app, '/v1/transform', { nope: 1 });
    expect(refused.status).toBe(400);
    expect(counter.reads).toBe(3);
  });
});
