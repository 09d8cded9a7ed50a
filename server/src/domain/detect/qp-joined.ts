// Values with their punctuation written as quoted-printable escapes (session 14, wave13/evade;
// text/qp-punct.ts): `my SSN is 078=2D05=2D1120`, `call me at =2B1 415 555 0142`, `server ip
// 81=2E2=2E69=2E160`, `mac address 00=3A1A=3A2B=3A3C=3A4D=3A5E`, `key sk=2Dproj=2DXq7L…`, a JWT with
// `=2E` for its dots, `date of birth 1985=2D03=2D04`, `db postgres=3A=2F=2Fadmin=3A…=40db…`.
//
// Where the text holds such an escape inside a run (qpEscapesInText), the run (past single blanks
// before a digit, a `+`, a `(` or another escape: a phone's groups) is read with the escapes
// decoded, with the text before it (its value word), by the same built-in scan one level deep. A
// value found there is kept when it holds a decoded escape and proves itself (a check, a prefix
// or its detector's own shape: cards, IBANs, wallets, provider keys, JWTs, e-mail addresses,
// connection strings) or its type's value word stands before it (value-words.ts: an SSN, a phone,
// a date, an IP or MAC address, a national id). Assignments (`width=2D4`, `id=2D4F`, `token=2E9f`)
// read as nothing of the kind and stay as written. The value is reported over the text as written;
// normalization decodes the escapes (token/normalize.ts), so it is one token and one erasure with
// the plain value.
import type { Detection } from '../types.js';
import type { FoldedText } from '../text/fold.js';
import { foldWithOffsets } from '../text/fold.js';
import { decodeQpPunct, qpEscapesInText, qpPunctAt } from '../text/qp-punct.js';
import type { ReadingScanner } from './markup-joined.js';
import { hasValueWordBefore } from './value-words.js';

/** Most escapes looked at in one text. */
const MAX_ESCAPES = 64;
/** Text before the run read with it (its value word). */
const BEFORE = 64;
/** Longest run read after an escape. */
const RUN_MAX = 200;

const SELF_PROVING: ReadonlySet<string> = new Set(['credit_card', 'iban', 'crypto_wallet', 'api_key', 'jwt', 'email', 'connection_string']);

function isBlank(code: number): boolean {
  return !(code > 0x20);
}

/** A digit group, a `+` or `(` before a digit, or an escape starts at `at`. */
function groupGoesOn(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  if (code >= 48 && code <= 57) return true;
  if ((code === 0x2b || code === 0x28) && text.charCodeAt(at + 1) >= 48 && text.charCodeAt(at + 1) <= 57) return true;
  return qpPunctAt(text, at) >= 0;
}

/** Add to `candidates` (spans in `view`'s folded text) the values `text` holds with escaped punctuation. */
export function addQpJoined(text: string, view: FoldedText, candidates: Detection[], scan: ReadingScanner): void {
  const escapes = qpEscapesInText(text, MAX_ESCAPES);
  if (escapes.length === 0) return;
  const found: Detection[] = [];
  let readUpTo = -1;
  for (const escape of escapes) {
    if (escape < readUpTo) continue;
    let runStart = escape;
    while (runStart > 0 && escape - runStart < RUN_MAX && !isBlank(text.charCodeAt(runStart - 1))) runStart--;
    let runEnd = escape;
    while (runEnd < text.length && runEnd - escape < RUN_MAX && !isBlank(text.charCodeAt(runEnd))) runEnd++;
    while (runEnd < text.length && runEnd - escape < RUN_MAX && text.charCodeAt(runEnd) === 0x20 && groupGoesOn(text, runEnd + 1)) {
      runEnd++;
      while (runEnd < text.length && runEnd - escape < RUN_MAX && !isBlank(text.charCodeAt(runEnd))) runEnd++;
    }
    readUpTo = runEnd;
    const from = Math.max(0, runStart - BEFORE);
    const reading = decodeQpPunct(text, from, runEnd);
    const inner = reading.decoded.filter((at) => reading.origin[at]! >= runStart);
    if (inner.length === 0) continue;
    const folded = foldWithOffsets(`${reading.text} `);
    for (const detection of scan(folded.text)) {
      if (detection.confidence < 0.5 || detection.type === 'password') continue;
      const span = folded.originalSpan(detection.start, detection.end);
      if (span.end > reading.text.length) span.end = reading.text.length;
      if (!inner.some((at) => at >= span.start && at < span.end)) continue;
      const start = reading.origin[span.start]!;
      const end = reading.origin[span.end]!;
      if (!SELF_PROVING.has(detection.type) && !hasValueWordBefore(text, detection.type, start)) continue;
      const mapped = view.foldedSpan(start, end);
      found.push({ ...detection, start: mapped.start, end: mapped.end, value: view.text.slice(mapped.start, mapped.end) });
    }
  }
  if (found.length === 0) return;
  // What the scan found forwards inside such a value (its pieces between escapes) gives way to it.
  const kept = candidates.filter((candidate) => !found.some((joined) => candidate.start < joined.end && candidate.end > joined.start && (candidate.start > joined.start || candidate.end < joined.end)));
  candidates.length = 0;
  candidates.push(...kept, ...found);
}
