// Offset conversion between UTF-16 code units (what JS strings, RegExp and String#slice use) and
// Unicode code points (what the API reports: decisions.md section 3, "spans count code points,
// end exclusive, as Python string indices do"). Detection works in UTF-16 throughout; conversion
// happens once at the HTTP edge, so both directions here are a single pass over the text.

// No `g` flag: `test` then never reads or writes lastIndex, so the shared instance is safe.
const SURROGATE = /[\uD800-\uDFFF]/;

/** True when `text` holds any surrogate code unit (so UTF-16 and code-point offsets can differ). */
function hasSurrogates(text: string): boolean {
  return SURROGATE.test(text);
}

/** Positions of `offsets` in ascending order of value (ties keep input order). */
function ascendingOrder(offsets: readonly number[]): number[] {
  const order = offsets.map((_, index) => index);
  let sorted = true;
  for (let k = 1; k < offsets.length; k++) {
    if (offsets[k]! < offsets[k - 1]!) {
      sorted = false;
      break;
    }
  }
  // Detection spans arrive sorted; only sort when a caller hands us something else.
  if (!sorted) order.sort((a, b) => offsets[a]! - offsets[b]! || a - b);
  return order;
}

/**
 * Convert UTF-16 offsets into `text` to code-point offsets. An offset that points between the
 * two halves of a surrogate pair maps to the code point that pair encodes (it rounds down).
 * Offsets beyond the text map to the code-point length. Order of the result follows `offsets`.
 */
export function utf16ToCodePoints(text: string, offsets: readonly number[]): number[] {
  if (!hasSurrogates(text)) return offsets.slice();
  const result = new Array<number>(offsets.length);
  const order = ascendingOrder(offsets);
  let unit = 0; // current UTF-16 position
  let point = 0; // code points before `unit`
  for (const index of order) {
    const target = Math.min(Math.max(offsets[index]!, 0), text.length);
    while (unit < target) {
      const c = text.charCodeAt(unit);
      const pair = c >= 0xd800 && c <= 0xdbff && unit + 1 < text.length && isLowSurrogate(text.charCodeAt(unit + 1));
      const width = pair ? 2 : 1;
      if (unit + width > target) break; // target splits a pair: round down to the pair's start
      unit += width;
      point += 1;
    }
    result[index] = point;
  }
  return result;
}

/**
 * Convert code-point offsets into `text` to UTF-16 offsets (the inverse of utf16ToCodePoints).
 * Offsets beyond the text map to `text.length`; negative offsets map to 0.
 */
export function codePointsToUtf16(text: string, offsets: readonly number[]): number[] {
  if (!hasSurrogates(text)) return offsets.map((offset) => Math.min(Math.max(offset, 0), text.length));
  const result = new Array<number>(offsets.length);
  const order = ascendingOrder(offsets);
  let unit = 0;
  let point = 0;
  for (const index of order) {
    const target = Math.max(offsets[index]!, 0);
    while (point < target && unit < text.length) {
      const c = text.charCodeAt(unit);
      const pair = c >= 0xd800 && c <= 0xdbff && unit + 1 < text.length && isLowSurrogate(text.charCodeAt(unit + 1));
      unit += pair ? 2 : 1;
      point += 1;
    }
    result[index] = unit;
  }
  return result;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

// A high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `text` with every unpaired surrogate code unit replaced by U+FFFD. One code unit for one, so
 * UTF-16 offsets, code-point offsets and the length are all unchanged: spans found in the result
 * are spans of `text`. The result is well-formed Unicode (encodable as UTF-8), which is what a
 * process outside JavaScript (the NER sidecar) can be given.
 */
export function replaceLoneSurrogates(text: string): string {
  return hasSurrogates(text) ? text.replace(LONE_SURROGATE, '\uFFFD') : text;
}
