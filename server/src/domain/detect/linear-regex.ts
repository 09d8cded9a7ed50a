// The linear-time regular-expression engine for patterns that callers and policies supply
// (custom_patterns, rule value_pattern): re2js, a pure-JavaScript port of RE2 (no native addon, no
// node flag, works the same in worker threads). Matching is an automaton simulation, so time is
// linear in the text for any pattern (no catastrophic backtracking); backreferences and
// lookaround do not exist in its syntax and are rejected at compile time. Offsets are UTF-16
// indices of the JavaScript string (re2js reads the string as UTF-16, no UTF-8 copy).
// Why not V8's own linear engine (`--enable-experimental-regexp-engine` and the `l` flag): it
// refuses the `u` and `i` flags (so no \p{..}, no code-point semantics, no case-insensitive
// match) and repetitions above a small bound, and needs a process flag.
// Compile errors are classified into fixed descriptions here: the engine's messages quote the
// pattern, so they never leave this module.
import { RE2JS } from 're2js';

/**
 * Largest compiled program accepted (re2js instructions, about one per literal character, class
 * or repetition copy). Matching costs up to (text length x program size) steps, so this bounds
 * the constant of the linear time; it plays the part of RE2's max_mem ("pattern too large"). A
 * literal of the longest pattern allowed (1024 characters) fits; counted repetitions that expand
 * beyond that do not.
 */
export const MAX_PROGRAM_SIZE = 1100;

/** A pattern the engine refused; `reason` is a fixed text that never quotes the pattern. */
export class PatternSyntaxError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'PatternSyntaxError';
  }
}

/** One match; `end > start` (empty matches are not reported). */
export interface Match {
  readonly start: number;
  readonly end: number;
}

