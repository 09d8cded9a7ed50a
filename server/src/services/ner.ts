// The NER detector seam: which detectors a request runs (request `detectors`, else
// detector.mode), calling the sidecar, and what happens when it fails. `advanced` (or a request
// for python_ner alone) needs NER and fails with VEIL_DETECTION_FAILED; `both` falls back to the
// regex detectors with a warning and counts the degradation. A policy whose
// detection.required_for names an NER-only type never passes silently without NER.
import { VeilError, type Policy } from '@veil/common';
import type { AppDeps } from '../deps.js';
import { codePointsToUtf16 } from '../domain/text/codepoints.js';
import type { Detection } from '../domain/types.js';
import { NER_DEGRADED_WARNING } from './transform.js';

export type DetectorName = 'builtin_regex' | 'python_ner';
export type DetectorModeLabel = 'builtin_regex' | 'builtin_and_ner' | 'python_ner';

/** Types only the NER detector finds. */
export const NER_ONLY_TYPES: ReadonlySet<string> = new Set(['person', 'organization', 'location']);

export const NER_UNAVAILABLE_WARNING =
  'degraded detection coverage: the NER sidecar did not answer, so person, organization and location names may pass through undetected';

/**
 * Largest piece sent to the sidecar in one call, in UTF-16 units (at most as many code points),
 * under the sidecar's default VEIL_NER_MAX_TEXT_CHARS of 100,000.
 */
export const NER_PIECE_CHARS = 90_000;

/**
 * Cut `text` into pieces of at most `limit` UTF-16 units, at the last paragraph break, newline
 * or space before the limit (a hard cut only when a piece has no whitespace at all, never
 * inside a surrogate pair), so names are rarely split across pieces.
 */
export function splitForNer(text: string, limit: number): { text: string; offset: number }[] {
  if (text.length === 0) return [];
  if (text.length <= limit) return [{ text, offset: 0 }];
  const pieces: { text: string; offset: number }[] = [];
  let offset = 0;
  while (text.length - offset > limit) {
    const window = text.slice(offset, offset + limit);
    let cut = window.lastIndexOf('\n\n');
    if (cut < limit / 2) cut = window.lastIndexOf('\n');
    if (cut < limit / 2) cut = window.lastIndexOf(' ');
    if (cut <= 0) {
      cut = limit;
      const code = text.charCodeAt(offset + cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
    }
    pieces.push({ text: text.slice(offset, offset + cut), offset });
    offset += cut;
  }
  pieces.push({ text: text.slice(offset), offset });
  return pieces;
}

export interface DetectorPlan {
  readonly useRegex: boolean;
  /** True when the NER detector answered for this text. */
  readonly nerRan: boolean;
  readonly ner: Detection[];
  readonly detectorMode: DetectorModeLabel;
  readonly warnings: string[];
  /** The detectors that actually ran. */
  readonly used: DetectorName[];
}

function requestedDetectors(deps: AppDeps, requested: readonly DetectorName[] | undefined): DetectorName[] {
  if (requested !== undefined) return [...requested];
  return deps.config.detector.mode === 'builtin' ? ['builtin_regex'] : ['builtin_regex', 'python_ner'];
}

function requiredNerTypes(policy: Policy): string[] {
  const required = policy.detection?.required_for ?? [];
  return required.filter((type) => NER_ONLY_TYPES.has(type));
}

/**
 * Apply the effective policy's detection control to a plan: keep only NER entities of its
 * `ner_labels`, and refuse (fail closed) when it requires NER for a type and NER did not run.
 */
export function applyPolicyDetection(policy: Policy, plan: { readonly nerRan: boolean; readonly ner: readonly Detection[] }): Detection[] {
  const required = requiredNerTypes(policy);
  if (required.length > 0 && !plan.nerRan) {
    throw new VeilError('VEIL_DETECTION_FAILED', `detection failed: the policy requires NER for ${required.join(', ')}`);
  }
  const labels = policy.detection?.ner_labels;
  if (labels === undefined) return [...plan.ner];
  const allowed = new Set(labels);
  return plan.ner.filter((detection) => allowed.has(detection.type));
}

/**
 * Run the NER part of detection for `text` (if any) and decide the regex part. Regex detection
 * itself runs later, inside the (possibly offloaded) transform.
 */
export async function planDetection(
  deps: AppDeps,
  text: string,
  language: string,
  requested: readonly DetectorName[] | undefined,
  /** The policy named in the request, when known: its NER requirements decide fallback. */
  policy: Policy | undefined,
): Promise<DetectorPlan> {
  const detectors = requestedDetectors(deps, requested);
  const useRegex = detectors.includes('builtin_regex');
  const wantsNer = detectors.includes('python_ner');
  const client = deps.ner;
  if (wantsNer && client === undefined) {
    throw new VeilError('VEIL_VALIDATION_FAILED', 'detectors: python_ner is not available (no NER sidecar is configured)');
  }
  if (!wantsNer || client === undefined) {
    return { useRegex, nerRan: false, ner: [], detectorMode: 'builtin_regex', warnings: [NER_DEGRADED_WARNING], used: ['builtin_regex'] };
  }
  const labels = policy?.detection?.ner_labels;
  try {
    const ner: Detection[] = [];
    let degraded = false;
    // The sidecar bounds its input; long texts go in pieces cut at whitespace.
    for (const piece of splitForNer(text, NER_PIECE_CHARS)) {
      const result = await client.detect(piece.text, { language, ...(labels !== undefined ? { labels } : {}) });
      degraded ||= result.degraded;
      const flat: number[] = [];
      for (const entity of result.entities) flat.push(entity.start, entity.end);
      const offsets = codePointsToUtf16(piece.text, flat);
      result.entities.forEach((entity, index) => {
        const start = piece.offset + offsets[index * 2]!;
        const end = piece.offset + offsets[index * 2 + 1]!;
        ner.push({ type: entity.type, start, end, value: text.slice(start, end), confidence: entity.confidence, detector: 'python_ner' });
      });
    }
    const warnings = degraded ? ['degraded NER: the sidecar used a fallback model for this language'] : [];
    if (degraded) deps.countNerDegraded();
    return {
      useRegex,
      nerRan: true,
      ner,
      detectorMode: useRegex ? 'builtin_and_ner' : 'python_ner',
      warnings,
      used: useRegex ? ['builtin_regex', 'python_ner'] : ['python_ner'],
    };
  } catch (error) {
    const nerRequired = deps.config.detector.mode === 'advanced' || !useRegex || (policy !== undefined && requiredNerTypes(policy).length > 0);
    if (nerRequired) throw error;
    deps.countNerDegraded();
    return { useRegex, nerRan: false, ner: [], detectorMode: 'builtin_regex', warnings: [NER_UNAVAILABLE_WARNING], used: ['builtin_regex'] };
  }
}
