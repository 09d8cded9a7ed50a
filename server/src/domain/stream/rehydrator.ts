// Incremental rehydrate (decisions.md section 8, threats.md 8): restore model output as it
// streams in, emitting restored text as soon as it is safe and holding back only a suffix that
// could still become (or change) a token. Usable as a library: the caller supplies the restore
// function (closing over the session, policy, channel and scan), pushes deltas, and ends.
//
// Why the cut is safe. Every token candidate, strict (token/grammar.ts) or repaired
// (repair/lenient.ts), starts at the first unit of a brace run (`{` or `\{`), has a body of at
// most MAX_HELD_BODY characters without braces, and ends with a run of closing units. The cut is
// placed at the start of the earliest brace run whose candidate is still undecided: its body or
// its closing run reaches the end of the buffer. Everything before that point is restored now:
// no candidate can cross the cut, and both scans treat the two sides independently (neither
// resumes past a brace), so restoring the pieces one by one gives exactly the text that one
// restore of the whole output gives. The held suffix is bounded by MAX_HOLDBACK:
//
// - a body longer than either grammar allows (161 characters strict, MAX_LENIENT_SPAN lenient)
//   decides the candidate (no token), so it is released;
// - a closing run of three or more units can never close a token; it is held whole up to
//   MAX_HELD_BRACE_RUN units (so the reported `raw` is exact), then released;
// - an opening run of three or more units can never open a token either; once it is longer than
//   MAX_HELD_BRACE_RUN units the cut keeps only its last three units, which still mark whatever
//   follows as over-braced.
// Past those bounds the restored text is still exactly the one-shot text; only the `raw` of that
// malformed attempt in tokens_unresolved is reported in two parts.
//
// A cut never falls between the halves of a surrogate pair, so no piece carries a lone surrogate.
//
// An optional ReleaseGuard (the output guard, domain/guard/output.ts) decides last: it may
// release less than the cut (a raw value must be seen whole before any of it leaves) and
// rewrite what it releases (masking); its cuts obey the same rules, so the restored text is
// still the one-shot text.
import type { UnresolvedToken } from '../rehydrate.js';
import { MAX_LENIENT_SPAN } from '../repair/lenient.js';
import { gluedTail, MAX_GLUED_TAIL } from '../restore/right-context.js';
import { MAX_CANDIDATE_INNER } from '../token/index.js';

/** What a restore of one piece of output reports (rehydrateText's result fits). */
export interface RestoreResult {
  readonly restoredText: string;
  readonly tokensResolved: number;
  readonly tokensUnresolved: readonly UnresolvedToken[];
}

export type RestoreFunction = (text: string) => RestoreResult;

/**
 * An extra layer on the release decision (the output guard, domain/guard/output.ts): given the
 * pending output and how much the token layer allows, it releases a prefix no longer than that
 * (possibly less, possibly rewritten, e.g. masked); the rewritten text is what gets restored.
 * It must never cut inside a token candidate.
 */
export interface ReleaseGuard {
  release(pending: string, tokenCut: number, final: boolean): { readonly consumed: number; readonly text: string };
}

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const BACKSLASH = 0x5c;

/** Longest body (between the brace runs) either grammar still treats as a possible candidate. */
const MAX_HELD_BODY = Math.max(MAX_CANDIDATE_INNER, MAX_LENIENT_SPAN);

/** Brace-run units held whole (opening or closing); longer runs are released. */
export const MAX_HELD_BRACE_RUN = 16;

/**
 * Upper bound of the held-back suffix: the held opening and closing runs (two characters per
 * escaped unit), the longest undecided body and a trailing backslash.
 */
export const MAX_HOLDBACK = 4 * MAX_HELD_BRACE_RUN + MAX_HELD_BODY + MAX_GLUED_TAIL + 1;

function isAsciiWhitespace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}

/** Characters a repaired candidate may hold between its brace runs (besides `\_`). */
function isLenientBodyChar(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x5f ||
    code === 0x3a ||
    code === 0x20 ||
    code === 0x09 ||
    code === 0x0a ||
    code === 0x0d
  );
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Is a brace unit (`brace` or backslash + `brace`) at `index`? Returns its length or 0. */
function unitAt(text: string, index: number, brace: number): number {
  const code = text.charCodeAt(index);
  if (code === brace) return 1;
  if (code === BACKSLASH && text.charCodeAt(index + 1) === brace) return 2;
  return 0;
}

/**
 * How much of `text` can be restored now: the index of the first character that must be held
 * back (text.length when nothing must be). Linear in the text.
 */
