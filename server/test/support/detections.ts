// What the built-in detectors find in a text, for the detection tests beside the code
// (server/src/domain/detect/*.test.ts): every detection at the default threshold as [type, value],
// and the one detection of a type, checked to be the exact slice of the text, with its canonical
// form (one token and one erasure for every spelling of a value).
import { expect } from 'vitest';
import { detectAll } from '../../src/domain/detect/index.js';
import { normalizeValue } from '../../src/domain/token/normalize.js';

/** Every detection at the default threshold (0.5), as [type, value]. */
export function found(text: string): [string, string][] {
  return detectAll(text)
    .filter((d) => d.confidence >= 0.5)
    .map((d) => [d.type, d.value]);
}

/** The one detection of `type` in `text`, checked to be the exact slice `value`; its canonical form (region US). */
export function only(text: string, type: string): { value: string; canonical: string } {
  const hits = detectAll(text).filter((d) => d.confidence >= 0.5 && d.type === type);
  expect(hits, text).toHaveLength(1);
  const hit = hits[0]!;
  expect(text.slice(hit.start, hit.end)).toBe(hit.value);
  return { value: hit.value, canonical: normalizeValue(type, hit.value, 'US') };
}

/**
 * Every detection at the default threshold as `type[value]`, each checked to be the text's own
 * slice at its span (session 14's readings: lookalike-worded, markup-joined, qp-joined tests).
 */
export function foundTagged(text: string): string[] {
  return detectAll(text)
    .filter((d) => d.confidence >= 0.5)
    .map((d) => {
      expect(text.slice(d.start, d.end)).toBe(d.value);
      return `${d.type}[${d.value}]`;
    });
}
