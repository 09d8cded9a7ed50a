// Quoted-printable escapes of punctuation inside a value (session 14, wave13/evade):
// `078=2D05=2D1120`, `=2B1 415 555 0142`, `81=2E2=2E69=2E160`, `00=3A1A=3A2B…`, `sk=2Dproj=2D…`,
// `eyJ…=2EeyJ…`. The fold (fold.ts) decodes quoted-printable only in an e-mail address and in runs of
// six escapes or more: `=2D` and `=2E` are everywhere in assignments (`id=2D4F`, `token=2E9f`), so
// decoding them in the fold would change what every assignment reads. This module gives a reading
// of a run with the escapes of punctuation decoded and an exact map back to the text;
// detect/qp-joined.ts keeps only the values found in it that span an escape and prove themselves.
// An escape in a run of six or more is the fold's (inQpRun): left as written here, so the fold of
// the reading still decodes the whole run.
import { inQpRun } from './fold.js';

/** Upper-case hex (quoted-printable writes its escapes so). */
function upperHex(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  return code >= 65 && code <= 70 ? code - 55 : -1;
}

/** The punctuation character (space, `!` to `/`, `:` to `@`, `[` to `` ` ``, `{` to `~`) escaped at `index` as `=HH`, or -1. */
export function qpPunctAt(text: string, index: number): number {
  if (text.charCodeAt(index) !== 0x3d) return -1;
  const high = upperHex(text.charCodeAt(index + 1));
  const low = upperHex(text.charCodeAt(index + 2));
  if (high < 0 || low < 0) return -1;
  const code = high * 16 + low;
  const punctuation = (code >= 0x20 && code <= 0x2f) || (code >= 0x3a && code <= 0x40) || (code >= 0x5b && code <= 0x60) || (code >= 0x7b && code <= 0x7e);
  return punctuation ? code : -1;
}

function isAsciiAlnum(code: number): boolean {
  const lower = code | 0x20;
  return (code >= 48 && code <= 57) || (lower >= 97 && lower <= 122);
}

/**
 * The escapes in `text` that may stand inside a value (ascending, at most `limit`): an escape of
 * punctuation with a letter or digit (or another such escape) right after it, and a letter, a
 * digit, another escape, the text's start or a blank before it. One native search per `=`.
 */
export function qpEscapesInText(text: string, limit: number): number[] {
  const found: number[] = [];
  for (let at = text.indexOf('='); at >= 0 && found.length < limit; at = text.indexOf('=', at + 1)) {
    if (qpPunctAt(text, at) < 0 || inQpRun(text, at)) continue;
    const after = text.charCodeAt(at + 3);
    if (!isAsciiAlnum(after) && qpPunctAt(text, at + 3) < 0) continue;
    const before = text.charCodeAt(at - 1);
    if (at > 0 && !isAsciiAlnum(before) && before !== 0x20 && before !== 0x0a && qpPunctAt(text, at - 3) < 0) continue;
    found.push(at);
  }
  return found;
}

/** A reading of text[from, to) with its escapes of punctuation decoded. */
export interface QpReading {
  readonly text: string;
  /** For each unit of the reading (and one past its end), the index in the text it came from. */
  readonly origin: Int32Array;
  /** Reading indices of the decoded characters. */
  readonly decoded: readonly number[];
}

/** text[from, to) with every escape of punctuation decoded. */
export function decodeQpPunct(text: string, from: number, to: number): QpReading {
  const origin = new Int32Array(to - from + 1);
  const decoded: number[] = [];
  let out = '';
  let k = from;
  while (k < to) {
    const code = k + 3 <= to && !inQpRun(text, k) ? qpPunctAt(text, k) : -1;
    origin[out.length] = k;
    if (code < 0) {
      out += text.charAt(k);
      k++;
      continue;
    }
    decoded.push(out.length);
    out += String.fromCharCode(code);
    k += 3;
  }
  origin[out.length] = to;
  return { text: out, origin: origin.subarray(0, out.length + 1), decoded };
}

/** A value with its escapes of punctuation decoded (value normalization). */
export function decodeQpPunctValue(value: string): string {
  return value.includes('=') ? decodeQpPunct(value, 0, value.length).text : value;
}
