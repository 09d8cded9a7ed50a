// Check-digit algorithms that turn a plausible-looking string into a near-certain match: Luhn
// (cards), ISO 7064 mod 97-10 (IBAN), base58check (Bitcoin legacy addresses, double SHA-256 via
// node:crypto, which is pure computation) and bech32/bech32m (Bitcoin segwit addresses).
import { hash } from 'node:crypto';

/** Luhn over the ASCII digits of text[start, end); other characters (separators) are skipped. */
export function luhnValid(text: string, start: number, end: number): boolean {
  let sum = 0;
  let double = false;
  let count = 0;
  for (let i = end - 1; i >= start; i--) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) continue;
    let d = c - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
    count++;
  }
  return count > 0 && sum % 10 === 0;
}

function ibanValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 90) return c - 55;
  return -1;
}

/** ibanValue for text as people type it: lower case reads as upper case. */
function ibanValueAnyCase(c: number): number {
  return c >= 97 && c <= 122 ? c - 87 : ibanValue(c);
}

/**
 * ISO 13616 check: move the first four characters to the end, map letters to 10..35 and take
 * the number mod 97, which must be 1. `chars` is the compact IBAN (uppercase, no spaces).
 */
export function ibanChecksumValid(chars: string): boolean {
  if (chars.length < 5) return false;
  let remainder = 0;
  const n = chars.length;
  for (let k = 0; k < n; k++) {
    const c = chars.charCodeAt((k + 4) % n);
    const v = ibanValue(c);
    if (v < 0) return false;
    remainder = v >= 10 ? (remainder * 100 + v) % 97 : (remainder * 10 + v) % 97;
  }
  return remainder === 1;
}

/**
 * The same check over text[start, end) in print form (single spaces, dashes or dots between
 * groups, either case), without building the compact string: the BBAN first, then the country
 * code and check digits.
 */
export function ibanChecksumValidIn(text: string, start: number, end: number): boolean {
  let remainder = 0;
  for (let pass = 0; pass < 2; pass++) {
    const from = pass === 0 ? start + 4 : start;
    const to = pass === 0 ? end : start + 4;
    for (let k = from; k < to; k++) {
      const c = text.charCodeAt(k);
      if (c === 32 || c === 45 || c === 46) continue;
      const v = ibanValueAnyCase(c);
      if (v < 0) return false;
      remainder = v >= 10 ? (remainder * 100 + v) % 97 : (remainder * 10 + v) % 97;
    }
  }
  return remainder === 1;
}

const B58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const B58_INDEX: Int8Array = (() => {
  const table = new Int8Array(128).fill(-1);
  for (let k = 0; k < B58_ALPHABET.length; k++) table[B58_ALPHABET.charCodeAt(k)] = k;
  return table;
})();

/** Decode base58 into bytes; undefined on a character outside the alphabet. */
export function base58Decode(value: string): Uint8Array | undefined {
  // Schoolbook base conversion: O(len^2) with len <= 35 for addresses, so a few hundred steps.
  const bytes: number[] = [];
  for (let k = 0; k < value.length; k++) {
    const c = value.charCodeAt(k);
    const digit = c < 128 ? B58_INDEX[c]! : -1;
    if (digit < 0) return undefined;
    let carry = digit;
    for (let j = 0; j < bytes.length; j++) {
      carry += bytes[j]! * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  // Each leading '1' encodes one leading zero byte.
  for (let k = 0; k < value.length && value.charCodeAt(k) === 49; k++) bytes.push(0);
  return Uint8Array.from(bytes.reverse());
}

function sha256(data: Uint8Array): Buffer {
  return hash('sha256', data, 'buffer');
}

/**
 * A Bitcoin legacy address: base58check of 25 bytes, version 0x00 (P2PKH, '1...') or 0x05 (P2SH,
 * '3...'), last four bytes the first four of SHA-256(SHA-256(first 21 bytes)).
 */
export function bitcoinBase58Valid(value: string): boolean {
  const bytes = base58Decode(value);
  if (bytes?.length !== 25) return false;
  const version = bytes[0];
  if (version !== 0x00 && version !== 0x05) return false;
  const check = sha256(sha256(bytes.subarray(0, 21)));
  for (let k = 0; k < 4; k++) if (check[k] !== bytes[21 + k]) return false;
  return true;
}

const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32_INDEX: Int8Array = (() => {
  const table = new Int8Array(128).fill(-1);
  for (let k = 0; k < BECH32_CHARSET.length; k++) table[BECH32_CHARSET.charCodeAt(k)] = k;
  return table;
})();
const BECH32_GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymodStep(chk: number, value: number): number {
  const top = chk >>> 25;
  let next = ((chk & 0x1ffffff) << 5) ^ value;
  for (let k = 0; k < 5; k++) if (((top >>> k) & 1) === 1) next ^= BECH32_GEN[k]!;
  return next >>> 0;
}

/**
 * A segwit address (BIP 173 / BIP 350): human-readable part `bc`, separator `1`, data in the
 * bech32 alphabet whose checksum is bech32 (witness v0) or bech32m (v1+). Mixed case is invalid.
 */
export function bech32AddressValid(value: string): boolean {
  const lower = value.toLowerCase();
  if (lower !== value && value.toUpperCase() !== value) return false;
  if (!lower.startsWith('bc1') || lower.length < 14 || lower.length > 90) return false;
  let chk = 1;
  const hrp = 'bc';
  for (let k = 0; k < hrp.length; k++) chk = polymodStep(chk, hrp.charCodeAt(k) >>> 5);
  chk = polymodStep(chk, 0);
  for (let k = 0; k < hrp.length; k++) chk = polymodStep(chk, hrp.charCodeAt(k) & 31);
  const data: number[] = [];
  for (let k = 3; k < lower.length; k++) {
    const c = lower.charCodeAt(k);
    const v = c < 128 ? BECH32_INDEX[c]! : -1;
    if (v < 0) return false;
    data.push(v);
    chk = polymodStep(chk, v);
  }
  const witnessVersion = data[0];
  if (witnessVersion === undefined || witnessVersion > 16) return false;
  // bech32 for v0 programs, bech32m for v1 and later.
  if (witnessVersion === 0) return chk === 1 && (lower.length === 42 || lower.length === 62);
  return chk === 0x2bc830a3;
}
