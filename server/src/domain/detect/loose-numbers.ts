// Dates, IPv4 addresses and passport numbers written so no detector reads them (session 19,
// wave18/evade; the matrix's most frequent raw family after session 18): after the value's word,
//
// - one digit at a time with the same separator between each two (`date of birth 1-9-8-5-0-3-0-4`,
//   `passport number 9-1-2-8-0-3-4-5-6`, `1.9.8.5.…`, `1 / 9 / 8 …`);
// - as digit words (`one nine eight five zero three zero four`);
// - backwards, when the run forwards is no value and backwards is one (`40-30-5891`, `061.96.2.18`:
//   a day 40, an octet with a leading zero; a reversed value that is itself valid is found as itself);
// - with `S` for 5 and `B` for 8 in a word of digits (`19BS-03-04`, `B1.2.69.160`; text/lookalike-sb.ts);
// - base64-, base32- or hex-encoded (`passport number OTEyODAzNDU2`): the decoded text is a value
//   only with its word, which encoded.ts (the decoded text read alone) does not see.
//
// Trigger: the words (WORDS; at most MAX_WORDS in one scan), matched where the scan's word loop
// says a label may start (keywords.ts, no pass over the text of its own); the first
// word of the window after one (ID_CONTEXT_WINDOW) that holds a digit, an `S`/`B` by a digit, a
// digit word or an encoded run is the only one read. Each reading (looseReading) is scanned with
// the text before it (the word) by the built-in scan one level deep, and kept when that scan finds
// a date, an IP address or a passport number over exactly the reading; the detection is reported
// over the run as written. Normalization reads the run the same way (looseValue, called from
// token/normalize.ts), so each spelling is the plain value's token and erasure.
//
// Left as written: an IPv4 address one digit at a time or as digit words (`8-1-2-6-9-1-6-0` has no
// dots left: 81.2.69.160 and 8.12.69.160 are both readings).
import { ID_CONTEXT_WINDOW } from './digit-ids.js';
import { dateValid } from './dates.js';
import { decodeBase64Value, decodeHexValue } from './encoded.js';
import type { ReadingScanner } from './reversed.js';
import { unspellDigits } from './spelled-digits.js';
import { emit, type ScanState } from './state.js';
import { readSBDigits } from '../text/lookalike-sb.js';

/**
 * The words read after: a birth date's, an IP address's, a passport's. Matched (sticky) only where
 * the scan's word loop says a label may start (keywords.ts: a regex over the whole text for these
 * words cost ~5 us per KB of prose, a fifth of the scan).
 */
const WORDS =
  /(?:birthday|birth|born|dob|d\.o\.b|geboren|geburtsdatum|naissance|nacimiento|nascita|geboortedatum|nascimento|ip|ipv4|passport|passeport|pasaporte|passaporto|paspoort|passaporte)(?![A-Za-z])/iy;
/** Most words read in one scan. */
const MAX_WORDS = 16;
/** Text before the run scanned with its reading (the value's word). */
const CONTEXT_BEFORE = 64;
/** The types a reading may be kept as, by the word's kind. */
const KEPT: Readonly<Record<Kind, ReadonlySet<string>>> = {
  date: new Set(['date']),
  ip: new Set(['ip_address']),
  passport: new Set(['us_passport', 'uk_passport']),
};
type Kind = 'date' | 'ip' | 'passport';

/** One digit at a time: eight digits or more, the same separator between each two. */
const EACH = /\d([^\p{L}\p{N}\n\r]{1,3}|_)\d(?:\1\d){6,14}(?![\p{L}\p{N}]|\1\p{N})/uy;
const DIGIT_WORD = '(?:zero|one|two|three|four|five|six|seven|eight|nine)';
/** Digit words: eight or more. */
const WORDS_RUN = new RegExp(`${DIGIT_WORD}(?:[ ,-]{1,3}${DIGIT_WORD}){7,15}(?![A-Za-z])`, 'iy');
/** Groups of digits (and S/B) joined by the same `.`, `/` or `-`: a date's three or an address's four. */
const GROUPED = /[0-9SB]{1,4}([./-])[0-9SB]{1,4}\1[0-9SB]{1,4}(?:\1[0-9SB]{1,4})?(?![\p{L}\p{N}]|[./-]\p{N})/uy;
/** An encoded run (base64, base32, hex). */
const ENCODED = /[A-Za-z0-9+/_-]{12,64}={0,2}(?![A-Za-z0-9+/=_-])/y;

