// Overlap resolution: structured detections outrank NER labels on their own span, then higher
// confidence, longer, earlier; a candidate that loses part of its span keeps the rest, so no
// letter or digit any detector claimed is left raw. The result is sorted and never overlaps,
// including for large overlapping clusters (property-tested with fast-check).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Detection, DetectorName } from '../types.js';
import { resolveOverlaps } from './overlap.js';

const TEXT = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'.repeat(100);

function d(type: string, start: number, end: number, confidence: number, detector: DetectorName = 'builtin_regex', text = TEXT): Detection {
  return { type, start, end, value: text.slice(start, end), confidence, detector };
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

  it('prefers higher confidence over length, and keeps the rest of the longer span', () => {
    expect(spans(resolveOverlaps([d('long', 0, 20, 0.8), d('short', 5, 8, 0.95)]))).toEqual([
      ['long', 0, 5],
      ['short', 5, 8],
      ['long', 8, 20],
    ]);
  });

  it('prefers the longer span on equal confidence', () => {
    expect(spans(resolveOverlaps([d('short', 0, 5, 0.9), d('long', 2, 12, 0.9)]))).toEqual([
      ['short', 0, 2],
      ['long', 2, 12],
    ]);
  });

  it('prefers the earlier span on equal confidence and length', () => {
    expect(spans(resolveOverlaps([d('late', 3, 8, 0.9), d('early', 0, 5, 0.9)]))).toEqual([
      ['early', 0, 5],
      ['late', 5, 8],
    ]);
  });

  it('drops a span that lies wholly inside a better one', () => {
    expect(spans(resolveOverlaps([d('outer', 0, 20, 0.95), d('inner', 5, 8, 0.9)]))).toEqual([['outer', 0, 20]]);
  });

  it('keeps the uncovered middle of a bridge between two better spans', () => {
    expect(spans(resolveOverlaps([d('left', 0, 5, 0.9), d('bridge', 4, 11, 0.6), d('right', 10, 15, 0.9)]))).toEqual([
      ['left', 0, 5],
      ['bridge', 5, 10],
      ['right', 10, 15],
    ]);
  });

  it('trims punctuation and spaces at a cut, and drops a remainder without letters or digits', () => {
    const text = 'Jane Smith, 4111 1111 1111 1111; ok';
    const ner = d('person', 0, 16, 0.99, 'python_ner', text); // "Jane Smith, 4111"
    const card = d('credit_card', 12, 31, 0.95, 'builtin_regex', text);
    const tail = d('custom:x', 28, 33, 0.4, 'custom_pattern', text); // "1111; "
    const result = resolveOverlaps([ner, card, tail]);
    expect(result.map((x) => [x.type, x.value])).toEqual([
      ['person', 'Jane Smith'],
      ['credit_card', '4111 1111 1111 1111'],
    ]);
  });

  it('never lets an NER label cut a structured value (IPv6, MAC, Medicare)', () => {
    const text = 'addr e4fa:9fa5:72c0:4b9d:b2d4:4f3e:dead:bcaa mac 00:1A:2B:3C:4D:5E medicare 2123 45670 1';
    const ip = d('ip_address', 5, 44, 0.85, 'builtin_regex', text);
    const mac = d('mac_address', 49, 66, 0.85, 'builtin_regex', text);
    const medicare = d('au_medicare', 76, 88, 0.9, 'builtin_regex', text);
    const ner = [d('person', 35, 39, 0.99, 'python_ner', text), d('organization', 55, 60, 0.99, 'python_ner', text), d('person', 81, 86, 0.99, 'python_ner', text)];
    expect(spans(resolveOverlaps([ip, mac, medicare, ...ner]))).toEqual([
      ['ip_address', 5, 44],
      ['mac_address', 49, 66],
      ['au_medicare', 76, 88],
    ]);
  });

  it('lets an NER label keep what lies outside a structured span', () => {
    const text = 'Dr Jane e4fa::1 here';
    const person = d('person', 3, 15, 0.9, 'python_ner', text); // "Jane e4fa::1"
    const ip = d('ip_address', 8, 15, 0.7, 'builtin_regex', text);
    expect(resolveOverlaps([person, ip]).map((x) => [x.type, x.value])).toEqual([
      ['person', 'Jane'],
      ['ip_address', 'e4fa::1'],
    ]);
  });

  it('ranks a weak structured candidate (below the reporting threshold) by confidence against NER', () => {
    const weak = d('nl_bsn', 0, 9, 0.35);
    const person = d('person', 0, 9, 0.8, 'python_ner');
    expect(spans(resolveOverlaps([weak, person]))).toEqual([['person', 0, 9]]);
  });

  it('drops empty spans', () => {
    expect(resolveOverlaps([d('empty', 3, 3, 1), d('a', 0, 2, 0.5)]).map((x) => x.type)).toEqual(['a']);
  });

  it('resolves a large chained cluster without overlaps', () => {
    const many: Detection[] = [];
    for (let k = 0; k < 2000; k++) many.push(d(`t${k % 7}`, k * 3, k * 3 + 5, ((k * 37) % 100) / 100));
    const result = resolveOverlaps(many);
    for (let k = 1; k < result.length; k++) expect(result[k]!.start).toBeGreaterThanOrEqual(result[k - 1]!.end);
    // The highest-confidence candidate always survives whole.
    const best = [...many].sort((a, b) => b.confidence - a.confidence || b.end - b.start - (a.end - a.start) || a.start - b.start)[0]!;
    expect(result).toContain(best);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties.

/** Text with words, spaces and punctuation, so trimming at cuts is exercised. */
const textArb = fc
  .array(fc.constantFrom('ab', 'Z', '12', '7', ' ', '-', ':', '.', ', ', 'é', '😀', '\u0301'), { minLength: 1, maxLength: 60 })
  .map((parts) => parts.join(''));

/** Code-point boundaries of `text` (spans never split a surrogate pair). */
function boundaries(text: string): number[] {
  const out = [0];
  let k = 0;
  for (const ch of text) {
    k += ch.length;
    out.push(k);
  }
  return out;
}

const caseArb = textArb.chain((text) => {
  const points = boundaries(text);
  const candidate = fc
    .record({
      a: fc.integer({ min: 0, max: points.length - 1 }),
      b: fc.integer({ min: 0, max: points.length - 1 }),
      confidence: fc.integer({ min: 0, max: 100 }).map((x) => x / 100),
      detector: fc.constantFrom<DetectorName>('builtin_regex', 'custom_pattern', 'python_ner'),
      type: fc.constantFrom('phone', 'ip_address', 'person', 'custom:x'),
    })
    .map(({ a, b, confidence, detector, type }) => {
      const start = points[Math.min(a, b)]!;
      const end = points[Math.max(a, b)]!;
      return { type, start, end, value: text.slice(start, end), confidence, detector } satisfies Detection;
    });
  return fc.tuple(fc.constant(text), fc.array(candidate, { maxLength: 25 }));
});

const CONTENT_CHAR = /[\p{L}\p{N}\p{M}]/u;

/** UTF-16 positions of letters, digits and marks inside [start, end). */
function contentPositions(text: string, start: number, end: number): number[] {
  const out: number[] = [];
  let k = start;
  while (k < end) {
    const cp = text.codePointAt(k)!;
    const width = cp > 0xffff ? 2 : 1;
    if (CONTENT_CHAR.test(String.fromCodePoint(cp))) for (let j = 0; j < width; j++) out.push(k + j);
    k += width;
  }
  return out;
}

function coverage(length: number, list: readonly Detection[], keep: (d: Detection) => boolean = () => true): Uint8Array {
  const covered = new Uint8Array(length);
  for (const x of list) if (keep(x)) covered.fill(1, x.start, x.end);
  return covered;
}

describe('resolveOverlaps properties', () => {
  it('covers every letter and digit any candidate covered, with sorted, disjoint, in-union spans', () => {
    fc.assert(
      fc.property(caseArb, ([text, candidates]) => {
        const result = resolveOverlaps(candidates);
        let previousEnd = 0;
        const union = coverage(text.length, candidates);
        for (const x of result) {
          expect(x.start).toBeGreaterThanOrEqual(previousEnd);
          expect(x.end).toBeGreaterThan(x.start);
          expect(x.value).toBe(text.slice(x.start, x.end));
          for (let k = x.start; k < x.end; k++) expect(union[k]).toBe(1);
          previousEnd = x.end;
        }
        const covered = coverage(text.length, result);
        for (const candidate of candidates) {
          for (const k of contentPositions(text, candidate.start, candidate.end)) expect(covered[k]).toBe(1);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('never lets an NER span take a character of a structured detection', () => {
    fc.assert(
      fc.property(caseArb, ([text, candidates]) => {
        const isStructured = (x: Detection): boolean => x.detector !== 'python_ner' && x.confidence >= 0.5;
        const result = resolveOverlaps(candidates);
        const structuredOut = coverage(text.length, result, isStructured);
        for (const candidate of candidates.filter(isStructured)) {
          for (const k of contentPositions(text, candidate.start, candidate.end)) expect(structuredOut[k]).toBe(1);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps every output span within candidates of its type, scored as one of them', () => {
    fc.assert(
      fc.property(caseArb, ([text, candidates]) => {
        for (const x of resolveOverlaps(candidates)) {
          const sameType = coverage(text.length, candidates, (c) => c.type === x.type);
          for (let k = x.start; k < x.end; k++) expect(sameType[k]).toBe(1);
          const source = candidates.find((c) => c.type === x.type && c.detector === x.detector && c.confidence === x.confidence && c.start < x.end && x.start < c.end);
          expect(source).toBeDefined();
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('joins two readings of one value of the same type into one span', () => {
    const text = 'Telefone: (351) 938 981 253.';
    const outer = d('phone', 10, 27, 0.65, 'builtin_regex', text);
    const inner = d('phone', 16, 27, 0.75, 'builtin_regex', text);
    expect(resolveOverlaps([outer, inner]).map((x) => [x.type, x.value, x.confidence])).toEqual([['phone', '(351) 938 981 253', 0.75]]);
  });
});
