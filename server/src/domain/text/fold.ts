// The folded view of a text: what detection, revocation normalization and the output guard
// compare instead of the raw characters, so that a value written with other code points is the
// same value. CJK input methods type full-width digits and `＠` by default, Arabic-script
// keyboards type Arabic-Indic digits, word processors turn hyphens into en dashes or U+2011,
// and Chinese and Japanese text ends sentences (and, typed in a hurry, domains) with `。`.
//
// Per code point, in this order:
//   - default-ignorable characters (zero-width spaces and joiners, soft hyphen, bidi controls,
//     variation selectors, BOM, tag characters) are dropped: invisible, never part of a value;
//   - `。` and `｡` become `.`;
//   - space separators (no-break, ideographic, em space, ...) become an ASCII space;
//   - dashes (\p{Pd}: en dash, U+2011, figure dash, ...) and the minus sign become `-`;
//   - decimal digits of every script (\p{Nd}) become ASCII digits;
//   - everything else becomes its NFKC form (full-width forms, `＠`, ligatures, circled and
//     super/subscript digits), with the rules above applied to what NFKC yields.
//
// The mapping is per code point, so folding a slice of the text gives the same result as
// slicing the folded text at the corresponding boundaries. Only characters that change are
// recorded (sparse anchors), so offsets in the folded view map back to the original exactly
// with a binary search. Pure-ASCII text is recognised natively (a UTF-8 byte count) and, like
// text with no foldable character, returned as is without allocating.

// No `g` flags: test() then neither reads nor writes lastIndex.
const IGNORABLE = /^\p{Default_Ignorable_Code_Point}$/u;
const SPACE_SEPARATOR = /^\p{Zs}$/u;
const DASH = /^\p{Pd}$/u;
const DECIMAL = /^\p{Nd}$/u;

const MINUS_SIGN = 0x2212;
const IDEOGRAPHIC_FULL_STOP = 0x3002;
const HALFWIDTH_IDEOGRAPHIC_FULL_STOP = 0xff61;

function isDecimal(cp: number): boolean {
  return DECIMAL.test(String.fromCodePoint(cp));
}

/**
 * ASCII digit of a decimal digit of any script. Unicode encodes every script's digits 0-9 as a
 * contiguous run starting at zero (some runs follow each other: mathematical digits), so the
 * value is the distance from the start of the run of decimals modulo 10.
 */
function digitOf(cp: number): string {
  let zero = cp;
  while (cp - zero < 100 && isDecimal(zero - 1)) zero--;
  return String.fromCharCode(48 + ((cp - zero) % 10));
}

/** The rules before NFKC; undefined when none applies. */
function foldSimple(cp: number): string | undefined {
  const ch = String.fromCodePoint(cp);
  if (IGNORABLE.test(ch)) return '';
  if (cp === IDEOGRAPHIC_FULL_STOP || cp === HALFWIDTH_IDEOGRAPHIC_FULL_STOP) return '.';
  if (SPACE_SEPARATOR.test(ch)) return ' ';
  if (cp === MINUS_SIGN || DASH.test(ch)) return '-';
  if (DECIMAL.test(ch)) return digitOf(cp);
  return undefined;
}

/** What a non-ASCII code point folds to; undefined when it stays as it is. */
function computeFold(cp: number): string | undefined {
  const simple = foldSimple(cp);
  if (simple !== undefined) return simple;
  const ch = String.fromCodePoint(cp);
  const normalized = ch.normalize('NFKC');
  if (normalized === ch) return undefined;
  let out = '';
  for (const part of normalized) {
    const code = part.codePointAt(0)!;
    out += code < 0x80 ? part : (foldSimple(code) ?? part);
  }
  return out;
}

/** Per BMP code unit: 0 not classified yet, 1 stays, 2 folds (see BMP_FOLDS). */
const BMP_CLASS = new Uint8Array(0x10000);
const BMP_FOLDS: (string | undefined)[] = new Array<string | undefined>(0x10000).fill(undefined);
/** Astral code points (mathematical digits and letters, tags, ...), bounded. */
const ASTRAL_FOLDS = new Map<number, string | null>();
const ASTRAL_CACHE_LIMIT = 4096;

