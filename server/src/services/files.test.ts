// The file pool's bounds (services/files.ts), proved with a worker that misbehaves on purpose
// (server/test/support/runaway-worker.mjs): a task past its deadline is aborted and its thread replaced, a
// task growing ArrayBuffers is stopped by the RSS watchdog, a task growing the V8 heap hits the
// thread's heap limit, and the pool keeps serving afterwards.
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createFilePool } from './files.js';
import type { VeilConfig } from '../config/index.js';

const LIMITS: VeilConfig['file_upload'] = {
  max_size_bytes: 1024 * 1024,
  max_pixels: 1_000_000,
  max_text_chars: 1_000_000,
  max_uncompressed_bytes: 1024 * 1024,
  max_archive_entries: 100,
  // Long enough that, on a loaded machine, the memory bound (not the deadline) stops the memory
  // tasks; the spin task still proves the deadline.
  parse_timeout_secs: 5,
  parse_memory_mb: 64,
  parse_workers: 1,
};

const pool = createFilePool({ limits: LIMITS, filename: fileURLToPath(new URL('../../test/support/runaway-worker.mjs', import.meta.url)), watchIntervalMs: 20 });
afterAll(async () => {
  await pool.close();
});

const ask = (mode: string) => pool.extract(Buffer.from(mode), {});

async function peakRssGrowth<T>(run: () => Promise<T>): Promise<{ result: PromiseSettledResult<T>; growthMb: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  const [result] = await Promise.allSettled([run()]);
  clearInterval(timer);
  return { result, growthMb: (peak - before) / 1024 / 1024 };
}

describe('file pool bounds', () => {
  it('serves a normal task', async () => {
    await expect(ask('hello')).resolves.toEqual({ format: 'text', text: 'hello' });
  });

  it('aborts a task past its deadline and replaces the thread', async () => {
    await expect(ask('spin')).rejects.toMatchObject({ code: 'VEIL_LIMIT_EXCEEDED', message: 'file: parsing took longer than the limit' });
    await expect(ask('after-spin')).resolves.toMatchObject({ text: 'after-spin' });
  });

  it('stops a task whose ArrayBuffers grow past the memory budget', async () => {
    await ask('warm');
    const { result, growthMb } = await peakRssGrowth(() => ask('external'));
    expect(result.status).toBe('rejected');
    expect((result as PromiseRejectedResult).reason).toMatchObject({ code: 'VEIL_LIMIT_EXCEEDED', message: 'file: parsing needed more memory than the limit' });
    expect(growthMb).toBeLessThan(200);
    await expect(ask('after-external')).resolves.toMatchObject({ text: 'after-external' });
  });

  it('stops a task that exhausts its heap limit', async () => {
    const { result } = await peakRssGrowth(() => ask('heap'));
    expect(result.status).toBe('rejected');
    expect((result as PromiseRejectedResult).reason).toMatchObject({ code: 'VEIL_LIMIT_EXCEEDED' });
    await expect(ask('after-heap')).resolves.toMatchObject({ text: 'after-heap' });
  });
});
