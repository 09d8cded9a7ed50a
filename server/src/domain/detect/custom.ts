// Caller and policy custom patterns (interface.md 2.12), compiled with the linear-time engine
// (linear-regex.ts: RE2 semantics, pure JavaScript) so matching is linear in the text whatever
// the pattern (no catastrophic backtracking; backreferences and lookaround are rejected at compile
// time). Errors name the field, never the pattern or a sample: the engine's own messages quote
// the pattern, so they are mapped to fixed texts there.
import { VeilError } from '@veil/common';
import { CUSTOM_NAME_PATTERN, CUSTOM_TYPE_PREFIX } from '../catalog.js';
import type { CustomPattern, Detection } from '../types.js';
import { isAlnumCode } from './chars.js';
import { LinearRegex, PatternSyntaxError } from './linear-regex.js';

export const MAX_CUSTOM_PATTERNS = 32;
export const MAX_PATTERN_LENGTH = 1000;
export const MAX_CONTEXT_WORDS = 20;
export const MAX_CONTEXT_WORD_LENGTH = 64;
export const DEFAULT_CUSTOM_CONFIDENCE = 0.8;
const CONTEXT_BOOST = 0.15;
const CONTEXT_DISTANCE = 60;

/** A compiled custom pattern. `type` is `custom:<name>`. */
export interface CompiledPattern {
  readonly type: string;
  readonly confidence: number;
  /** Opaque to callers. */
  readonly regex: LinearRegex;
  /** Lowercased context words. */
  readonly contextWords: readonly string[];
  /** All context words as one case-insensitive literal alternation (undefined without words). */
  readonly contextFinder: LinearRegex | undefined;
}

const REGEX_SPECIALS = /[\\^$.*+?()[\]{}|]/g;

function contextFinderFor(words: readonly string[]): LinearRegex | undefined {
  if (words.length === 0) return undefined;
  // Longest first so "social security" is preferred over "social" at the same position.
  const alternatives = [...words].sort((a, b) => b.length - a.length).map((word) => word.replace(REGEX_SPECIALS, '\\$&'));
  return LinearRegex.compile(`(?:${alternatives.join('|')})`, { ignoreCase: true });
}

/** Outcome of checking one pattern; `field` is relative (`pattern`, `entity_type`, ...). */
type CheckResult = { ok: true; compiled: CompiledPattern } | { ok: false; field: string; message: string };

function fail(field: string, message: string): CheckResult {
  return { ok: false, field, message };
}

/** Validate and compile one pattern (never throws). */
export function checkPattern(input: unknown): CheckResult {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return fail('', 'must be an object');
  const raw = input as Record<string, unknown>;
  const entityType = raw.entity_type;
  if (typeof entityType !== 'string') return fail('entity_type', 'must be a string');
  const name = entityType.startsWith(CUSTOM_TYPE_PREFIX) ? entityType.slice(CUSTOM_TYPE_PREFIX.length) : entityType;
  const nameError = entityNameError(name);
  if (nameError !== undefined) return fail('entity_type', nameError);
  const pattern = raw.pattern;
  if (typeof pattern !== 'string') return fail('pattern', 'must be a string');
  if (pattern.length === 0) return fail('pattern', 'must not be empty');
  if (pattern.length > MAX_PATTERN_LENGTH) return fail('pattern', `must be at most ${MAX_PATTERN_LENGTH} characters`);
  let confidence = DEFAULT_CUSTOM_CONFIDENCE;
  if (raw.confidence !== undefined) {
    if (typeof raw.confidence !== 'number' || !Number.isFinite(raw.confidence) || raw.confidence < 0 || raw.confidence > 1) {
      return fail('confidence', 'must be a number between 0 and 1');
    }
    confidence = raw.confidence;
  }
  const contextWords: string[] = [];
  if (raw.context_words !== undefined) {
    if (!Array.isArray(raw.context_words)) return fail('context_words', 'must be an array of strings');
    const words = raw.context_words as unknown[];
    if (words.length > MAX_CONTEXT_WORDS) return fail('context_words', `must have at most ${MAX_CONTEXT_WORDS} words`);
    for (let k = 0; k < words.length; k++) {
      const word = words[k];
      if (typeof word !== 'string') return fail(`context_words[${k}]`, 'must be a string');
      const trimmed = word.trim();
      if (trimmed.length === 0) return fail(`context_words[${k}]`, 'must not be empty');
      if (word.length > MAX_CONTEXT_WORD_LENGTH) return fail(`context_words[${k}]`, `must be at most ${MAX_CONTEXT_WORD_LENGTH} characters`);
      contextWords.push(trimmed.toLowerCase());
    }
  }
  let regex: LinearRegex;
  try {
    regex = LinearRegex.compile(pattern);
  } catch (error) {
    return fail('pattern', error instanceof PatternSyntaxError ? error.reason : 'invalid regular expression');
  }
  let contextFinder: LinearRegex | undefined;
  try {
    contextFinder = contextFinderFor(contextWords);
  } catch {
    return fail('context_words', 'could not be compiled');
  }
  return { ok: true, compiled: { type: `${CUSTOM_TYPE_PREFIX}${name}`, confidence, regex, contextWords, contextFinder } };
}

