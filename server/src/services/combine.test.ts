// combineDetections and selectDetections drop addresses and URLs that identify no one only after
// the merge with NER: a public URL has claimed its span by then, so a name the model found inside
// it ("fastify" in a GitHub link) is not reported or tokenized on its own.
import { DEFAULT_POLICY } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { detectAll } from '../domain/detect/index.js';
import { NONE_RELEASED } from '../domain/detect/identifying.js';
import type { Detection } from '../domain/types.js';
import { selectDetections } from './detect.js';
import { combineDetections } from './transform.js';

const TEXT = 'See https://github.com/fastify/fastify/pull/862 or ask Jane Doe.';
const url = 'https://github.com/fastify/fastify/pull/862';

function ner(value: string, type: string): Detection {
  const start = TEXT.indexOf(value);
  return { type, start, end: start + value.length, value, confidence: 0.85, detector: 'python_ner' };
}

const NER = [ner('fastify', 'organization'), ner('Jane Doe', 'person')];
const PLAN = { useRegex: true, nerRan: true, ner: NER, detectorMode: 'both', warnings: [] };

describe('addresses and URLs that identify no one, after the merge', () => {
  it('a transform keeps neither the public URL nor a name inside it', () => {
    const kept = combineDetections(TEXT, detectAll(TEXT), PLAN, DEFAULT_POLICY);
    expect(kept.map((detection) => detection.value)).toEqual(['Jane Doe']);
  });

  it('/v1/detect reports neither, unless the classes protect every URL', () => {
    const selection = { useRegex: true, ner: NER, threshold: 0.5, withValues: true };
    expect(selectDetections(TEXT, detectAll(TEXT), selection).entities.map((entity) => entity.value)).toEqual(['Jane Doe']);
    const all = selectDetections(TEXT, detectAll(TEXT), { ...selection, nonIdentifying: NONE_RELEASED });
    expect(all.entities.map((entity) => entity.value)).toEqual([url, 'Jane Doe']);
  });
});
