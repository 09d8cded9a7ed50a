// Detection module: the built-in detector (one linear pass, see scan.ts), caller/policy custom
// patterns (linear-time engine, see custom.ts) and overlap resolution, behind the small API the
// transform, detect and validation routes use. Detection runs on the folded view of the text
// (domain/text/fold.ts: full-width forms, digits of every script, Unicode dashes, invisible
// characters), and every span is mapped back to the original text, so a value typed with a CJK
// input method or an Arabic keyboard is found where it stands. Pure: no I/O, no framework.
// Offsets are UTF-16 indices; routes convert spans to code points with domain/text/codepoints.ts.
import type { CustomPattern, Detection } from '../types.js';
import { CUSTOM_TYPE_PREFIX } from '../catalog.js';
import { utf16ToCodePoints } from '../text/codepoints.js';
import { foldWithOffsets } from '../text/fold.js';
import { checkPattern, compilePatterns, entityNameError, runCustomPatterns, type CompiledPattern as InternalPattern } from './custom.js';
import { resolveOverlaps } from './overlap.js';
import { BUILTIN_TYPES, scanBuiltin } from './scan.js';
import { addMarkupJoined } from './markup-joined.js';
import { addQpJoined } from './qp-joined.js';
import { addLookalikeWallets } from './lookalike-wallet.js';

/** A compiled custom pattern; `type` is `custom:<name>`. Other fields are internal. */
export interface CompiledPattern {
  readonly type: string;
  readonly confidence: number;
}

export interface DetectOptions {
  readonly customPatterns?: readonly CompiledPattern[];
  /** ISO 639-1 hint (`en`, `de`, `pt-BR`): sets the region for national phone formats. */
  readonly language?: string;
  /**
   * Region (ISO 3166-1 alpha-2) for national phone formats when the language names none of its
   * own (`en`, or no hint): `detector.default_region`, `US` when absent.
   */
  readonly defaultRegion?: string;
}

/** True when text[start, end) is only `*` and `~`. */
function onlyStars(text: string, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (text.charCodeAt(k) !== 42 && text.charCodeAt(k) !== 126) return false;
  return true;
}

/** `start` moved back to `gapStart` when the dropped characters between are emphasis marks. */
function starsBefore(text: string, start: number, gapStart: number): number {
  return gapStart < start && onlyStars(text, gapStart, start) ? gapStart : start;
}

/** `end` moved on to `gapEnd` when the dropped characters between are emphasis marks. */
function starsAfter(text: string, end: number, gapEnd: number): number {
  return gapEnd > end && onlyStars(text, end, gapEnd) ? gapEnd : end;
}

/** Types that builtin_regex can emit. */
export const BUILTIN_REGEX_TYPES: readonly string[] = BUILTIN_TYPES;

function isInternal(pattern: CompiledPattern): pattern is InternalPattern {
  return 'regex' in pattern && 'contextFinder' in pattern;
}

/**
 * Scan steps per character of text for these patterns: the instructions of their programs (and of
 * their context-word finders). A scan of a text costs up to its length times this.
 */
export function patternScanCost(patterns: readonly CompiledPattern[]): number {
  let instructions = 0;
  for (const pattern of patterns) {
    if (isInternal(pattern)) instructions += pattern.regex.programSize + (pattern.contextFinder?.programSize ?? 0);
  }
  return instructions;
}

/**
 * Built-in and custom detections, sorted by start and non-overlapping (see overlap.ts). Offsets
 * are UTF-16 indices into `text`; `value === text.slice(start, end)`. Detection runs on the
 * folded view; a span that begins or ends inside the multi-character fold of one character
 * covers that whole character. Custom patterns run on the folded view and, when it differs, on
 * the original too (a pattern may be written for the original characters).
 */
