// The one strict token grammar (decisions.md section 3, threats.md 1, 5, 6): render a token,
// parse one, and scan model output for token candidates in a single left-to-right pass.
//
//   token  = "{{" type ":" id ":" cap "}}"
//   type   = name | "custom:" name          name = [a-z][a-z0-9_]{0,63}, bare "custom" excluded
//   id     = prefix "_" ( [0-9]{3,9} | [0-9a-f]{24} )      prefix = [a-z]{1,16}
//   cap    = [0-9a-f]{12} (with a counter id)  |  [0-9a-f]{32} (with a 24-hex corpus id)
//
// The grammar is ASCII only and pairs the id scheme with its cap length: a random-scheme id
// never carries a 32-hex cap and a corpus id never a 12-hex cap, so no token parses as a mix.
// Token repair (spacing, type case, escaped braces; decisions.md section 9) is a separate, later
// layer and never relaxes id or cap; this module is the strict core it falls back on.
import type { Token } from '../types.js';

/** `custom:` prefix inside the type position (the catalog's CUSTOM_TYPE_PREFIX). */
const CUSTOM_MARK = 'custom:';

/** A built-in type name, or the name part of a custom type. */
const TYPE_NAME = /^[a-z][a-z0-9_]{0,63}$/;
/** Random scheme: `<prefix>_NNN`, zero-padded to 3 digits, at most 9 digits. */
const RANDOM_ID = /^[a-z]{1,16}_[0-9]{3,9}$/;
/** Corpus scheme: `<prefix>_` + 24 lowercase hex. */
const CORPUS_ID = /^[a-z]{1,16}_[0-9a-f]{24}$/;
const RANDOM_CAP = /^[0-9a-f]{12}$/;
const CORPUS_CAP = /^[0-9a-f]{32}$/;

/** Cap lengths of the two schemes. */
export const RANDOM_CAP_LENGTH = 12;
export const CORPUS_CAP_LENGTH = 32;
/** Hex characters of a corpus id suffix. */
export const CORPUS_ID_SUFFIX_LENGTH = 24;
/** Largest counter a random-scheme id can carry (9 digits). */
export const MAX_RANDOM_COUNTER = 999_999_999;

/** Whole-token pattern; the captures are re-checked below for the rules a regex states badly. */
const TOKEN = /^\{\{((?:custom:)?[a-z][a-z0-9_]{0,63}):([a-z]{1,16}_(?:[0-9]{3,9}|[0-9a-f]{24})):([0-9a-f]{12}|[0-9a-f]{32})\}\}$/;

/**
 * Longest inner text (between the braces) a candidate may have. The longest valid token has
 * 146 inner characters (`custom:` + 64 + `:` + 41-char id + `:` + 32-char cap); the bound is a
 * little larger so slightly overlong attempts are still reported as malformed. It also keeps
 * the scan linear: no candidate looks further ahead than this.
 */
export const MAX_CANDIDATE_INNER = 160;

/** Is `type` a type the grammar can carry (`email`, `custom:ticket_id`)? */
export function isValidTokenType(type: string): boolean {
  if (type.startsWith(CUSTOM_MARK)) return TYPE_NAME.test(type.slice(CUSTOM_MARK.length));
  return type !== 'custom' && TYPE_NAME.test(type);
}

export function isRandomId(id: string): boolean {
  return RANDOM_ID.test(id);
}

export function isCorpusId(id: string): boolean {
  return CORPUS_ID.test(id);
}

/** Does `cap` have the length and alphabet that `id`'s scheme requires? */
export function capMatchesScheme(id: string, cap: string): boolean {
  if (RANDOM_ID.test(id)) return RANDOM_CAP.test(cap);
  if (CORPUS_ID.test(id)) return CORPUS_CAP.test(cap);
  return false;
}

/** Is this a token the grammar accepts (the same check parseToken applies)? */
export function isValidToken(token: Token): boolean {
  return isValidTokenType(token.type) && capMatchesScheme(token.id, token.cap);
}

/**
 * Render `{{type:id:cap}}`. Throws on a token the grammar would not parse back: emitting one
 * would hand the model a token that can never be restored, which is a programming error.
 */
