// Frames of /v1/transform/stream (decisions.md section 8): the input is tokenized once, whole
// (so a policy deny refuses the request before any frame is sent, and every value gets the same
// token it would get in /v1/transform), then cut on sentence and paragraph boundaries that
// never fall inside a detection. Each frame carries its slice of the safe text and the entities
// found in that slice; the frames' safe texts concatenate to the whole safe text.
import { tokenizeText, type TokenizeInput, type TokenizeResult, type TokenizedEntity } from '../tokenize.js';
import { splitSegments, type SegmentOptions } from './segments.js';

export interface TransformFrame {
  readonly index: number;
  /** UTF-16 offsets of the frame's slice of the input (the route converts to code points). */
  readonly start: number;
  readonly end: number;
  readonly safeText: string;
  /** Entities inside this slice; spans stay relative to the whole input. */
  readonly entities: readonly TokenizedEntity[];
}

export interface FramedTransform {
  readonly result: TokenizeResult;
  readonly frames: readonly TransformFrame[];
}

/**
 * Tokenize `input` (tokenizeText's contract: throws VEIL_POLICY_DENIED before allocating) and
 * cut the result into frames. `maxLength` bounds a frame's input slice (see splitSegments).
 */
export function tokenizeIntoFrames(input: TokenizeInput, options: Pick<SegmentOptions, 'maxLength'> = {}): FramedTransform {
  const result = tokenizeText(input);
  const segments = splitSegments(input.text, { avoid: input.detections, ...options });
  const frames: TransformFrame[] = [];
  let entityIndex = 0;
  for (const [index, segment] of segments.entries()) {
    const parts: string[] = [];
    const entities: TokenizedEntity[] = [];
    let cursor = segment.start;
    while (entityIndex < result.entities.length && result.entities[entityIndex]!.start < segment.end) {
      const entity = result.entities[entityIndex]!;
      parts.push(input.text.slice(cursor, entity.start), entity.token);
      cursor = entity.end;
      entities.push(entity);
      entityIndex += 1;
    }
    parts.push(input.text.slice(cursor, segment.end));
    frames.push({ index, start: segment.start, end: segment.end, safeText: parts.join(''), entities });
  }
  return { result, frames };
}
