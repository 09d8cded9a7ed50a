// Token repair (decisions.md section 9, threats.md 6): find tokens that a model mangled on the
// way back, and return them in the same candidate shape as the strict scan so rehydrate can use
// either. Repair relaxes only the packaging of a token, never its identity:
//
//   relaxed  ASCII whitespace (space, tab, CR, LF) after the opening braces, around each colon
//            and before the closing braces; the case of the TYPE (`EMAIL`, `Credit_Card`);
//            markdown escapes of the braces (`\{\{ ... \}\}`, each brace on its own) and of an
//            underscore inside the type (`credit\_card`); one lost brace on one side
//            (`{email:e_001:cap}}`, `{{email:e_001:cap}`).
//   exact    the id and the cap: same characters, same case, same length, no escapes, no
//            whitespace inside. A cap is never guessed, completed or fuzzily matched.
//   rejected everything threats.md 6 lists: zero-width or other non-ASCII characters anywhere
//            inside, fullwidth braces, homoglyphs (only ASCII letters are case-folded, so the
//            Kelvin sign or a dotted capital I never fold into a type), uppercase or wrong-length
//            hex, over-braced or nested forms (three or more braces on a side), both braces lost
//            on both sides (`{email:e_001:cap}`), whitespace inside the id or the cap.
//
// The scan is one forward pass: every attempt starts at the first brace of a run, looks at most
// MAX_LENIENT_SPAN characters ahead, and on failure the scan resumes where the attempt stopped
// (never past a brace), so the work is linear in the input. Strict results always win: a token
// the strict grammar accepts is reported exactly as findTokens reports it, and a strict
// malformed candidate is replaced only by a repaired token that covers it.
import { findTokens, parseToken, type TokenCandidate } from '../token/index.js';
import { asciiLower, BACKSLASH, braceRun, CLOSE_BRACE, COLON, isPackagingSpace, isPartChar, OPEN_BRACE, UNDERSCORE } from '../token/packaging.js';
import type { Token } from '../types.js';

/**
 * Longest raw text a repaired candidate may span: the longest valid token (150 characters) plus
 * room for markdown escapes and some whitespace. Also the look-ahead bound of every attempt.
 */
export const MAX_LENIENT_SPAN = 256;

interface Attempt {
  /** The repaired token, or null when no repairable token starts here. */
  readonly token: Token | null;
  /** End of the candidate (exclusive) when token is set. */
  readonly end: number;
  /** Where the scan resumes; always past the attempt's start and never past a brace. */
  readonly next: number;
}

function fail(next: number): Attempt {
  return { token: null, end: next, next };
}

/** Try to read one repairable token starting at `start` (the first unit of a brace run). */
function attemptAt(text: string, start: number): Attempt {
  const length = text.length;
  const open = braceRun(text, start, OPEN_BRACE);
  if (open.units > 2) return fail(open.end);
  const limit = Math.min(length, start + MAX_LENIENT_SPAN);
  let cursor = open.end;
  const parts: { readonly text: string; readonly escaped: boolean }[] = [];
  for (;;) {
    while (cursor < limit && isPackagingSpace(text.charCodeAt(cursor))) cursor += 1;
    const partStart = cursor;
    let escaped = false;
    while (cursor < limit) {
      const code = text.charCodeAt(cursor);
      if (isPartChar(code)) {
        cursor += 1;
      } else if (code === BACKSLASH && cursor + 1 < limit && text.charCodeAt(cursor + 1) === UNDERSCORE) {
        escaped = true;
        cursor += 2;
      } else {
        break;
      }
    }
    if (cursor === partStart) return fail(cursor);
    parts.push({ text: text.slice(partStart, cursor), escaped });
    while (cursor < limit && isPackagingSpace(text.charCodeAt(cursor))) cursor += 1;
    if (cursor < limit && text.charCodeAt(cursor) === COLON && parts.length < 4) {
      cursor += 1;
      continue;
    }
    break;
  }
  if (parts.length < 3 || cursor >= limit) return fail(cursor);
  const close = braceRun(text, cursor, CLOSE_BRACE);
  if (close.units === 0) return fail(cursor);
  if (close.units > 2 || open.units + close.units < 3 || close.end > limit) return fail(close.end);

  const cap = parts[parts.length - 1]!;
  const id = parts[parts.length - 2]!;
  // An escape is a type-only repair: the id and the cap must be byte-exact.
  if (cap.escaped || id.escaped) return fail(close.end);
  const type = asciiLower(
    parts
      .slice(0, -2)
      .map((part) => (part.escaped ? part.text.replaceAll('\\_', '_') : part.text))
      .join(':'),
  );
  const token = parseToken(`{{${type}:${id.text}:${cap.text}}}`);
  if (token === null) return fail(close.end);
  return { token, end: close.end, next: close.end };
}

