// Values sent base64-, base32- or hex-encoded: "my email is am9obi5kb2VAY29ycC5leGFtcGxl", a card or an API key
// encoded to get it past a filter. A model decodes base64 on sight, so the encoded value reaches
// it as surely as the plain one.
//
// A run of base64 characters (standard or URL-safe alphabet, MIN_RUN to MAX_RUN long, optional
// padding) is decoded; when the bytes are printable ASCII text and that text, scanned by the
// built-in detectors (one level deep: a decoded run is not decoded again), is exactly one value
// (the detection covers the decoded text but for surrounding spaces), the run is that value and
// is emitted with its type. Normalization decodes it again (decodeBase64Value), so the encoded
// and the plain value are one token and one erasure. Text that decodes to a sentence holding
// values ("My SSN is 078-05-1120", encoded to get it past a filter) is protected too: the run is
// emitted with the type of the strongest value inside (dates and URLs aside), and normalized as
// its own exact string (its erasure cannot be matched value by value). Random bytes (hashes,
// keys, ordinary long words read as base64) are not printable text.
import { emit, type ScanState } from './state.js';
import type { Detection } from '../types.js';

/** Shortest run: 9 bytes ("a@b.co.uk" and any 9-digit number encode to 12 characters). */
const MIN_RUN = 12;
/** Longest run decoded (a 2 KB value). */
const MAX_RUN = 2732;

const STANDARD = /^[A-Za-z0-9+/]+={0,2}$/;
const URL_SAFE = /^[A-Za-z0-9_-]+={0,2}$/;
/**
 * The sextet values of the base64 characters (both alphabets), -1 elsewhere; and whether a value
 * may start a quartet of printable ASCII: the first sextet of a byte 0x20-0x7E is 8-31 ('I'-'Z',
 * 'a'-'f'), of a tab or line break 2-3 ('C', 'D'). Ordinary long words fail this at their first or fifth character, before any decoding.
 */
const SEXTET = new Int8Array(128).fill(-1);
for (let k = 0; k < 64; k++) SEXTET['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(k)] = k;
SEXTET[45] = 62; // '-' (URL-safe)
SEXTET[95] = 63; // '_'

function printableLead(code: number): boolean {
  const sextet = code < 128 ? SEXTET[code]! : -1;
  return sextet >= 2 && sextet <= 31; // 2-3: the bytes 0x08-0x0F, tab and line breaks among them
}

/**
 * The text `value` encodes, when it is a base64 run of printable ASCII text (tab and line breaks
 * allowed); undefined otherwise. Used by normalization too: the encoded and the plain value are
 * one value.
 */
export function decodeBase64Value(value: string): string | undefined {
  if (value.length < MIN_RUN || value.length > MAX_RUN) return undefined;
  return readBase64(value) ?? decodeBase32Value(value);
}

function readBase64(value: string): string | undefined {
  const standard = STANDARD.test(value);
  if (!standard && !URL_SAFE.test(value)) return undefined;
  const body = value.replace(/=+$/, '');
  if (body.length % 4 === 1) return undefined; // no byte sequence encodes so
  for (let k = 0; k < body.length; k += 4) if (!printableLead(body.charCodeAt(k))) return undefined;
  const bytes = Buffer.from(body, standard ? 'base64' : 'base64url');
  if (bytes.length < 6) return undefined;
  for (const byte of bytes) if ((byte < 0x20 && byte !== 9 && byte !== 10 && byte !== 13) || byte > 0x7e) return undefined;
  return bytes.toString('latin1');
}

/** Shortest base32 run: 10 bytes (16 characters). */
const MIN_BASE32 = 16;
const BASE32 = /^[A-Z2-7]+={0,6}$/;

/**
 * The text a base32 run (RFC 4648 alphabet `A-Z2-7`, upper case, optional padding) encodes, when
 * it is printable ASCII (tab and line breaks allowed); undefined otherwise. Tried after base64
 * (decodeBase64Value falls back to it, so detection and normalization read both): a base32 run
 * is a valid base64 run too, whose base64 reading is not printable text. The first character of
 * every 8 is the top five bits of a byte, `E`-`P` for a printable one, so ordinary capitals
 * (`README`, `HTTPSCONNECTIONPOOL`) fail before any decoding or at the bytes.
 */
export function decodeBase32Value(value: string): string | undefined {
  if (value.length < MIN_BASE32 || value.length > MAX_RUN || !BASE32.test(value)) return undefined;
  const body = value.replace(/=+$/, '');
  if ([1, 3, 6].includes(body.length % 8)) return undefined; // no byte sequence encodes so
  let bits = 0;
  let buffer = 0;
  let out = '';
  for (let k = 0; k < body.length; k++) {
    const code = body.charCodeAt(k);
    const quint = code >= 65 ? code - 65 : code - 24; // 'A'-'Z' 0-25, '2'-'7' 26-31
    buffer = ((buffer << 5) | quint) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      const byte = (buffer >> bits) & 0xff;
      if ((byte < 0x20 && byte !== 9 && byte !== 10 && byte !== 13) || byte > 0x7e) return undefined;
      out += String.fromCharCode(byte);
    }
  }
  return out.length >= 6 ? out : undefined;
}