const isDigitCode = (c: number): boolean => c >= 48 && c <= 57;
const isAlnumCode = (c: number): boolean => isDigitCode(c) || ((c | 32) >= 97 && (c | 32) <= 122);

function reverse(text: string): string {
  let out = '';
  for (let k = text.length - 1; k >= 0; k--) out += text.charAt(k);
  return out;
}

/** A year a birth date or a date of this era is written with. */
const plausibleYear = (year: number): boolean => year >= 1900 && year <= 2099;

/** Is `text` a numeric date (three groups: a four-digit year first, or last with either order)? */
export function numericDateValid(text: string): boolean {
  const parts = /^(\d{1,4})([./-])(\d{1,2})\2(\d{1,4})$/.exec(text);
  if (parts === null) return false;
  const [a, b, c] = [parts[1]!, parts[3]!, parts[4]!];
  if (a.length === 4) return c.length <= 2 && dateValid(Number(a), Number(b), Number(c));
  if (c.length !== 4 || a.length > 2) return false;
  return dateValid(Number(c), Number(b), Number(a)) || dateValid(Number(c), Number(a), Number(b));
}

/** Is `text` a dotted IPv4 address as written (four octets of at most 255, no leading zero)? */
export function strictIpv4(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((part) => /^(?:0|[1-9]\d{0,2})$/.test(part) && Number(part) <= 255);
}

/** The digits of a run written one digit at a time or as digit words, or undefined. */
function digitsOf(run: string): string | undefined {
  EACH.lastIndex = 0;
  const each = EACH.exec(run);
  if (each !== null && each[0].length === run.length) return run.replace(/\D/g, '');
  WORDS_RUN.lastIndex = 0;
  const words = WORDS_RUN.exec(run);
  if (words !== null && words[0].length === run.length) return unspellDigits(run);
  return undefined;
}

/** Eight digits as a date written forwards: a year first (`1985-03-04`) or last (`04/03/1985`). */
function dateOfDigits(digits: string): string | undefined {
  if (digits.length !== 8) return undefined;
  const first = `${digits.slice(0, 4)}-${digits.slice(4, 6)}-${digits.slice(6)}`;
  if (plausibleYear(Number(digits.slice(0, 4))) && numericDateValid(first)) return first;
  const last = `${digits.slice(0, 2)}/${digits.slice(2, 4)}/${digits.slice(4)}`;
  return plausibleYear(Number(digits.slice(4))) && numericDateValid(last) ? last : undefined;
}

/**
 * The value a run stands for as a `kind` would write it forwards (the header's spellings), or
 * undefined. An encoded run is decoded by the caller (looseValue, detectLooseNumbers).
 */
export function looseReading(kind: Kind, run: string): string | undefined {
  const digits = digitsOf(run);
  if (digits !== undefined) return kind === 'date' ? dateOfDigits(digits) : kind === 'passport' ? digits : undefined;
  const sb = readSBDigits(run);
  if (sb !== run) {
    if (kind === 'date') return numericDateValid(sb) && plausibleYear(Number(/\d{4}/.exec(sb)?.[0])) ? sb : undefined;
    if (kind === 'ip') return strictIpv4(sb) ? sb : undefined;
    return undefined;
  }
  if (!/^[0-9./-]+$/.test(run)) return undefined;
  const backwards = reverse(run);
  if (kind === 'date') return !numericDateValid(run) && numericDateValid(backwards) && plausibleYear(Number(/\d{4}/.exec(backwards)?.[0])) ? backwards : undefined;
  if (kind === 'ip') return !strictIpv4(run) && strictIpv4(backwards) ? backwards : undefined;
  return undefined;
}