/** Repairable candidates only (valid after repair), in order, non-overlapping. */
function scanRepairable(text: string): TokenCandidate[] {
  const found: TokenCandidate[] = [];
  let from = 0;
  for (;;) {
    const brace = text.indexOf('{', from);
    if (brace < 0) break;
    const start = brace > from && text.charCodeAt(brace - 1) === BACKSLASH ? brace - 1 : brace;
    const attempt = attemptAt(text, start);
    if (attempt.token !== null) {
      found.push({ start, end: attempt.end, raw: text.slice(start, attempt.end), token: attempt.token });
    }
    // The whole brace run was consumed by the attempt, so `next` never lands inside a run.
    from = Math.max(attempt.next, brace + 1);
  }
  return found;
}

function overlaps(a: TokenCandidate, b: TokenCandidate): boolean {
  return a.start < b.end && b.start < a.end;
}

/**
 * Strict scan plus repair. Candidates are in order and never overlap; `raw` is the text as the
 * model wrote it (what rehydrate replaces, or reports when the token does not resolve), and
 * `token` is the repaired token. On text whose tokens are all intact the result equals
 * findTokens(text).
 */
export function findTokensLenient(text: string): TokenCandidate[] {
  const strict = findTokens(text);
  if (text.indexOf('{') < 0) return strict;
  const repaired = scanRepairable(text);
  if (repaired.length === 0) return strict;

  // Repaired candidates that touch a strictly valid token are dropped: strict wins.
  const accepted: TokenCandidate[] = [];
  let strictIndex = 0;
  for (const candidate of repaired) {
    while (strictIndex < strict.length && strict[strictIndex]!.end <= candidate.start) strictIndex += 1;
    let clash = false;
    for (let probe = strictIndex; probe < strict.length && strict[probe]!.start < candidate.end; probe += 1) {
      if (strict[probe]!.token !== null && overlaps(strict[probe]!, candidate)) {
        clash = true;
        break;
      }
    }
    if (!clash) accepted.push(candidate);
  }
  if (accepted.length === 0) return strict;

  // Strict malformed candidates covered by a repair are replaced by it.
  const merged: TokenCandidate[] = [];
  let acceptedIndex = 0;
  for (const candidate of strict) {
    while (acceptedIndex < accepted.length && accepted[acceptedIndex]!.end <= candidate.start) {
      merged.push(accepted[acceptedIndex]!);
      acceptedIndex += 1;
    }
    if (candidate.token === null) {
      let covered = false;
      for (let probe = acceptedIndex; probe < accepted.length && accepted[probe]!.start < candidate.end; probe += 1) {
        if (overlaps(accepted[probe]!, candidate)) {
          covered = true;
          break;
        }
      }
      if (covered) continue;
    }
    merged.push(candidate);
  }
  while (acceptedIndex < accepted.length) {
    merged.push(accepted[acceptedIndex]!);
    acceptedIndex += 1;
  }
  return merged;
}
