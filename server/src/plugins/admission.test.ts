// Admission and load shedding (issue 16 item 2): the per-process count of large requests and
// streams, the memory gates (resident memory, and the charge of each admitted body), and what a refused request sees over HTTP (503 VEIL_OVERLOADED with
// Retry-After, before its body is read); the structure bounds of bodies on both parse paths.
import { describe, expect, it } from 'vitest';
import { Admission, OverloadedError } from '../services/overload.js';
import { buildTestApp, post } from '../../test/support/harness.js';

const MiB = 1024 * 1024;
const calm = () => ({ rssBytes: 100 * MiB, heapUsedBytes: 50 * MiB, heapLimitBytes: 512 * MiB });

describe('Admission', () => {
  it('admits up to the limit, refuses the next with 503 and Retry-After, and gives slots back once', () => {
    const admission = new Admission({ maxLarge: 2, maxStreams: 1, budgetMb: 1024, memory: calm });
    const first = admission.admitLarge(100_000);
    admission.admitLarge(100_000);
    expect(() => admission.admitLarge(100_000)).toThrow(OverloadedError);
    try {
      admission.admitLarge(100_000);
    } catch (error) {
      expect(error).toMatchObject({ code: 'VEIL_OVERLOADED', status: 503, retryAfterSeconds: 1 });
    }
    first.release();
    first.release();
    expect(admission.inFlight).toEqual({ large: 1, streams: 0 });
    admission.admitLarge(100_000);
    admission.admitStream(100_000);
    expect(() => admission.admitStream(100_000)).toThrow(/overloaded/);
  });

  it('charges each admitted request the memory its body will need, refuses what would pass the budget, and frees it at the end', () => {
    // 1 GiB budget, 870 MiB high-water, 100 MiB resident at rest; 10 bytes of RSS per body byte.
    const admission = new Admission({ maxLarge: 100, maxStreams: 100, budgetMb: 1024, rssPerBodyByte: 10, memory: calm });
    const first = admission.admitLarge(40 * MiB); // 400 MiB
    const second = admission.admitStream(30 * MiB); // 300 MiB: 800 of 870
    expect(admission.charged).toBe(700 * MiB);
    // Slots are free, but the memory is not: refused by what it would cost, before any RSS shows it.
    let refused: unknown;
    try {
      admission.admitLarge(8 * MiB);
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({ code: 'VEIL_OVERLOADED', status: 503, retryAfterSeconds: 5 });
    expect(admission.charged).toBe(700 * MiB);
    first.release();
    first.release();
    expect(admission.charged).toBe(300 * MiB);
    admission.admitLarge(8 * MiB).release();
    second.release();
    expect(admission.charged).toBe(0);
    expect(admission.inFlight).toEqual({ large: 0, streams: 0 });
  });

  it('charges a chunked body provisionally, settles it to its real size, and answers 413 for a body no idle process could take', () => {
    // High-water 870.4 MiB, 100 MiB at rest, 10 bytes per body byte.
    const admission = new Admission({ maxLarge: 100, maxStreams: 100, budgetMb: 1024, rssPerBodyByte: 10, memory: calm });
    // Up to 100 MiB (1000 MiB of charge): admitted with all the room there is, never a 413 before the size is known.
    const chunked = admission.admitLarge(100 * MiB, true);
    expect(admission.charged).toBeCloseTo(770.4 * MiB, -3);
    expect(() => admission.admitLarge(20 * MiB)).toThrow(OverloadedError);
    chunked.settle(1 * MiB);
    expect(admission.charged).toBe(10 * MiB);
    admission.admitLarge(20 * MiB);
    expect(admission.charged).toBe(210 * MiB);
    // The real size needs more than there is room for now: 503, the charge unchanged.
    expect(() => chunked.settle(70 * MiB)).toThrow(OverloadedError);
    expect(admission.charged).toBe(210 * MiB);
    // More than an idle process could take: 413.
    expect(() => chunked.settle(80 * MiB)).toThrow(expect.objectContaining({ code: 'VEIL_PAYLOAD_TOO_LARGE', status: 413 }));
    chunked.settle(50 * MiB);
    expect(admission.charged).toBe(700 * MiB);
    chunked.release();
    expect(admission.charged).toBe(200 * MiB);
    expect(() => new Admission({ maxLarge: 1, maxStreams: 1, budgetMb: 1024, rssPerBodyByte: 10, memory: calm }).admitLarge(80 * MiB)).toThrow(
      expect.objectContaining({ code: 'VEIL_PAYLOAD_TOO_LARGE', status: 413 }),
    );
  });

  it('refuses new large work near the memory budget or the heap limit', () => {
    const near = new Admission({ maxLarge: 10, maxStreams: 10, budgetMb: 1024, memory: () => ({ ...calm(), rssBytes: 900 * MiB }) });
    expect(() => near.admitLarge(100_000)).toThrow(OverloadedError);
    expect(near.pressure()).toMatch(/memory_budget_mb/);
    const heap = new Admission({ maxLarge: 10, maxStreams: 10, budgetMb: 1024, memory: () => ({ ...calm(), heapUsedBytes: 500 * MiB }) });
    expect(() => heap.admitStream(100_000)).toThrow(OverloadedError);
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
