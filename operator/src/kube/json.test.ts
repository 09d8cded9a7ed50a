// JSON helpers: merge patches round-trip (what status patches rely on) and the subset test
// that lets server-side defaults pass as "no drift" while real drift does not.
import { describe, expect, it } from 'vitest';
import { applyMergePatch, deepEqual, isSubset, mergePatchFor } from './json.js';

describe('merge patches', () => {
  const cases: [Record<string, unknown>, Record<string, unknown>][] = [
    [{}, { a: 1 }],
    [{ a: 1, b: { c: 2, d: 3 } }, { a: 1, b: { c: 2 } }],
    [{ list: [1, 2] }, { list: [2] }],
    [{ a: { b: { c: 1 } } }, { a: 'scalar' }],
    [{ keep: true, drop: 'x' }, { keep: true }],
  ];
  for (const [from, to] of cases) {
    it(`turns ${JSON.stringify(from)} into ${JSON.stringify(to)}`, () => {
      expect(applyMergePatch(from, mergePatchFor(from, to))).toEqual(to);
    });
  }
  it('is empty when nothing changed', () => {
    expect(mergePatchFor({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toEqual({});
  });
});

describe('isSubset', () => {
  it('accepts extra fields the server filled in, rejects changed or missing ones', () => {
    const desired = { replicas: 2, template: { containers: [{ name: 'c', image: 'i:1' }] } };
    expect(isSubset(desired, { replicas: 2, revisionHistoryLimit: 10, template: { containers: [{ name: 'c', image: 'i:1', imagePullPolicy: 'IfNotPresent' }] } })).toBe(true);
    expect(isSubset(desired, { replicas: 3, template: { containers: [{ name: 'c', image: 'i:1' }] } })).toBe(false);
    expect(isSubset(desired, { replicas: 2, template: { containers: [{ name: 'c', image: 'i:1' }, { name: 'extra', image: 'x' }] } })).toBe(false);
    expect(isSubset(desired, { replicas: 2 })).toBe(false);
  });
  it('deepEqual ignores undefined-valued keys only', () => {
    expect(deepEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: '1' })).toBe(false);
  });
});
