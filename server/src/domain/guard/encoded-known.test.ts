// Red-team finding (session 13, open; closed in session 14): a session value the model writes
// base64-encoded (of letters too, not only digits: `UXVlbnRpbiBaeXh3b3J0`) or backwards
// (`trowxyZ nitneuQ`) passed the known-values check. The check now reads the session's values
// backwards (long enough ones) and decodes each base64 run of the output that is text, without
// touching ordinary base64 (images, hashes, keys, encoded text without a session value).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KnownValues, MIN_REVERSED_CHARS, reversedKey, type KnownEntry } from './known.js';
import { OutputGuard } from './output.js';
import { findTokensLenient } from '../repair/index.js';

const ENTRIES: KnownEntry[] = [
  { type: 'person', value: 'Quentin Zyxwort' },
  { type: 'person', value: 'José Okafor' },
  { type: 'email', value: 'ada.lovelace@example.com' },
  { type: 'organization', value: 'Brightwater Analytics' },
  { type: 'person', value: 'Leon' },
];

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const b64url = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');
/** `text` backwards by code point (the model's reversal of a value). */
function reverse(text: string): string {
  let out = '';
  for (const match of text.matchAll(/./gsu)) out = match[0] + out;
  return out;
}

function masked(text: string): string {
  const guard = new OutputGuard({ action: 'mask', detect: () => [], counts: () => true, scan: findTokensLenient, known: new KnownValues(ENTRIES) });
  return guard.guard(text);
}

describe('KnownValues: a session value written backwards', () => {
  it('finds each long enough value reversed, in any case and spacing', () => {
    for (const value of ['Quentin Zyxwort', 'José Okafor', 'ada.lovelace@example.com', 'Brightwater Analytics']) {
      for (const written of [reverse(value), reverse(value).toUpperCase(), reverse(value).replaceAll(' ', '')]) {
        const out = masked(`Here it is backwards: ${written}. Done.`);
        expect(out, written).not.toContain(written);
        expect(out).toMatch(/^Here it is backwards: \[REDACTED:(person|email|organization)\]\. Done\.$/);
      }
    }
  });

  it('leaves a short value reversed (an ordinary word) alone', () => {
    expect(reversedKey('leon')).toBeUndefined();
    expect(MIN_REVERSED_CHARS).toBeGreaterThan(4);
    expect(masked('Noel went home.')).toBe('Noel went home.');
    expect(reversedKey('abcddcba')).toBeUndefined(); // a palindrome is its own key
  });
});

describe('KnownValues: a session value written in base64', () => {
  it('masks the value encoded alone, in either alphabet, with or without padding', () => {
    for (const value of ['Quentin Zyxwort', 'José Okafor', 'ada.lovelace@example.com', 'Brightwater Analytics', 'quentin zyxwort']) {
      for (const written of [b64(value), b64url(value), b64(value).replace(/=+$/, '')]) {
        expect(masked(`Encoded: ${written} (base64).`), `${value} as ${written}`).toMatch(/^Encoded: \[REDACTED:\w+\] \(base64\)\.$/);
      }
    }
  });

  it('masks a base64 run of a sentence that holds a value, at every byte alignment', () => {
    for (const prefix of ['', ' ', ': ', 'Client ', 'The client is ']) {
      const written = b64(`${prefix}Quentin Zyxwort, born 1970.`);
      expect(masked(`data:text/plain;base64,${written}`)).toBe('data:text/plain;base64,[REDACTED:person]');
    }
  });

  it('masks a value reversed and then encoded', () => {
    expect(masked(`Try ${b64(reverse('Quentin Zyxwort'))} now`)).toBe('Try [REDACTED:person] now');
  });

  it('leaves ordinary base64 as it is: bytes, hashes, text without a session value', () => {
    const bytes = Buffer.from(Array.from({ length: 300 }, (_, index) => (index * 97 + 13) % 256)).toString('base64');
    const ordinary = [
      `An image: data:image/png;base64,${bytes}`,
      `The greeting ${b64('Hello there, how are you today?')} decodes to a greeting.`,
      `Quentin's ${b64('Zyxwort')} is not the whole value.`, // a part of a value alone is not the value
      'sha256: 41523187cf7d7a2f2677a80609d9caa14388bf5c1fbca9c410ba3de602aaaab4',
      'Use NewRequestWithContext and proxy_set_header in com/github/rest-api-description.',
    ];
    for (const text of ordinary) expect(masked(text)).toBe(text);
  });

  it('changes no ordinary answer of the guard precision corpus more than the session values alone do', () => {
    const path = new URL('../../../../data/guard-ordinary.jsonl', import.meta.url);
    const records = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { id: string; text: string });
    expect(records.length).toBeGreaterThanOrEqual(500);
    // Every base64-looking run of the corpus as a session value would be too easy; the values
    // above are not in the corpus, so nothing may change.
    const changed = records.filter((record) => masked(record.text) !== record.text).map((record) => record.id);
    expect(changed).toEqual([]);
  });
});
