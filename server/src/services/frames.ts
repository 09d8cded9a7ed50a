// Cutting a finished text transform into /v1/transform/stream frames (decisions.md 8): segments
// of the input that never split an entity; each frame's safe text is its input slice with the
// entities replaced, so the frames concatenate to `safe_text`. Works from the response (code-point
// spans), so it serves inline and worker-thread transforms alike (the worker cuts a large one).
import { splitSegments } from '../domain/stream/index.js';
import { codePointsToUtf16 } from '../domain/text/codepoints.js';
import type { TransformResponse } from './transform.js';

type ResponseEntity = TransformResponse['entities'][number];

export interface TransformStreamFrame {
  index: number;
  safe_text: string;
  entities: ResponseEntity[];
}

export function transformFrames(input: string, entities: readonly ResponseEntity[], maxLength?: number): TransformStreamFrame[] {
  const flat: number[] = [];
  for (const entity of entities) flat.push(entity.span.start, entity.span.end);
  const units = codePointsToUtf16(input, flat);
  const located = entities
    .map((entity, position) => ({ entity, start: units[position * 2]!, end: units[position * 2 + 1]! }))
    .sort((a, b) => a.start - b.start);
  const segments = splitSegments(input, { avoid: located, ...(maxLength !== undefined ? { maxLength } : {}) });
  const frames: TransformStreamFrame[] = [];
  let next = 0;
  for (const [index, segment] of segments.entries()) {
    const parts: string[] = [];
    const inside: ResponseEntity[] = [];
    let cursor = segment.start;
    while (next < located.length && located[next]!.start < segment.end) {
      const item = located[next]!;
      parts.push(input.slice(cursor, item.start), item.entity.token);
      cursor = item.end;
      inside.push(item.entity);
      next += 1;
    }
    parts.push(input.slice(cursor, segment.end));
    frames.push({ index, safe_text: parts.join(''), entities: inside });
  }
  return frames;
}
