// Admission and load shedding (issue 16 item 2): the per-process count of large requests and
// streams, the memory gate, and what a refused request sees over HTTP (503 VEIL_OVERLOADED with
// Retry-After, before its body is read); the structure bounds of bodies on both parse paths.
import { describe, expect, it } from 'vitest';
import { Admission, OverloadedError } from '../services/overload.js';
import { buildTestApp, post } from '../testing/harness.js';

const MiB = 1024 * 1024;
const calm = () => ({ rssBytes: 100 * MiB, heapUsedBytes: 50 * MiB, heapLimitBytes: 512 * MiB });

describe('Admission', () => {
  it('admits up to the limit, refuses the next with 503 and Retry-After, and gives slots back once', () => {
    const admission = new Admission({ maxLarge: 2, maxStreams: 1, budgetMb: 1024, memory: calm });
    const first = admission.admitLarge();
    admission.admitLarge();
    expect(() => admission.admitLarge()).toThrow(OverloadedError);
    try {
      admission.admitLarge();
    } catch (error) {
      expect(error).toMatchObject({ code: 'VEIL_OVERLOADED', status: 503, retryAfterSeconds: 1 });
    }
    first();
    first();
    expect(admission.inFlight).toEqual({ large: 1, streams: 0 });
    admission.admitLarge();
    admission.admitStream();
    expect(() => admission.admitStream()).toThrow(/overloaded/);
  });

  it('refuses new large work near the memory budget or the heap limit', () => {
    const near = new Admission({ maxLarge: 10, maxStreams: 10, budgetMb: 1024, memory: () => ({ ...calm(), rssBytes: 900 * MiB }) });
    expect(() => near.admitLarge()).toThrow(OverloadedError);
    expect(near.pressure()).toMatch(/memory_budget_mb/);
    const heap = new Admission({ maxLarge: 10, maxStreams: 10, budgetMb: 1024, memory: () => ({ ...calm(), heapUsedBytes: 500 * MiB }) });
    expect(() => heap.admitStream()).toThrow(OverloadedError);
    expect(new Admission({ maxLarge: 10, maxStreams: 10, budgetMb: 1024, memory: calm }).pressure()).toBeUndefined();
  });
});

describe('over HTTP', () => {
  it('a large body under memory pressure is refused before it is read; a small one is served', async () => {
    // A budget below what the test process already holds: every large request meets the gate.
    const t = await buildTestApp({ overrides: { server: { memory_budget_mb: 128 } } });
    try {
      const large = await t.app.inject({ method: 'POST', url: '/v1/detect', payload: { input: 'x'.repeat(70_000) }, headers: { 'content-type': 'application/json' } });
      expect(large.statusCode).toBe(503);
      expect(large.json()).toEqual({ code: 'VEIL_OVERLOADED', error: 'server overloaded; retry later', request_id: expect.any(String) });
      expect(large.headers['retry-after']).toMatch(/^[0-9]+$/);
      expect((await post(t.app, '/v1/detect', { input: 'mail ada@example.com' })).status).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: '/livez' })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('refuses too many members in one object or too many values, inline and on the worker, naming the bound', async () => {
    const t = await buildTestApp({ overrides: { limits: { max_json_object_keys: 100, max_json_values: 5000 } } });
    try {
      const keys = Object.fromEntries(Array.from({ length: 101 }, (_, index) => [`k${index}`, 'v']));
      const small = await post(t.app, '/v1/transform', { input_json: keys });
      expect(small.status).toBe(413);
      expect(small.body).toMatchObject({ code: 'VEIL_PAYLOAD_TOO_LARGE', error: 'body: an object has more than 100 members' });
      const values = await post(t.app, '/v1/transform', { input_json: Array.from({ length: 6000 }, () => 'canary-value-'.repeat(12)) });
      expect(values.status).toBe(413);
      expect(values.body).toMatchObject({ code: 'VEIL_PAYLOAD_TOO_LARGE', error: 'body: holds more than 5000 JSON values' });
      expect(JSON.stringify(values.body)).not.toContain('canary');
    } finally {
      await t.close();
    }
  });
});
