// Evasion round 9 (session 19, wave18/evade), against the real `veil serve` process: dates, IPv4
// addresses and passport numbers after their word written one digit at a time, as digit words,
// backwards, with S/B for 5/8, or (passports) base64-, base32- or hex-encoded
// (server/src/domain/detect/loose-numbers.ts), and values written with the marks of strikethrough
// or underline text generators, or with marks on their blanks (server/src/domain/text/fold.ts).
// Each spelling is tokenized whole as text, JSON and chat, restored as written, and erased with the
// plain value (server/src/domain/token/normalize.ts reads each spelling as the plain value).
import { describeSpellings, type SpellingCase } from './support/spellings.js';

const SECRET = '19'.repeat(32);
/** A value that is never revoked: it must still restore next to the erased one. */
const WITNESS = 'witness.evade19@example.org';

const strike = (value: string): string => [...value].map((c) => `${c}\u0336`).join('');
const underline = (value: string): string => [...value].map((c) => `${c}\u0332`).join('');

const CASES: readonly SpellingCase[] = [
  {
    name: 'date of birth one digit at a time, as digit words, backwards, with S/B',
    type: 'date',
    label: 'date of birth',
    plain: '1985-03-04',
    spellings: ['1-9-8-5-0-3-0-4', '1.9.8.5.0.3.0.4', 'one nine eight five zero three zero four', '40-30-5891', '19BS-03-04'],
    fragments: ['1-9-8-5', '1.9.8.5', 'nine eight five', '5891', '19BS'],
  },
  {
    name: 'IPv4 address backwards or with S/B',
    type: 'ip_address',
    label: 'server ip',
    plain: '81.2.69.160',
    spellings: ['061.96.2.18', 'B1.2.69.160'],
    fragments: ['061.96', '69.160'],
  },
  {
    name: 'passport number one digit at a time, as digit words, encoded',
    type: 'us_passport',
    label: 'passport number',
    plain: '912803456',
    spellings: ['9-1-2-8-0-3-4-5-6', 'nine one two eight zero three four five six', 'OTEyODAzNDU2', '393132383033343536', 'HEYTEOBQGM2DKNQ='],
    fragments: ['9-1-2-8', 'three four five', 'OTEyODAzNDU2', '393132383033343536', 'HEYTEOBQGM2DKNQ'],
  },
  {
    name: 'card and key with a strikethrough or underline mark after every character',
    type: 'credit_card',
    label: 'my card is',
    plain: '4111 1111 1111 1111',
    spellings: [strike('4111 1111 1111 1111'), underline('4111 1111 1111 1111'), '41\u030111\u0301 1\u030111\u03011 \u030111\u030111\u0301 1\u030111\u03011'],
    fragments: ['1\u03361\u03361', '1\u03321\u03321', '11\u0301 1'],
  },
  {
    name: 'API key with a strikethrough mark after every character',
    type: 'api_key',
    label: 'key',
    plain: 'sk-proj-Xq7Lm2Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs0Ga',
    spellings: [strike('sk-proj-Xq7Lm2Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs0Ga')],
    fragments: ['X\u0336q\u03367', 'G\u0336a'],
  },
];

describeSpellings('session-19 spellings against the real server', {
  secret: SECRET,
  witness: WITNESS,
  cases: CASES,
  restoresAsWritten: true,
  untouched: {
    name: 'leaves years, plain numbers after the words and accented words as they are',
    input: 'born in 1985; ip 1-2-3-4-5-6-7-8 down; server ip 300.1.2.3; le cafe\u0301 de Noe\u0308l',
  },
});
