// The output as it renders, for the output guard (red team, session 11): markup the model wraps
// around or inside a value leaves the value whole on screen while the text as written breaks it
// for the detectors: `4111<b></b>1111 1111 1111`, `[4111](https://x.example) 1111 1111 1111`,
// `**4111** 1111 …`, `jane<!-- -->.doe@corp.example`. The guard also reads this view, where HTML
// tags and comments, Markdown link syntax (`[`, `![`, `](target)`) and emphasis and code markers
// (`*`, `~`, backticks) are removed, with an exact map back to the original, so such a value is
// masked where it stands, the markup inside it included. A tag still open at the end of the text
// (`4111<b cla`, a stream's pending text) is read as removed too, so a stream holds the value
// while a tag may still continue it. Only findings that cross a removed piece are taken from this
// view; the others the guard finds in the text as written. A piece removed between two letters or
// digits leaves a space, so `4111<b></b>1111` reads as the grouping detectors know.
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
const HINT = /[<\]*~`[]/;
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
}

const IDENTITY = (text: string): RenderedView => ({
  text,
  identity: true,
  originalSpan: (start, end) => ({ start, end }),
  originalIndex: (index) => index,
  spansMarkup: () => false,
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
  if (char === '*' || char === '~' || char === '`') {
    let at = index + 1;
    while (at < length && text[at] === char) at += 1;
    return at;
  }
  return -1;
}

/**
 * The text with markup removed, and the map back. A removed piece between two letters or digits
 * leaves a space (`4111<b></b>1111` reads `4111 1111`, the grouping detectors know), else nothing.
 */
export function renderedView(text: string): RenderedView {
  if (!HINT.test(text)) return IDENTITY(text);
  const next = { gt: new NextIndex(text, '>'), lt: new NextIndex(text, '<'), comment: new NextIndex(text, '-->') };
  let view = '';
  // positions[i]: original index of view character i; positions[view length]: original length.
  const positions: number[] = [];
  let kept = 0;
  let removed = false;
  let index = 0;
  while (index < text.length) {
    const end = pieceEnd(text, index, next);
    if (end < 0) {
      index += 1;
      continue;
    }
    for (let at = kept; at < index; at += 1) positions.push(at);
    view += text.slice(kept, index);
    const before = view.at(-1);
    const after = text[end];
    if (before !== undefined && after !== undefined && ALNUM.test(before) && ALNUM.test(after) && !ALNUM.test(text[index]!)) {
      view += ' ';
      positions.push(index);
    }
    removed = true;
    kept = end;
    index = end;
  }
  if (!removed) return IDENTITY(text);
  for (let at = kept; at < text.length; at += 1) positions.push(at);
  view += text.slice(kept);
  positions.push(text.length);
  return {
    text: view,
    identity: false,
    originalSpan: (start, end) => ({ start: positions[start]!, end: positions[end - 1]! + 1 }),
    originalIndex: (at) => positions[at]!,
    spansMarkup: (start, end) => positions[end - 1]! - positions[start]! !== end - 1 - start,
  };
}
