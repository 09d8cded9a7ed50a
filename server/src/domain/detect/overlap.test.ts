// Overlap resolution: higher confidence wins, then the longer span, then the earlier one; the
// result is sorted by start and never overlaps, including for large overlapping clusters.
import { describe, expect, it } from 'vitest';
import type { Detection } from '../types.js';
import { resolveOverlaps } from './overlap.js';

function d(type: string, start: number, end: number, confidence: number): Detection {
  return { type, start, end, value: 'x'.repeat(end - start), confidence, detector: 'builtin_regex' };
}

function spans(list: readonly Detection[]): [string, number, number][] {
  return list.map((x) => [x.type, x.start, x.end]);
}

describe('resolveOverlaps', () => {
  it('keeps disjoint detections sorted by start', () => {
    expect(spans(resolveOverlaps([d('b', 10, 12, 0.5), d('a', 0, 3, 0.9), d('c', 3, 5, 0.7)]))).toEqual([
      ['a', 0, 3],
      ['c', 3, 5],
      ['b', 10, 12],
    ]);
  });

  it('prefers higher confidence over length', () => {
    expect(spans(resolveOverlaps([d('long', 0, 20, 0.8), d('short', 5, 8, 0.95)]))).toEqual([['short', 5, 8]]);
  });

  it('prefers the longer span on equal confidence', () => {
    expect(spans(resolveOverlaps([d('short', 0, 5, 0.9), d('long', 2, 12, 0.9)]))).toEqual([['long', 2, 12]]);
  });

  it('prefers the earlier span on equal confidence and length', () => {
    expect(spans(resolveOverlaps([d('late', 3, 8, 0.9), d('early', 0, 5, 0.9)]))).toEqual([['early', 0, 5]]);
  });

  it('keeps both neighbours of a dropped bridge', () => {
    // The bridge overlaps both but loses to each: both survive.
    expect(spans(resolveOverlaps([d('left', 0, 5, 0.9), d('bridge', 4, 11, 0.6), d('right', 10, 15, 0.9)]))).toEqual([
      ['left', 0, 5],
      ['right', 10, 15],
    ]);
  });

  it('drops empty spans', () => {
    expect(resolveOverlaps([d('empty', 3, 3, 1), d('a', 0, 2, 0.5)]).map((x) => x.type)).toEqual(['a']);
  });

  it('resolves a large chained cluster without overlaps', () => {
    const many: Detection[] = [];
    for (let k = 0; k < 2000; k++) many.push(d(`t${k % 7}`, k * 3, k * 3 + 5, ((k * 37) % 100) / 100));
    const result = resolveOverlaps(many);
    for (let k = 1; k < result.length; k++) expect(result[k]!.start).toBeGreaterThanOrEqual(result[k - 1]!.end);
    // The highest-confidence candidate always survives.
    const best = [...many].sort((a, b) => b.confidence - a.confidence || b.end - b.start - (a.end - a.start) || a.start - b.start)[0]!;
    expect(result).toContain(best);
  });
});
