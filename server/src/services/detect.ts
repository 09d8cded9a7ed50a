// What /v1/detect and /v1/batch/detect answer for one text, once the detectors ran: regex and
// NER merged, filtered by threshold and requested types, spans in code points, values only when
// allowed. One pure function for the event loop (small texts) and the worker thread (large
// ones: there the answer is serialized too, so a text with half a million detections never
// crosses back as objects).
import type { Detection } from '../domain/types.js';
import { detectAll, type CompiledPattern } from '../domain/detect/index.js';
import { DEFAULT_NON_IDENTIFYING, dropNonIdentifying, type NonIdentifying } from '../domain/detect/identifying.js';
import { utf16ToCodePoints } from '../domain/text/codepoints.js';
import { mergeDetections } from './transform.js';
import { toJsonText, type JsonText } from './json-text.js';

/** interface.md 4.5: the default confidence threshold. */
export const DEFAULT_THRESHOLD = 0.5;

export interface DetectSelection {
  /** False when the policy or request turned the built-in detectors off (custom patterns stay). */
  readonly useRegex: boolean;
  /** NER detections, already filtered by the policy's detection rules. */
  readonly ner: readonly Detection[];
  readonly threshold: number;
  /** Only these types (absent: all). */
  readonly wanted?: readonly string[] | undefined;
  readonly withValues: boolean;
  /** Classes of addresses and URLs left out as identifying no one (the policy's; absent: the defaults). */
  readonly nonIdentifying?: NonIdentifying | undefined;
}

export interface DetectedEntity {
  type: string;
  value: string;
  span: { start: number; end: number };
  confidence: number;
  detector: string;
}

export interface DetectedEntities {
  readonly entities: DetectedEntity[];
  /** Entities per type, for the audit event and the metrics. */
  readonly typeCounts: Record<string, number>;
}

/** Merge, filter and shape the detections of `text`. */
export function selectDetections(text: string, regex: readonly Detection[], selection: DetectSelection): DetectedEntities {
  const regexKept = selection.useRegex ? regex : regex.filter((detection) => detection.detector === 'custom_pattern');
  const merged = selection.ner.length === 0 ? regexKept : mergeDetections(regexKept, selection.ner);
  // After the merge, as in transforms (services/transform.ts combineDetections).
  const detections = dropNonIdentifying(text, merged, selection.nonIdentifying ?? DEFAULT_NON_IDENTIFYING);
  const wanted = selection.wanted !== undefined ? new Set(selection.wanted) : undefined;
  const kept = detections.filter((detection) => detection.confidence >= selection.threshold && (wanted === undefined || wanted.has(detection.type)));
  const flat: number[] = [];
  for (const detection of kept) flat.push(detection.start, detection.end);
  const points = utf16ToCodePoints(text, flat);
  const typeCounts: Record<string, number> = {};
  const entities = kept.map((detection, index): DetectedEntity => {
    typeCounts[detection.type] = (typeCounts[detection.type] ?? 0) + 1;
    return {
      type: detection.type,
      value: selection.withValues ? detection.value : '',
      span: { start: points[index * 2]!, end: points[index * 2 + 1]! },
      confidence: detection.confidence,
      detector: detection.detector,
    };
  });
  return { entities, typeCounts };
}

/** The worker's half: detect and select, then serialize the entity list. */
export function detectSerialized(
  text: string,
  options: { readonly language?: string | undefined; readonly defaultRegion: string; readonly patterns: readonly CompiledPattern[] },
  selection: DetectSelection,
): { entitiesJson: JsonText; count: number; typeCounts: Record<string, number> } {
  const regex = detectAll(text, { customPatterns: options.patterns, defaultRegion: options.defaultRegion, ...(options.language !== undefined ? { language: options.language } : {}) });
  const { entities, typeCounts } = selectDetections(text, regex, selection);
  return { entitiesJson: toJsonText(JSON.stringify(entities)), count: entities.length, typeCounts };
}
