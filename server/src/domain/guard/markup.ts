// The output as it renders, for the output guard (red team, session 11): markup the model wraps
// around or inside a value leaves the value whole on screen while the text as written breaks it
// for the detectors: `4111<b></b>1111 1111 1111`, `[4111](https://x.example) 1111 1111 1111`,
// `**4111** 1111 …`, `jane<!-- -->.doe@corp.example`. The guard also reads this view, where HTML
// tags and comments, Markdown link syntax (`[`, `![`, `](target)`) and emphasis and code markers
// (`*`, `~`, backticks, `$`, LaTeX's `\(` `\)` `\[` `\]`) are removed, with an exact map back to
// the original, so such a value is
// masked where it stands, the markup inside it included. A tag still open at the end of the text
// (`4111<b cla`, a stream's pending text) is read as removed too, so a stream holds the value
// while a tag may still continue it. Only findings that cross a removed piece are taken from this
// view; the others the guard finds in the text as written. A piece removed between two letters or
// digits leaves a space, so `4111<b></b>1111` reads as the grouping detectors know.
//
// String escapes are decoded first (session 12): a JSON answer renders `4111\u003cb\u003e1111`
// as `4111<b>1111` once parsed (see escapesDecoded below).
//
// The detectors' folded view (domain/text/fold.ts) may learn to read through markup in the input
// (wave10/evade); this view is the guard's own and does not depend on it. Linear: one pass, every
// piece bounded, the next `>`, `<` and `-->` remembered rather than searched again.

/** Longest tag, comment, link target and link text read as markup. */
const MAX_TAG = 256;
const MAX_COMMENT = 1024;
const MAX_TARGET = 512;
const MAX_LINK_TEXT = 256;
/** Can the text hold a piece at all (a quick test before the pass)? */
const HINT = /[<\]*~`[$\\]/;
const ALNUM = /[\p{L}\p{N}]/u;

function isAsciiAlpha(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

function isSpace(char: string): boolean {
  return char === ' ' || char === '\t' || char === '\n' || char === '\r' || char === '\f' || char === '\v';
}

export interface RenderedView {
  readonly text: string;
  /** True when nothing was removed (offsets are the same). */
  readonly identity: boolean;
  /** The original span of view[start, end), start < end. */
  originalSpan(start: number, end: number): { start: number; end: number };
  /** The original index of view index `index` (text.length maps past the original's end). */
  originalIndex(index: number): number;
  /** Does the original span of view[start, end) hold a removed piece? */
  spansMarkup(start: number, end: number): boolean;
  /** View indices where a piece was removed, ascending. */
  readonly cuts: readonly number[];
  /** How many removed pieces left a space (joined two letters or digits); 0 when not `spaced`. */
  readonly joins: number;
}

const IDENTITY = (text: string): RenderedView => ({
  text,
  identity: true,
  originalSpan: (start, end) => ({ start, end }),
  originalIndex: (index) => index,
  spansMarkup: () => false,
  cuts: [],
  joins: 0,
});

/** Next index of `needle` at or after `from` (text.length when none), remembered per needle. */
class NextIndex {
  #at = -1;
  constructor(
    private readonly text: string,
    private readonly needle: string,
  ) {}

  from(index: number): number {
    if (this.#at < index) {
      const found = this.text.indexOf(this.needle, index);
      this.#at = found < 0 ? this.text.length : found;
    }
    return this.#at;
  }
}

/** End of the piece of markup starting at `index`, or -1 when none starts there. */
function pieceEnd(text: string, index: number, next: { gt: NextIndex; lt: NextIndex; comment: NextIndex }): number {
  const length = text.length;
  const char = text[index]!;
  if (char === '<') {
    if (text.startsWith('<!--', index)) {
      const close = next.comment.from(index + 4);
      if (close < length) return close - index <= MAX_COMMENT ? close + 3 : -1;
      return length - index <= MAX_COMMENT ? length : -1; // a comment still open at the end
    }
    const nameAt = text.charCodeAt(index + 1) === 0x2f ? index + 2 : index + 1;
    if (nameAt >= length) return length; // `<` or `</` at the very end: a tag may follow
    if (!isAsciiAlpha(text.charCodeAt(nameAt))) return -1;
    const gt = next.gt.from(nameAt);
    const lt = next.lt.from(nameAt);
    if (gt < lt) return gt - index <= MAX_TAG ? gt + 1 : -1;
    return lt === length && length - index <= MAX_TAG ? length : -1; // a tag still open at the end
  }
  if (char === ']') {
    if (text[index + 1] !== '(') return -1;
    for (let at = index + 2; at < length && at - index <= MAX_TARGET; at += 1) {
      const c = text[at]!;
      if (c === ')') return at + 1;
      if (c === '(' || isSpace(c)) return -1;
    }
    return -1;
  }
  if (char === '[' || (char === '!' && text[index + 1] === '[')) {
    const open = char === '!' ? index + 1 : index;
    for (let at = open + 1; at < length && at - open <= MAX_LINK_TEXT; at += 1) {
      const c = text[at]!;
      if (c === ']') return text[at + 1] === '(' && at > open + 1 ? open + 1 : -1;
      if (c === '[' || c === '\n') return -1;
    }
    return -1;
  }
  if (char === '\\') {
    // LaTeX inline and display math delimiters: `\(1111\)` renders the digits alone.
    const after = text[index + 1];
    if (after === undefined) return text.length; // a backslash at the very end: a delimiter may follow
    // A string escape cut by the end of the text (`\u00`: a stream's pending text) may still
    // decode to markup: read as removed, like a tag still open at the end.
    if (PARTIAL_ESCAPE_AT_END.test(text.slice(index, index + 6)) && index + 6 > text.length) return text.length;
    return after === '(' || after === ')' || after === '[' || after === ']' ? index + 2 : -1;
  }
  if (char === '*' || char === '~' || char === '`' || char === '$') {
    let at = index + 1;
    while (at < length && text[at] === char) at += 1;
    return at;
  }
  return -1;
}