export function detectAll(text: string, options?: DetectOptions): Detection[] {
  const view = foldWithOffsets(text);
  const candidates = scanBuiltin(view.text, options?.language, options?.defaultRegion);
  // Values split by markup, or with their punctuation quoted-printable escaped, read with the markup
  // taken out or the escapes decoded, and Ethereum addresses with look-alike letters (markup-joined.ts,
  // qp-joined.ts, lookalike-wallet.ts; session 14, wave13/evade).
  addMarkupJoined(text, view, candidates, (reading) => scanBuiltin(reading, options?.language, options?.defaultRegion, false));
  addQpJoined(text, view, candidates, (reading) => scanBuiltin(reading, options?.language, options?.defaultRegion, false));
  addLookalikeWallets(view.text, candidates);
  const custom = options?.customPatterns;
  let compiled: InternalPattern[] | undefined;
  if (custom !== undefined && custom.length > 0) {
    compiled = [];
    for (const pattern of custom) {
      // Only objects made by compileCustomPatterns carry a regex; anything else is a caller bug.
      if (!isInternal(pattern)) throw new TypeError('customPatterns must come from compileCustomPatterns');
      compiled.push(pattern);
    }
    runCustomPatterns(view.text, compiled, candidates);
  }
  if (view.identity) return resolveOverlaps(candidates);
  // Overlaps are resolved where the detectors saw the text, so a cut trims the same characters
  // the folded text shows; the survivors are then mapped to the original (widened to whole
  // characters) and resolved again with the caller's patterns matched on the original.
  const mapped: Detection[] = resolveOverlaps(candidates).map((candidate) => {
    const span = view.originalSpan(candidate.start, candidate.end);
    // A password is any string: `*` and `~` the fold dropped as emphasis right against it may be
    // its own characters (`pw=Tr0ub4dor**`), so its token takes them too.
    if (candidate.type === 'password') {
      if (candidate.start > 0) span.start = starsBefore(text, span.start, view.originalSpan(candidate.start - 1, candidate.start).end);
      if (candidate.end < view.text.length) span.end = starsAfter(text, span.end, view.originalSpan(candidate.end, candidate.end + 1).start);
    }
    return { ...candidate, start: span.start, end: span.end, value: text.slice(span.start, span.end) };
  });
  if (compiled !== undefined) runCustomPatterns(text, compiled, mapped);
  return resolveOverlaps(mapped);
}

/**
 * Compile caller/policy custom patterns for the linear-time engine. Throws
 * VeilError('VEIL_VALIDATION_FAILED') naming the field (`custom_patterns[2].pattern`), never the
 * pattern text or a sample value.
 */
export function compileCustomPatterns(patterns: readonly CustomPattern[], fieldPrefix = 'custom_patterns'): CompiledPattern[] {
  return compilePatterns(patterns, fieldPrefix);
}

const MAX_SAMPLE_MATCHES = 100;

/**
 * For POST /v1/patterns. `pattern` is a custom-pattern object ({entity_type, pattern, confidence?,
 * context_words?}) or a bare regex string. Never throws; errors name the field only. Match spans
 * in `sample` are code points, end exclusive.
 */
export function validateCustomPattern(
  pattern: unknown,
  sample?: string,
): { valid: boolean; error?: string; matches?: { start: number; end: number }[] } {
  try {
    const input: unknown = typeof pattern === 'string' ? { entity_type: 'pattern', pattern } : pattern;
    const result = checkPattern(input);
    if (!result.ok) return { valid: false, error: `${result.field === '' ? 'pattern' : result.field}: ${result.message}` };
    if (sample === undefined) return { valid: true };
    if (typeof sample !== 'string') return { valid: false, error: 'sample: must be a string' };
    const found: Detection[] = [];
    runCustomPatterns(sample, [result.compiled], found);
    const limited = found.slice(0, MAX_SAMPLE_MATCHES);
    const offsets: number[] = [];
    for (const match of limited) offsets.push(match.start, match.end);
    const points = utf16ToCodePoints(sample, offsets);
    const matches = limited.map((_, index) => ({ start: points[index * 2]!, end: points[index * 2 + 1]! }));
    return { valid: true, matches };
  } catch {
    return { valid: false, error: 'pattern: could not be validated' };
  }
}

/**
 * For POST /v1/entity-types: a custom entity-type name (`ticket_id`, or `custom:ticket_id`).
 * Custom names live under `custom:` so they never collide with built-in types. Never echoes
 * the name.
 */
export function validateEntityTypeName(name: unknown): { valid: boolean; type?: string; error?: string } {
  if (typeof name !== 'string') return { valid: false, error: 'name: must be a string' };
  const bare = name.startsWith(CUSTOM_TYPE_PREFIX) ? name.slice(CUSTOM_TYPE_PREFIX.length) : name;
  const error = entityNameError(bare);
  if (error !== undefined) return { valid: false, error: `name: ${error}` };
  return { valid: true, type: `${CUSTOM_TYPE_PREFIX}${bare}` };
}