/** The kind of value a normalized type is read as, or undefined. */
function kindOf(type: string): Kind | undefined {
  if (type === 'date') return 'date';
  if (type === 'ip_address') return 'ip';
  if (type === 'us_passport' || type === 'uk_passport') return 'passport';
  return undefined;
}

/**
 * Normalization's reading (token/normalize.ts): the value `written` (folded) of `type` stands for,
 * when it is one of the header's spellings; undefined otherwise (the value is read as it is).
 */
export function looseValue(type: string, written: string): string | undefined {
  const kind = kindOf(type);
  if (kind === undefined) return undefined;
  const run = written.trim();
  if (kind === 'passport' && ENCODED_WHOLE.test(run)) {
    const decoded = (decodeHexValue(run) ?? decodeBase64Value(run))?.trim();
    if (decoded !== undefined && /^[A-Za-z0-9]{6,12}$/.test(decoded)) return decoded;
  }
  return looseReading(kind, run);
}

const ENCODED_WHOLE = /^[A-Za-z0-9+/_-]{12,64}={0,2}$/;

function kindOfWord(word: string): Kind {
  const w = word.toLowerCase();
  if (w === 'ip' || w === 'ipv4') return 'ip';
  return w.startsWith('pas') ? 'passport' : 'date';
}

/** The run at `at` one of the header's spellings may be, or undefined. */
function runAt(text: string, at: number): { run: string; encoded: boolean } | undefined {
  for (const pattern of [EACH, WORDS_RUN, GROUPED]) {
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (match !== null) return { run: match[0], encoded: false };
  }
  ENCODED.lastIndex = at;
  const encoded = ENCODED.exec(text);
  return encoded === null ? undefined : { run: encoded[0], encoded: true };
}

/**
 * Emit the dates, IP addresses and passport numbers the header's spellings hide after their words,
 * read at `starts` (the scan's label word starts, keywords.ts).
 */
export function detectLooseNumbers(state: ScanState, starts: readonly number[], scan: ReadingScanner): void {
  const text = state.text;
  let words = 0;
  let from = 0;
  for (const wordStart of starts) {
    if (words >= MAX_WORDS) return;
    if (wordStart < from) continue;
    WORDS.lastIndex = wordStart;
    const word = WORDS.exec(text);
    if (word === null) continue;
    words++;
    const kind = kindOfWord(word[0]);
    const after = word.index + word[0].length;
    // The first word after it that holds a digit, or is a digit word or an encoded run.
    let at = after;
    let found: { run: string; encoded: boolean } | undefined;
    while (at < text.length && at - after < ID_CONTEXT_WINDOW) {
      const c = text.charCodeAt(at);
      if (!isAlnumCode(c) || (at > 0 && isAlnumCode(text.charCodeAt(at - 1)))) {
        at++;
        continue;
      }
      found = runAt(text, at);
      if (found !== undefined) break;
      // A word of letters only (`number`, `of`, `is`) is passed over; one with a digit ends the look.
      let end = at;
      while (end < text.length && isAlnumCode(text.charCodeAt(end))) end++;
      if (/\d/.test(text.slice(at, end))) break;
      at = end;
    }
    if (found === undefined) continue;
    const start = at;
    const end = at + found.run.length;
    if (state.out.some((other) => other.start < end && other.end > start)) continue;
    let reading: string | undefined;
    if (found.encoded) {
      const decoded = (decodeHexValue(found.run) ?? decodeBase64Value(found.run))?.trim();
      reading = decoded !== undefined && /^[A-Za-z0-9]{6,12}$/.test(decoded) ? decoded : undefined;
    } else reading = looseReading(kind, found.run);
    if (reading === undefined) continue;
    const prefix = text.slice(Math.max(0, start - CONTEXT_BEFORE), start);
    const kept = KEPT[kind];
    const hit = scan(`${prefix}${reading} `).find(
      (detection) => kept.has(detection.type) && detection.confidence >= 0.5 && detection.start === prefix.length && detection.end === prefix.length + reading.length,
    );
    if (hit === undefined) continue;
    emit(state, hit.type, start, end, Math.min(hit.confidence, 0.85));
    from = end;
  }
}