export function streamCut(text: string): number {
  const length = text.length;
  let index = 0;
  while (index < length) {
    const brace = text.indexOf('{', index);
    if (brace < 0) break;
    const runStart = brace > index && text.charCodeAt(brace - 1) === BACKSLASH ? brace - 1 : brace;

    // Opening run: remember where its units start, to keep only the last three of a long run.
    const unitStarts: number[] = [];
    let cursor = runStart;
    for (;;) {
      const width = unitAt(text, cursor, OPEN);
      if (width === 0) break;
      unitStarts.push(cursor);
      cursor += width;
    }
    let holdFrom = runStart;
    if (unitStarts.length > MAX_HELD_BRACE_RUN) {
      // Keep the last three units, widened to the whole run of adjacent `{` the strict scan sees
      // there (it begins at an escaped unit's brace), within the bound.
      let first = unitStarts.length - 3;
      const floor = unitStarts.length - MAX_HELD_BRACE_RUN;
      while (first > floor && text.charCodeAt(unitStarts[first]!) === OPEN) first -= 1;
      holdFrom = unitStarts[first]!;
    }
    // The run reaches the end, or ends in a backslash that may escape the next brace.
    if (cursor >= length || (cursor === length - 1 && text.charCodeAt(cursor) === BACKSLASH)) return holdFrom;

    // Body: undecided while either grammar could still accept it.
    const bodyStart = cursor;
    let strictAlive = true;
    let lenientAlive = true;
    let closing = false;
    while (cursor < length) {
      const code = text.charCodeAt(cursor);
      if (code === OPEN) break; // a new run starts here; this one made no candidate
      if (code === CLOSE) {
        closing = true;
        break;
      }
      if (code === BACKSLASH) {
        if (cursor + 1 >= length) return holdFrom; // `\_`, `\{` or `\}` may follow
        const next = text.charCodeAt(cursor + 1);
        if (next === OPEN) break;
        if (next === CLOSE) {
          closing = true;
          break;
        }
        if (next === 0x5f) {
          cursor += 2;
        } else {
          lenientAlive = false;
          cursor += 1;
        }
      } else {
        if (isAsciiWhitespace(code)) strictAlive = false;
        if (!isLenientBodyChar(code)) lenientAlive = false;
        cursor += 1;
      }
      if (cursor - bodyStart > MAX_CANDIDATE_INNER) strictAlive = false;
      if (cursor - runStart > MAX_LENIENT_SPAN) lenientAlive = false;
      if (!strictAlive && !lenientAlive) break;
    }
    if (cursor >= length && (strictAlive || lenientAlive)) return holdFrom;
    if (!closing) {
      index = cursor;
      continue;
    }

    // Closing run: held while it reaches the end (a longer run changes the reported raw).
    let closes = 0;
    for (;;) {
      const width = unitAt(text, cursor, CLOSE);
      if (width === 0) break;
      closes += 1;
      cursor += width;
    }
    const openEnd = cursor >= length || (cursor === length - 1 && text.charCodeAt(cursor) === BACKSLASH);
    if (openEnd && closes < MAX_HELD_BRACE_RUN && (strictAlive || lenientAlive)) return holdFrom;
    // A whole candidate: held while the text glued to its right may still make it part of a
    // host name or an address (restore/right-context.ts), so its piece holds what decides it.
    if (closes <= 2 && (strictAlive || lenientAlive) && gluedTail(text, cursor, false).verdict === 'open') return holdFrom;
    index = cursor;
  }
  // Nothing undecided. Hold a trailing backslash (it may escape a brace) and never split a
  // surrogate pair.
  let cut = length;
  if (cut > 0 && text.charCodeAt(cut - 1) === BACKSLASH) cut -= 1;
  if (cut > 0 && isHighSurrogate(text.charCodeAt(cut - 1))) cut -= 1;
  return cut;
}

/**
 * Restores a stream of model output deltas. `push` returns the restored text that is safe to
 * emit now (possibly empty); `end` flushes the rest. Totals accumulate over the stream.
 */
export class StreamRehydrator {
  readonly #restore: RestoreFunction;
  readonly #guard: ReleaseGuard | undefined;
  #pending = '';
  #consumed = 0;
  #resolved = 0;
  readonly #unresolved: UnresolvedToken[] = [];
  #ended = false;

  constructor(restore: RestoreFunction, options: { readonly guard?: ReleaseGuard | undefined } = {}) {
    this.#restore = restore;
    this.#guard = options.guard;
  }

  /** Add a delta; returns the restored text that can be emitted now. */
  push(delta: string): string {
    if (this.#ended) throw new Error('StreamRehydrator: push after end');
    this.#pending += delta;
    const cut = streamCut(this.#pending);
    if (this.#guard !== undefined) {
      const released = this.#guard.release(this.#pending, cut, false);
      if (released.consumed === 0) return '';
      this.#pending = this.#pending.slice(released.consumed);
      return this.#emit(released.text, released.consumed);
    }
    if (cut === 0) return '';
    const ready = this.#pending.slice(0, cut);
    this.#pending = this.#pending.slice(cut);
    return this.#emit(ready, ready.length);
  }

  /** No more deltas: restore and return whatever was held back. Further pushes throw. */
  end(): string {
    if (this.#ended) return '';
    this.#ended = true;
    const rest = this.#pending;
    this.#pending = '';
    if (this.#guard !== undefined) {
      const released = this.#guard.release(rest, rest.length, true);
      return released.consumed === 0 ? '' : this.#emit(released.text, released.consumed);
    }
    return rest.length === 0 ? '' : this.#emit(rest, rest.length);
  }

  /** Tokens restored so far (a revoked value counts as restored). */
  get tokensResolved(): number {
    return this.#resolved;
  }

  /** Token attempts that did not resolve so far, in order; they stayed verbatim in the output. */
  get tokensUnresolved(): readonly UnresolvedToken[] {
    return this.#unresolved;
  }

  /** The output held back so far, not restored yet (the next push or end restores from it). */
  get pending(): string {
    return this.#pending;
  }

  /** UTF-16 length of the output consumed (restored and emitted) so far. */
  get consumed(): number {
    return this.#consumed;
  }

  /**
   * UTF-16 length currently held back: at most MAX_HOLDBACK plus any surrogate half, or with an
   * output guard the guard's bound (OUTPUT_GUARD_MAX_HOLD plus one delta).
   */
  get held(): number {
    return this.#pending.length;
  }

  #emit(text: string, consumed: number): string {
    const result = this.#restore(text);
    this.#consumed += consumed;
    this.#resolved += result.tokensResolved;
    for (const item of result.tokensUnresolved) this.#unresolved.push(item);
    return result.restoredText;
  }
}
