// Values broken by a line break and the next line's indentation (session 16, wave15/evade):
// `my card is 4111 1111⏎    1111 1111`, `my SSN is 078-0⏎    5-1120`, `IBAN DE89 3704 00⏎    44 …`,
// `call me at +91 987⏎    65 43210`, `DNI 1234⏎    5678Z`, `aws key AKIAQ3EGRT⏎    7VXZ4MPL2K`,
// `auth eyJhbGci…⏎    mFtZSI6…`, `email me at jane.d⏎    oe@corp.example`,
// `postgres://admin:S3cretPw⏎    9@db.corp.example:5432/app`. The detectors join a value over a
// bare break (or one blank) themselves, and broken-lines.ts reads SSNs, phones and national ids
// over one; broken-addresses.ts reads IP, MAC and wallet addresses over a break with indentation.
// Here, every other type over a break followed by indentation (one to eight blanks or tabs):
//
// - trigger (the scan's `\n` case: an inline blank-or-tab test, then one look each side): the line
//   ends with a value character (a letter, a digit or one of `- . _ + @ / : =`; or one blank after
//   a digit or `)`) and the next line, past its indentation, starts with one; a digit or `@` stands
//   within four characters of the break on either side, or the run the line ends with is 16 value
//   characters or more (a key's or a token's first half). Prose and most code lines never qualify.
//   A connection string broken inside its user info, indented or not, is found from each `://`
//   instead (userInfoBreaks: a call at every line break cost ~4 % of a dev-corpus scan);
// - the text is read with the break and the indentation taken out (exact offsets: the span is the
//   text as written, both lines) by the same built-in scan one level deep, and a value spanning
//   the break is kept only on what proves it: a card on its Luhn sum, an IBAN on its mod-97 check,
//   a JWT (the detector decodes its header and payload) or a prefixed key (confidence 0.9 or more)
//   when the next line's part holds a digit, a connection string when its first line holds the
//   scheme's `://`, an SSN, a phone, a national id or an e-mail address only after its word
//   (value-words.ts; `email`, `e-mail`, `mail` for an address);
// - and, as in broken-lines.ts, only when the first line's half is no value of that type found
//   forwards (a line that ends a value is followed by other text, not by the rest of it). A key
//   whose first half alone reads as a shorter key (`ghp_R7mK…` of 20 characters) is the exception:
//   the digit in the next line's part decides.
//
// The value is reported over both lines; normalization drops the blanks of numbers, keys and
// tokens (token/normalize.ts), so those are one token and one erasure with the value on one line.
import type { Detection } from '../types.js';
import { firstLineIsValue, joinBrokenValues, type BreakLimits } from './broken-lines.js';
import { luhnValid, ibanChecksumValidIn } from './checksums.js';
import { contextWords, hasWordBefore } from './context.js';
import { detectEscapedSchemes } from './escaped-scheme.js';
import { detectLooseCpf } from './loose-cpf.js';
import { detectLooseNumbers } from './loose-numbers.js';
import { joinBrokenSecrets } from './broken-secret.js';
import type { ReadingScanner } from './reversed.js';
import type { ScanState } from './state.js';
import { hasValueWordBefore, VALUE_WORD_DISTANCE } from './value-words.js';

/** Text before the break read with it (the value's first half and its word). */
const BEFORE = 160;
/** Text after the indentation read with it (the value's second half). */
const AFTER = 160;
/** Most blanks or tabs of indentation after the break. */
const INDENT = 8;
/** A first line's run this long (value characters) may be a key's or a token's first half. */
const LONG_RUN = 16;
/** Most breaks read in one scan (each a scan of at most ~320 characters). */
const MAX_BREAKS = 16;

/** The words of an e-mail address. */
export const EMAIL_CONTEXT = contextWords(['email', 'e-mail', 'mail', 'email address', 'e-mail address', 'mailto', 'mail me at', 'email me at']);

