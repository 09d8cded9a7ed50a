// Prompt security (issue 7, threats.md 2, 6 and 7): find what in a transform input could make
// Veil restore a value nobody meant to restore, or hides content from the people reading it.
//
//   token          an exact token `{{type:id:cap}}` as the strict grammar accepts it
//   token_variant  anything else that is, or could become, a token: the forms token repair
//                  accepts at rehydrate (spacing, type case, escaped braces, one lost brace) and
//                  more, because a model rewrites what it copies: over-braced or brace-less
//                  `type:id:cap` cores, fullwidth and other compatibility forms (NFKC),
//                  Latin look-alike letters (Cyrillic and Greek), brace and colon look-alikes,
//                  combining marks, and invisible characters inside. A core is a type, an id and
//                  a cap that the grammar accepts after that folding (ASCII case ignored).
//   invisible      zero-width and other invisible format characters (ZWSP, word joiner, soft
//                  hyphen, BOM, Hangul fillers, invisible operators, ...), variation selectors
//                  that select nothing (after ASCII, at a start, or in a run), and ZWJ / ZWNJ
//                  except between two non-ASCII letters or symbols (emoji and scripts need them)
//   unicode_tag    Unicode Tags U+E0000..U+E007F (invisible ASCII: "ASCII smuggling")
//   bidi_control   bidirectional embeddings, overrides, isolates and marks (Trojan Source)
//
// A token whose type, id and cap name an entry of the session being continued is that
// session's own token (the conversation fed back) and is left alone.
//
// One linear pass builds a folded view of the text (invisible characters dropped, look-alikes
// folded to ASCII) with a sparse offset map back to the original; one linear pass over the
// folded view finds token cores. Pure: no framework, runs on worker threads.
import { VeilError } from '@veil/common';
import { capMatchesScheme, isValidTokenType, parseToken } from '../token/index.js';
import { asciiLower, BACKSLASH, braceRun, CLOSE_BRACE, COLON, isPackagingSpace, isPartChar, OPEN_BRACE, UNDERSCORE } from '../token/packaging.js';
import { FoldedText, type FoldAnchor } from '../text/fold.js';
import type { Token, TokenEntry } from '../types.js';

export const PROMPT_FINDING_KINDS = ['token', 'token_variant', 'invisible', 'unicode_tag', 'bidi_control'] as const;
export type PromptFindingKind = (typeof PROMPT_FINDING_KINDS)[number];
export type PromptAction = 'warn' | 'strip' | 'block';

/** One finding; offsets are UTF-16 units into the scanned text, end exclusive. */
export interface PromptFinding {
  readonly kind: PromptFindingKind;
  readonly start: number;
  readonly end: number;
  /** For token kinds: the token the core names (type lowercased). */
  readonly token?: Token;
}

/** What a response reports: counts only, never the text. */
export interface PromptSecuritySummary {
  triggered: boolean;
  action: PromptAction;
  findings: { kind: PromptFindingKind; count: number }[];
}

/** What replaces a stripped token: never part of a token, and never folded into one. */
export const STRIPPED_TOKEN_MARK = '\uFFFD';

// ---------------------------------------------------------------------------------------------
// Character classes.

