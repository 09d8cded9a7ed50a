// Cryptocurrency wallet addresses: Bitcoin legacy (base58check, real double-SHA-256 checksum),
// Bitcoin segwit (bech32/bech32m checksum) and Ethereum (0x + 40 hex; EIP-55 needs Keccak, which
// node:crypto lacks, so mixed case is accepted unverified at a lower score than checksummed forms).
import { codeAt, continuedLineAt, F_B58, F_DIGIT, F_HEX, F_LOWER, F_UPPER, isAlnumCode, runEnd } from './chars.js';
import { bech32AddressValid, bitcoinBase58Valid } from './checksums.js';
import { emit, type ScanState } from './state.js';


/** At a word starting with '1' or '3': a base58check P2PKH / P2SH address (26-35 chars). */
export function detectBase58Address(state: ScanState, start: number): number {
  const text = state.text;
  const end = runEnd(text, start, F_B58, 35);
  if (end < 0) return -1;
  if (end - start >= 26 && !isAlnumCode(codeAt(text, end)) && bitcoinBase58Valid(text.slice(start, end))) {
    emit(state, 'crypto_wallet', start, end, 0.98);
    return end;
  }
  return brokenWalletEnd(state, start, end, F_B58, 26, 35, bitcoinBase58Valid);
}

/**
 * A checksummed address broken by one line break in the middle (`1BoatSLRHtKNngkdX⏎EeobR…`):
 * the line before ends inside it (the half is no address: the caller found none), the next line
 * goes straight on with its alphabet, and the joined form has the length and the checksum.
 * Two words of prose never join: the checksum decides. The span holds the break (normalization
 * drops blanks from an address).
 */
function brokenWalletEnd(state: ScanState, start: number, end: number, mask: number, min: number, max: number, valid: (value: string) => boolean): number {
  const text = state.text;
  if (end - start >= max) return -1;
  const next = continuedLineAt(text, end, mask);
  if (next < 0) return -1;
  const tailEnd = runEnd(text, next, mask, max - (end - start));
  if (tailEnd < 0 || isAlnumCode(codeAt(text, tailEnd))) return -1;
  const joined = text.slice(start, end) + text.slice(next, tailEnd);
  if (joined.length < min || !valid(joined)) return -1;
  emit(state, 'crypto_wallet', start, tailEnd, 0.98);
  return tailEnd;
}

// Any letter or digit passes the gate; the bech32 alphabet and checksum decide.
const BECH32_MASK = F_DIGIT | F_UPPER | F_LOWER;

/** May detectBech32Address match at a word starting with `c`, `second`? (`bc1`/`BC1`; for the scan's pair table.) */
export function bech32MayStartWith(c: number, second: number): boolean {
  return (c === 98 && second === 99) || (c === 66 && second === 67);
}

/** At a word starting with "bc1" / "BC1": a segwit address with a valid bech32(m) checksum. */
export function detectBech32Address(state: ScanState, start: number): number {
  const text = state.text;
  if (!(text.startsWith('bc1', start) || text.startsWith('BC1', start))) return -1;
  const end = runEnd(text, start, BECH32_MASK, 90);
  if (end < 0) return -1;
  if (end - start >= 14 && !isAlnumCode(codeAt(text, end)) && bech32AddressValid(text.slice(start, end))) {
    emit(state, 'crypto_wallet', start, end, 0.98);
    return end;
  }
  return brokenWalletEnd(state, start, end, BECH32_MASK, 14, 90, bech32AddressValid);
}

/** At "0x": an Ethereum address, exactly 40 hex digits. */
export function detectEthereumAddress(state: ScanState, start: number): number {
  const text = state.text;
  if (codeAt(text, start + 1) !== 120 /* x */) return -1;
  const end = runEnd(text, start + 2, F_HEX, 40);
  if (end !== start + 42 || isAlnumCode(codeAt(text, end))) return -1;
  emit(state, 'crypto_wallet', start, end, 0.9);
  return end;
}
