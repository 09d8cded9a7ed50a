// Rate limiting over HTTP (inject, injected clock that moves only when told): burst then 429 with Retry-After, refill,
// per-tenant overrides, tenant isolation, untenanted callers keyed by identity, public probes
// never limited, batches charged per item (threats.md 19), work charged as work (body bytes,
// with and without Content-Length, RAG chunks, entities found), and off by default.
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyOverrides } from '../../test/support/auth.js';
import { buildTestApp, post, send, type TestApp } from '../../test/support/harness.js';
import { bodyUnits, bucketKeyOf, limitsFor } from './rate-limit.js';

const KEYS = {
  a: 'tenant-a-key-0123456789abcdef',
  a2: 'tenant-a-second-0123456789ab',
  b: 'tenant-b-key-0123456789abcdef',
  c: 'tenant-c-key-0123456789abcdef',
  p: 'platform-p-key-0123456789abcd',
  q: 'platform-q-key-0123456789abcd',
} as const;
const SCOPES = ['transform', 'rehydrate', 'detect', 'batch'];

const as = (key: string): Record<string, string> => ({ 'x-api-key': key });

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({
    overrides: {
      ...apiKeyOverrides([
        { key: KEYS.a, identity: 'app-a', tenant_id: 'tenant-a', scopes: SCOPES },
        { key: KEYS.a2, identity: 'app-a2', tenant_id: 'tenant-a', scopes: SCOPES },
        { key: KEYS.b, identity: 'app-b', tenant_id: 'tenant-b', scopes: SCOPES },
        { key: KEYS.c, identity: 'app-c', tenant_id: 'tenant-c', scopes: SCOPES },
        { key: KEYS.p, identity: 'platform-p', scopes: SCOPES },
        { key: KEYS.q, identity: 'platform-q', scopes: SCOPES },
      ]),
      rate_limit: { enabled: true, requests_per_second: 1, burst_size: 3 },
      tenants: { 'tenant-c': { rate_limit: { burst_size: 5, requests_per_second: 0.4 } } },
    },
    // Buckets refill only through t.advance(): a slow first request (schemas compile on first
    // use) on a loaded machine must not hand out an extra token.
    frozenClock: true,
  });
});
afterAll(async () => {
  await t.close();
});

async function detect(key: string): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  return post(t.app, '/v1/detect', { input: 'nothing to see' }, as(key));
}

/** Wait long enough (injected clock) for every bucket to be full again. */
function refillAll(): void {
  t.advance(60);
}

