// Work queue semantics with a manual clock: dedup, no concurrent processing of one key, the
// dirty re-add, per-key exponential backoff that resets on forget, delayed adds, shutdown.
import { describe, expect, it } from 'vitest';
import { FakeClock } from './clock.js';
import { WorkQueue } from './workqueue.js';

describe('WorkQueue', () => {
  it('deduplicates queued keys and hands them out in order', async () => {
    const queue = new WorkQueue({ clock: new FakeClock() });
    queue.add('a');
    queue.add('b');
    queue.add('a');
    expect(queue.length).toBe(2);
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBe('b');
  });

  it('never hands a key being processed to another worker; a re-add while processing runs it again after', async () => {
    const queue = new WorkQueue({ clock: new FakeClock() });
    queue.add('a');
    const key = await queue.get();
    queue.add('a');
    expect(queue.length).toBe(0);
    queue.done(key!);
    expect(queue.length).toBe(1);
    expect(await queue.get()).toBe('a');
  });

  it('backs off per key exponentially up to the cap and resets on forget', () => {
    const clock = new FakeClock();
    const queue = new WorkQueue({ clock, baseDelayMs: 100, maxDelayMs: 1000 });
    expect([1, 2, 3, 4, 5, 6].map(() => queue.addRateLimited('a'))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(queue.addRateLimited('b')).toBe(100);
    queue.forget('a');
    expect(queue.addRateLimited('a')).toBe(100);
    expect(queue.addRateLimited('c', 5000)).toBe(5000);
  });

  it('adds after a delay; the earlier schedule wins', () => {
    const clock = new FakeClock();
    const queue = new WorkQueue({ clock });
    queue.addAfter('a', 1000);
    queue.addAfter('a', 500);
    queue.addAfter('a', 2000);
    clock.advance(499);
    expect(queue.length).toBe(0);
    clock.advance(1);
    expect(queue.length).toBe(1);
    clock.advance(5000);
    expect(queue.length).toBe(1);
  });

  it('wakes a waiting worker on add, and releases waiters with undefined on shutdown', async () => {
    const queue = new WorkQueue({ clock: new FakeClock() });
    const waiting = queue.get();
    queue.add('x');
    expect(await waiting).toBe('x');
    const second = queue.get();
    const stopping = queue.shutDown();
    expect(await second).toBeUndefined();
    let stopped = false;
    void stopping.then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false); // 'x' is still being processed
    queue.done('x');
    await stopping;
    queue.add('y');
    expect(await queue.get()).toBeUndefined();
  });
});