/** The scanner the decoded text goes through (scanBuiltin without this pass). */
export type DecodedScanner = (text: string) => Detection[];

/** Shortest hex run: 8 bytes. */
const MIN_HEX = 16;

function hexNibble(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 0x20;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/**
 * The text a run of hex digit pairs encodes ("6a6f686e40636f72702e6578616d706c65"), when it is
 * printable ASCII (tab and line breaks allowed); undefined otherwise. One case throughout.
 */
export function decodeHexValue(value: string): string | undefined {
  if (value.length < MIN_HEX || value.length > MAX_RUN || value.length % 2 === 1) return undefined;
  if (value !== value.toLowerCase() && value !== value.toUpperCase()) return undefined;
  let out = '';
  for (let k = 0; k < value.length; k += 2) {
    const high = hexNibble(value.charCodeAt(k));
    const low = hexNibble(value.charCodeAt(k + 1));
    if (high < 0 || low < 0) return undefined;
    const byte = high * 16 + low;
    if ((byte < 0x20 && byte !== 9 && byte !== 10 && byte !== 13) || byte > 0x7e) return undefined;
    out += String.fromCharCode(byte);
  }
  return out;
}

/** A word of the scan that may be a hex-encoded text: even length, and its first byte printable. */
export function mayBeHexText(text: string, start: number, end: number): boolean {
  const first = text.charCodeAt(start);
  return end - start >= MIN_HEX && (end - start) % 2 === 0 && first >= 50 && first <= 55; // '2'-'7'
}

function isBase64Code(code: number): boolean {
  return code < 128 && SEXTET[code]! >= 0;
}

/**
 * What mayStartBase64 needs of a word `length` units long followed by the unit `next` (NaN past
 * the text): MIN_RUN units or more (a hex text, MIN_HEX, is longer), or a `+ / -` after it. The
 * scan's word loop tests this inline (the literal 12) before the call; encoded.test.ts holds the two together.
 */
export function base64MayStartAfter(length: number, next: number): boolean {
  return length >= MIN_RUN || next === 43 || next === 47 || next === 45;
}

/**
 * Whether a word of the scan ([start, end), word characters) may begin a base64 run worth
 * decoding: its first character can lead a quartet of printable ASCII, nothing base64 stands
 * before it, and the run is long enough or goes on with a `+ / -` (checked again on the run).
 */
export function mayStartBase64(text: string, start: number, end: number): boolean {
  if (start > 0 && isBase64Code(text.charCodeAt(start - 1))) return false;
  if (mayBeHexText(text, start, end)) return true;
  if (!printableLead(text.charCodeAt(start))) return false;
  if (end - start >= MIN_RUN) return true;
  const next = text.charCodeAt(end);
  return next === 43 || next === 47 || next === 45;
}

/** Emit the base64 runs starting at `starts` (ascending, from mayStartBase64) that encode exactly one value. */
export function detectEncodedValues(state: ScanState, starts: readonly number[], scan: DecodedScanner): void {
  const text = state.text;
  // Each character is in one run at most and a run's decoded text is scanned once (not decoded
  // again): the pass costs at most about one more scan of the text, with no budget to exhaust.
  for (const start of starts) {
    let end = start;
    while (end < text.length && end - start <= MAX_RUN && isBase64Code(text.charCodeAt(end))) end++;
    if (end - start < MIN_RUN || end - start > MAX_RUN) continue;
    while (end < text.length && text.charCodeAt(end) === 61 && end - start <= MAX_RUN) end++; // padding
    // A run glued to a path, a file name or an escape is not one encoded value.
    const before = start > 0 ? text.charCodeAt(start - 1) : 32;
    if (before === 46 || before === 92 || before === 37 || before === 38) continue; // . \ % &
    const run = text.slice(start, end);
    const hex = mayBeHexText(text, start, end);
    const base32 = end - start >= MIN_BASE32 && BASE32.test(run);
    if (!hex && !base32 && (!printableLead(text.charCodeAt(start + 4)) || !printableLead(text.charCodeAt(start + 8)))) continue;
    const decoded = (hex ? decodeHexValue(run) : undefined) ?? decodeBase64Value(run);
    if (decoded === undefined) continue;
    const lead = decoded.length - decoded.trimStart().length;
    const trail = decoded.trimEnd().length;
    const found = scan(decoded);
    const whole = found.find((detection) => detection.confidence >= 0.5 && detection.start === lead && detection.end === trail);
    if (whole !== undefined) {
      emit(state, whole.type, start, end, Math.min(whole.confidence, 0.85));
      continue;
    }
    let strongest: Detection | undefined;
    for (const detection of found) {
      if (detection.confidence < 0.5 || CONTEXT_ONLY_TYPES.has(detection.type)) continue;
      if (strongest === undefined || detection.confidence > strongest.confidence) strongest = detection;
    }
    if (strongest !== undefined) emit(state, strongest.type, start, end, Math.min(strongest.confidence, 0.8));
  }
}

/** Types that do not make an encoded sentence a value by themselves: they name no one alone. */
const CONTEXT_ONLY_TYPES: ReadonlySet<string> = new Set(['url', 'date']);
