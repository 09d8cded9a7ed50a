// Secrets an adversary can send raw with no credential word before them: BIP39 seed phrases
// (seed-phrase.ts, `private_key`) and stored password hashes (password-hash.ts, `password`).
// Each is found in the forms people paste it in, and near misses (a failing checksum, a wrong
// length, a placeholder, prose made of list words, prices and shell variables) are not.
import { createHash } from 'node:crypto';
import { entropyToMnemonic, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { describe, expect, it } from 'vitest';
import { detectAll } from './index.js';
import { checksumHolds } from './seed-phrase.js';

function found(text: string, type: string): string[] {
  return detectAll(text, {})
    .filter((d) => d.confidence >= 0.5 && d.type === type)
    .map((d) => d.value);
}

/** A phrase of `words` words from entropy derived from `seed` (the library computes its checksum, not ours). */
function phrase(seed: string, words: number): string {
  const entropy = createHash('sha256').update(seed).digest().subarray(0, (words * 4) / 3);
  return entropyToMnemonic(entropy, wordlist);
}

const ZERO_12 = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const TREZOR_12 = 'legal winner thank year wave sausage worth useful legal winner thank yellow';

describe('BIP39 seed phrases', () => {
  it.each([12, 15, 18, 21, 24])('a %i-word phrase, bare, is one private_key', (words) => {
    for (const seed of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) {
      const mnemonic = phrase(seed, words);
      expect(found(mnemonic, 'private_key')).toEqual([mnemonic]);
      expect(found(`my recovery phrase is ${mnemonic} thanks`, 'private_key')).toEqual([mnemonic]);
    }
  });

  it('is found wherever it stands in a longer text (the probes every few words reach every phrase)', () => {
    const prose = 'We met on Tuesday to go over the plan; nothing was decided, so we will meet again soon. ';
    for (let k = 0; k < 300; k++) {
      const mnemonic = phrase(`placed ${k}`, k % 2 === 0 ? 12 : 24);
      const text = `${prose.repeat(1 + (k % 4)).slice(0, 40 + k)}\n${mnemonic}\n${prose.slice(0, k % 50)}`;
      expect(found(text, 'private_key'), text).toEqual([mnemonic]);
    }
  });

  it('agrees with the library on the checksum of every length', () => {
    for (let k = 0; k < 200; k++) {
      const mnemonic = phrase(`vector ${k}`, [12, 15, 18, 21, 24][k % 5]!);
      const indices = mnemonic.split(' ').map((word) => wordlist.indexOf(word));
      expect(checksumHolds(indices)).toBe(true);
      // Another last word: the library decides whether its checksum holds, and so must we.
      const other = [...indices.slice(0, -1), (indices[indices.length - 1]! + 1) % 2048];
      expect(checksumHolds(other)).toBe(validateMnemonic(other.map((index) => wordlist[index]).join(' '), wordlist));
    }
  });

  it('the test vectors', () => {
    expect(found(ZERO_12, 'private_key')).toEqual([ZERO_12]);
    expect(found(TREZOR_12, 'private_key')).toEqual([TREZOR_12]);
    const zoo = 'zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong';
    expect(found(zoo, 'private_key')).toEqual([zoo]);
  });

  it('in any case, numbered, one per line, comma-separated, quoted', () => {
    const mnemonic = phrase('forms', 12);
    const words = mnemonic.split(' ');
    const forms = [
      mnemonic.toUpperCase(),
      words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join(' '),
      words.map((w, k) => `${k + 1}. ${w}`).join(' '),
      words.map((w, k) => `${k + 1}. ${w}`).join('\n'),
      words.map((w, k) => `${k + 1}) ${w}`).join('\n'),
      words.join('\n'),
      words.join(', '),
      words.join(','),
      `["${words.join('", "')}"]`,
      words.map((w, k) => `${String(k + 1).padStart(2, '0')} - ${w}`).join('\n'),
    ];
    for (const form of forms) {
      const values = found(`Seed:\n${form}\nPlease keep it.`, 'private_key');
      expect(values, form).toHaveLength(1);
      expect(values[0]!.toLowerCase().match(/[a-z]+/g)).toEqual(words);
    }
  });

  it('words of the list typed around the phrase are left out of it (at most two)', () => {
    const mnemonic = phrase('around', 12);
    expect(found(`${mnemonic} please help`, 'private_key')).toEqual([mnemonic]);
    expect(found(`seed ${mnemonic}`, 'private_key')).toEqual([mnemonic]);
    expect(found(`My seed phrase: ${mnemonic}. Keep it safe`, 'private_key')).toEqual([mnemonic]);
  });

  it('a failing checksum, a wrong length or a run of more than 26 words is none', () => {
    const words = phrase('near misses', 12).split(' ');
    const last = wordlist.indexOf(words[11]!);
    // The next word of the list differs in the checksum's four low bits when `last` is not 15 mod 16.
    const wrong = [...words.slice(0, 11), wordlist[last % 16 === 15 ? last - 1 : last + 1]!].join(' ');
    expect(found(wrong, 'private_key')).toEqual([]);
    expect(found(words.slice(0, 11).join(' '), 'private_key')).toEqual([]);
    expect(found(`${'abandon '.repeat(40)}about`, 'private_key')).toEqual([]);
    expect(found(`${ZERO_12} ${ZERO_12} ${ZERO_12}`, 'private_key')).toEqual([]);
  });

  it('prose, identifiers and word lists that are not phrases are none', () => {
    for (const text of [
      'Can you tell me about the best way to learn a new language in a year?',
      'abandon ability able about above absent absorb abstract absurd abuse access accident',
      "'border-left', 'border-left-color', 'border-left-style', 'border-left-width', 'border-right', 'border-right-color'",
      'The abandoned ability of ablest people above all is absent, absorbed in abstraction.',
      'apple banana cherry', // three words: no run
    ]) {
      expect(found(text, 'private_key'), text).toEqual([]);
    }
  });
});

describe('password hashes', () => {
  it.each([
    ['htpasswd MD5 (apr1)', 'admin:$apr1$9Cv/OMGj$ZomWQzuQbL.3TRCS81A1g/', '$apr1$9Cv/OMGj$ZomWQzuQbL.3TRCS81A1g/'],
    ['MD5-crypt', 'hash $1$saltstri$YMyguxXMBpd2TEZ.vS/3q1 done', '$1$saltstri$YMyguxXMBpd2TEZ.vS/3q1'],
    ['bcrypt $2y$', 'user:$2y$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy', '$2y$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy'],
    ['bcrypt $2b$ quoted', '"hash": "$2b$12$KIXQJ5mAaJX1l0ZvKcF1seHhQ4Yb8hq0u4m8l2XgFz3W4k1ZbQ6aK"', '$2b$12$KIXQJ5mAaJX1l0ZvKcF1seHhQ4Yb8hq0u4m8l2XgFz3W4k1ZbQ6aK'],
    [
      'SHA-512-crypt shadow line',
      'root:$6$rounds=5000$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1:18000:0:99999:7:::',
      '$6$rounds=5000$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1',
    ],
    ['SHA-256-crypt', '$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZF5O5Zt3C', '$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZF5O5Zt3C'],
    ['yescrypt', 'bob:$y$j9T$F5Jx5fExrKuPp53xLKQ..1$X3DX6M94c7o.9agCG9G317fhZg9SqC.5i5rd.RhAtQ7:19000', '$y$j9T$F5Jx5fExrKuPp53xLKQ..1$X3DX6M94c7o.9agCG9G317fhZg9SqC.5i5rd.RhAtQ7'],
    ['argon2id', 'stored $argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$RdescudvJCsgt3ub+b+dWRWJTmaaJObG ok', '$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$RdescudvJCsgt3ub+b+dWRWJTmaaJObG'],
    ['passlib pbkdf2-sha256', '$pbkdf2-sha256$29000$N2YuZTxnzJlT6v1fT5gzOA$yYJsfIB9vC2dqaNmoJPaJVnrmNLeRmD0NqzDJX9OeF8', '$pbkdf2-sha256$29000$N2YuZTxnzJlT6v1fT5gzOA$yYJsfIB9vC2dqaNmoJPaJVnrmNLeRmD0NqzDJX9OeF8'],
    ['Django pbkdf2_sha256', 'password field: pbkdf2_sha256$260000$PdIV5QjZjAU3yH6PY0EGHX$7NbBEywAJCC9iOOOHx7i0pG+6hGkWzG/gSbHUXmvXIs=', 'pbkdf2_sha256$260000$PdIV5QjZjAU3yH6PY0EGHX$7NbBEywAJCC9iOOOHx7i0pG+6hGkWzG/gSbHUXmvXIs='],
    ['LDAP {SSHA}', 'userPassword: {SSHA}eFbeFlmZB7nXHpsbw7vtYaUJ+qRqBOUbpPk8hQ==', '{SSHA}eFbeFlmZB7nXHpsbw7vtYaUJ+qRqBOUbpPk8hQ=='],
    ['LDAP {SHA}', 'userPassword {SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=', '{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g='],
    ['LDAP {CRYPT}', '{CRYPT}$1$saltstri$YMyguxXMBpd2TEZ.vS/3q1', '{CRYPT}$1$saltstri$YMyguxXMBpd2TEZ.vS/3q1'],
  ])('%s', (_, text, value) => {
    expect(found(text, 'password')).toEqual([value]);
  });

  it.each([
    ['placeholder bcrypt', '$2y$10$xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
    ['alphabet run', '$1$saltsalt$abcdefghijklmnopqrstuv'],
    ['bcrypt one short', '$2y$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhW'],
    ['bcrypt one long', '$2y$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWyz'],
    ['SHA-512 digest of SHA-256 length', '$6$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZF5O5Zt3C'],
    ['argon2 without parameters', '$argon2id$c29tZXNhbHRzb21lc2FsdA$RdescudvJCsgt3ub+b+dWRWJTmaaJObG'],
    ['{SSHA} without salt', '{SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g='],
    ['{SHA} of the wrong length', '{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9gA1b2='],
    ['prices and shell variables', 'It costs $20, or $1.50 each; echo $1 $2 ${HOME} $PATH {x} {SHA}'],
    ['templates', 'Hello {name}, your order {SSHA} ${{ secrets.TOKEN }} $2y$'],
  ])('%s is none', (_, text) => {
    expect(found(text, 'password')).toEqual([]);
  });
});