describe('rate limiting', () => {
  it('allows the burst, then answers 429 VEIL_RATE_LIMITED with Retry-After in whole seconds', async () => {
    refillAll();
    for (let index = 0; index < 3; index += 1) expect((await detect(KEYS.a)).status).toBe(200);
    const refused = await detect(KEYS.a);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ code: 'VEIL_RATE_LIMITED', error: 'rate limit exceeded', request_id: expect.any(String) });
    expect(refused.headers['retry-after']).toBe('1');
  });

  it('refills at requests_per_second', async () => {
    refillAll();
    for (let index = 0; index < 3; index += 1) expect((await detect(KEYS.a)).status).toBe(200);
    expect((await detect(KEYS.a)).status).toBe(429);
    t.advance(1);
    expect((await detect(KEYS.a)).status).toBe(200);
    expect((await detect(KEYS.a)).status).toBe(429);
  });

  it('keeps tenants apart; callers of one tenant share its bucket', async () => {
    refillAll();
    for (let index = 0; index < 3; index += 1) expect((await detect(KEYS.a)).status).toBe(200);
    expect((await detect(KEYS.a)).status).toBe(429);
    expect((await detect(KEYS.a2)).status).toBe(429);
    for (let index = 0; index < 3; index += 1) expect((await detect(KEYS.b)).status).toBe(200);
  });

  it('keys untenanted callers by identity', async () => {
    refillAll();
    for (let index = 0; index < 3; index += 1) expect((await detect(KEYS.p)).status).toBe(200);
    expect((await detect(KEYS.p)).status).toBe(429);
    expect((await detect(KEYS.q)).status).toBe(200);
  });

  it('applies tenants.<id>.rate_limit overrides (Retry-After rounds up)', async () => {
    refillAll();
    for (let index = 0; index < 5; index += 1) expect((await detect(KEYS.c)).status).toBe(200);
    const refused = await detect(KEYS.c);
    expect(refused.status).toBe(429);
    // 0.4 units per second: one unit is 2.5 s away, sent as 3.
    expect(refused.headers['retry-after']).toBe('3');
  });

  it('never limits the public probes', async () => {
    refillAll();
    for (let index = 0; index < 3; index += 1) await detect(KEYS.a);
    for (let index = 0; index < 20; index += 1) {
      expect((await send(t.app, { method: 'GET', url: '/livez' })).status).toBe(200);
      expect((await send(t.app, { method: 'GET', url: '/readyz' })).status).not.toBe(429);
    }
  });

  it('an unauthenticated request is refused by auth (401), not charged', async () => {
    refillAll();
    for (let index = 0; index < 5; index += 1) expect((await post(t.app, '/v1/detect', { input: 'x' })).status).toBe(401);
    for (let index = 0; index < 3; index += 1) expect((await detect(KEYS.b)).status).toBe(200);
  });

  it('charges batch transform one unit per item', async () => {
    refillAll();
    const items = [{ text: 'one' }, { text: 'two' }, { text: 'three' }];
    const ok = await post(t.app, '/v1/batch/transform', { items }, as(KEYS.b));
    expect(ok.status).toBe(200);
    expect((await detect(KEYS.b)).status).toBe(429);
  });

  it('charges batch detect one unit per item, and a refused batch takes nothing for its items', async () => {
    refillAll();
    expect((await detect(KEYS.b)).status).toBe(200);
    const refused = await post(t.app, '/v1/batch/detect', { items: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] }, as(KEYS.b));
    // The request's own unit was paid; its two other items did not fit in the one left.
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect((await detect(KEYS.b)).status).toBe(200);
    expect((await detect(KEYS.b)).status).toBe(429);
  });

  it('a batch larger than the burst needs (and empties) a full bucket instead of never passing', async () => {
    refillAll();
    const items = Array.from({ length: 8 }, (_, index) => ({ text: `item ${index}` }));
    const ok = await post(t.app, '/v1/batch/detect', { items }, as(KEYS.b));
    expect(ok.status).toBe(200);
    expect((await detect(KEYS.b)).status).toBe(429);
  });

  it('counts rejections in veil_rate_limit_rejections_total', async () => {
    const before = (await t.deps.metrics.rateLimitRejections.get()).values[0]?.value ?? 0;
    refillAll();
    for (let index = 0; index < 4; index += 1) await detect(KEYS.q);
    const after = (await t.deps.metrics.rateLimitRejections.get()).values[0]?.value ?? 0;
    expect(after - before).toBe(1);
  });
});

describe('rate limiting configuration', () => {
  it('is off by default', async () => {
    const app = await buildTestApp();
    try {
      for (let index = 0; index < 250; index += 1) {
        const response = await send(app.app, { method: 'GET', url: '/v1/health' });
        expect(response.status).toBe(200);
      }
    } finally {
      await app.close();
    }
  });

  it('limits: override fields fall back to rate_limit; keys never collide across tenant and identity', () => {
    const config = { rate_limit: { enabled: true, requests_per_second: 7, burst_size: 9 }, tenants: { x: { rate_limit: { burst_size: 2 } } } };
    expect(limitsFor(config, 'x')).toEqual({ ratePerSecond: 7, burst: 2 });
    expect(limitsFor(config, 'y')).toEqual({ ratePerSecond: 7, burst: 9 });
    expect(limitsFor(config, null)).toEqual({ ratePerSecond: 7, burst: 9 });
    expect(limitsFor(config, '__proto__')).toEqual({ ratePerSecond: 7, burst: 9 });
    expect(bucketKeyOf({ tenant: 'a', identity: 'x' })).not.toBe(bucketKeyOf({ tenant: null, identity: 'a' }));
  });
});