const isDigitCode = (c: number): boolean => c >= 48 && c <= 57;
const isAlnumCode = (c: number): boolean => isDigitCode(c) || ((c | 32) >= 97 && (c | 32) <= 122);
/** A character a value is written with: a letter, a digit, or `- . _ + @ / : =`. */
const isValueCode = (c: number): boolean => isAlnumCode(c) || c === 45 || c === 46 || c === 95 || c === 43 || c === 64 || c === 47 || c === 58 || c === 61;
const isBlankCode = (c: number): boolean => c === 32 || c === 9;

/** Where the next line's text starts after the `\n` at `at`, past at most INDENT blanks or tabs, or -1. */
function nextLineStart(text: string, at: number): number {
  let k = at + 1;
  while (k < text.length && k - at <= INDENT && isBlankCode(text.charCodeAt(k))) k++;
  return k < text.length && !isBlankCode(text.charCodeAt(k)) ? k : -1;
}

/**
 * Is the line break between `last` and `next` inside a connection string's user info? The run of
 * value characters ending at `last` (looked back over at most BEFORE) holds a scheme's `://`
 * followed by a `:` (`user:password`) and no `/` or `@`, and the next line's run (to a blank)
 * holds the `@`: a URL ending a line is followed by other text, not by the rest of its user info.
 */
function breaksUserInfo(text: string, last: number, next: number): boolean {
  // The next line's `@` first: most lines start with a word that holds none.
  let at = false;
  for (let k = next; k < text.length && k - next < AFTER && isValueCode(text.charCodeAt(k)); k++) {
    if (text.charCodeAt(k) === 64) {
      at = true;
      break;
    }
  }
  if (!at) return false;
  let colon = false;
  for (let k = last; k > 1 && last - k < BEFORE && isValueCode(text.charCodeAt(k)); k--) {
    const c = text.charCodeAt(k);
    if (c === 47 && text.charCodeAt(k - 1) === 47 && text.charCodeAt(k - 2) === 58) return colon;
    if (c === 64 || c === 47) return false;
    if (c === 58) colon = true;
  }
  return false;
}

/** A digit or `@` in [from, to) of `text`. */
function digitOrAtIn(text: string, from: number, to: number): boolean {
  for (let k = Math.max(0, from); k < to && k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (isDigitCode(c) || c === 64) return true;
  }
  return false;
}

/**
 * May the line break at `at` (a `\n`) break a value, the next line indented? The line ends with a
 * value character (or one blank after a digit or `)`), the next line starts with one past one to
 * eight blanks or tabs, and a digit or `@` stands within four characters of the break on either
 * side, or the line's last run is LONG_RUN value characters or more, or the break is inside a
 * connection string's user info (breaksUserInfo).
 */
export function mayJoinIndentedAt(text: string, at: number): boolean {
  const first = text.charCodeAt(at + 1);
  if (first !== 32 && first !== 9) return false; // A break with no indentation: userInfoBreaks.
  const next = nextLineStart(text, at);
  if (next < 0 || !isValueCode(text.charCodeAt(next))) return false;
  let last = text.charCodeAt(at - 1) === 13 ? at - 2 : at - 1;
  if (last < 1) return false;
  if (text.charCodeAt(last) === 32 && (isDigitCode(text.charCodeAt(last - 1)) || text.charCodeAt(last - 1) === 41)) last--;
  const c = text.charCodeAt(last);
  if (!isValueCode(c) && c !== 41) return false;
  if (digitOrAtIn(text, last - 3, last + 1) || digitOrAtIn(text, next, next + 4)) return true;
  let start = last;
  while (start > 0 && last - start < LONG_RUN && isValueCode(text.charCodeAt(start - 1))) start--;
  return last - start + 1 >= LONG_RUN || breaksUserInfo(text, last, next);
}

/**
 * The line breaks with no indentation inside a connection string's user info
 * (`postgres://admin:S3cret⏎9@db…`): found from each `://` (a native search, at most MAX_BREAKS),
 * the run after it read to a line break (breaksUserInfo decides). The scan's `\n` case reads only
 * indented breaks: a call at every line break cost ~4 % of a dev-corpus scan.
 */
