// Check-digit algorithms against published test vectors and their one-character corruptions.
import { describe, expect, it } from 'vitest';
import { base58Decode, bech32AddressValid, bitcoinBase58Valid, ibanChecksumValid, ibanChecksumValidIn, luhnValid } from './checksums.js';

describe('luhnValid', () => {
  it.each(['4111111111111111', '4111 1111 1111 1111', '79927398713', '378282246310005'])('accepts %j', (value) => {
    expect(luhnValid(value, 0, value.length)).toBe(true);
  });
  it.each(['4111111111111112', '79927398710', '', '----'])('rejects %j', (value) => {
    expect(luhnValid(value, 0, value.length)).toBe(false);
  });
  it('detects every single-digit change', () => {
    const valid = '4539148803436467';
    for (let k = 0; k < valid.length; k++) {
      const digit = Number(valid[k]);
      const changed = `${valid.slice(0, k)}${(digit + 1) % 10}${valid.slice(k + 1)}`;
      expect(luhnValid(changed, 0, changed.length)).toBe(false);
    }
  });
});

describe('ibanChecksumValid', () => {
  it.each(['DE89370400440532013000', 'GB82WEST12345698765432', 'NO9386011117947', 'MT84MALT011000012345MTLCAST001S'])('accepts %j', (iban) => {
    expect(ibanChecksumValid(iban)).toBe(true);
  });
  it.each(['DE89370400440532013001', 'DE98370400440532013000', 'GB82WEST12345698765433', 'DE89', 'de89370400440532013000'])(
    'rejects %j',
    (iban) => {
      expect(ibanChecksumValid(iban)).toBe(false);
    },
  );
});

describe('ibanChecksumValidIn', () => {
  it('checks the print form in place', () => {
    const text = 'pay DE89 3704 0044 0532 0130 00 now';
    expect(ibanChecksumValidIn(text, 4, 31)).toBe(true);
    expect(ibanChecksumValidIn(text.replace('00 now', '01 now'), 4, 31)).toBe(false);
  });
});

describe('base58', () => {
  it('decodes leading ones as zero bytes', () => {
    expect(Array.from(base58Decode('112') ?? [])).toEqual([0, 0, 1]);
    expect(base58Decode('0OIl')).toBeUndefined();
  });
  it.each(['1BoatSLRHtKNngkdXEeobR76b53LETtpyT', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'])(
    'accepts the address %j',
    (address) => {
      expect(bitcoinBase58Valid(address)).toBe(true);
    },
  );
  it.each(['1BoatSLRHtKNngkdXEeobR76b53LETtpyU', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb', '1A1zP1eP5QGefi2DMPTfTL5SLmv7Divf'])(
    'rejects %j',
    (address) => {
      expect(bitcoinBase58Valid(address)).toBe(false);
    },
  );
});

describe('bech32AddressValid', () => {
  it.each([
    'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4',
    'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3',
    'bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297',
  ])('accepts %j', (address) => {
    expect(bech32AddressValid(address)).toBe(true);
  });
  it.each([
    'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5',
    'bc1qw508d6qejxtdg4y5r3zarvary0C5xw7kv8f3t4', // mixed case
    'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', // testnet hrp
    'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', // v1 with a bech32 (not bech32m) checksum
    'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3tb', // 'b' is outside the alphabet
  ])('rejects %j', (address) => {
    expect(bech32AddressValid(address)).toBe(false);
  });
});