/** A string escape cut short: `\u`, `\u0`…`\u003`, `\x`, `\x3` (tested on the text's last characters). */
const PARTIAL_ESCAPE_AT_END = /^\\(?:u[0-9a-fA-F]{0,3}|x[0-9a-fA-F]?)$/;

/** Characters at which a piece can start. */
const START = /[<\]![*~`$\\]/g;

/**
 * The text with markup removed, and the map back. `spaced`: a removed piece between two letters
 * or digits leaves a space (`4111<b></b>1111` reads `4111 1111`, the grouping detectors know);
 * else nothing, as it renders (`<span>4</span><span>1</span>11 1111 …` reads `4111 1111 …`). The
 * guard reads both.
 * The map is kept as runs (a view index and the original index it starts at), looked up by
 * binary search, so the pass costs a search for the next possible piece, not work per character.
 */
export function renderedView(text: string, spaced = true): RenderedView {
  if (!HINT.test(text)) return IDENTITY(text);
  const decoded = text.includes('\\') ? escapesDecoded(text) : undefined;
  if (decoded === undefined) return markupView(text, spaced);
  const inner = markupView(decoded.text, spaced);
  if (inner.identity) return IDENTITY(text);
  // Compose: view -> decoded text (inner) -> original (the decode's map).
  const { from, to } = decoded;
  const originalIndex = (at: number): number => from[inner.originalIndex(at)]!;
  return {
    text: inner.text,
    identity: false,
    originalSpan: (start, end) => {
      const span = inner.originalSpan(start, end);
      return { start: from[span.start]!, end: to[span.end - 1]! };
    },
    originalIndex,
    spansMarkup: (start, end) => inner.spansMarkup(start, end),
    cuts: inner.cuts,
    joins: inner.joins,
  };
}

/** The markup view of a text read as written (renderedView without the escape decode). */
function markupView(text: string, spaced: boolean): RenderedView {
  if (!HINT.test(text)) return IDENTITY(text);
  const next = { gt: new NextIndex(text, '>'), lt: new NextIndex(text, '<'), comment: new NextIndex(text, '-->') };
  const parts: string[] = [];
  // Run r covers view [runView[r], runView[r + 1]) and starts at original runOriginal[r].
  const runView: number[] = [0];
  const runOriginal: number[] = [0];
  const cuts: number[] = [];
  let joins = 0;
  let viewLength = 0;
  let kept = 0;
  START.lastIndex = 0;
  for (let found = START.exec(text); found !== null; found = START.exec(text)) {
    const index = found.index;
    const end = pieceEnd(text, index, next);
    if (end < 0) continue;
    parts.push(text.slice(kept, index));
    viewLength += index - kept;
    const before = index > kept ? text[index - 1] : parts.length > 1 ? lastChar(parts) : undefined;
    const after = text[end];
    const space = spaced && before !== undefined && after !== undefined && ALNUM.test(before) && ALNUM.test(after) && !ALNUM.test(text[index]!);
    if (space) {
      // The space stands for the piece: it maps to the piece's first character.
      runView.push(viewLength);
      runOriginal.push(index);
      parts.push(' ');
      viewLength += 1;
      joins += 1;
    }
    if (cuts.at(-1) !== viewLength) cuts.push(viewLength);
    runView.push(viewLength);
    runOriginal.push(end);
    kept = end;
    START.lastIndex = end;
  }
  if (cuts.length === 0) return IDENTITY(text);
  parts.push(text.slice(kept));
  const view = parts.join('');
  const originalIndex = (at: number): number => {
    if (at >= view.length) return text.length;
    let low = 0;
    let high = runView.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (runView[middle]! <= at) low = middle;
      else high = middle - 1;
    }
    return runOriginal[low]! + (at - runView[low]!);
  };
  return {
    text: view,
    identity: false,
    originalSpan: (start, end) => ({ start: originalIndex(start), end: originalIndex(end - 1) + 1 }),
    originalIndex,
    spansMarkup: (start, end) => originalIndex(end - 1) - originalIndex(start) !== end - 1 - start,
    cuts,
    joins,
  };
}

// String escapes (session 12): a JSON answer, a tool call's arguments or a serialized document is
// parsed before it renders, so `4111\u003cb\u003e1111 …` renders as `4111<b>1111 …`. The view
// decodes JSON and JavaScript string escapes (`\uXXXX`, `\xXX`, `\n`, `\"`, `\\`, …; one and two
// levels, as the restore's MarkupContext reads them) before it removes markup, and keeps the map.

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { '/': '/', n: '\n', r: '\r', t: '\t', f: '\f', b: '\b', v: '\v', '"': '"', "'": "'", '\\': '\\' };
const HEX4 = /^[0-9a-fA-F]{4}$/;
const HEX2 = /^[0-9a-fA-F]{2}$/;

interface Decoded {
  readonly text: string;
  /** Original index where decoded character i starts; from[text.length] is the original's length. */
  readonly from: readonly number[];
  /** Original index where decoded character i ends (exclusive). */
  readonly to: readonly number[];
}

/** One level of string escapes decoded, or undefined when there is none. */
function decodeOnce(text: string): Decoded | undefined {
  let out = '';
  const from: number[] = [];
  const to: number[] = [];
  let changed = false;
  let index = 0;
  const emit = (chars: string, start: number, end: number): void => {
    out += chars;
    for (let k = 0; k < chars.length; k += 1) {
      from.push(start);
      to.push(end);
    }
  };
  while (index < text.length) {
    const backslash = text.indexOf('\\', index);
    const stop = backslash < 0 ? text.length : backslash;
    for (let at = index; at < stop; at += 1) {
      from.push(at);
      to.push(at + 1);
    }
    out += text.slice(index, stop);
    if (backslash < 0) break;
    const next = text[backslash + 1];
    const simple = next === undefined ? undefined : SIMPLE_ESCAPES[next];
    if (simple !== undefined) {
      emit(simple, backslash, backslash + 2);
      index = backslash + 2;
      changed = true;
      continue;
    }
    const hex = next === 'u' ? text.slice(backslash + 2, backslash + 6) : next === 'x' ? text.slice(backslash + 2, backslash + 4) : '';
    if ((next === 'u' && HEX4.test(hex)) || (next === 'x' && HEX2.test(hex))) {
      const end = backslash + 2 + hex.length;
      emit(String.fromCharCode(Number.parseInt(hex, 16)), backslash, end);
      index = end;
      changed = true;
      continue;
    }
    // Not an escape: the backslash stays, and the next character is read afresh.
    emit('\\', backslash, backslash + 1);
    index = backslash + 1;
  }
  if (!changed) return undefined;
  from.push(text.length);
  return { text: out, from, to };
}

/** The text with one or two levels of string escapes decoded, mapped to the original; undefined when none. */
function escapesDecoded(text: string): Decoded | undefined {
  const first = decodeOnce(text);
  if (first === undefined) return undefined;
  const second = first.text.includes('\\') ? decodeOnce(first.text) : undefined;
  if (second === undefined) return first;
  return {
    text: second.text,
    from: second.from.map((at) => first.from[at]!),
    to: second.to.map((end) => first.to[end - 1]!),
  };
}

/** The last character of the view built so far (parts may be empty strings). */
function lastChar(parts: readonly string[]): string | undefined {
  for (let index = parts.length - 1; index >= 0; index -= 1) {
    const part = parts[index]!;
    if (part.length > 0) return part[part.length - 1];
  }
  return undefined;
}

/** Characters read on each side of a cut: longer than any value a cut can break (an IBAN, an address). */
export const CUT_WINDOW = 96;
/**
 * How near a cut a digit or an `@` must be: markup that breaks a value sits inside it, next to its
 * characters (an e-mail's `@` may be a few letters away).
 */
const MARK_NEAR = 16;
/** A value the pattern detectors find holds a digit or an `@` (cards, ids, phones, IBANs, e-mail addresses, keys). */
const VALUE_MARK = /[\p{N}@]/u;

/**
 * The stretches of the view worth detecting on: CUT_WINDOW characters on each side of every cut
 * that has a digit or an `@` within MARK_NEAR characters, merged. Prose with markup and no number near it (bold words,
 * links to documentation) costs no detection pass.
 */
export function cutWindows(view: RenderedView): { start: number; end: number }[] {
  const windows: { start: number; end: number }[] = [];
  for (const cut of view.cuts) {
    const start = Math.max(0, cut - CUT_WINDOW);
    const end = Math.min(view.text.length, cut + CUT_WINDOW);
    const near = view.text.slice(Math.max(0, cut - MARK_NEAR), Math.min(view.text.length, cut + MARK_NEAR));
    if (!VALUE_MARK.test(near)) continue;
    const last = windows.at(-1);
    if (last !== undefined && start <= last.end) last.end = end;
    else windows.push({ start, end });
  }
  return windows;
}
