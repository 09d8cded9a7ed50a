// An Ethereum address written with look-alike letters for its digits (session 14, wave13/evade):
// `wallet Ox529O84OOO98527886EOF7O3OO69857D2E4l69EE7` (O for 0, l or I for 1; Cyrillic, Greek,
// full-width and mathematical forms reach it as ASCII through the fold). `O`, `o`, `l` and `I` are
// no hex digits, so the reading is unambiguous: `0x` (or `Ox`, `ox`) and exactly 40 characters of
// hex digits and those letters, one such letter at least, no letter or digit on either side; an
// Ethereum address has no check the service can verify (EIP-55 needs Keccak), so the address is
// kept only after its value word (a wallet, an address, a payment: WALLET_CONTEXT). Runs on the
// folded text; the trigger is a native search for `x` and two reads.
import { hasWordBefore, contextWords, type ContextWords } from './context.js';
import type { Detection } from '../types.js';

export const WALLET_CONTEXT: ContextWords = contextWords([
  'wallet', 'address', 'addr', 'eth', 'ether', 'ethereum', 'send to', 'send', 'deposit', 'pay', 'payment', 'transfer', 'metamask',
  'crypto', 'usdt', 'usdc', 'recipient',
]);
/** Most `x` looked at in one text. */
const MAX_CANDIDATES = 256;

function isLookalike(code: number): boolean {
  return code === 0x4f || code === 0x6f || code === 0x6c || code === 0x49;
}

function isAlnum(code: number): boolean {
  const lower = code | 0x20;
  return (code >= 48 && code <= 57) || (lower >= 97 && lower <= 122);
}

/** Add to `candidates` the Ethereum addresses `text` (the folded text) holds written with look-alike letters. */
export function addLookalikeWallets(text: string, candidates: Detection[]): void {
  let seen = 0;
  for (let x = text.indexOf('x', 1); x >= 0 && seen < MAX_CANDIDATES; x = text.indexOf('x', x + 1)) {
    seen++;
    const zero = text.charCodeAt(x - 1);
    if (zero !== 0x30 && zero !== 0x4f && zero !== 0x6f) continue;
    const start = x - 1;
    const end = x + 41;
    if (end > text.length || isAlnum(text.charCodeAt(start - 1)) || isAlnum(text.charCodeAt(end))) continue;
    let letters = zero === 0x30 ? 0 : 1;
    let k = x + 1;
    for (; k < end && hexOrLookalike(text.charCodeAt(k)); k++) if (isLookalike(text.charCodeAt(k))) letters++;
    if (k !== end || letters === 0 || !hasWordBefore(text, start, 48, WALLET_CONTEXT)) continue;
    candidates.push({ type: 'crypto_wallet', start, end, value: text.slice(start, end), confidence: 0.85, detector: 'builtin_regex' });
    x = end;
  }
}

/** A hex digit or one of the letters drawn like 0 and 1 (O o l I). */
function hexOrLookalike(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102) || code === 0x4f || code === 0x6f || code === 0x6c || code === 0x49;
}

/** An Ethereum address written with look-alike letters, with its digits (normalization); any other value as it is. */
export function readLookalikeWallet(value: string): string {
  if (value.length !== 42 || !/^[0Oo]x[0-9A-Fa-fOolI]{40}$/.test(value)) return value;
  return `0x${value.slice(2).replace(/[Oo]/g, '0').replace(/[lI]/g, '1')}`;
}
