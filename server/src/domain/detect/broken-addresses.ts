// IP and MAC addresses and wallet addresses broken by a line break (session 15, wave14/evade2):
// `server ip 10.20.⏎30.40`, `mac address 00:1A:2B⏎:3C:4D:5E`, `wallet bc1qar0sr⏎    rr7xfkvy…`
// (a break with the next line's indentation, LF or CRLF), `send to 0x5290…6E0⏎F703…`.
// broken-lines.ts reads SSNs, phones and national ids so; the wallet detector joins a checksummed
// address over a bare break (wallet.ts). Here:
//
// - the break sits inside an address: the run before it (letters, digits, `.` and `:`) holds a
//   `.` or `:` and a digit, or starts like a wallet (`bc1`, `0x`, a base58 `1`/`3` run of eight or
//   more); the next line (past at most eight blanks or tabs) goes on with a hex digit, a letter, a
//   `.` or a `:`. Prose lines never qualify, so the quiet path pays one look back per line break;
// - the text read with the break (and the indentation) taken out holds an address spanning the
//   break, found by the same built-in scan one level deep;
// - an IP or MAC address is kept only after its word (value-words.ts: `ip`, `server`, `host`,
//   `mac`, …), and only when the first line's half is not already an address found forwards (a line
//   that ends a value is followed by other text); a checksummed wallet (base58check, bech32) is kept
//   on its checksum; an Ethereum address (no check without Keccak) only after a wallet word.
//
// Passwords broken over a line stay open: a password has no shape to complete, and the first line
// after `password:` is always a password of its own.
//
// The value is reported over both lines, the break included; normalization drops blanks from these
// types (token/normalize.ts), so it is one token and one erasure with the value written on one line.
import type { Detection } from '../types.js';
import { firstLineIsValue, joinBrokenValues, type BreakLimits } from './broken-lines.js';
import { contextWords, hasWordBefore } from './context.js';
import type { ReadingScanner } from './reversed.js';
import type { ScanState } from './state.js';
import { hasValueWordBefore } from './value-words.js';

/** Text before the break read with it (the address's first half and its word). */
const BEFORE = 96;
/** Text after the break read with it (the address's second half). */
const AFTER = 96;
/** Most blanks or tabs of indentation after the break. */
const INDENT = 8;
/** Longest run looked back over from a break. */
const RUN_BACK = 92;
/** Most breaks read in one scan. */
const MAX_BREAKS = 16;
/** How far before an Ethereum address its wallet word may stand. */
const WALLET_WORD_DISTANCE = 48;

const WALLET_CONTEXT = contextWords(['wallet', 'ethereum', 'eth', 'address', 'send to', 'pay to', 'deposit', 'erc20']);

const isDigitCode = (c: number): boolean => c >= 48 && c <= 57;
const isLetterCode = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isSeparatorCode = (c: number): boolean => c === 46 || c === 58;
const isRunCode = (c: number): boolean => isDigitCode(c) || isLetterCode(c) || isSeparatorCode(c);
const isBase58Code = (c: number): boolean =>
  (c >= 49 && c <= 57) || (c >= 65 && c <= 90 && c !== 73 && c !== 79) || (c >= 97 && c <= 122 && c !== 108);

/** Where the next line's text starts after the `\n` at `at` (past at most INDENT blanks or tabs), or -1. */
function nextLineStart(text: string, at: number): number {
  let k = at + 1;
  while (k < text.length && k - at <= INDENT && (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 9)) k++;
  return k < text.length ? k : -1;
}

const isHexCode = (c: number): boolean => isDigitCode(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/** What the run a line ends with (letters, digits, `.` and `:`) may start: 0 nothing, 1 an IP or MAC address, 2 a wallet. */
function runKind(text: string, lineEnd: number, next: number): { kind: 0 | 1 | 2; start: number } {
  let start = lineEnd;
  let separator = false;
  let digit = false;
  let base58 = true;
  while (start > 0 && lineEnd - start < RUN_BACK) {
    const c = text.charCodeAt(start - 1);
    if (!isRunCode(c)) break;
    if (isSeparatorCode(c)) separator = true;
    else if (isDigitCode(c)) digit = true;
    if (!isBase58Code(c)) base58 = false;
    start--;
  }
  const after = text.charCodeAt(next);
  if (separator && digit && (isHexCode(after) || isSeparatorCode(after))) return { kind: 1, start };
  const first = text.charCodeAt(start);
  const second = text.charCodeAt(start + 1);
  if ((first === 98 || first === 66) && (second === 99 || second === 67) && text.charCodeAt(start + 2) === 49) return { kind: 2, start }; // bc1
  if (first === 48 && second === 120) return { kind: 2, start }; // 0x
  return { kind: base58 && (first === 49 || first === 51) && lineEnd - start >= 8 ? 2 : 0, start };
}

/**
 * May the line break at `at` (a `\n`) break an address? The run the line ends with (letters, digits,
 * `.` and `:`, no blank before the break) holds a separator and a digit and the next line goes on
 * with a hex digit or a separator, or the run starts like a wallet and the next line goes on with a
 * letter or a digit.
 */
export function mayBreakAddressAt(text: string, at: number): boolean {
  const lineEnd = text.charCodeAt(at - 1) === 13 ? at - 1 : at;
  if (lineEnd < 1 || !isRunCode(text.charCodeAt(lineEnd - 1))) return false;
  const next = nextLineStart(text, at);
  if (next < 0 || !isRunCode(text.charCodeAt(next))) return false;
  return runKind(text, lineEnd, next).kind !== 0;
}

/**
 * Is an IP or MAC address reading at this break worth a scan? Its word stands before the run, and
 * the run is no address found forwards (a line that ends with an address, the common case in
 * records, is followed by other text).
 */
function addressMayJoin(state: ScanState, start: number, lineEnd: number): boolean {
  const text = state.text;
  if (!hasValueWordBefore(text, 'ip_address', start)) return false;
  return !state.out.some((detection) => (detection.type === 'ip_address' || detection.type === 'mac_address') && detection.start <= start && detection.end >= lineEnd);
}

/** Is the address `detection` (read in the joined text) one to keep where it starts (`start`, in the text)? */
function keep(state: ScanState, detection: Detection, start: number, lineEnd: number): boolean {
  const text = state.text;
  switch (detection.type) {
    case 'ip_address':
    case 'mac_address':
      return hasValueWordBefore(text, detection.type, start) && !firstLineIsValue(state, detection.type, start, lineEnd);
    case 'crypto_wallet':
      if (detection.value.startsWith('0x')) return hasWordBefore(text, start, WALLET_WORD_DISTANCE, WALLET_CONTEXT);
      return detection.confidence >= 0.95;
    default:
      return false;
  }
}

/** Emit the IP, MAC and wallet addresses the text reads with each of `breaks` (`\n` positions) taken out. */
export function detectBrokenAddresses(state: ScanState, breaks: readonly number[], scan: ReadingScanner): void {
  const text = state.text;
  const nextStart = (at: number, lineEnd: number): number => {
    const next = nextLineStart(text, at);
    if (next < 0) return -1;
    const run = runKind(text, lineEnd, next);
    return run.kind === 0 || (run.kind === 1 && !addressMayJoin(state, run.start, lineEnd)) ? -1 : next;
  };
  joinBrokenValues(state, breaks, scan, ADDRESS_LIMITS, nextStart, ({ detection, start, lineEnd }) => keep(state, detection, start, lineEnd));
}

const ADDRESS_LIMITS: BreakLimits = { before: BEFORE, after: AFTER, maxBreaks: MAX_BREAKS, cap: 0.9 };