const UNSUPPORTED = /invalid or unsupported Perl syntax|invalid escape sequence: `\\[1-9k]|invalid named capture: `\(\?<[=!]/;
const TOO_COMPLEX = /invalid repeat count|expression too large|expression nests too deeply/;

function classify(error: unknown): PatternSyntaxError {
  const message = error instanceof Error ? error.message : '';
  if (UNSUPPORTED.test(message)) return new PatternSyntaxError('unsupported syntax (backreferences and lookaround are not supported)');
  if (TOO_COMPLEX.test(message)) return new PatternSyntaxError('pattern is too complex or has an invalid repetition');
  return new PatternSyntaxError('invalid regular expression');
}

const HEX4 = /^[0-9a-fA-F]{4}$/;

/** JavaScript's long General_Category names (and L&'s alias) to the short ones RE2 knows. */
const CATEGORY_ALIASES: Readonly<Record<string, string>> = {
  Letter: 'L', Cased_Letter: 'L', LC: 'L', Uppercase_Letter: 'Lu', Lowercase_Letter: 'Ll', Titlecase_Letter: 'Lt',
  Modifier_Letter: 'Lm', Other_Letter: 'Lo', Mark: 'M', Combining_Mark: 'M', Nonspacing_Mark: 'Mn', Spacing_Mark: 'Mc',
  Enclosing_Mark: 'Me', Number: 'N', Decimal_Number: 'Nd', digit: 'Nd', Letter_Number: 'Nl', Other_Number: 'No',
  Punctuation: 'P', punct: 'P', Connector_Punctuation: 'Pc', Dash_Punctuation: 'Pd', Open_Punctuation: 'Ps',
  Close_Punctuation: 'Pe', Initial_Punctuation: 'Pi', Final_Punctuation: 'Pf', Other_Punctuation: 'Po', Symbol: 'S',
  Math_Symbol: 'Sm', Currency_Symbol: 'Sc', Modifier_Symbol: 'Sk', Other_Symbol: 'So', Separator: 'Z',
  Space_Separator: 'Zs', Line_Separator: 'Zl', Paragraph_Separator: 'Zp', Other: 'C', Control: 'Cc', cntrl: 'Cc',
  Format: 'Cf', Surrogate: 'Cs', Private_Use: 'Co', Unassigned: 'Cn',
};

/**
 * Rewrite the JavaScript escapes RE2 spells differently, so patterns written for JavaScript (as
 * the policy validator checks them) mean the same here: \uXXXX (a surrogate pair of them is one
 * code point), \u{X..}, \cX, \p{Script=X} / \p{sc=X} / \p{General_Category=X} / \p{gc=X},
 * and the long category names (\p{Letter} is \p{L}).
 * Everything else passes through unchanged for the engine to accept or reject.
 */
export function translateJavaScriptSyntax(source: string): string {
  let out = '';
  for (let index = 0; index < source.length; index++) {
    const char = source[index]!;
    if (char !== '\\' || index + 1 >= source.length) {
      out += char;
      continue;
    }
    const next = source[index + 1]!;
    if (next === 'u') {
      const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(source.slice(index + 2, index + 10));
      if (braced !== null) {
        out += `\\x{${braced[1]!}}`;
        index += 1 + braced[0].length;
        continue;
      }
      const hex = source.slice(index + 2, index + 6);
      if (HEX4.test(hex)) {
        let codePoint = Number.parseInt(hex, 16);
        const low = source.slice(index + 8, index + 12);
        // A \uD8xx\uDCxx pair spells one astral code point.
        if (codePoint >= 0xd800 && codePoint <= 0xdbff && source.slice(index + 6, index + 8) === '\\u' && HEX4.test(low)) {
          const lowValue = Number.parseInt(low, 16);
          if (lowValue >= 0xdc00 && lowValue <= 0xdfff) {
            codePoint = 0x10000 + ((codePoint - 0xd800) << 10) + (lowValue - 0xdc00);
            index += 6;
          }
        }
        out += `\\x{${codePoint.toString(16)}}`;
        index += 5;
        continue;
      }
    } else if (next === 'c' && /^[A-Za-z]$/.test(source[index + 2] ?? '')) {
      out += `\\x{${(source.charCodeAt(index + 2) % 32).toString(16)}}`;
      index += 2;
      continue;
    } else if (next === 'p' || next === 'P') {
      const property = /^\{(?:(?:Script|sc|General_Category|gc)=)?([A-Za-z_]+)\}/.exec(source.slice(index + 2, index + 64));
      if (property !== null) {
        const name = property[1]!;
        out += `\\${next}{${CATEGORY_ALIASES[name] ?? name}}`;
        index += 1 + property[0].length;
        continue;
      }
    }
    // Any other escape: copy it whole so the escaped character is not re-read as syntax.
    out += char + next;
    index += 1;
  }
  return out;
}

/**
 * Compiled patterns by source and flags, most recently used last. Request custom_patterns are
 * compiled per request and callers send the same few again and again; compiling a Unicode class
 * costs milliseconds, matching a 1 KB body microseconds. A compiled pattern is immutable (each
 * scan makes its own matcher), so sharing one between requests is safe.
 */
const cache = new Map<string, LinearRegex>();
export const COMPILE_CACHE_SIZE = 256;

/** A compiled linear-time pattern. */
export class LinearRegex {
  private constructor(private readonly compiled: RE2JS) {}

  /** Compile `source` (JavaScript-style syntax without lookaround or backreferences); throws PatternSyntaxError. */
  static compile(source: string, options: { readonly ignoreCase?: boolean } = {}): LinearRegex {
    const ignoreCase = options.ignoreCase === true;
    const key = `${ignoreCase ? 'i' : '-'}${source}`;
    const cached = cache.get(key);
    if (cached !== undefined) {
      cache.delete(key);
      cache.set(key, cached);
      return cached;
    }
    let compiled: RE2JS;
    try {
      compiled = RE2JS.compile(translateJavaScriptSyntax(source), ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
    } catch (error) {
      throw classify(error);
    }
    if (compiled.programSize() > MAX_PROGRAM_SIZE) throw new PatternSyntaxError('pattern is too complex or has an invalid repetition');
    const regex = new LinearRegex(compiled);
    cache.set(key, regex);
    if (cache.size > COMPILE_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    return regex;
  }

  /** Whether the pattern matches anywhere in `text` (the engine's DFA: no positions needed). */
  test(text: string): boolean {
    return this.compiled.test(text);
  }

  /** Every non-empty, non-overlapping match in `text`, leftmost first, in text order. */
  *matches(text: string): Generator<Match> {
    // Most texts hold no match: the DFA answers that without the position-tracking simulation.
    if (!this.compiled.test(text)) return;
    const matcher = this.compiled.matcher(text);
    while (matcher.find()) {
      const start = matcher.start();
      const end = matcher.end();
      if (end > start) yield { start, end };
    }
  }
}