/** Why a bare custom entity name is invalid, or undefined when it is valid. Never echoes it. */
export function entityNameError(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > 64) return 'must be at most 64 characters';
  if (name !== name.toLowerCase()) return 'must be lowercase';
  if (!CUSTOM_NAME_PATTERN.test(name)) return 'must start with a letter and contain only a-z, 0-9 and _';
  return undefined;
}

export function compilePatterns(patterns: readonly CustomPattern[], fieldPrefix: string): CompiledPattern[] {
  if (!Array.isArray(patterns)) throw new VeilError('VEIL_VALIDATION_FAILED', `${fieldPrefix}: must be an array`);
  if (patterns.length > MAX_CUSTOM_PATTERNS) {
    throw new VeilError('VEIL_VALIDATION_FAILED', `${fieldPrefix}: at most ${MAX_CUSTOM_PATTERNS} patterns are allowed`);
  }
  const compiled: CompiledPattern[] = [];
  patterns.forEach((pattern, index) => {
    const result = checkPattern(pattern);
    if (!result.ok) {
      const field = result.field === '' ? `${fieldPrefix}[${index}]` : `${fieldPrefix}[${index}].${result.field}`;
      throw new VeilError('VEIL_VALIDATION_FAILED', `${field}: ${result.message}`);
    }
    compiled.push(result.compiled);
  });
  return compiled;
}

interface Occurrences {
  readonly starts: number[];
  readonly ends: number[];
}

/** Whole-word, case-insensitive occurrences of the context words, in text order. */
function contextOccurrences(text: string, finder: LinearRegex): Occurrences {
  const starts: number[] = [];
  const ends: number[] = [];
  for (const { start, end } of finder.matches(text)) {
    if (!isAlnumCode(start > 0 ? text.charCodeAt(start - 1) : -1) && !isAlnumCode(end < text.length ? text.charCodeAt(end) : -1)) {
      starts.push(start);
      ends.push(end);
    }
  }
  return { starts, ends };
}

/** First index in sorted `values` with values[index] >= target. */
function lowerBound(values: readonly number[], target: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (values[mid]! < target) low = mid + 1;
    else high = mid;
  }
  return low;
}

function nearContext(occurrences: Occurrences, start: number, end: number): boolean {
  // A word that ends within CONTEXT_DISTANCE before the match, or starts within it after.
  const { starts, ends } = occurrences;
  const from = lowerBound(starts, start - CONTEXT_DISTANCE - MAX_CONTEXT_WORD_LENGTH);
  for (let k = from; k < starts.length && starts[k]! <= end + CONTEXT_DISTANCE; k++) {
    const wordStart = starts[k]!;
    const wordEnd = ends[k]!;
    if (wordEnd <= start && wordEnd >= start - CONTEXT_DISTANCE) return true;
    if (wordStart >= end) return true;
  }
  return false;
}

/** Run compiled patterns over `text`; matches may overlap each other and built-in detections. */
export function runCustomPatterns(text: string, patterns: readonly CompiledPattern[], out: Detection[]): void {
  for (const pattern of patterns) {
    let occurrences: Occurrences | undefined;
    // Empty matches are never reported (they would be zero-length detections).
    for (const { start, end } of pattern.regex.matches(text)) {
      let confidence = pattern.confidence;
      if (pattern.contextFinder !== undefined) {
        occurrences ??= contextOccurrences(text, pattern.contextFinder);
        if (nearContext(occurrences, start, end)) confidence = Math.min(1, Math.round((confidence + CONTEXT_BOOST) * 1000) / 1000);
      }
      out.push({ type: pattern.type, start, end, value: text.slice(start, end), confidence, detector: 'custom_pattern' });
    }
  }
}
