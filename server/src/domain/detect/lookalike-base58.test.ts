// Bitcoin base58 addresses with `l` or `I` for their `1`s (session 15, wave14/evade;
// lookalike-base58.ts): the checksum decides, and the spelling normalizes to the plain address (one
// token, one erasure). Words of the same length that fail the checksum stay prose.
import { describe, expect, it } from 'vitest';
import { normalizeValue } from '../token/normalize.js';
import { foundTagged as found } from '../../../test/support/detections.js';
import { readLookalikeBase58 } from './lookalike-base58.js';

const P2PKH = '1BoatSLRHtKNngkdXEeobR76b53LETtpyT';
const P2SH = '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy';

describe('base58 addresses with look-alike ones', () => {
  it.each([
    [`send to lBoatSLRHtKNngkdXEeobR76b53LETtpyT ok`, 'lBoatSLRHtKNngkdXEeobR76b53LETtpyT', P2PKH],
    [`send to IBoatSLRHtKNngkdXEeobR76b53LETtpyT ok`, 'IBoatSLRHtKNngkdXEeobR76b53LETtpyT', P2PKH],
    // A `1` inside the address, the word starting with a plain digit; no value word needed.
    [`pay 3J98tlWpEZ73CNmQviecrnyiWrnqRhWNLy now`, '3J98tlWpEZ73CNmQviecrnyiWrnqRhWNLy', P2SH],
    [`l see IJ98t1WpEZ73CNmQviecrnyiWrnqRhWNLy`, undefined, undefined],
    // Full-width and mathematical letters fold to `l`.
    [`send to ｌBoatSLRHtKNngkdXEeobR76b53LETtpyT ok`, 'ｌBoatSLRHtKNngkdXEeobR76b53LETtpyT', P2PKH],
  ])('%s', (text, value, canonical) => {
    const wallets = found(text).filter((tag) => tag.startsWith('crypto_wallet['));
    if (value === undefined) {
      expect(wallets).toEqual([]);
      return;
    }
    expect(wallets).toEqual([`crypto_wallet[${value}]`]);
    expect(normalizeValue('crypto_wallet', value, 'US')).toBe(canonical);
    expect(normalizeValue('crypto_wallet', canonical, 'US')).toBe(canonical);
  });

  it('leaves words of the length that fail the checksum, or hold no look-alike', () => {
    expect(readLookalikeBase58('lBoatSLRHtKNngkdXEeobR76b53LETtpyU')).toBeUndefined();
    expect(readLookalikeBase58(P2PKH)).toBeUndefined();
    expect(readLookalikeBase58('lllllllllllllllllllllllllllll')).toBeUndefined();
    expect(found('internationalization localization llllllllllllllllllllllllllll')).toEqual([]);
  });
});
