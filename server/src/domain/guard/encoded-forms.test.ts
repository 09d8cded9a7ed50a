// Red-team findings (session 15, open; closed in session 16, wave15/red): the known-values check
// decoded a base64 run only at its own alignment and only when all of it was text, so a value's
// base64 glued to a word (`id` + base64), cut out of a longer encoding so that it starts one to
// three characters into a group, or inside bytes that are not text passed; and the value's bytes
// in hex or base32 were not decoded at all. Each run is now read at each alignment of its groups,
// around what is not text, in base64, hex and base32.
import { describe, expect, it } from 'vitest';
import { KnownValues, MAX_ALIGNED_RUN, type KnownEntry } from './known.js';
import { OutputGuard } from './output.js';
import { findTokensLenient } from '../repair/index.js';

const ENTRIES: KnownEntry[] = [
  { type: 'person', value: 'Quentin Zyxwort' },
  { type: 'email', value: 'ada.lovelace@example.com' },
  { type: 'organization', value: 'Brightwater Analytics' },
  { type: 'person', value: 'Leon' },
];
const VALUES = ['Quentin Zyxwort', 'ada.lovelace@example.com', 'Brightwater Analytics'];

function masked(text: string): string {
  const guard = new OutputGuard({ action: 'mask', detect: () => [], counts: () => true, scan: findTokensLenient, known: new KnownValues(ENTRIES) });
  return guard.guard(text);
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
function base32(text: string): string {
  let bits = '';
  for (const byte of Buffer.from(text, 'utf8')) bits += byte.toString(2).padStart(8, '0');
  let out = '';
  for (let index = 0; index < bits.length; index += 5) out += BASE32.charAt(Number.parseInt(bits.slice(index, index + 5).padEnd(5, '0'), 2));
  return out.padEnd(Math.ceil(out.length / 8) * 8, '=');
}

describe('KnownValues: a value encoded at another alignment', () => {
  it('masks a value whose base64 is glued to a word, for every length of the glue', () => {
    for (const value of VALUES) {
      for (const glue of ['i', 'id', 'key', 'data', 'token', 'abcdef', 'Xy1', 'userdata', 'identifier']) {
        const out = masked(`Here: ${glue}${b64(value)} ok`);
        expect(out, `${glue} + ${value}`).toMatch(/^Here: \[REDACTED:\w+\] ok$/);
      }
    }
  });

  it('masks a value cut out of a longer encoding at any character (the value starting mid-group)', () => {
    for (const value of VALUES) {
      // The value's first byte at each offset of a group (three alignments), after a first group
      // the cut destroys (so its bytes are not the value's).
      for (const before of ['Mr ', 'To: ', 'Name ']) {
        const encoded = b64(`${before}${value} and more`);
        for (let drop = 0; drop < 4; drop++) {
          const run = encoded.slice(drop);
          expect(masked(`Encoded ${run} end`), `${value} ${before} ${drop}`).toMatch(/^Encoded \[REDACTED:\w+\] end$/);
        }
      }
    }
  });

  it('masks a value inside bytes that are not text (a binary header before it)', () => {
    const bytes = Buffer.concat([Buffer.from([0x00, 0x01, 0xff, 0xfe, 0x10]), Buffer.from('Quentin Zyxwort', 'utf8'), Buffer.from([0x00, 0x9f])]);
    expect(masked(`blob ${bytes.toString('base64')} end`)).toBe('blob [REDACTED:person] end');
  });
});

describe('KnownValues: a value in hex or base32 of its bytes', () => {
  it('masks the hex of a value, either case, at either alignment', () => {
    for (const value of VALUES) {
      const hex = Buffer.from(value, 'utf8').toString('hex');
      for (const written of [hex, hex.toUpperCase(), `0${hex}`, `${hex}0a`]) {
        expect(masked(`Hex: ${written}.`), `${value} ${written}`).toMatch(/^Hex: \[REDACTED:\w+\]\.$/);
      }
    }
  });

  it('masks the base32 of a value, with or without padding, and glued to a word', () => {
    for (const value of VALUES) {
      for (const written of [base32(value), base32(value).replace(/=+$/, ''), `ID${base32(value)}`]) {
        expect(masked(`B32 ${written} end`), `${value} ${written}`).toMatch(/^B32 \[REDACTED:\w+\] end$/);
      }
    }
  });
});

describe('KnownValues: ordinary encoded runs stay', () => {
  it('leaves hashes, ids, all-caps words, encoded ordinary text and a part of a value alone', () => {
    const ordinary = [
      'sha256: 41523187cf7d7a2f2677a80609d9caa14388bf5c1fbca9c410ba3de602aaaab4',
      'commit 9fceb02d0ae598e95dc970b74767f19372d61af8 and uuid 123e4567-e89b-12d3-a456-426614174000',
      'IMPORTANT: READ THE DOCUMENTATION BEFORE INSTALLING ANYTHING.',
      `Hex of a greeting: ${Buffer.from('Hello there, how are you?').toString('hex')}; base32: ${base32('Hello there, how are you?')}.`,
      `Part of a value: ${Buffer.from('Zyxwort').toString('hex')} ${base32('Zyxwort')} key${b64('Zyxwort')}.`,
      'Colors #FF00AA and #00FF00FF, numbers 4155550134 20260127 and 1234567890abcdef.',
      'Use NewRequestWithContext, getElementById and AAAAAAAAAAAAAAAA as written.',
    ];
    for (const text of ordinary) expect(masked(text), text).toBe(text);
  });

  it('reads a run longer than MAX_ALIGNED_RUN only whole and aligned (an attachment)', () => {
    const filler = 'x'.repeat(MAX_ALIGNED_RUN);
    expect(masked(`file ${b64(`${filler} Quentin Zyxwort`)} end`)).toBe('file [REDACTED:person] end');
    expect(masked(`file k${b64(`${filler} Quentin Zyxwort`)} end`)).toContain('end');
  });
});
