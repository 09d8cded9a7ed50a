// Cryptocurrency wallet addresses: Bitcoin legacy (base58check, real double-SHA-256 checksum),
// Bitcoin segwit (bech32/bech32m checksum) and Ethereum (0x + 40 hex; EIP-55 needs Keccak, which
// node:crypto lacks, so mixed case is accepted unverified at a lower score than checksummed forms).
import { codeAt, F_B58, F_DIGIT, F_HEX, F_LOWER, F_UPPER, isAlnumCode, runEnd } from './chars.js';
import { bech32AddressValid, bitcoinBase58Valid } from './checksums.js';
import { emit, type ScanState } from './state.js';


/** At a word starting with '1' or '3': a base58check P2PKH / P2SH address (26-35 chars). */
export function detectBase58Address(state: ScanState, start: number): number {
  const text = state.text;
  const end = runEnd(text, start, F_B58, 35);
  if (end < 0 || end - start < 26 || isAlnumCode(codeAt(text, end))) return -1;
  if (!bitcoinBase58Valid(text.slice(start, end))) return -1;
  emit(state, 'crypto_wallet', start, end, 0.98);
  return end;
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
  if (end < 0 || end - start < 14 || isAlnumCode(codeAt(text, end))) return -1;
  if (!bech32AddressValid(text.slice(start, end))) return -1;
  emit(state, 'crypto_wallet', start, end, 0.98);
  return end;
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
