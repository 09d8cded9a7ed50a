// A connection string whose scheme's `://` is written with escapes (session 16, wave15/evade):
// `postgres=3A//admin:s3cret@db…` (quoted-printable), `postgres%3A%2F%2Fadmin%3As3cret%40db…`
// (percent-encoding), `postgres=3A%2F=2Fadmin…` (both). The connection detector starts from a
// plain `://`, so the e-mail detector took the user info and host (`admin%3As3cret%40db.corp…`)
// and left the port and database raw; text/qp-connection.ts reads escapes after a plain or a
// quoted-printable scheme only in normalization.
//
// Trigger: one native search for `%3A` or `=3A` (either case) followed by `/`, `%2F` or `=2F`.
// At each, the scheme before it (a letter, then letters, digits, `+ . -`, 2 to 30 characters) and
// the run after it to a blank are read with the escapes of URL punctuation (`: / @ . = ? & # %`,
// percent or quoted-printable) decoded (exact offsets: each decoded character maps back to its
// escape), by the same built-in scan one level deep; a connection string the reading finds from the
// scheme on is reported over the run as written, in place of what the scan found inside it.
// The connection detector's own checks (user info or a known database scheme) decide; an
// escaped `https%3A%2F%2Fexample.com` with no credentials stays what the scan made of it.
import type { Detection } from '../types.js';
import { joinFound } from './broken-lines.js';
import type { ReadingScanner } from './reversed.js';
import type { ScanState } from './state.js';

/** An escaped `:` followed by a plain or escaped `/`. */
const ESCAPED_SCHEME = /[%=]3[Aa](?:\/|[%=]2[Ff])/g;
/** Longest scheme read back. */
const SCHEME_MAX = 30;
/** Longest run read after the scheme. */
const RUN_MAX = 512;
/** Most escaped schemes read in one scan. */
const MAX_READS = 8;

/** The URL punctuation an escape may write (upper-case hex, and lower-case for percent-encoding). */
const DECODED: Readonly<Record<string, string>> = { '3A': ':', '2F': '/', '40': '@', '2E': '.', '3D': '=', '3F': '?', '26': '&', '23': '#', '25': '%' };

const isSchemeCode = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 46 || c === 45;
const isLetterCode = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isBlankCode = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13 || c === 34 || c === 39 || c === 60 || c === 62;

/**
 * `text[from, to)` with `%XX` and `=XX` escapes of URL punctuation decoded, and for each character
 * of the reading the offset in `text` it starts at (one more entry: `to`).
 */
export function decodeUrlEscapes(text: string, from: number, to: number): { reading: string; offsets: number[] } {
  let reading = '';
  const offsets: number[] = [];
  let k = from;
  while (k < to) {
    const c = text.charCodeAt(k);
    if ((c === 37 || c === 61) && k + 3 <= to) {
      const hex = text.slice(k + 1, k + 3);
      const decoded = DECODED[c === 37 ? hex.toUpperCase() : hex];
      if (decoded !== undefined) {
        reading += decoded;
        offsets.push(k);
        k += 3;
        continue;
      }
    }
    reading += text.charAt(k);
    offsets.push(k);
    k++;
  }
  offsets.push(to);
  return { reading, offsets };
}

/** Emit the connection strings written with an escaped scheme (`postgres=3A//…`, `postgres%3A%2F%2F…`). */
export function detectEscapedSchemes(state: ScanState, scan: ReadingScanner): void {
  const text = state.text;
  if (!text.includes('3A') && !text.includes('3a')) return;
  const found: Detection[] = [];
  ESCAPED_SCHEME.lastIndex = 0;
  let reads = 0;
  let after = 0;
  for (let match = ESCAPED_SCHEME.exec(text); match !== null && reads < MAX_READS; match = ESCAPED_SCHEME.exec(text)) {
    const at = match.index;
    if (at < after) continue;
    let start = at;
    while (start > 0 && at - start < SCHEME_MAX && isSchemeCode(text.charCodeAt(start - 1))) start--;
    while (start < at && !isLetterCode(text.charCodeAt(start))) start++;
    if (at - start < 2) continue;
    let end = at;
    while (end < text.length && end - at < RUN_MAX && !isBlankCode(text.charCodeAt(end))) end++;
    reads++;
    const { reading, offsets } = decodeUrlEscapes(text, start, end);
    for (const detection of scan(`${reading} `)) {
      if (detection.type !== 'connection_string' || detection.start !== 0 || detection.confidence < 0.5) continue;
      const to = offsets[Math.min(detection.end, reading.length)]!;
      found.push({ type: 'connection_string', start, end: to, value: text.slice(start, to), confidence: Math.min(detection.confidence, 0.9), detector: 'builtin_regex' });
      after = to;
      break;
    }
  }
  joinFound(state, found);
}
