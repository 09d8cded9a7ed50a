// Output guard (issue 7, `output_protection`): personal data the model produced on its own
// (raw, not as a token) is found in the model output before tokens are restored, and handled by
// the configured action:
//
//   allow  counted and reported only
//   warn   counted, reported, and a warning added; the text is unchanged
//   mask   each value replaced by `[REDACTED:<type>]`
//   block  the request fails with VEIL_OUTPUT_BLOCKED (a stream ends with an error frame)
//
// Detection runs on the output with every parseable token blanked out (same length, spaces), so
// a token's characters never look like data and never lend context words to what is next to
// it; restored values are never looked at, because restore happens after the guard. Which
// detections count (mode, type risk and context: risk.ts; exempt types; what the policy allowed
// through) is a predicate the caller supplies; the session's own values (known.ts) always
// count. Pure: no framework, runs on worker threads.
import { VeilError } from '@veil/common';
import { digitWord } from '../detect/spelled-digits.js';
import { nestedTooDeep } from '../json-depth.js';
import { setMember } from '../structured/json.js';
import { isPlainObject, STRUCTURED_LIMITS } from '../structured/limits.js';
import { gluedTail } from '../restore/right-context.js';
import type { TokenCandidate } from '../token/index.js';
import type { Detection } from '../types.js';
import { mergeSpans, type KnownValues } from './known.js';
import { cutWindows, renderedView } from './markup.js';

export type OutputGuardAction = 'allow' | 'warn' | 'mask' | 'block';

export interface OutputGuardSummary {
  triggered: boolean;
  action: OutputGuardAction;
  findings: { type: string; count: number }[];
}

/** One raw value found in model output; UTF-16 offsets, end exclusive. */
export interface OutputFinding {
  readonly type: string;
  readonly start: number;
  readonly end: number;
}

export interface OutputGuardOptions {
  readonly action: OutputGuardAction;
  /** Detection over text (any order; overlaps are merged after `counts`). */
  readonly detect: (text: string) => readonly Detection[];
  /**
   * Does this detection count (mode, type risk and context, exempt types, policy allow,
   * confidence)? `text` is the (token-blanked) text it was found in, for context words.
   */
  readonly counts: (detection: Detection, text: string) => boolean;
  /** The token scan rehydrate uses (strict plus repair). */
  readonly scan: (text: string) => readonly TokenCandidate[];
  /** The session's own values: found in any spelling and always counted (exempt types excepted). */
  readonly known?: KnownValues | undefined;
}

/** The label a masked value becomes. */
export function maskLabel(type: string): string {
  return `[REDACTED:${type}]`;
}

/** `text` with every parseable token candidate replaced by spaces of the same length. */
export function blankTokens(text: string, candidates: readonly TokenCandidate[]): string {
  const parsed = candidates.filter((candidate) => candidate.token !== null);
  if (parsed.length === 0) return text;
  const parts: string[] = [];
  let cursor = 0;
  for (const candidate of parsed) {
    parts.push(text.slice(cursor, candidate.start), ' '.repeat(candidate.end - candidate.start));
    cursor = candidate.end;
  }
  parts.push(text.slice(cursor));
  return parts.join('');
}

/**
 * Accumulates findings over one request (a text, every string of a JSON document, or every
 * piece of a stream) and applies the action.
 */
export class OutputGuard {
  readonly action: OutputGuardAction;
  readonly #options: OutputGuardOptions;
  readonly #counts = new Map<string, number>();
  /** Pieces of values split across the members of the answer being guarded, by member (acrossMembers). */
  #across: Map<string, Piece[]> | undefined;

  constructor(options: OutputGuardOptions) {
    this.action = options.action;
    this.#options = options;
  }

