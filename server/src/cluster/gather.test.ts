import { describe, expect, it, vi } from 'vitest';
import { Gathers } from './gather.js';

describe('Gathers (the primary’s cluster-wide collections)', () => {
  it('completes with every asked worker’s answer, asking once with the collection id', async () => {
    const gathers = new Gathers<string>();
    const ask = vi.fn();
    const result = gathers.open([1, 2], 5000, ask);
    expect(ask).toHaveBeenCalledTimes(1);
    const id = ask.mock.calls[0]![0] as number;
    gathers.answer(id, 2, 'two');
    gathers.answer(id, 1, 'one');
    expect((await result)?.sort()).toEqual(['one', 'two']);
  });

  it('stops waiting for a worker that exits mid-collection', async () => {
    const gathers = new Gathers<string>();
    let id = 0;
    const result = gathers.open([1, 2, 3], 60_000, (asked) => (id = asked));
    gathers.answer(id, 1, 'one');
    gathers.gone(2);
    gathers.gone(3);
    expect(await result).toEqual(['one']);
  });

  it('resolves at once when no worker is asked, and only then without asking', async () => {
    const ask = vi.fn();
    expect(await new Gathers<string>().open([], 5000, ask)).toEqual([]);
    expect(ask).not.toHaveBeenCalled();
  });

  it('ignores answers from workers not asked, twice from one worker, and to other collections', async () => {
    const gathers = new Gathers<string>();
    let first = 0;
    let second = 0;
    const one = gathers.open([1, 2], 60_000, (asked) => (first = asked));
    const two = gathers.open([1], 60_000, (asked) => (second = asked));
    expect(first).not.toBe(second);
    gathers.answer(first, 3, 'stranger');
    gathers.answer(first, 1, 'one');
    gathers.answer(first, 1, 'one again');
    gathers.answer(second, 1, 'one to the second');
    gathers.answer(first, 2, 'two');
    expect(await one).toEqual(['one', 'two']);
    expect(await two).toEqual(['one to the second']);
    gathers.answer(first, 2, 'late');
  });

  it('fails (undefined) when a live worker does not answer in time', async () => {
    vi.useFakeTimers();
    try {
      const gathers = new Gathers<string>();
      let id = 0;
      const result = gathers.open([1, 2], 5000, (asked) => (id = asked));
      gathers.answer(id, 1, 'one');
      vi.advanceTimersByTime(5000);
      expect(await result).toBeUndefined();
      // A late answer or exit after the timeout changes nothing.
      gathers.answer(id, 2, 'late');
      gathers.gone(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
