// Route schemas compiled on first use validate and serialize exactly as Fastify's own compilers
// do at startup, and warm() leaves nothing uncompiled.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { lazyCompilers, type LazyCompilers } from './lazy-compilers.js';

const BodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: { type: 'string', maxLength: 8 }, count: { type: 'integer', default: 1 } },
} as const;
const ResponseSchema = { type: 'object', properties: { name: { type: 'string' }, count: { type: 'integer' } } } as const;

async function appWith(compilers: LazyCompilers | undefined): Promise<FastifyInstance> {
  const app = Fastify({
    ...(compilers !== undefined ? { schemaController: { compilersFactory: compilers.compilersFactory } } : {}),
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true, allErrors: false } },
  });
  // The response carries a field the schema does not list: the serializer drops it.
  app.post('/echo', { schema: { body: BodySchema, response: { 200: ResponseSchema } } }, (request) => ({ ...(request.body as object), extra: 'dropped' }));
  app.post('/other', { schema: { body: BodySchema } }, () => ({ ok: true }));
  // No schema: nothing to compile.
  app.get('/probe', () => 'ok');
  await app.ready();
  return app;
}

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

describe('lazy route compilers', () => {
  it('compile nothing at startup, then validate and serialize like the eager ones', async () => {
    const compilers = lazyCompilers();
    const lazy = await appWith(compilers);
    const eager = await appWith(undefined);
    apps.push(lazy, eager);
    // Two body validators and one serializer wait for their first use.
    expect(compilers.pending()).toBe(3);
    const requests = [{ name: 'ok' }, { name: 'much too long' }, { count: 2 }, { name: 'ok', unknown: true }, { name: 7 }];
    for (const body of requests) {
      const [fromLazy, fromEager] = await Promise.all([lazy.inject({ method: 'POST', url: '/echo', payload: body }), eager.inject({ method: 'POST', url: '/echo', payload: body })]);
      expect({ status: fromLazy.statusCode, body: fromLazy.json<unknown>() }).toEqual({ status: fromEager.statusCode, body: fromEager.json<unknown>() });
    }
    // Defaults applied, unknown response field dropped.
    expect((await lazy.inject({ method: 'POST', url: '/echo', payload: { name: 'ok' } })).json()).toEqual({ name: 'ok', count: 1 });
    expect(compilers.pending()).toBe(1);
  });

  it('warm() compiles every remaining schema', async () => {
    const compilers = lazyCompilers({ warmDelayMs: 0 });
    apps.push(await appWith(compilers));
    expect(compilers.pending()).toBe(3);
    await compilers.warm();
    expect(compilers.pending()).toBe(0);
  });

  it('warm() starts once the server has finished its first response, not before', async () => {
    // A delay no test run reaches: only the response can start the warm-up here.
    const compilers = lazyCompilers({ warmDelayMs: 3_600_000 });
    const app = await appWith(compilers);
    apps.push(app);
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    let warmed = false;
    const warming = compilers.warm().then(() => {
      warmed = true;
    });
    for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect({ warmed, pending: compilers.pending() }).toEqual({ warmed: false, pending: 3 });
    expect((await fetch(`${url}/probe`)).status).toBe(200);
    await warming;
    expect(compilers.pending()).toBe(0);
  });
});