export function renderToken(token: Token): string {
  if (!isValidToken(token)) throw new Error('renderToken: token does not match the token grammar');
  return `{{${token.type}:${token.id}:${token.cap}}}`;
}

/** Parse exactly one token spanning the whole string; null for anything else. */
export function parseToken(text: string): Token | null {
  if (text.length > MAX_CANDIDATE_INNER + 4) return null;
  const match = TOKEN.exec(text);
  if (match === null) return null;
  const type = match[1]!;
  const id = match[2]!;
  const cap = match[3]!;
  // The regex alone would read `{{custom:e_001:...}}` as the bare type "custom", and would
  // accept a counter id with a corpus-length cap; both are outside the grammar.
  if (type === 'custom') return null;
  if (!capMatchesScheme(id, cap)) return null;
  return { type, id, cap };
}

export interface TokenCandidate {
  /** UTF-16 index of the first `{`. */
  readonly start: number;
  /** UTF-16 index just past the last `}` (exclusive). */
  readonly end: number;
  /** `text.slice(start, end)`. */
  readonly raw: string;
  /** The parsed token, or null when the candidate is a malformed attempt at one. */
  readonly token: Token | null;
}

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const COLON = 0x3a;

function isAsciiWhitespace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}

function isAsciiLetter(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a);
}

/**
 * One left-to-right scan for token candidates. Rules (the documented "token-ish" boundary):
 *
 * - A candidate is a run of `{` (two or more), an inner text, and a run of `}`. The inner text
 *   is 1 to MAX_CANDIDATE_INNER characters with no brace and no ASCII whitespace, starts with an
 *   ASCII letter and contains a `:`. Anything else is plain text and is not reported: template
 *   syntax such as `{{ user.name }}`, `{{#if x}}` or `{{name}}` stays out of the results.
 * - It is a valid token only when both runs are exactly two braces and the whole candidate
 *   parses strictly. A nested or over-braced form (`{{{x:y:z}}}`, `{{{{...}}}}`) is reported as
 *   malformed as a whole, so a valid token is never carved out of a smuggled wrapper.
 * - Non-ASCII characters do not end a candidate: a token with a zero-width character or a
 *   homoglyph inside is reported as malformed (token null), which prompt security can strip.
 *   Fullwidth braces are not braces and are never candidates.
 *
 * Candidates are returned in order and never overlap. Each position is examined a bounded
 * number of times (the forward look is capped by MAX_CANDIDATE_INNER and the scan resumes where
 * the look stopped), so the scan is linear in the input.
 */
export function findTokens(text: string): TokenCandidate[] {
  const found: TokenCandidate[] = [];
  const length = text.length;
  let from = 0;
  for (;;) {
    const start = text.indexOf('{{', from);
    if (start < 0) break;
    let innerStart = start + 2;
    while (innerStart < length && text.charCodeAt(innerStart) === OPEN) innerStart++;
    const opening = innerStart - start;

    const limit = Math.min(length, innerStart + MAX_CANDIDATE_INNER + 1);
    let cursor = innerStart;
    let sawColon = false;
    let stopped = false;
    while (cursor < limit) {
      const code = text.charCodeAt(cursor);
      if (code === CLOSE) break;
      if (code === OPEN || isAsciiWhitespace(code)) {
        stopped = true;
        break;
      }
      if (code === COLON) sawColon = true;
      cursor++;
    }
    const innerLength = cursor - innerStart;
    if (stopped || cursor >= length || text.charCodeAt(cursor) !== CLOSE || innerLength > MAX_CANDIDATE_INNER) {
      // No candidate starts here. Nothing between innerStart and cursor is a brace, so the next
      // `{{` cannot begin before cursor: resuming there keeps the scan linear.
      from = Math.max(cursor, innerStart);
      continue;
    }
    let end = cursor;
    while (end < length && text.charCodeAt(end) === CLOSE) end++;
    const closing = end - cursor;
    from = end;
    if (innerLength === 0 || !sawColon || !isAsciiLetter(text.charCodeAt(innerStart))) continue;
    const raw = text.slice(start, end);
    const token = opening === 2 && closing === 2 ? parseToken(raw) : null;
    found.push({ start, end, raw, token });
  }
  return found;
}
