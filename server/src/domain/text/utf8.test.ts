// Strict UTF-8 decoding of request bytes: valid text (multibyte, an encoded U+FFFD, a BOM kept)
// passes; every malformed sequence is refused naming the field, never quoting the bytes.
import { describe, expect, it } from 'vitest';
import { decodeLatin1Field, decodeUtf8 } from './utf8.js';

const MALFORMED = [
  [0xff], // never valid
  [0x80], // a lone continuation byte
  [0xc0, 0xaf], // overlong '/'
  [0xe2, 0x82], // truncated three-byte sequence
  [0xed, 0xa0, 0x80], // an encoded surrogate (U+D800)
  [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
];

describe('decodeUtf8', () => {
  it('decodes valid UTF-8, keeping an encoded U+FFFD and a BOM as they were sent', () => {
    expect(decodeUtf8(Buffer.from('café ☕ 𝄞 \ufffd'), 'body')).toBe('café ☕ 𝄞 \ufffd');
    expect(decodeUtf8(Buffer.from('\ufeff{}'), 'body')).toBe('\ufeff{}');
  });

  it('refuses every malformed sequence with 400 naming the field', () => {
    for (const bytes of MALFORMED) {
      const input = Buffer.concat([Buffer.from('secret-value '), Buffer.from(bytes)]);
      expect(() => decodeUtf8(input, 'body')).toThrow(expect.objectContaining({ code: 'VEIL_VALIDATION_FAILED', status: 400, message: 'body: is not valid UTF-8' }));
    }
  });

  it('decodes each body on its own: nothing of a refused or earlier body carries into the next', () => {
    // The first byte of a three-byte sequence ends a refused body; the next body starts with its
    // two continuation bytes, which are malformed on their own and must be refused.
    expect(() => decodeUtf8(Buffer.from([0x61, 0xe2]), 'body')).toThrow(expect.objectContaining({ code: 'VEIL_VALIDATION_FAILED' }));
    expect(() => decodeUtf8(Buffer.from([0x82, 0xac, 0x61]), 'body')).toThrow(expect.objectContaining({ code: 'VEIL_VALIDATION_FAILED' }));
    // A valid body after a refused one decodes whole, as does the same body twice.
    expect(() => decodeUtf8(Buffer.from([0xf0, 0x9d]), 'body')).toThrow(expect.objectContaining({ code: 'VEIL_VALIDATION_FAILED' }));
    expect(decodeUtf8(Buffer.from('€ 𝄞'), 'body')).toBe('€ 𝄞');
    expect(decodeUtf8(Buffer.from('€ 𝄞'), 'body')).toBe('€ 𝄞');
    expect(decodeLatin1Field(Buffer.from('ça').toString('latin1'), 'field')).toBe('ça');
  });
});

describe('decodeLatin1Field (multipart text fields read as bytes)', () => {
  it('decodes the bytes as UTF-8', () => {
    expect(decodeLatin1Field(Buffer.from('café', 'utf8').toString('latin1'), 'policy')).toBe('café');
  });

  it('refuses malformed bytes, and text a declared charset already decoded', () => {
    for (const bytes of MALFORMED) {
      expect(() => decodeLatin1Field(Buffer.from(bytes).toString('latin1'), 'language')).toThrow(/^language: is not valid UTF-8/);
    }
    expect(() => decodeLatin1Field('caf\ufffd', 'language')).toThrow(/^language: is not valid UTF-8/);
  });
});