// ASCII never folds.
BMP_CLASS.fill(1, 0, 0x80);

/** The fold of the BMP code unit `code` (not a surrogate), or undefined when it stays. */
function bmpFold(code: number): string | undefined {
  let cls = BMP_CLASS[code]!;
  if (cls === 0) {
    const folded = computeFold(code);
    if (folded === undefined) cls = 1;
    else {
      cls = 2;
      BMP_FOLDS[code] = folded;
    }
    BMP_CLASS[code] = cls;
  }
  return cls === 1 ? undefined : BMP_FOLDS[code];
}

function astralFold(cp: number): string | undefined {
  let folded = ASTRAL_FOLDS.get(cp);
  if (folded === undefined) {
    folded = computeFold(cp) ?? null;
    if (ASTRAL_FOLDS.size >= ASTRAL_CACHE_LIMIT) ASTRAL_FOLDS.clear();
    ASTRAL_FOLDS.set(cp, folded);
  }
  return folded ?? undefined;
}

const NON_ASCII = /[\u0080-\uffff]/;

/** Index of the first code unit that may fold, or -1. */
function firstFoldable(text: string): number {
  // Pure ASCII (the common case) never folds: UTF-8 has one byte per character exactly then,
  // and Node counts UTF-8 bytes natively (SIMD): ~25 ns for a sentence, ~30 us per MB, far
  // below a loop or a regex in JS.
  const length = text.length;
  if (Buffer.byteLength(text, 'utf8') === length) return -1;
  const first = NON_ASCII.exec(text)?.index ?? length;
  for (let index = first; index < length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) continue;
    if (code < 0xd800 || code > 0xdfff) {
      if (bmpFold(code) !== undefined) return index;
    } else return index; // surrogates: checked by the full pass
  }
  return -1;
}

/**
 * A place where a folded view differs from the original. Also built by the prompt guard's own
 * view (domain/guard/prompt.ts folds look-alikes for token cores), which maps offsets with
 * FoldedText too.
 */
export interface FoldAnchor {
  /** Folded index where the replacement starts. */
  readonly folded: number;
  /** Its length in the folded view (0 when the character was dropped). */
  readonly foldedLength: number;
  /** Original index and length (UTF-16 units) of the character. */
  readonly original: number;
  readonly originalLength: number;
  /**
   * A run of characters of one unit each that fold to one unit each (full-width text): offsets
   * map one to one inside it. One anchor per run keeps a page of full-width digits cheap.
   */
  readonly perCharacter?: boolean;
}

/** A text and its folded view, with offsets mapping between them. */
export class FoldedText {
  /** The folded text (the original string itself when nothing folds). */
  readonly text: string;
  /** Sorted by `folded` (then by `original`): one per character that folds to something else. */
  readonly #anchors: readonly FoldAnchor[];

  constructor(text: string, anchors: readonly FoldAnchor[]) {
    this.text = text;
    this.#anchors = anchors;
  }

  /** True when the folded text is the original (offsets are the same in both). */
  get identity(): boolean {
    return this.#anchors.length === 0;
  }