export function userInfoBreaks(text: string): number[] {
  const breaks: number[] = [];
  for (let scheme = text.indexOf('://'); scheme >= 0 && breaks.length < MAX_BREAKS; scheme = text.indexOf('://', scheme + 3)) {
    let k = scheme + 3;
    while (k < text.length && k - scheme < BEFORE && isValueCode(text.charCodeAt(k))) k++;
    const at = text.charCodeAt(k) === 13 && text.charCodeAt(k + 1) === 10 ? k + 1 : k;
    if (text.charCodeAt(at) !== 10 || k === scheme + 3) continue;
    if (isValueCode(text.charCodeAt(at + 1)) && breaksUserInfo(text, k - 1, at + 1)) breaks.push(at);
  }
  return breaks;
}

/** Is the value `detection` (read in `reading`, the break at `breakAt`) one to keep where it starts (`start`, in the text)? */
function keep(state: ScanState, detection: Detection, reading: string, breakAt: number, start: number, lineEnd: number): boolean {
  const text = state.text;
  const type = detection.type;
  switch (type) {
    case 'credit_card':
      return luhnValid(reading, detection.start, detection.end) && !firstLineIsValue(state, type, start, lineEnd);
    case 'iban':
      return ibanChecksumValidIn(reading, detection.start, detection.end) && !firstLineIsValue(state, type, start, lineEnd);
    case 'api_key':
    case 'jwt':
      return detection.confidence >= 0.9 && digitOrAtIn(reading, breakAt, detection.end);
    case 'connection_string':
      return reading.slice(detection.start, breakAt).includes('://') && !firstLineIsValue(state, type, start, lineEnd);
    case 'email':
      return hasWordBefore(text, start, VALUE_WORD_DISTANCE, EMAIL_CONTEXT) && !firstLineIsValue(state, type, start, lineEnd);
    case 'ip_address':
    case 'mac_address':
    case 'crypto_wallet':
      return false; // broken-addresses.ts
    default:
      return hasValueWordBefore(text, type, start) && !firstLineIsValue(state, type, start, lineEnd);
  }
}

/** Emit the values the text reads with each of `breaks` (`\n` positions, the next line indented) and the indentation taken out. */
export function detectBrokenIndent(state: ScanState, breaks: readonly number[], scan: ReadingScanner): void {
  joinBrokenValues(state, breaks, scan, INDENT_LIMITS, (at) => nextLineStart(state.text, at), ({ detection, start, at, lineEnd, next, reading, breakAt }) =>
    // With no indentation, the detectors join a value over the break themselves: a connection string only.
    (next > at + 1 || detection.type === 'connection_string') && keep(state, detection, reading, breakAt, start, lineEnd),
  );
}

const INDENT_LIMITS: BreakLimits = { before: BEFORE, after: AFTER, maxBreaks: MAX_BREAKS, cap: 0.9 };

/**
 * The scan's one call for this file's breaks and escaped-scheme.ts (session 16): one call site in
 * scanBuiltin instead of two (each hook added to that function cost ~4 % on the dev corpus, measured
 * in BENCHMARKS.md, "Session 16 (wave15/evade)").
 */
export function detectIndentedAndEscaped(state: ScanState, breaks: readonly number[], scan: ReadingScanner, keywordStarts: readonly number[] = []): void {
  if (breaks.length > 0) detectBrokenIndent(state, breaks, scan);
  if (state.text.includes('://')) {
    const userInfo = userInfoBreaks(state.text);
    if (userInfo.length > 0) detectBrokenIndent(state, userInfo, scan);
  }
  detectEscapedSchemes(state, scan);
  // Session 17 (wave16/evade): a CPF with other separators between its groups (loose-cpf.ts; one call site, as above).
  detectLooseCpf(state);
  // Session 18 (wave17/evade): a password the scan found that a line break cuts (broken-secret.ts; one call site, as above).
  joinBrokenSecrets(state);
  // Session 19 (wave18/evade): dates, IPv4 addresses and passports one digit at a time, backwards, with S/B or encoded
  // after their word (loose-numbers.ts), at the scan's label word starts (keywords.ts).
  if (keywordStarts.length > 0) detectLooseNumbers(state, keywordStarts, scan);
}