describe('rate limiting counts work', () => {
  let w: TestApp;
  beforeAll(async () => {
    w = await buildTestApp({
      overrides: {
        ...apiKeyOverrides([{ key: KEYS.a, identity: 'app-a', tenant_id: 'tenant-a', scopes: [...SCOPES, 'rag'] }]),
        rate_limit: { enabled: true, requests_per_second: 1, burst_size: 10, bytes_per_unit: 1024, entities_per_unit: 2 },
      },
    });
  });
  afterAll(async () => {
    await w.close();
  });

  /** How many one-unit requests the bucket still admits (it is empty afterwards). */
  async function remaining(): Promise<number> {
    let admitted = 0;
    while ((await post(w.app, '/v1/detect', { input: 'nothing' }, as(KEYS.a))).status === 200) admitted += 1;
    return admitted;
  }

  it('bodyUnits: one unit per bytes_per_unit, at least one', () => {
    expect([0, 1, 1024, 1025, 4096, 4097].map((bytes) => bodyUnits(bytes, 1024))).toEqual([1, 1, 1, 2, 4, 5]);
  });

  it('charges a body by its Content-Length before reading it', async () => {
    w.advance(60);
    const big = { input: 'x'.repeat(3000) };
    for (let index = 0; index < 3; index += 1) expect((await post(w.app, '/v1/detect', big, as(KEYS.a))).status).toBe(200);
    const refused = await post(w.app, '/v1/detect', big, as(KEYS.a));
    expect(refused.status).toBe(429);
    // 9 of 10 units spent; 3 are needed: 2 s.
    expect(refused.headers['retry-after']).toBe('2');
  });

  it('charges a body sent without Content-Length once it has been read', async () => {
    w.advance(60);
    const response = await w.app.inject({
      method: 'POST',
      url: '/v1/detect',
      headers: { 'content-type': 'application/json', ...as(KEYS.a) },
      payload: Readable.from([JSON.stringify({ input: 'y'.repeat(5000) })]),
    });
    expect(response.statusCode).toBe(200);
    expect(await remaining()).toBe(5);
  });

  it('charges the entities a response found after it was sent', async () => {
    w.advance(60);
    const emails = Array.from({ length: 6 }, (_, index) => `p${index}@example.com`).join(' ');
    expect((await post(w.app, '/v1/transform', { input: emails }, as(KEYS.a))).status).toBe(200);
    // 1 for the request, 6 / 2 = 3 for its entities.
    expect(await remaining()).toBe(6);
  });

  it('charges /v1/rag/context one unit per chunk before any work, /v1/rag/ingest one per chunk made', async () => {
    w.advance(60);
    const context = await post(w.app, '/v1/rag/context', { chunks: ['a', 'b', 'c', 'd', 'e', 'f'], session_state: 'v1.bogus.AAAA' }, as(KEYS.a));
    expect(context.status).not.toBe(429);
    expect(await remaining()).toBe(4);
    w.advance(60);
    const text = Array.from({ length: 5 }, (_, index) => `Paragraph ${index} `.padEnd(120, 'z')).join('\n\n');
    const ingest = await post(w.app, '/v1/rag/ingest', { text, chunking_strategy: 'fixed', chunk_size: 150 }, as(KEYS.a));
    expect(ingest.body).toMatchObject({ chunks: expect.any(Array) });
    const chunks = (ingest.body.chunks as unknown[]).length;
    expect(chunks).toBeGreaterThan(2);
    expect(await remaining()).toBe(10 - 1 - chunks);
  });

  it('work charged after the fact can put the bucket in debt, never below one burst', async () => {
    w.advance(60);
    const emails = Array.from({ length: 60 }, (_, index) => `d${index}@example.com`).join(' ');
    expect((await post(w.app, '/v1/transform', { input: emails }, as(KEYS.a))).status).toBe(200);
    const refused = await post(w.app, '/v1/detect', { input: 'nothing' }, as(KEYS.a));
    expect(refused.status).toBe(429);
    // 1 + 30 charged from 10: clamped at -10, so 11 s until one unit is back.
    expect(refused.headers['retry-after']).toBe('11');
  });
});