  /** Raw values in `text` that count, outside token candidates; sorted, non-overlapping. */
  findings(text: string, candidates: readonly TokenCandidate[] = this.#options.scan(text)): OutputFinding[] {
    const blanked = blankTokens(text, candidates);
    const tokens = candidates.filter((candidate) => candidate.token !== null);
    const counted: OutputFinding[] = [];
    for (const detection of this.#options.detect(blanked)) {
      if (this.#options.counts(detection, blanked)) counted.push(detection);
    }
    for (const known of this.#options.known?.find(blanked) ?? []) counted.push(known);
    // The text as it renders (markup.ts), with and without a space where a piece joined two
    // words: a value markup breaks only as written is masked whole.
    let joined = false;
    for (const spaced of [true, false]) {
      // Without the spaces the view differs only where a piece joined two words.
      if (!spaced && !joined) break;
      const rendered = renderedView(blanked, spaced);
      if (rendered.identity) break;
      joined = rendered.joins > 0;
      const across = (finding: OutputFinding): void => {
        if (rendered.spansMarkup(finding.start, finding.end)) counted.push({ type: finding.type, ...rendered.originalSpan(finding.start, finding.end) });
      };
      // Detection near the cuts only (cutWindows); the session's values everywhere (one linear
      // search, on one view: it ignores spacing).
      for (const window of cutWindows(rendered)) {
        const stretch = rendered.text.slice(window.start, window.end);
        for (const detection of this.#options.detect(stretch)) {
          if (this.#options.counts(detection, stretch)) across({ type: detection.type, start: detection.start + window.start, end: detection.end + window.start });
        }
      }
      if (spaced) for (const known of this.#options.known?.find(rendered.text) ?? []) across(known);
    }
    const out: OutputFinding[] = [];
    let next = 0;
    for (const finding of mergeSpans(counted)) {
      // Never let a value reach into a token (masking it would destroy the token).
      while (next < tokens.length && tokens[next]!.end <= finding.start) next += 1;
      if (next < tokens.length && tokens[next]!.start < finding.end) continue;
      out.push(finding);
    }
    return out;
  }

  /** Start of the suffix of `text` that could still grow into a session value (text.length if none). */
  knownPendingStart(text: string): number {
    return this.#options.known?.pendingStart(text) ?? text.length;
  }

  /** Length of the longest search key of the session's values (0: none): how far one reaches. */
  knownReach(): number {
    const known = this.#options.known;
    return known === undefined || known.empty ? 0 : known.longestKey();
  }

  /**
   * The session values that begin in `before` (the tail of the member released before this one,
   * StreamOutputGuard `before`) and end in `text` (this member's text so far), read joined by a
   * line break as acrossMembers does; in `text` coordinates. `pendingStart` is 0 when the end of
   * the joined text, begun in `before`, could still grow into a value (text.length otherwise).
   */
  knownAfter(before: string, text: string): { findings: OutputFinding[]; earlier: OutputFinding[]; pendingStart: number } {
    const known = this.#options.known;
    if (known === undefined || known.empty) return { findings: [], earlier: [], pendingStart: text.length };
    const view = `${before}\n${text}`;
    const offset = before.length + 1;
    const candidates = this.#options.scan(view).filter((candidate) => candidate.token !== null);
    const blanked = blankTokens(view, candidates);
    const findings: OutputFinding[] = [];
    const earlier: OutputFinding[] = [];
    for (const finding of known.find(blanked)) {
      if (finding.start >= offset || finding.end <= offset) continue;
      if (candidates.some((candidate) => candidate.start < finding.end && finding.start < candidate.end)) continue; // never into a token
      // Its part here begins at its first character here (a JSON member's syntax before it stays).
      let start = offset;
      while (start < finding.end && isSpace(blanked.charCodeAt(start))) start += 1;
      findings.push({ type: finding.type, start: start - offset, end: finding.end - offset });
      // Its part in `before` (in `before` coordinates, to its end there): fed back to the member
      // before, which masks what it still holds of it.
      // (Spaces and the syntax that closes a string, a JSON member or emphasis after it stay.)
      let end = before.length;
      while (end > finding.start && (isSpace(blanked.charCodeAt(end - 1)) || CLOSING.has(blanked[end - 1]!))) end -= 1;
      if (end > finding.start) earlier.push({ type: finding.type, start: finding.start, end });
    }
    return { findings, earlier, pendingStart: known.pendingStart(blanked) < offset ? 0 : text.length };
  }

  /** Find and handle raw values in one text; returns the text to restore. */
  guard(text: string, field = 'output'): string {
    return this.guardScanned(text, field).text;
  }

  /**
   * guard(), also handing back its token scan of the text when the text it returns is the one it
   * scanned (nothing masked): the restore that follows uses the same scan (the guard's `scan`
   * is the rehydrate's), so the model output is scanned for tokens once, not twice.
   */
  guardScanned(text: string, field = 'output'): { readonly text: string; readonly candidates?: readonly TokenCandidate[] } {
    if (text.length === 0) return { text };
    const candidates = this.#options.scan(text);
    const own = this.findings(text, candidates);
    // The pieces of a value split across this member and another (acrossMembers): masked here
    // too, counted once (when it was found), so not again.
    const across = this.#across?.get(text);
    const overlaps = (spans: readonly OutputFinding[], finding: OutputFinding): boolean => spans.some((span) => span.start < finding.end && finding.start < span.end);
    const fresh = across?.filter((piece) => piece.counted) ?? [];
    const guarded =
      across === undefined
        ? this.apply(text, own, field)
        : this.apply(text, mergeSpans([...own, ...across]), field, (finding) => !overlaps(own, finding) && !overlaps(fresh, finding));
    return guarded === text ? { text, candidates } : { text: guarded };
  }

  /**
   * Before the text members of one whole answer (content and tool-call arguments, two choices, a
   * refusal, the strings of an `output_json` document) are guarded one by one: the session
   * values the model split across two of them ("Quentin" ending the content, "Zyxwort" opening
   * the arguments). The members are read as one text, in their order, joined by a line break,
   * around each boundary only (as far back and on as the longest search key reaches, plus
   * TOKEN_SLACK so that a token there is whole and blanked); a value found across a boundary is
   * mapped back to its piece in each member, counted once here (refused here under `block`), and
   * masked in each member by guardScanned. A value inside one member is the member's own guard's.
   * Keyed by member text: two equal members get the same pieces (masking more, never less).
   */
  acrossMembers(members: readonly string[], field = 'output'): void {
    this.#across = undefined;
    const known = this.#options.known;
    if (known === undefined || known.empty || members.length === 0) return;
    const reach = known.longestKey();
    if (reach === 0) return;
    // A member that is a JSON text (tool-call arguments) is read by its values: keys and syntax
    // blanked (same length), so a value split over two of its strings or next to the content
    // is read as written ('{"first":"Quentin","last":"Zyxwort"}').
    const ranges = members.map(jsonValueRanges);
    const found: AcrossFinding[] = [];
    // In document order, and in the reverse order (the rest of a value in the arguments, its
    // start in the content after them: the client may show them in either order).
    const forward = members.map((_member, index) => index);
    const seen = new Set<string>();
    for (const order of members.length > 1 ? [forward, [...forward].reverse()] : [forward]) {
      for (const finding of this.#acrossIn(order.map((index) => members[index]!), order.map((index) => ranges[index]), reach)) {
        const parts = finding.parts.map((part) => ({ ...part, member: order[part.member]! })).sort((a, b) => a.member - b.member);
        // A value inside one JSON member, or one both orders read: once.
        const key = `${finding.type} ${parts.map((part) => `${part.member}:${part.start}-${part.end}`).join(' ')}`;
        if (seen.has(key)) continue;
        seen.add(key);
        found.push({ ...finding, parts });
      }
    }
    if (found.length === 0) return;
    const across = new Map<string, Piece[]>();
    for (const finding of found) {
      // A value over two members is counted here, once; one inside a JSON member where masked.
      if (!finding.within) this.#counts.set(finding.type, (this.#counts.get(finding.type) ?? 0) + 1);
      for (const { member: index, start, end } of finding.parts) {
        const pieces = across.get(members[index]!) ?? [];
        // In a JSON member, the piece in each string it covers: its keys and syntax stay.
        let first = true;
        for (const range of ranges[index] ?? [{ start, end }]) {
          if (range.start >= end || start >= range.end) continue;
          pieces.push({ type: finding.type, start: Math.max(start, range.start), end: Math.min(end, range.end), counted: finding.within && first });
          first = false;
        }
        across.set(members[index]!, pieces);
      }
    }
    if (this.action === 'block' && found.some((finding) => !finding.within)) throw new VeilError('VEIL_OUTPUT_BLOCKED', `${field}: contains personal data the model produced, split across two members (output protection)`);
    this.#across = across;
  }

  /** acrossMembers over `members` in this order: the values found, each as its part in each member. */
  #acrossIn(members: readonly string[], valueRanges: readonly ({ start: number; end: number }[] | undefined)[], reach: number): AcrossFinding[] {
    const known = this.#options.known!;
    const views = members.map((member, index) => (valueRanges[index] === undefined ? member : blankOutside(member, valueRanges[index])));
    const joined = views.join('\n');
    const starts: number[] = [];
    let offset = 0;
    for (const member of members) {
      starts.push(offset);
      offset += member.length + 1;
    }
    // The windows around the boundaries, and a JSON member whole, overlapping ones read as one
    // (many short strings of a document are one region, read once).
    const windows: { from: number; to: number }[] = [];
    for (let index = 0; index < members.length; index++) {
      if (valueRanges[index] !== undefined) windows.push({ from: starts[index]!, to: starts[index]! + members[index]!.length });
      if (index === 0) continue;
      const boundary = starts[index]! - 1; // the line break between member index - 1 and index
      const from = wordStart(joined, Math.max(0, alnumBack(joined, boundary, reach) - TOKEN_SLACK));
      const to = wordEnd(joined, Math.min(joined.length, alnumOn(joined, boundary + 1, reach) + TOKEN_SLACK));
      windows.push({ from, to });
    }
    windows.sort((a, b) => a.from - b.from);
    const regions: { from: number; to: number }[] = [];
    for (const { from, to } of windows) {
      const last = regions[regions.length - 1];
      if (last !== undefined && from <= last.to) last.to = Math.max(last.to, to);
      else regions.push({ from, to });
    }
    const memberAt = (position: number): number => {
      let low = 0;
      let high = starts.length - 1;
      while (low < high) {
        const middle = (low + high + 1) >> 1;
        if (starts[middle]! <= position) low = middle;
        else high = middle - 1;
      }
      return low;
    };
    const found: AcrossFinding[] = [];
    for (const { from, to } of regions) {
      const window = joined.slice(from, to);
      const candidates = this.#options.scan(window).filter((candidate) => candidate.token !== null);
      for (const finding of known.find(blankTokens(window, candidates))) {
        const start = from + finding.start;
        const end = from + finding.end;
        const within = memberAt(start) === memberAt(end - 1);
        // Inside one plain member: its own guard's. Inside one JSON member: over two of its strings.
        if (within && valueRanges[memberAt(start)] === undefined) continue;
        if (candidates.some((candidate) => from + candidate.start < end && start < from + candidate.end)) continue; // never into a token
        const parts: AcrossFinding['parts'][number][] = [];
        for (let index = 0; index < members.length; index++) {
          const partStart = Math.max(start, starts[index]!) - starts[index]!;
          const partEnd = Math.min(end, starts[index]! + members[index]!.length) - starts[index]!;
          if (partStart < partEnd) parts.push({ member: index, start: partStart, end: partEnd });
        }
        found.push({ type: finding.type, within, parts });
      }
    }
    return found;
  }


  /**
   * Handle `findings` (sorted, non-overlapping, within `text`): count them, then mask, keep or
   * throw. `field` names the text in a block error (never its value). The first `uncounted`
   * findings are the rest of a value already counted (a stream's forced cut): handled, not
   * counted again.
   */
  apply(text: string, findings: readonly OutputFinding[], field = 'output', uncounted: number | ((finding: OutputFinding) => boolean) = 0): string {
    if (findings.length === 0) return text;
    const skip = typeof uncounted === 'number' ? (_finding: OutputFinding, index: number) => index < uncounted : uncounted;
    let counted = 0;
    findings.forEach((finding, index) => {
      if (skip(finding, index)) return;
      counted += 1;
      this.#counts.set(finding.type, (this.#counts.get(finding.type) ?? 0) + 1);
    });
    switch (this.action) {
      case 'block':
        if (counted === 0) return text;
        throw new VeilError('VEIL_OUTPUT_BLOCKED', `${field}: contains personal data the model produced (output protection)`);
      case 'allow':
      case 'warn':
        return text;
      case 'mask':
        return maskFindings(text, findings);
    }
  }

  /**
   * An identifier of an answer (a tool or function name, a tool call id, a role): checked like
   * text, but never masked, since a masked name no longer names the tool the client dispatches
   * and a masked id no longer matches its result. Under `mask` and `block` a raw value there
   * refuses the answer (VEIL_OUTPUT_BLOCKED, counted); under `warn` it is counted and kept.
   */
  guardIdentifier(value: string, field: string): void {
    if (value.length === 0) return;
    // `send_4111111111111111`, `call_jane.doe@corp.example`: an underscore joins the words of an
    // identifier, where a detector would read it as part of one word; read as a space (same length).
    const view = value.replaceAll('_', ' ');
    // Ids are digits and dates by nature (`req_20260127_0001`): what counts there is a value whose
    // form proves it (a checksum or an address's syntax, a credential) or one of the session's.
    const own = this.#options.known?.find(view) ?? [];
    const findings = this.findings(view).filter(
      (finding) => IDENTIFIER_PROVEN.has(finding.type) || own.some((known) => known.start < finding.end && finding.start < known.end),
    );
    if (findings.length === 0) return;
    this.apply(value, findings, field);
    if (this.action === 'mask') {
      throw new VeilError('VEIL_OUTPUT_BLOCKED', `${field}: an identifier contains personal data the model produced (output protection; an identifier is refused, not masked)`);
    }
  }

  get triggered(): boolean {
    return this.#counts.size > 0;
  }

  summary(): OutputGuardSummary {
    const findings = [...this.#counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([type, count]) => ({ type, count }));
    return { triggered: findings.length > 0, action: this.action, findings };
  }
}

/** Types whose form proves them (checksums, an address's syntax, credentials): what counts in an identifier. */
const IDENTIFIER_PROVEN: ReadonlySet<string> = new Set([
  'credit_card', 'iban', 'email', 'us_ssn', 'crypto_wallet', 'api_key', 'jwt', 'private_key', 'password', 'connection_string',
]);

/** A value acrossMembers found: its part in each member it covers (offsets in that member). */
interface AcrossFinding {
  readonly type: string;
  /** Inside one (JSON) member, over two of its strings. */
  readonly within: boolean;
  readonly parts: readonly { readonly member: number; readonly start: number; readonly end: number }[];
}

/**
 * A piece of a session value that acrossMembers found for one member. A value over a member
 * boundary is counted when found; one over two strings of one JSON member where it is masked,
 * on its first piece (`counted`).
 */
interface Piece extends OutputFinding {
  readonly counted: boolean;
}

/**
 * The ranges of `text`, when it is a JSON object or array, that a reader takes for its values:
 * the inside of each string that is not a key, and each number. Lenient (a model's arguments
 * may be cut or malformed): a lexer, not a parser. Undefined for any other text.
 */
export function jsonValueRanges(text: string): { start: number; end: number }[] | undefined {
  let index = 0;
  while (index < text.length && isSpace(text.charCodeAt(index))) index += 1;
  const first = text.charCodeAt(index);
  if (first !== 0x7b && first !== 0x5b) return undefined;
  const ranges: { start: number; end: number }[] = [];
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === 0x22) {
      const start = index + 1;
      let end = start;
      while (end < text.length && text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c ? 2 : 1;
      end = Math.min(end, text.length);
      let after = end + 1;
      while (after < text.length && isSpace(text.charCodeAt(after))) after += 1;
      if (text.charCodeAt(after) !== 0x3a && end > start) ranges.push({ start, end });
      index = end + 1;
    } else if ((code >= 0x30 && code <= 0x39) || code === 0x2d) {
      const start = index;
      while (index < text.length && /[0-9eE+\-.]/.test(text[index]!)) index += 1;
      ranges.push({ start, end: index });
    } else {
      index += 1;
    }
  }
  return ranges;
}

/** `text` with every character outside `ranges` (sorted) a space: the same length. */
function blankOutside(text: string, ranges: readonly { start: number; end: number }[]): string {
  const parts: string[] = [];
  let cursor = 0;
  for (const range of ranges) {
    parts.push(' '.repeat(range.start - cursor), text.slice(range.start, range.end));
    cursor = range.end;
  }
  parts.push(' '.repeat(text.length - cursor));
  return parts.join('');
}

/** Characters read past a boundary window's reach, so that a token near it is whole in the window (and blanked). */
const TOKEN_SLACK = 128;

function isAlnumAt(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  if (code < 0x80) return (code >= 0x30 && code <= 0x39) || ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a);
  return ALNUM_CHAR.test(text[index]!) || (code >= 0xd800 && code <= 0xdfff);
}

const ALNUM_CHAR = /[\p{L}\p{N}]/u;

/** The index before `end` from which `count` letters or digits of `text` lead up to `end` (0 if fewer). */
function alnumBack(text: string, end: number, count: number): number {
  let index = end;
  for (let seen = 0; index > 0 && seen < count; ) if (isAlnumAt(text, --index)) seen += 1;
  return index;
}

/** The index after `start` up to which `count` letters or digits of `text` follow `start` (its length if fewer). */
function alnumOn(text: string, start: number, count: number): number {
  let index = start;
  for (let seen = 0; index < text.length && seen < count; index++) if (isAlnumAt(text, index)) seen += 1;
  return index;
}

/** `index` moved back to the start of the word it is in. */
function wordStart(text: string, index: number): number {
  let start = index;
  while (start > 0 && isAlnumAt(text, start - 1)) start -= 1;
  return start;
}

/** `index` moved on to the end of the word it is in. */
function wordEnd(text: string, index: number): number {
  let end = index;
  while (end < text.length && isAlnumAt(text, end)) end += 1;
  return end;
}

function maskFindings(text: string, findings: readonly OutputFinding[]): string {
  const parts: string[] = [];
  let cursor = 0;
  for (const finding of findings) {
    if (finding.start < cursor) continue;
    parts.push(text.slice(cursor, finding.start), maskLabel(finding.type));
    cursor = finding.end;
  }
  parts.push(text.slice(cursor));
  return parts.join('');
}

/** The warning a response carries when the guard triggered (types and counts only). */
export function outputGuardWarning(summary: OutputGuardSummary): string | undefined {
  if (!summary.triggered) return undefined;
  const total = summary.findings.reduce((sum, item) => sum + item.count, 0);
  const verb = summary.action === 'mask' ? 'masked' : summary.action === 'block' ? 'blocked' : 'left in place';
  return `output protection: the model output contains ${total} raw value(s) the model produced itself (${summary.findings.map((item) => item.type).join(', ')}); ${verb}`;
}

// ---------------------------------------------------------------------------------------------
// Streams.

/**
 * Most characters a stream holds back for the guard. Past it the text is released even inside
 * a value; under `mask` the rest of that value, as it was found, is masked too when it arrives.
 */
export const OUTPUT_GUARD_MAX_HOLD = 4096;
/** Released text kept as detection context (context words before a value). */
const CONTEXT_CHARS = 64;
/**
 * Longest run of short groups (a card, IBAN or phone written in groups) the tail looks back
 * over: the whole run, up to the hold bound, so a value is never detected on part of its run.
 */
const MAX_CHAIN = OUTPUT_GUARD_MAX_HOLD;
/** Longest group of such a run ("+44", "(0)20", "DE89", "0532"). */
const MAX_GROUP = 16;
const PEM_BEGIN = '-----BEGIN ';
const PEM_END = '-----END ';

export interface StreamRelease {
  /** Characters of the pending text consumed (released). */
  readonly consumed: number;
  /** The released text after the guard (masked where it applies). */
  readonly text: string;
}

const GROUP = /^[\p{L}\p{N}+()\-./#,]+$/u;
const HAS_DIGIT = /\p{N}/u;
const TRAILING_ALNUM = /[\p{L}\p{N}]+$/u;

/** A digit word ("four", "eins", "oh"), also with the comma or period after it: a spelled-out number is a chain too. */
function isDigitWord(group: string): boolean {
  return digitWord(group, 0, /[,.]$/.test(group) ? group.length - 1 : group.length) >= 0;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0xa0 || code === 0x202f || (code >= 0x09 && code <= 0x0d);
}

/**
 * Start of the tail of `text` that could still be the start of a value the guard would mask:
 * the last run without whitespace while it may still grow (an e-mail, key, password, URL); a
 * run of short groups with digits or digit words separated by single spaces ("4111 1111 1111",
 * "+44 20 7946", "four one one", "DE89 3704", "3 March 19"), even after one trailing space; an
 * unterminated PEM block.
 * text.length when nothing can still grow.
 */
export function growingStart(text: string): number {
  let end = text.length;
  let start = end;
  if (end > 0 && !isSpace(text.charCodeAt(end - 1))) {
    while (start > 0 && !isSpace(text.charCodeAt(start - 1))) start -= 1;
  } else if (end > 1 && text.charCodeAt(end - 1) === 0x20 && !isSpace(text.charCodeAt(end - 2))) {
    end -= 1; // one space after a group: the next group may follow
  }
  // Groups separated by single spaces, right to left: every group short, letters-only groups
  // only next to a group with digits on their right ("March 3", "at 555 0134").
  let chainStart = end;
  let digits = false;
  let rightHasDigit = false;
  let position = end;
  while (position > 0 && end - position < MAX_CHAIN) {
    let groupStart = position;
    while (groupStart > 0 && !isSpace(text.charCodeAt(groupStart - 1)) && position - groupStart <= MAX_GROUP) groupStart -= 1;
    const group = text.slice(groupStart, position);
    if (group.length === 0) break;
    if (group.length > MAX_GROUP || (groupStart > 0 && !isSpace(text.charCodeAt(groupStart - 1))) || !GROUP.test(group)) {
      // Not a group of its own, but a value may begin inside it after punctuation ("}}4111",
      // "card:4111"): its trailing run of letters and digits joins the chain.
      const tail = TRAILING_ALNUM.exec(group)?.[0] ?? '';
      if (tail.length > 0 && tail.length <= MAX_GROUP && tail.length < group.length && (HAS_DIGIT.test(tail) || rightHasDigit)) {
        digits ||= HAS_DIGIT.test(tail);
        chainStart = position - tail.length;
      }
      break;
    }
    const hasDigit = HAS_DIGIT.test(group) || isDigitWord(group);
    if (!hasDigit && position !== end && !rightHasDigit) break;
    if (!hasDigit && position === end) {
      // A trailing word without digits is covered by the run rule; a chain needs digits after it.
      rightHasDigit = false;
    } else {
      rightHasDigit = hasDigit;
    }
    digits ||= hasDigit;
    chainStart = groupStart;
    // Continue left only over exactly one space.
    if (groupStart < 2 || text.charCodeAt(groupStart - 1) !== 0x20 || isSpace(text.charCodeAt(groupStart - 2))) break;
    position = groupStart - 1;
  }
  if (digits) start = Math.min(start, chainStart);
  // An unterminated PEM block holds from its BEGIN line (bounded by the caller's maximum hold).
  const begin = text.lastIndexOf(PEM_BEGIN);
  if (begin >= 0 && text.indexOf(PEM_END, begin) < 0) start = Math.min(start, begin);
  return start;
}

const OPEN = 0x7b;
const CLOSE = 0x7d;
const BACKSLASH = 0x5c;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** A cut must not separate a brace from its run, an escape from its brace, or a surrogate pair. */
function unsafeCut(text: string, cut: number): boolean {
  if (cut <= 0 || cut >= text.length) return false;
  const before = text.charCodeAt(cut - 1);
  const after = text.charCodeAt(cut);
  return before === OPEN || before === CLOSE || before === BACKSLASH || after === OPEN || after === CLOSE || after === BACKSLASH || isHighSurrogate(before);
}

/**
 * The output guard for an incremental rehydrate (StreamRehydrator's `guard`): decides how much
 * of the pending output may be released so that no value leaves split across frames, and
 * guards what is released. Held back is only what can still be incomplete: a token candidate
 * (the token layer's cut), the tail that could still grow into a value (growingStart, and a
 * prefix of a session value), and a found value that reaches that tail; never more than
 * OUTPUT_GUARD_MAX_HOLD characters.
 */
export class StreamOutputGuard {
  readonly #guard: OutputGuard;
  readonly #scan: (text: string) => readonly TokenCandidate[];
  #context = '';
  /** A value cut by a forced release: the first `until` characters of what follows are masked. */
  #carry: { type: string; until: number } | undefined;
  /** Pending characters left after the last detection pass. */
  #held = 0;
  /** Pending length at the last detection pass. */
  #passedAt = 0;
  /** The last released text when the guard left it as it was, and its token scan (scanOf). */
  #released: { readonly text: string; readonly candidates: readonly TokenCandidate[] } | undefined;

  /**
   * The guard of the member whose text arrived right before this member's current run (its tail
   * seeds this one: the member opened before, or the one written in between when this member
   * resumes, follow()), and whether this member is JSON (tool-call arguments).
   */
  #before: StreamOutputGuard | undefined;
  readonly #json: boolean;
  /** How far back a value begun in the member before can reach (longest key + TOKEN_SLACK); 0 until known. */
  #reach = -1;
  /** The tail of the member before, taken at this member's first release; dropped once this member released `#reach` characters. */
  #seed: string | undefined;
  /** The seed's pieces, each in its member's coordinates (a value over three members feeds each back), and the same kept for tail() while this run is short. */
  #seedSegments: readonly SeedSegment[] = [];
  #chain: readonly SeedSegment[] = [];
  #seeded = false;
  /**
   * Where this member's current run starts (its coordinates): 0, or where it resumed after
   * another member's text (follow()). `#runSkip`: pending characters from before the run, not
   * released yet (not read after the new seed).
   */
  #runStart = 0;
  #runSkip = 0;
  /** lead(): a name shown right before this member. */
  #lead = '';
  /** This member's raw text released so far while seeded, and its last `#reach` released characters with what it still holds (tail()). */
  #own = '';
  #tail = '';
  #unreleased = '';
  /** Characters this member released so far: where its pending text starts, in the member's own coordinates. */
  #total = 0;
  /**
   * Values a member after this one found begun here (feedBack), in this member's coordinates:
   * the part this member still holds is masked when it is released (counted by the later member).
   */
  #fed: OutputFinding[] = [];
  /**
   * The member a client shows right after this one (the content's first tool call), when it may
   * release text before this one ends (an upstream that resumes the content after a tool call):
   * a value this member's text begins and that member's released head completes is masked here
   * (its piece there already left). `#head`: this member's first released characters, as far as
   * a value reaches.
   */
  readonly #next: (() => StreamOutputGuard | undefined) | undefined;
  #head = '';

  constructor(
    guard: OutputGuard,
    scan: (text: string) => readonly TokenCandidate[],
    options: { readonly before?: StreamOutputGuard | undefined; readonly json?: boolean; readonly next?: (() => StreamOutputGuard | undefined) | undefined } = {},
  ) {
    this.#guard = guard;
    this.#scan = scan;
    this.#before = options.before;
    this.#json = options.json === true;
    this.#next = options.next;
  }

  #reachOf(): number {
    if (this.#reach < 0) this.#reach = this.#guard.knownReach() === 0 ? 0 : this.#guard.knownReach() + TOKEN_SLACK;
    return this.#reach;
  }

  /**
   * The raw text this member's current run released last (as far back as a session value
   * reaches) and what it still holds: what the member after it is seeded with. A run shorter
   * than that is preceded by the tail of the member it followed (its seed), and so on: a value
   * over three members or more (its middle a whole member) is read whole. Oldest first.
   */
  tail(): SeedSegment[] {
    const reach = this.#reachOf();
    if (reach === 0) return [];
    const end = this.#tailEnd();
    const text = this.#tail + this.#unreleased;
    const from = Math.max(end - text.length, this.#runStart, end - reach);
    const mine: SeedSegment = { guard: this, text: text.slice(from - (end - text.length)), at: from, json: this.#json };
    const out: SeedSegment[] = [mine];
    let budget = reach - mine.text.length - 1;
    for (let index = this.#chain.length - 1; index >= 0 && budget > 0; index--) {
      const segment = this.#chain[index]!;
      const piece = segment.text.slice(-budget);
      out.unshift({ ...segment, text: piece, at: segment.at + segment.text.length - piece.length });
      budget -= piece.length + 1;
    }
    return mine.text === '' ? out.slice(0, -1) : out;
  }

  /**
   * This member resumes after `before` wrote text since this member's last text (the fields of
   * one streamed choice interleave: reasoning, the content, a refusal): what it writes next is
   * read after `before`'s tail, as text written in that order (a value begun there and
   * completed here is masked in both). What it still holds from before stays read as it was.
   */
  /**
   * The text a client shows right before this member's first characters (a tool call's or
   * function call's name): read before them as the seed's last piece, so a value the name
   * begins and the arguments complete is masked in the arguments (the name is an identifier,
   * checked whole, sent as it is). Before the member's first release only.
   */
  lead(text: string): void {
    if (!this.#seeded) this.#lead = text;
  }

  follow(before: StreamOutputGuard): void {
    if (before === this) return;
    this.#before = before;
    this.#seeded = false;
    this.#seed = undefined;
    this.#seedSegments = [];
    this.#chain = [];
    this.#own = '';
    this.#runStart = this.#tailEnd();
    this.#runSkip = this.#unreleased.length;
    this.#lead = '';
  }

  /** This member's first characters, released or still held, as far as a value reaches (in its own coordinates from 0). */
  #shownHead(): string {
    const reach = this.#reachOf();
    return this.#head.length >= reach ? this.#head : (this.#head + this.#unreleased).slice(0, reach);
  }

  /** Where tail() ends, in this member's coordinates (what it released plus what it holds). */
  #tailEnd(): number {
    return this.#total + this.#unreleased.length;
  }

  /**
   * A member after this one found a session value that begins here (`start`..`end`, this
   * member's coordinates): the part of it this member still holds is masked when released, not
   * counted again (the later member counted it). The part already sent cannot be.
   */
  feedBack(finding: OutputFinding): void {
    if (finding.end <= this.#total) return;
    if (this.#fed.some((fed) => fed.start <= finding.start && finding.end <= fed.end)) return;
    this.#fed.push(finding);
  }

  /**
   * Release a prefix of `pending`. `tokenCut` is how much the token layer allows (streamCut);
   * `final` releases everything.
   */
  release(pending: string, tokenCut: number, final: boolean): StreamRelease {
    this.#unreleased = pending;
    if (!this.#seeded && pending.length > this.#runSkip) {
      // A value the model began in the member before and completes here: the tail of that
      // member, as this member starts, is read before this member's text.
      this.#seeded = true;
      const segments = this.#before?.tail() ?? [];
      if (segments.length > 0) {
        this.#seedSegments = segments;
        this.#chain = segments;
        this.#seed = seedView(segments);
      }
      // A tool call's name is shown right before its arguments: they are read after it too
      // (apart: the calls' arguments, joined, are read as above).
      if (this.#lead !== '') this.#seed ??= '';
    }
    if (!final) {
      // A pass costs the pending text; the next one waits for new text of at least a quarter of
      // what the last pass held back, so a long hold fed one character at a time stays linear.
      const fresh = pending.length - this.#passedAt;
      if (fresh <= 0 || fresh < this.#held >> 2) return { consumed: 0, text: '' };
      this.#passedAt = pending.length;
    }
    const window = this.#context + pending;
    const offset = this.#context.length;
    const candidates = this.#scan(window);
    // Findings in pending coordinates; a carried remainder first.
    const found: OutputFinding[] = [];
    const carried = this.#carry !== undefined ? 1 : 0;
    if (this.#carry !== undefined) found.push({ type: this.#carry.type, start: 0, end: Math.min(this.#carry.until, pending.length) });
    // Seeded: the values begun in the member before (a JSON member read by its values), in
    // pending coordinates; the part already released was handled when it was.
    let seededHold = pending.length;
    let seedDone = false;
    const seeded: OutputFinding[] = [];
    if (this.#seed !== undefined) {
      // This run's text only (what the member held from before it resumed is not read after the seed).
      const own = this.#own + pending.slice(this.#runSkip);
      const shift = this.#runSkip - this.#own.length;
      const read = this.#json && this.#runStart === 0 ? blankJsonSyntax(own) : own;
      const after = this.#seed === '' ? { findings: [], earlier: [], pendingStart: read.length } : this.#guard.knownAfter(this.#seed, read);
      const named = this.#lead === '' ? { findings: [], pendingStart: read.length } : this.#guard.knownAfter(this.#lead, read);
      for (const finding of [...after.findings, ...named.findings]) if (finding.end > this.#own.length) seeded.push({ type: finding.type, start: Math.max(this.#runSkip, finding.start + shift), end: finding.end + shift });
      seeded.sort((a, b) => a.start - b.start);
      // The value's first pieces, where the members before still hold them, are masked there too.
      for (const finding of after.earlier) feedSegments(this.#seedSegments, finding);
      if (after.pendingStart === 0 || named.pendingStart === 0) seededHold = 0;
      // Nothing begun in the member before can still grow here: once what was found is
      // released, the seed is done (read for the first pieces of a member only).
      else seedDone = true;
    }
    // The first pieces of values a later member completed (feedBack): masked, counted there.
    const fed = this.#fed.map((finding) => ({ type: finding.type, start: finding.start - this.#total, end: finding.end - this.#total, fed: true }));
    const own = this.#guard.findings(window, candidates).map((finding) => ({ type: finding.type, start: finding.start - offset, end: finding.end - offset, fed: false }));
    // Reverse order: the member shown after this one already released its head; a value begun
    // here and completed there is masked here (last in the list: a value that member found and
    // fed back stays counted there).
    const following: (OutputFinding & { fed: boolean })[] = [];
    const next = this.#next?.();
    const head = next === undefined ? '' : next.#shownHead();
    if (next !== undefined && head !== '') {
      const after = this.#guard.knownAfter(this.#tail + pending, next.#json ? blankJsonSyntax(head) : head);
      for (const finding of after.earlier) if (finding.end > this.#tail.length) following.push({ type: finding.type, start: finding.start - this.#tail.length, end: finding.end - this.#tail.length, fed: false });
      // Its piece there, where that member still holds it, is masked when released (counted here).
      for (const finding of after.findings) next.feedBack(finding);
    }
    const uncounted = new Set<OutputFinding>();
    if (carried === 1) uncounted.add(found[0]!);
    const ordered = [...seeded.map((finding) => ({ ...finding, fed: false })), ...own, ...fed, ...following].sort((a, b) => Math.max(0, a.start) - Math.max(0, b.start));
    for (const finding of ordered) {
      const start = Math.max(0, finding.start);
      const end = finding.end;
      if (end <= 0) continue; // in released text: already handled
      const last = found[found.length - 1];
      if (last !== undefined && start < last.end) {
        // The same value seen again (a carried remainder that grew): extend it, count it once.
        if (end > last.end) {
          const grown = { type: last.type, start: last.start, end };
          if (uncounted.has(last)) uncounted.add(grown);
          found[found.length - 1] = grown;
        }
        continue;
      }
      const entry = { type: finding.type, start, end };
      if (finding.fed) uncounted.add(entry);
      found.push(entry);
    }
    const tokenSpans: { start: number; end: number }[] = [];
    for (const candidate of candidates) {
      if (candidate.end - offset <= 0) continue;
      // A token and the text glued right of it that makes it part of a link are cut as one, so
      // the piece the token is restored in holds what decides it (restore/right-context.ts).
      const tail = candidate.token === null ? undefined : gluedTail(window, candidate.end, final);
      const end = tail !== undefined && tail.verdict !== 'plain' ? Math.max(candidate.end, tail.end) : candidate.end;
      tokenSpans.push({ start: Math.max(0, candidate.start - offset), end: end - offset });
    }

    let cut = pending.length;
    if (!final) {
      // On the text as detection sees it: a token is blanked, so a value right after a token
      // starts at the token's end, as in the one-shot guard.
      const blanked = blankTokens(window, candidates);
      let growing = Math.max(0, Math.min(growingStart(blanked), this.#guard.knownPendingStart(blanked), renderedGrowingStart(blanked, this.#guard)) - offset);
      // Arguments: a session value's first piece stays held through the syntax that closes its
      // string and the arguments (`{"to":"red.victim"}`), so a value the next tool call completes
      // is masked in both (the member ends, releasing it, only once the next one read past it).
      if (this.#json) growing = Math.min(growing, Math.max(0, closedPendingStart(blanked, this.#guard) - offset));
      const limit = Math.min(tokenCut, growing, seededHold);
      cut = safeCut(pending, limit, [...found, ...tokenSpans]);
      // Bounded hold: past the bound, release up to it anyway (never inside a token); under
      // `mask` the value is masked whole, its found remainder carried to the next release.
      if (pending.length - cut > OUTPUT_GUARD_MAX_HOLD) cut = safeCut(pending, Math.min(tokenCut, Math.max(limit, pending.length - OUTPUT_GUARD_MAX_HOLD)), tokenSpans);
    }
    this.#held = pending.length - Math.max(0, cut);
    if (cut <= 0) return { consumed: 0, text: '' };
    this.#passedAt -= cut;

    const inside: OutputFinding[] = [];
    const skip = new Set<OutputFinding>();
    this.#carry = undefined;
    for (const finding of found) {
      if (finding.start >= cut) continue;
      if (finding.end > cut) this.#carry = { type: finding.type, until: finding.end - cut };
      const piece = { type: finding.type, start: finding.start, end: Math.min(finding.end, cut) };
      // A carried remainder was counted when its value was first released; a fed piece by the
      // member that completed it.
      if (uncounted.has(finding)) skip.add(piece);
      inside.push(piece);
    }
    const released = pending.slice(0, cut);
    const text = this.#guard.apply(released, inside, 'output', (finding) => skip.has(finding));
    this.#released = text === released ? releasedScan(text, candidates, offset, cut) : undefined;
    this.#context = (this.#context + released).slice(-CONTEXT_CHARS);
    this.#unreleased = pending.slice(cut);
    this.#total += cut;
    if (this.#fed.length > 0) this.#fed = this.#fed.filter((finding) => finding.end > this.#total);
    const reach = this.#reachOf();
    if (reach > 0) this.#tail = (this.#tail + released).slice(-reach);
    if (reach > 0 && this.#head.length < reach) this.#head = (this.#head + released).slice(0, reach);
    if (this.#runSkip > 0) {
      const skipped = Math.min(cut, this.#runSkip);
      this.#runSkip -= skipped;
      if (this.#seed !== undefined) this.#own += released.slice(skipped);
      if (this.#seed !== undefined && (this.#own.length >= reach || (seedDone && seeded.every((finding) => finding.end <= cut)))) this.#seed = undefined;
    } else if (this.#seed !== undefined) {
      this.#own += released;
      if (this.#own.length >= reach || (seedDone && seeded.every((finding) => finding.end <= cut))) this.#seed = undefined;
    }
    return { consumed: cut, text };
  }

  /**
   * The token scan of `text` when it is the text the last release handed out unchanged (nothing
   * masked): the window's scan, cut to the piece. The restore of that piece takes it instead of
   * scanning again (issue 20 item 2; the guard's scan must be the restore's). Undefined
   * otherwise; each scan is handed out once.
   */
  scanOf(text: string): readonly TokenCandidate[] | undefined {
    const released = this.#released;
    this.#released = undefined;
    return released !== undefined && released.text === text ? released.candidates : undefined;
  }
}

/** A piece of a seed: text of `guard`'s member from `at` (its coordinates); `json`: arguments. */
export interface SeedSegment {
  /** Undefined for text no guard releases (a tool call's name: an identifier, sent whole). */
  readonly guard: StreamOutputGuard | undefined;
  readonly text: string;
  readonly at: number;
  readonly json: boolean;
}

/**
 * The seed as read: its segments joined by a line break (as acrossMembers joins members), an
 * arguments segment that is the member's text from its start read by its values (keys and
 * syntax blanked, same length: a middle call's key does not break a value across it).
 */
function seedView(segments: readonly SeedSegment[]): string {
  return segments.map((segment) => (segment.json && segment.at === 0 ? blankJsonSyntax(segment.text) : segment.text)).join('\n');
}

/** Characters a fed-back piece does not cover at its ends: blanks and the syntax around a value. */
const PIECE_EDGE: ReadonlySet<string> = new Set(['"', "'", '`', '{', '}', '[', ']', '(', ')', ',', ':', '*', '_', '~']);

/**
 * A value found begun in a seed (`finding`, seed coordinates): its piece in each segment, the
 * blanks and syntax at its ends left out, fed back to the segment's member (masked where it
 * still holds it).
 */
function feedSegments(segments: readonly SeedSegment[], finding: OutputFinding): void {
  let offset = 0;
  for (const segment of segments) {
    let start = Math.max(finding.start, offset) - offset;
    let end = Math.min(finding.end, offset + segment.text.length) - offset;
    offset += segment.text.length + 1;
    const view = segment.json && segment.at === 0 ? blankJsonSyntax(segment.text) : segment.text;
    while (start < end && (isSpace(view.charCodeAt(start)) || PIECE_EDGE.has(view[start]!))) start += 1;
    while (end > start && (isSpace(view.charCodeAt(end - 1)) || PIECE_EDGE.has(view[end - 1]!))) end -= 1;
    if (start < end) segment.guard?.feedBack({ type: finding.type, start: segment.at + start, end: segment.at + end });
  }
}

/**
 * A JSON text (streamed tool-call arguments, maybe cut short) with what is not a value blanked
 * (same length): keys, the quotes of strings, brackets, colons, commas and whitespace. Numbers
 * and literals stay. Read after the member before it (knownAfter), a value split between the
 * content and an argument reads as written.
 */
export function blankJsonSyntax(text: string): string {
  const out: string[] = [];
  const containers: number[] = [];
  let key = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      const isKey = key && containers[containers.length - 1] === OPEN;
      out.push(' ');
      index += 1;
      while (index < text.length && text.charCodeAt(index) !== QUOTE) {
        const escaped = text.charCodeAt(index) === BACKSLASH ? 2 : 1;
        const piece = text.slice(index, index + escaped);
        out.push(isKey ? ' '.repeat(piece.length) : piece);
        index += escaped;
      }
      if (index < text.length) out.push(' ');
      key = false;
      continue;
    }
    if (code === OPEN || code === BRACKET) containers.push(code);
    else if (code === CLOSE || code === BRACKET_CLOSE) containers.pop();
    if (code === OPEN || code === COMMA) key = true;
    else if (code === COLON) key = false;
    const structural = code === OPEN || code === CLOSE || code === BRACKET || code === BRACKET_CLOSE || code === COLON || code === COMMA || isSpace(code);
    out.push(structural ? ' ' : text[index]!);
  }
  return out.join('').slice(0, text.length);
}

/**
 * Where a session value's prefix starts that only JSON closing syntax (quotes, brackets, braces,
 * blanks) follows at the end of `text`; text.length when there is none. (Without trailing
 * syntax knownPendingStart already holds it.)
 */
function closedPendingStart(text: string, guard: OutputGuard): number {
  let end = text.length;
  while (end > 0 && (isSpace(text.charCodeAt(end - 1)) || JSON_CLOSING.has(text[end - 1]!))) end -= 1;
  if (end === text.length || end === 0) return text.length;
  const start = guard.knownPendingStart(text.slice(0, end));
  return start < end ? start : text.length;
}

const JSON_CLOSING: ReadonlySet<string> = new Set(['"', '}', ']']);

/** What may close a member's text after a value's first piece (knownAfter's `earlier` ends before it). */
const CLOSING: ReadonlySet<string> = new Set(['"', "'", '`', '}', ']', ')', ',', ':', '*', '_', '~']);
const QUOTE = 0x22;
const BRACKET = 0x5b;
const BRACKET_CLOSE = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

/**
 * The candidates of a window's scan that lie in the released piece [offset, offset + cut),
 * shifted to the piece: the piece's own scan, since a cut never falls next to a brace or a
 * backslash (unsafeCut) nor inside a candidate (safeCut), so no attempt of the scanner reads
 * across either end. Undefined (the restore scans the piece itself) when a candidate still
 * reaches over an end.
 */
function releasedScan(text: string, candidates: readonly TokenCandidate[], offset: number, cut: number): { text: string; candidates: readonly TokenCandidate[] } | undefined {
  const piece: TokenCandidate[] = [];
  for (const candidate of candidates) {
    if (candidate.end <= offset) continue;
    const start = candidate.start - offset;
    if (start >= cut) break;
    if (start < 0 || candidate.end - offset > cut) return undefined;
    piece.push(offset === 0 ? candidate : { start, end: candidate.end - offset, raw: candidate.raw, token: candidate.token });
  }
  return { text, candidates: piece };
}

/**
 * growingStart and knownPendingStart on the text as it renders (markup.ts), mapped back: a value
 * followed by a tag (closed or still open) may go on after it, so it is held like a value at the
 * end of the text.
 */
function renderedGrowingStart(text: string, guard: OutputGuard): number {
  // Only the end of the text can still grow: read its last RENDERED_TAIL characters.
  const from = Math.max(0, text.length - RENDERED_TAIL);
  const rendered = renderedView(from === 0 ? text : text.slice(from));
  if (rendered.identity) return text.length;
  const start = Math.min(growingStart(rendered.text), guard.knownPendingStart(rendered.text));
  return start >= rendered.text.length ? text.length : from + rendered.originalIndex(start);
}

/** Characters at the end of a stream's pending text read as rendered (a value and the markup inside it). */
const RENDERED_TAIL = 512;

/**
 * The largest cut <= limit strictly inside no span and at a safe character boundary. Spans are
 * merged first; the search then moves down, jumping to the start of a span it lands in, so it
 * costs O(k log k) plus the characters stepped over.
 */
function safeCut(text: string, limit: number, spans: readonly { start: number; end: number }[]): number {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const merged: { start: number; end: number }[] = [];
  for (const span of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && span.start < last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ start: span.start, end: span.end });
  }
  let cut = Math.max(0, limit);
  let index = merged.length - 1;
  while (cut > 0) {
    while (index >= 0 && merged[index]!.start >= cut) index -= 1;
    if (index >= 0 && cut < merged[index]!.end) {
      cut = merged[index]!.start;
      continue;
    }
    if (!unsafeCut(text, cut)) break;
    cut -= 1;
  }
  return cut;
}

/**
 * The guard's token scan (the rehydrate's `findTokensLenient`) of each string of a JSON document
 * that it left as it was and that may hold a token (a `{`), by the string: the restore of the
 * same string takes it instead of scanning again (issue 20 item 2). A scan depends on the text
 * only, so one entry serves every equal string. Made per request, dropped with it.
 */
export type JsonScans = Map<string, readonly TokenCandidate[]>;

/**
 * Guard every string of a JSON document (values and keys) as model output; returns the guarded
 * document. A key that would become equal to another key of its object once masked fails the
 * request (VEIL_OUTPUT_BLOCKED) rather than lose a member. Nesting is bounded like JSON mode.
 */
export function guardJsonValue(value: unknown, guard: OutputGuard, maxDepth: number = STRUCTURED_LIMITS.maxDepth, scans?: JsonScans): unknown {
  // A string the guard left as it was keeps the guard's token scan, for the restore (JsonScans).
  const guardString = (text: string): string => {
    const guarded = guard.guardScanned(text, 'output_json');
    if (scans !== undefined && guarded.candidates !== undefined && text.includes('{')) scans.set(text, guarded.candidates);
    return guarded.text;
  };
  // A value split across two strings of the document ("first": "Quentin", "last": "Zyxwort"):
  // its string values in document order read as one answer (keys are names, not text read on).
  const members: string[] = [];
  const collect = (current: unknown, depth: number): void => {
    if (typeof current === 'string') members.push(current);
    else if (typeof current !== 'object' || current === null || depth >= maxDepth) return;
    else if (Array.isArray(current)) for (const item of current as unknown[]) collect(item, depth + 1);
    else if (isPlainObject(current)) for (const key of Object.keys(current)) collect(current[key], depth + 1);
  };
  collect(value, 0);
  guard.acrossMembers(members, 'output_json');
  const walk = (current: unknown, depth: number): unknown => {
    if (typeof current === 'string') return guardString(current);
    if (typeof current !== 'object' || current === null) return current;
    if (depth >= maxDepth) throw nestedTooDeep('document', maxDepth);
    if (Array.isArray(current)) return (current as unknown[]).map((item) => walk(item, depth + 1));
    if (!isPlainObject(current)) return current; // the restore refuses it
    const out: Record<string, unknown> = {};
    const keys = Object.keys(current);
    const taken = new Set<string>(keys);
    for (const key of keys) {
      const guardedKey = guardString(key);
      if (guardedKey !== key) {
        if (taken.has(guardedKey)) throw new VeilError('VEIL_OUTPUT_BLOCKED', 'output_json: two keys of one object become the same key once masked');
        taken.delete(key);
        taken.add(guardedKey);
      }
      setMember(out, guardedKey, walk(current[key], depth + 1));
    }
    return out;
  };
  return walk(value, 0);
}
