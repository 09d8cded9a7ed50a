// Checks for regular expressions written in policies (rule value_pattern, custom_patterns).
// Policies are compiled by the server with a linear-time RE2 engine (re2js: no catastrophic
// backtracking), so the accepted syntax is the intersection of JavaScript (with the `u` flag) and
// RE2: no lookaround and no backreferences. A leading `(?i)` makes the pattern case-insensitive.
// The validator also runs where the engine is not loaded (the operator), hence this syntactic check.

/** Longest pattern a policy may contain. */
export const MAX_PATTERN_LENGTH = 1024;

export interface PatternSource {
  /** The pattern without its leading `(?i)`. */
  readonly source: string;
  readonly ignoreCase: boolean;
}

/** Split a policy pattern into its JavaScript source and flags. */
export function parsePatternSource(pattern: string): PatternSource {
  if (pattern.startsWith('(?i)')) return { source: pattern.slice(4), ignoreCase: true };
  return { source: pattern, ignoreCase: false };
}

/** Flags to compile a policy pattern with as a JavaScript RegExp (the validator's syntax check). */
export function patternFlags(pattern: PatternSource): string {
  return pattern.ignoreCase ? 'iu' : 'u';
}

/** Scan for constructs a linear-time engine cannot run; returns a message or undefined. */
function unsupportedConstruct(source: string): string | undefined {
  let inClass = false;
  for (let index = 0; index < source.length; index++) {
    const char = source[index];
    if (char === '\\') {
      const next = source[index + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) return 'backreferences are not supported';
      if (!inClass && next === 'k' && source[index + 2] === '<') return 'backreferences are not supported';
      index++;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      continue;
    }
    if (char === '[') {
      inClass = true;
      continue;
    }
    if (char === '(' && source[index + 1] === '?') {
      const rest = source.slice(index + 2, index + 4);
      if (rest.startsWith('=') || rest.startsWith('!') || rest === '<=' || rest === '<!') {
        return 'lookahead and lookbehind are not supported';
      }
    }
  }
  return undefined;
}

/**
 * Validate a policy pattern; returns a problem description, or undefined when it is usable.
 * Detection patterns (`allowEmptyMatch` false) must not match the empty string, which would
 * yield zero-length detections.
 */
export function checkPattern(pattern: string, options: { allowEmptyMatch?: boolean } = {}): string | undefined {
  if (pattern.length === 0) return 'must not be empty';
  if (pattern.length > MAX_PATTERN_LENGTH) return `must be at most ${MAX_PATTERN_LENGTH} characters`;
  const parsed = parsePatternSource(pattern);
  if (parsed.source.length === 0) return 'must not be empty';
  const unsupported = unsupportedConstruct(parsed.source);
  if (unsupported !== undefined) return unsupported;
  try {
    new RegExp(parsed.source, patternFlags(parsed));
  } catch {
    return 'is not a valid regular expression';
  }
  if (options.allowEmptyMatch !== true && new RegExp(parsed.source, patternFlags(parsed)).test('')) return 'must not match the empty string';
  return undefined;
}
