// Streaming building block (decisions.md section 8): sentence/paragraph segmentation for the
// transform stream, and the incremental rehydrator for model output streamed token by token.
export { splitSegments, DEFAULT_MAX_SEGMENT } from './segments.js';
export type { Segment, SegmentOptions } from './segments.js';
export { StreamRehydrator, streamCut, MAX_HOLDBACK } from './rehydrator.js';
export type { ReleaseGuard, RestoreFunction, RestoreResult } from './rehydrator.js';
export { tokenizeIntoFrames } from './frames.js';
export type { TransformFrame, FramedTransform } from './frames.js';
