// A Bitcoin base58check address written with look-alike letters for its `1`s (session 15,
// wave14/evade): `send to lBoatSLRHtKNngkdXEeobR76b53LETtpyT`, `3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy`
// with an `I` for a `1`. Base58 leaves out `0`, `O`, `I` and `l` so that no two characters look
// alike; a word of the address's length holding `l` or `I` is no address as written, and read with
// `1` for each of them the address's own 32-bit checksum decides (no value word needed: two words of
// prose never pass it). Full-width, mathematical, Cyrillic and Greek forms reach this as ASCII
// through the fold. The scan calls this only for a word of 26-35 characters starting with `1`, `3`,
// `l` or `I` (one length test per word of prose).
import { bitcoinBase58Valid } from './checksums.js';
import { emit, type ScanState } from './state.js';

/** Shortest and longest base58check address (P2PKH / P2SH). */
export const BASE58_MIN = 26;
export const BASE58_MAX = 35;

/** True for a base58 character (digits but 0, letters but O, I, l). */
function isBase58(code: number): boolean {
  if (code >= 49 && code <= 57) return true;
  if (code >= 65 && code <= 90) return code !== 73 && code !== 79;
  return code >= 97 && code <= 122 && code !== 108;
}

/** May a word starting with `c` be a base58 address written with look-alikes? (`1`, `3`, `l`, `I`.) */
export function lookalikeBase58MayStart(c: number): boolean {
  return c === 49 || c === 51 || c === 108 || c === 73;
}

/**
 * `value` with `l` and `I` read as `1` when it is a base58 address so written (one of them at
 * least, every other character base58, the reading checksummed); undefined otherwise.
 */
export function readLookalikeBase58(value: string): string | undefined {
  if (value.length < BASE58_MIN || value.length > BASE58_MAX) return undefined;
  let looks = 0;
  for (let k = 0; k < value.length; k++) {
    const code = value.charCodeAt(k);
    if (code === 108 || code === 73) looks++;
    else if (!isBase58(code)) return undefined;
  }
  if (looks === 0) return undefined;
  const read = value.replace(/[lI]/g, '1');
  return bitcoinBase58Valid(read) ? read : undefined;
}

/** At a word [start, end) of 26-35 characters: a base58 address with look-alike `1`s; its end, or -1. */
export function detectLookalikeBase58(state: ScanState, start: number, end: number): number {
  if (readLookalikeBase58(state.text.slice(start, end)) === undefined) return -1;
  emit(state, 'crypto_wallet', start, end, 0.98);
  return end;
}