  /**
   * The original span (UTF-16, end exclusive) of the folded units [start, end): from the start
   * of the character behind `start` to the end of the character behind `end - 1`. A span that
   * begins or ends inside the multi-character fold of one character (NFKC's `㍿` is four
   * characters) grows to that whole character. Dropped characters inside the span are part of
   * it; dropped characters on its edges are not.
   */
  originalSpan(start: number, end: number): { start: number; end: number } {
    if (end <= start) {
      const at = this.#originalOf(start, false);
      return { start: at, end: at };
    }
    return { start: this.#originalOf(start, false), end: this.#originalOf(end - 1, true) };
  }

  /**
   * The folded span of the original units [start, end), which must lie on code-point
   * boundaries: the inverse of originalSpan for spans it returns.
   */
  foldedSpan(start: number, end: number): { start: number; end: number } {
    return { start: this.#foldedOf(start), end: this.#foldedOf(end) };
  }

  /** Folded index of original index `unit` (a code-point boundary). */
  #foldedOf(unit: number): number {
    const anchors = this.#anchors;
    // The last anchor whose original character starts before `unit`.
    let low = 0;
    let high = anchors.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (anchors[middle]!.original < unit) {
        found = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    if (found < 0) return unit;
    const anchor = anchors[found]!;
    if (anchor.perCharacter === true && unit < anchor.original + anchor.originalLength) return anchor.folded + (unit - anchor.original);
    return anchor.folded + anchor.foldedLength + (unit - anchor.original - anchor.originalLength);
  }

  /** Original start (or end, exclusive) of the character behind folded unit `unit`. */
  #originalOf(unit: number, wantEnd: boolean): number {
    const anchors = this.#anchors;
    // The last anchor at or before `unit`: a replacement covering it, or the last change before
    // it (a dropped character right before `unit` sits at the same folded index and counts).
    let low = 0;
    let high = anchors.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (anchors[middle]!.folded <= unit) {
        found = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    if (found < 0) return wantEnd ? unit + 1 : unit;
    const anchor = anchors[found]!;
    if (unit < anchor.folded + anchor.foldedLength) {
      if (anchor.perCharacter === true) return anchor.original + (unit - anchor.folded) + (wantEnd ? 1 : 0);
      return wantEnd ? anchor.original + anchor.originalLength : anchor.original;
    }
    const position = anchor.original + anchor.originalLength + (unit - anchor.folded - anchor.foldedLength);
    return wantEnd ? position + 1 : position;
  }
}

const NO_ANCHORS: readonly FoldAnchor[] = [];

/** Scratch for the characters of a per-character run (the fold is synchronous: one is enough). */
const RUN_CODES = new Uint16Array(4096);

/** An anchor under construction (a per-character run grows while it lasts). */
interface MutableAnchor {
  folded: number;
  foldedLength: number;
  original: number;
  originalLength: number;
  perCharacter?: boolean;
}

/** The folded view of `text` with its offset map (see the header). */
export function foldWithOffsets(text: string): FoldedText {
  const first = firstFoldable(text);
  if (first < 0) return new FoldedText(text, NO_ANCHORS);
  const anchors: MutableAnchor[] = [];
  const parts: string[] = [];
  let copiedFrom = 0;
  let foldedLength = 0;
  // The open per-character run; its folded characters wait in RUN_CODES (flushed in chunks).
  let run: MutableAnchor | undefined;
  let pending = 0;
  const flushRun = (): void => {
    if (pending > 0) parts.push(String.fromCharCode(...RUN_CODES.subarray(0, pending)));
    pending = 0;
  };
  let index = first;
  const length = text.length;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code < 0x80) {
      index++;
      continue;
    }
    let folded: string | undefined;
    let width = 1;
    if (code < 0xd800 || code > 0xdfff) folded = bmpFold(code);
    else {
      const cp = text.codePointAt(index)!;
      // A lone surrogate stays as it is (callers treat it as an unknown character).
      if (cp > 0xffff) {
        width = 2;
        folded = astralFold(cp);
      }
    }
    if (folded !== undefined) {
      if (index > copiedFrom) {
        if (run !== undefined) {
          flushRun();
          run = undefined;
        }
        parts.push(text.slice(copiedFrom, index));
        foldedLength += index - copiedFrom;
      }
      if (width === 1 && folded.length === 1) {
        if (run === undefined) {
          run = { folded: foldedLength, foldedLength: 0, original: index, originalLength: 0, perCharacter: true };
          anchors.push(run);
        }
        run.foldedLength++;
        run.originalLength++;
        if (pending === RUN_CODES.length) flushRun();
        RUN_CODES[pending++] = folded.charCodeAt(0);
      } else {
        if (run !== undefined) {
          flushRun();
          run = undefined;
        }
        parts.push(folded);
        anchors.push({ folded: foldedLength, foldedLength: folded.length, original: index, originalLength: width });
      }
      foldedLength += folded.length;
      copiedFrom = index + width;
    }
    index += width;
  }
  flushRun();
  if (anchors.length === 0) return new FoldedText(text, NO_ANCHORS);
  parts.push(text.slice(copiedFrom));
  return new FoldedText(parts.join(''), anchors);
}

/** The folded text alone (for comparing values: revocation normalization, policy value patterns). */
export function foldText(text: string): string {
  return foldWithOffsets(text).text;
}