function isBidiControl(cp: number): boolean {
  return cp === 0x061c || cp === 0x200e || cp === 0x200f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

function isUnicodeTag(cp: number): boolean {
  return cp >= 0xe0000 && cp <= 0xe007f;
}

/** Always-invisible format and filler characters (ZWJ, ZWNJ and selectors are judged apart). */
function isInvisible(cp: number): boolean {
  return (
    cp === 0x00ad ||
    cp === 0x034f ||
    cp === 0x115f ||
    cp === 0x1160 ||
    cp === 0x17b4 ||
    cp === 0x17b5 ||
    cp === 0x180e ||
    cp === 0x200b ||
    (cp >= 0x2060 && cp <= 0x2065) ||
    (cp >= 0x206a && cp <= 0x206f) ||
    cp === 0x3164 ||
    cp === 0xfeff ||
    cp === 0xffa0 ||
    (cp >= 0xfff9 && cp <= 0xfffb) ||
    (cp >= 0x1bca0 && cp <= 0x1bca3) ||
    (cp >= 0x1d173 && cp <= 0x1d17a)
  );
}

function isJoiner(cp: number): boolean {
  return cp === 0x200c || cp === 0x200d;
}

function isVariationSelector(cp: number): boolean {
  return (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef);
}

/** Combining marks a model would drop when copying a token (folded away, not findings). */
function isCombiningMark(cp: number): boolean {
  return (
    (cp >= 0x0300 && cp <= 0x036f) ||
    (cp >= 0x1ab0 && cp <= 0x1aff) ||
    (cp >= 0x1dc0 && cp <= 0x1dff) ||
    (cp >= 0x20d0 && cp <= 0x20ff) ||
    (cp >= 0xfe20 && cp <= 0xfe2f)
  );
}

function isWhitespace(cp: number): boolean {
  return cp === 0x20 || (cp >= 0x09 && cp <= 0x0d) || cp === 0x85 || cp === 0xa0 || cp === 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp === 0x2028 || cp === 0x2029 || cp === 0x202f || cp === 0x205f || cp === 0x3000;
}

/**
 * A base a joiner or a variation selector may legitimately follow or precede: a visible
 * non-ASCII character (emoji, CJK, Indic or Arabic letters).
 */
function isRichBase(cp: number): boolean {
  return cp >= 0x80 && !isWhitespace(cp) && !isBidiControl(cp) && !isUnicodeTag(cp) && !isInvisible(cp) && !isJoiner(cp) && !isVariationSelector(cp) && !isCombiningMark(cp);
}

// Latin look-alikes (Cyrillic and Greek) and token punctuation look-alikes NFKC leaves alone.
const CONFUSABLES: ReadonlyMap<number, string> = new Map([
  // Cyrillic lowercase
  [0x0430, 'a'], [0x0432, 'b'], [0x0435, 'e'], [0x043a, 'k'], [0x043c, 'm'], [0x043d, 'h'], [0x043e, 'o'], [0x0440, 'p'],
  [0x0441, 'c'], [0x0442, 't'], [0x0443, 'y'], [0x0445, 'x'], [0x0455, 's'], [0x0456, 'i'], [0x0458, 'j'], [0x0501, 'd'],
  [0x051b, 'q'], [0x051d, 'w'], [0x04bb, 'h'], [0x0491, 'r'],
  // Cyrillic uppercase
  [0x0410, 'A'], [0x0412, 'B'], [0x0415, 'E'], [0x041a, 'K'], [0x041c, 'M'], [0x041d, 'H'], [0x041e, 'O'], [0x0420, 'P'],
  [0x0421, 'C'], [0x0422, 'T'], [0x0425, 'X'], [0x0405, 'S'], [0x0406, 'I'], [0x0408, 'J'],
  // Greek
  [0x03b1, 'a'], [0x03b5, 'e'], [0x03b9, 'i'], [0x03ba, 'k'], [0x03bd, 'v'], [0x03bf, 'o'], [0x03c1, 'p'], [0x03c4, 't'],
  [0x03c5, 'u'], [0x03c7, 'x'], [0x0391, 'A'], [0x0392, 'B'], [0x0395, 'E'], [0x0396, 'Z'], [0x0397, 'H'], [0x0399, 'I'],
  [0x039a, 'K'], [0x039c, 'M'], [0x039d, 'N'], [0x039f, 'O'], [0x03a1, 'P'], [0x03a4, 'T'], [0x03a5, 'Y'], [0x03a7, 'X'],
  // Latin extensions that read as ASCII letters
  [0x0131, 'i'], [0x0237, 'j'], [0x0261, 'g'], [0x1d00, 'A'], [0x0251, 'a'],
  // Braces, colons, underscores and backslashes
  [0xfe5b, '{'], [0xfe5c, '}'], [0xfe37, '{'], [0xfe38, '}'], [0x2774, '{'], [0x2775, '}'], [0x27ee, '{'], [0x27ef, '}'],
  [0x2236, ':'], [0xa789, ':'], [0x02d0, ':'], [0x0589, ':'], [0x05c3, ':'], [0xfe13, ':'], [0xfe55, ':'], [0x2e2c, ':'],
  [0x2017, '_'], [0xff3f, '_'], [0xfe4d, '_'], [0xfe4e, '_'], [0xfe4f, '_'], [0x2216, '\\'], [0x29f5, '\\'], [0xfe68, '\\'],
]);

/** NFKC folds that land on printable ASCII (fullwidth forms, math alphanumerics, ...), cached. */
const nfkcCache = new Map<number, string | null>();
const NFKC_CACHE_LIMIT = 8192;

function nfkcAscii(cp: number): string | null {
  const cached = nfkcCache.get(cp);
  if (cached !== undefined) return cached;
  const source = String.fromCodePoint(cp);
  const folded = source.normalize('NFKC');
  let result: string | null = null;
  if (folded !== source && folded.length > 0 && folded.length <= 4) {
    result = folded;
    for (let index = 0; index < folded.length; index += 1) {
      const code = folded.charCodeAt(index);
      if (code < 0x20 || code > 0x7e) {
        result = null;
        break;
      }
    }
  }
  if (nfkcCache.size >= NFKC_CACHE_LIMIT) nfkcCache.clear();
  nfkcCache.set(cp, result);
  return result;
}

/** What the folded view holds for a visible code point: itself (undefined) or an ASCII form. */
export function foldVisible(cp: number): string | undefined {
  if (cp < 0x80) return undefined;
  if (isCombiningMark(cp)) return '';
  const confusable = CONFUSABLES.get(cp);
  if (confusable !== undefined) return confusable;
  if (cp === 0x3000 || (cp >= 0x2000 && cp <= 0x200a) || cp === 0xa0 || cp === 0x202f || cp === 0x205f) return ' ';
  return nfkcAscii(cp) ?? undefined;
}

/** Can the code point be hidden, or fold to something else? (Context-free part of the rules.) */
function isSpecial(cp: number): boolean {
  return isBidiControl(cp) || isUnicodeTag(cp) || isInvisible(cp) || isJoiner(cp) || isVariationSelector(cp) || foldVisible(cp) !== undefined;
}

/**
 * Per BMP code point: 0 not classified yet, 1 plain (never hidden, folds to itself), 2 special.
 * Filled lazily, so text in any script costs one table read per character after the first.
 */
const BMP_CLASS = new Uint8Array(0x10000);

function isPlainBmp(cp: number): boolean {
  let cls = BMP_CLASS[cp]!;
  if (cls === 0) {
    cls = isSpecial(cp) ? 2 : 1;
    BMP_CLASS[cp] = cls;
  }
  return cls === 1;
}

// ---------------------------------------------------------------------------------------------
// The folded view.

interface FoldedView {
  readonly text: string;
  /** Offsets between the folded view and the original (domain/text/fold.ts). */
  readonly offsets: FoldedText;
  readonly hidden: PromptFinding[];
}

/** Keycap emoji (`1️⃣`): an ASCII digit, `#` or `*`, a selector, then U+20E3. */
const KEYCAP = 0x20e3;

/**
 * Is the code point hidden, and how? `previous` is the code point before it (-1 at the start or
 * after a hidden one), `previousSelector` whether that was an accepted variation selector.
 */
export function hiddenKind(cp: number, previous: number, previousSelector: boolean, next: number): PromptFindingKind | undefined {
  if (isBidiControl(cp)) return 'bidi_control';
  if (isUnicodeTag(cp)) return 'unicode_tag';
  if (isInvisible(cp)) return 'invisible';
  // Emoji ZWJ sequences (often `emoji U+FE0F ZWJ emoji`) and Indic or Persian joiners.
  if (isJoiner(cp)) return (isRichBase(previous) || previousSelector) && isRichBase(next) ? undefined : 'invisible';
  if (isVariationSelector(cp)) {
    if (isRichBase(previous)) return undefined;
    const keycapBase = (previous >= 0x30 && previous <= 0x39) || previous === 0x23 || previous === 0x2a;
    return keycapBase && next === KEYCAP ? undefined : 'invisible';
  }
  return undefined;
}

function codePointAt(text: string, index: number): number {
  return index < text.length ? text.codePointAt(index)! : -1;
}

/**
 * The first character that is not ASCII, from lastIndex on. Every ASCII unit, controls and DEL
 * included, is neither hidden nor folded (hiddenKind and foldVisible answer undefined for all 128:
 * prompt.test.ts), so the fast path below takes them all: a line break no longer ends a run
 * (session 16, wave15/large: before, each line of a text paid the loop for its first 16 units and
 * a regex call).
 */
const NOT_ASCII = /[\u0080-\uffff]/g;
/** ASCII characters in a row after which the rest of the run is skipped by the regex engine. */
const ASCII_RUN = 16;

/** One pass: hidden-character findings (adjacent ones of a kind merged) and the folded view. */
function foldText(text: string): FoldedView {
  const hidden: PromptFinding[] = [];
  const anchors: FoldAnchor[] = [];
  const parts: string[] = [];
  let copiedFrom = 0;
  let foldedLength = 0;
  let previous = -1;
  let previousSelector = false;
  let index = 0;
  let asciiRun = 0;
  const length = text.length;
  while (index < length) {
    const code = text.charCodeAt(index);
    // Fast path: ASCII and plain BMP characters are never folded nor hidden.
    if (code < 0x80) {
      previous = code;
      previousSelector = false;
      index += 1;
      // Prose is long runs of printable ASCII: past a few, the regex engine finds where the run
      // ends faster than a loop turn per character (short runs, as between words of another
      // script, never pay for the call).
      if (++asciiRun >= ASCII_RUN) {
        asciiRun = 0;
        NOT_ASCII.lastIndex = index;
        const next = NOT_ASCII.exec(text)?.index ?? length;
        if (next > index) {
          previous = text.charCodeAt(next - 1);
          index = next;
        }
      }
      continue;
    }
    asciiRun = 0;
    if (code >= 0x80 && (code < 0xd800 || code > 0xdfff) && isPlainBmp(code)) {
      previous = code;
      previousSelector = false;
      index += 1;
      continue;
    }
    const cp = text.codePointAt(index)!;
    const width = cp > 0xffff ? 2 : 1;
    const kind = hiddenKind(cp, previous, previousSelector, codePointAt(text, index + width));
    let replacement: string | undefined;
    if (kind !== undefined) {
      const last = hidden[hidden.length - 1];
      if (last !== undefined && last.kind === kind && last.end === index) hidden[hidden.length - 1] = { kind, start: last.start, end: index + width };
      else hidden.push({ kind, start: index, end: index + width });
      replacement = '';
    } else {
      replacement = foldVisible(cp);
    }
    if (replacement !== undefined) {
      parts.push(text.slice(copiedFrom, index), replacement);
      foldedLength += index - copiedFrom;
      anchors.push({ folded: foldedLength, foldedLength: replacement.length, original: index, originalLength: width });
      foldedLength += replacement.length;
      copiedFrom = index + width;
    }
    // A hidden character is not a base for what follows it.
    previousSelector = kind === undefined && isVariationSelector(cp);
    previous = kind !== undefined ? -1 : cp;
    index += width;
  }
  if (anchors.length === 0) return { text, offsets: new FoldedText(text, anchors), hidden };
  parts.push(text.slice(copiedFrom));
  const folded = parts.join('');
  return { text: folded, offsets: new FoldedText(folded, anchors), hidden };
}

// ---------------------------------------------------------------------------------------------
// Token cores in the folded view.

/** Width of a part unit at `index`: a part character, or `\_`; 0 otherwise. */
function partUnit(text: string, index: number): number {
  const code = text.charCodeAt(index);
  if (isPartChar(code)) return 1;
  if (code === BACKSLASH && text.charCodeAt(index + 1) === UNDERSCORE) return 2;
  return 0;
}

/** Longest part worth reading: a 64-character type name with escapes, a 41-character id. */
const MAX_PART = 160;

interface Part {
  readonly start: number;
  readonly end: number;
  /** Lowercased, `\_` unescaped. */
  readonly text: string;
}

interface Core {
  readonly start: number;
  readonly end: number;
  readonly token: Token;
}

/** Cores of one colon-separated chain of parts. */
function coresOfChain(parts: readonly Part[], out: Core[]): void {
  let index = 1;
  while (index + 1 < parts.length) {
    const id = parts[index]!.text;
    const cap = parts[index + 1]!.text;
    if (capMatchesScheme(id, cap)) {
      const name = parts[index - 1]!.text;
      const custom = index >= 2 && parts[index - 2]!.text === 'custom' ? `custom:${name}` : undefined;
      let type: string | undefined;
      let start = parts[index - 1]!.start;
      if (custom !== undefined && isValidTokenType(custom)) {
        type = custom;
        start = parts[index - 2]!.start;
      } else if (isValidTokenType(name)) {
        type = name;
      }
      if (type !== undefined) {
        out.push({ start, end: parts[index + 1]!.end, token: { type, id, cap } });
        index += 3;
        continue;
      }
    }
    index += 1;
  }
}

/**
 * Every `type:id:cap` core of the folded text, in order, non-overlapping. Linear: the scan
 * jumps from colon to colon (indexOf), reads the part before a colon backwards (never past the
 * previous chain), then follows the chain of colon-separated parts forwards.
 */
function findCores(text: string): Core[] {
  const cores: Core[] = [];
  const length = text.length;
  let from = 0;
  for (;;) {
    const colon = text.indexOf(':', from);
    if (colon < 0) break;
    let partEnd = colon;
    while (partEnd > from && isPackagingSpace(text.charCodeAt(partEnd - 1))) partEnd -= 1;
    let partStart = partEnd;
    while (partStart > from) {
      const code = text.charCodeAt(partStart - 1);
      if (isPartChar(code) || (code === BACKSLASH && text.charCodeAt(partStart) === UNDERSCORE)) partStart -= 1;
      else break;
    }
    if (partStart === partEnd) {
      from = colon + 1;
      continue;
    }
    const parts: Part[] = [];
    let cursor = partStart;
    for (;;) {
      const start = cursor;
      for (;;) {
        const width = partUnit(text, cursor);
        if (width === 0) break;
        cursor += width;
      }
      // No type, id or cap is longer than MAX_PART; longer runs cannot be one (and are not copied).
      const raw = cursor - start <= MAX_PART ? asciiLower(text.slice(start, cursor).replaceAll('\\_', '_')) : '';
      parts.push({ start, end: cursor, text: raw });
      let look = cursor;
      while (look < length && isPackagingSpace(text.charCodeAt(look))) look += 1;
      if (text.charCodeAt(look) !== COLON) break;
      look += 1;
      while (look < length && isPackagingSpace(text.charCodeAt(look))) look += 1;
      if (partUnit(text, look) === 0) break;
      cursor = look;
    }
    if (parts.length >= 3) coresOfChain(parts, cores);
    from = Math.max(cursor, colon + 1);
  }
  return cores;
}

/** Widen a core over the braces (plain or escaped) and spacing that package it. */
function packaging(text: string, core: Core, floor: number): { start: number; end: number } {
  let start = core.start;
  let cursor = start;
  while (cursor > floor && isPackagingSpace(text.charCodeAt(cursor - 1))) cursor -= 1;
  let braced = false;
  for (;;) {
    if (cursor > floor && text.charCodeAt(cursor - 1) === OPEN_BRACE) {
      cursor -= cursor - 1 > floor && text.charCodeAt(cursor - 2) === BACKSLASH ? 2 : 1;
      braced = true;
    } else {
      break;
    }
  }
  if (braced) start = cursor;
  let end = core.end;
  cursor = end;
  while (cursor < text.length && isPackagingSpace(text.charCodeAt(cursor))) cursor += 1;
  const close = braceRun(text, cursor, CLOSE_BRACE);
  if (close.units > 0) end = close.end;
  return { start, end };
}

/**
 * All findings of `text`, sorted by start. Token findings never overlap each other; a hidden
 * character inside a token-shaped string is reported as well (both count).
 */
export function scanPrompt(text: string): PromptFinding[] {
  const view = foldText(text);
  const cores = findCores(view.text);
  if (cores.length === 0) return view.hidden;
  const tokens: PromptFinding[] = [];
  let floor = 0;
  for (const core of cores) {
    const folded = packaging(view.text, core, floor);
    floor = folded.end;
    const span = view.offsets.identity ? folded : view.offsets.originalSpan(folded.start, folded.end);
    const exact = parseToken(text.slice(span.start, span.end));
    tokens.push({ kind: exact !== null ? 'token' : 'token_variant', start: span.start, end: span.end, token: core.token });
  }
  const all = [...tokens, ...view.hidden];
  all.sort((a, b) => a.start - b.start || b.end - a.end);
  return all;
}

// ---------------------------------------------------------------------------------------------
// Applying the action.

/** Key of a session entry as token findings are compared against it. */
export function sessionTokenKey(token: { readonly type: string; readonly id: string; readonly cap: string }): string {
  return `${token.type}\u0000${token.id}\u0000${token.cap}`;
}

/** The tokens of a session being continued, as a lookup set. */
export function sessionTokenKeys(entries: readonly TokenEntry[]): ReadonlySet<string> {
  return new Set(entries.map((entry) => sessionTokenKey(entry)));
}

/**
 * Accumulates findings over one request (one text, or every string of a JSON document or chat)
 * and applies the action to each text: `strip` returns the cleaned text, `warn` returns it
 * unchanged, `block` throws VEIL_PROMPT_REJECTED on the first finding.
 */
export class PromptGuard {
  readonly action: PromptAction;
  readonly #legit: ReadonlySet<string>;
  readonly #counts = new Map<PromptFindingKind, number>();

  constructor(action: PromptAction, legit: ReadonlySet<string> = new Set()) {
    this.action = action;
    this.#legit = legit;
  }

  /** Screen one text. `field` names it in a block error (never its value). */
  screen(text: string, field: string): string {
    return this.apply(text, scanPrompt(text), field);
  }

  /** Apply the action given findings from scanPrompt(text). */
  apply(text: string, findings: readonly PromptFinding[], field: string): string {
    const relevant = findings.filter((finding) => finding.token === undefined || !this.#legit.has(sessionTokenKey(finding.token)));
    if (relevant.length === 0) return text;
    for (const finding of relevant) this.#counts.set(finding.kind, (this.#counts.get(finding.kind) ?? 0) + 1);
    switch (this.action) {
      case 'block':
        throw new VeilError('VEIL_PROMPT_REJECTED', `${field}: contains token-shaped text or hidden characters (prompt security)`);
      case 'warn':
        return text;
      case 'strip':
        return strip(text, relevant);
    }
  }

  get triggered(): boolean {
    return this.#counts.size > 0;
  }

  summary(): PromptSecuritySummary {
    const findings = PROMPT_FINDING_KINDS.filter((kind) => this.#counts.has(kind)).map((kind) => ({ kind, count: this.#counts.get(kind)! }));
    return { triggered: findings.length > 0, action: this.action, findings };
  }
}

/**
 * Remove hidden characters and replace each token-shaped string with STRIPPED_TOKEN_MARK. The
 * mark (rather than nothing) keeps the two sides of a removed token apart, so no new token can
 * form from what was around it: `{{email:e_001:` + removed + `cap}}` stays broken.
 */
function strip(text: string, findings: readonly PromptFinding[]): string {
  const parts: string[] = [];
  let cursor = 0;
  for (const finding of findings) {
    if (finding.end <= cursor) continue; // inside a token already replaced
    const start = Math.max(cursor, finding.start);
    parts.push(text.slice(cursor, start));
    if (finding.token !== undefined) parts.push(STRIPPED_TOKEN_MARK);
    cursor = finding.end;
  }
  parts.push(text.slice(cursor));
  return parts.join('');
}

/** The warning a response carries when prompt security triggered (counts only). */
export function promptSecurityWarning(summary: PromptSecuritySummary): string | undefined {
  if (!summary.triggered) return undefined;
  const tokens = summary.findings.filter((item) => item.kind === 'token' || item.kind === 'token_variant').reduce((sum, item) => sum + item.count, 0);
  const hidden = summary.findings.filter((item) => item.kind !== 'token' && item.kind !== 'token_variant').reduce((sum, item) => sum + item.count, 0);
  const what = `${tokens} token-shaped string(s) and ${hidden} hidden-character run(s)`;
  switch (summary.action) {
    case 'strip':
      return `prompt security: removed ${what} from the input before detection; entity spans refer to the cleaned input`;
    case 'warn':
      return `prompt security: the input contains ${what}; they were left in place`;
    case 'block':
      return `prompt security: the input contains ${what}`;
  }
}
