// Spellings an adversary uses to get a value to the model raw (issue 18 items 4-5, session 11):
// digits written as look-alike letters (`415-555-O1OO`) and markup inside a value
// (`4111<b></b>1111 …`, `john<span>@</span>corp.example`). Each is found over its whole span, with
// the type and the canonical form of the plain value (one token, one erasure), while the words,
// ids and markup of ordinary text are left as they are.
import { describe, expect, it } from 'vitest';
import { normalizeValue } from '../token/normalize.js';
import { scanBuiltin, scanBuiltinUngated } from './scan.js';
import { found, only } from '../../../test/support/detections.js';

describe('digits written as look-alike letters', () => {
  it.each([
    ['call me at 415-555-O1OO', 'phone', '415-555-O1OO', '+14155550100'],
    ['phone (415) 555-OlOO', 'phone', '(415) 555-OlOO', '+14155550100'],
    ['tel: +1 415 555 OlOO', 'phone', '+1 415 555 OlOO', '+14155550100'],
    ['my number is 4155550l00 thanks', 'phone', '4155550l00', '+14155550100'],
    ['call me on +44 2O 7946 O958', 'phone', '+44 2O 7946 O958', '+442079460958'],
    ['4111 1lll 1111 1111', 'credit_card', '4111 1lll 1111 1111', '4111111111111111'],
    ['card 4lll 1111 1111 1111', 'credit_card', '4lll 1111 1111 1111', '4111111111111111'],
    ['my ssn is O78-O5-1120', 'us_ssn', 'O78-O5-1120', '078051120'],
    ['O78-O5-1120', 'us_ssn', 'O78-O5-1120', '078051120'],
    ['ssn: 078 O5 ll20', 'us_ssn', '078 O5 ll20', '078051120'],
    ['IBAN DE89 37O4 OO44 O532 O13O OO', 'iban', 'DE89 37O4 OO44 O532 O13O OO', 'DE89370400440532013000'],
    ['IBAN DE8937O4OO44O532O13OOO', 'iban', 'DE8937O4OO44O532O13OOO', 'DE89370400440532013000'],
  ])('%j is a %s over %j', (text, type, value, canonical) => {
    const hit = only(text, type);
    expect(hit.value).toBe(value);
    expect(hit.canonical).toBe(canonical);
    expect(hit.canonical).toBe(normalizeValue(type, value.slice(0, 2) + value.slice(2).replace(/[Oo]/g, '0').replace(/[Il]/g, '1'), 'US'));
  });

  it.each([
    'O2 and B2B and S3 and 10x and IOI',
    'version v1.0.l and 2.0.1O-rc1',
    'octal 0o777, 0o644 and 0o022',
    'commit 1O2O3O4O5O6O7O8O9O0O ships',
    'IO 1000, lol 4111',
    '415-555-O1OO', // a number with letters and no phone word is an id
    'order 4111 1lll 1111 1112', // no Luhn
    'ref O78-O5-1120'.replace('O78', 'O00'), // area 000: no SSN
    'NIF 71854089I', // a DNI-shaped number whose letter is no DNI letter
    'IBAN DE89 3704 0044 0532 0130 0l', // the reading fails the check digits
    'see IT60 IO54 2811', // a country code's `I` is a letter
    'Call 1-800-FLOWERS now',
    'the 1O1st airborne, room I0l, call ext l0',
  ])('leaves %j alone', (text) => {
    expect(found(text)).toEqual([]);
  });

  it('finds a look-alike number where the plain one is found, and the gated scan agrees with the ungated one', () => {
    for (const text of ['call me at 415-555-O1OO', '4111 1lll 1111 1111', 'my ssn is O78-O5-1120', 'x O78-O5-1120 y 4lll 1111 1111 1111']) {
      expect(scanBuiltin(text, undefined)).toEqual(scanBuiltinUngated(text, undefined));
    }
  });

  it('reads each chain once: a long chain of digits and letters costs its length', () => {
    const flood = '1O '.repeat(20000);
    expect(found(flood)).toEqual([]);
    const long = `card ${'4lll 1111 1111 1111 '.repeat(2000)}`;
    expect(found(long).every(([type]) => type === 'credit_card')).toBe(true);
  });
});

describe('markup inside a value', () => {
  it.each([
    ['4111<b></b>1111 1111 1111', 'credit_card', '4111<b></b>1111 1111 1111', '4111111111111111'],
    ['4111**1111**1111 1111', 'credit_card', '4111**1111**1111 1111', '4111111111111111'],
    ['card 4111<!-- x -->1111 1111 1111', 'credit_card', '4111<!-- x -->1111 1111 1111', '4111111111111111'],
    ['4111[b]1111[/b]1111[i]1111[/i]', 'credit_card', '4111[b]1111[/b]1111[i]1111', '4111111111111111'],
    ['card `4111` 1111 1111 1111', 'credit_card', '4111` 1111 1111 1111', '4111111111111111'],
    ['card 4111<span style="color:red">1111</span> 1111 1111', 'credit_card', '4111<span style="color:red">1111</span> 1111 1111', '4111111111111111'],
    ['card 4111~~1111~~1111 1111', 'credit_card', '4111~~1111~~1111 1111', '4111111111111111'],
    ['ssn 078-05-<i>1120</i>', 'us_ssn', '078-05-<i>1120', '078051120'],
    ['phone 415-<b>555</b>-0100', 'phone', '415-<b>555</b>-0100', '+14155550100'],
    ['email john<span>@</span>corp.example', 'email', 'john<span>@</span>corp.example', 'john@corp.example'],
    ['mail jane<wbr>.roe<wbr>@corp<wbr>.example', 'email', 'jane<wbr>.roe<wbr>@corp<wbr>.example', 'jane.roe@corp.example'],
    ['write to [b]jane[/b]@corp.example', 'email', 'jane[/b]@corp.example', 'jane@corp.example'],
  ])('%j is a %s over %j', (text, type, value, canonical) => {
    const hit = only(text, type);
    expect(hit.value).toBe(value);
    expect(hit.canonical).toBe(canonical);
  });

  it.each([
    // What markup holds is read: a unit that could hold a value is not dropped.
    ['4111<span title="jane@corp.example">1111</span>', 'email', 'jane@corp.example'],
    ['4<!-- 4111 1111 1111 1111 -->1', 'credit_card', '4111 1111 1111 1111'],
    ['a <a href="x">4111</a> b [url=http://x]c[/url]', 'credit_card', ''],
  ])('does not drop a unit that holds a value: %j', (text, type, value) => {
    const values = found(text).filter(([t]) => t === type).map(([, v]) => v);
    expect(values).toEqual(value === '' ? [] : [value]);
  });

  it("keeps a password's own emphasis marks in its token", () => {
    expect(only('pw=Tr0ub4dor** ok', 'password').value).toBe('Tr0ub4dor**');
  });

  it.each([
    'x = 2**31 - 1; y = a[i] + b[i] ** 2; `code` **bold** ~~old~~',
    'masked ****1111 and **** **** **** 1111',
    '<p>Call <b>now</b></p> <td>078</td><td>05</td><td>1120</td>',
  ])('finds nothing in ordinary markup: %j', (text) => {
    expect(found(text)).toEqual([]);
  });
});

describe('values wrapped by a mail client (quoted-printable soft line breaks)', () => {
  it.each([
    ['my email: john.doe@corp.exa=\nmple thanks', 'email', 'john.doe@corp.exa=\nmple', 'john.doe@corp.example'],
    ['mail john.doe=\n@corp.example', 'email', 'john.doe=\n@corp.example', 'john.doe@corp.example'],
    ['IBAN: DE89 3704 0044 05=\r\n32 0130 00', 'iban', 'DE89 3704 0044 05=\r\n32 0130 00', 'DE89370400440532013000'],
  ])('%j is a %s over %j', (text, type, value, canonical) => {
    const hit = only(text, type);
    expect(hit.value).toBe(value);
    expect(hit.canonical).toBe(canonical);
  });

  it('leaves env files with empty values and code line continuations alone', () => {
    expect(found('DB_PASSWORD=\nAPI_HOST=db.internal\nx =\n5')).toEqual([]);
  });
});

describe('Cyrillic and Greek look-alike letters in a Latin value', () => {
  it.each([
    ['email j\u043ehn.d\u043e\u0435@corp.example', 'email', 'john.doe@corp.example'],
    ['IBAN D\u041589 3704 0044 0532 0130 00', 'iban', 'DE89370400440532013000'],
    ['mail \u0440\u0430\u0443pal@c\u043erp.example', 'email', 'paypal@corp.example'],
    ['VAT D\u0395136695976', 'eu_vat', 'DE136695976'],
  ])('%j is a %s with the canonical form of the Latin value', (text, type, canonical) => {
    expect(only(text, type).canonical).toBe(canonical);
  });

  it('leaves Cyrillic and Greek words alone', () => {
    expect(found('\u041c\u043e\u0441\u043a\u0432\u0430 \u0438 \u0391\u03b8\u03ae\u03bd\u03b1, \u041e\u041e\u041e \u0420\u043e\u0433\u0430')).toEqual([]);
  });
});

describe('more spellings found by probing', () => {
  it.each([
    ['email john.doe@corp[.]example', 'email', 'john.doe@corp[.]example', 'john.doe@corp.example'],
    ['mail jane(@)corp(.)example ok', 'email', 'jane(@)corp(.)example', 'jane@corp.example'],
    ['phone \uff14\uff11\uff15\u30fc\uff15\uff15\uff15\u30fc\uff10\uff11\uff10\uff10', 'phone', '\uff14\uff11\uff15\u30fc\uff15\uff15\uff15\u30fc\uff10\uff11\uff10\uff10', '+14155550100'],
    ['my phone is +1 (415) 555-\n0100', 'phone', '+1 (415) 555-\n0100', '+14155550100'],
    ['ssn 078-05-\r\n    1120', 'us_ssn', '078-05-\r\n    1120', '078051120'],
    ['database:\n  password: |\n    Sup3rS3cret!\n  user: admin', 'password', 'Sup3rS3cret!', ''],
    ['password: >-\n  Tr0ub4dor&3\n', 'password', 'Tr0ub4dor&3', ''],
    ['token: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.\r\n    eyJzdWIiOiIxMjM0NTY3ODkwIn0.\r\n    SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c ok', 'jwt', 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.\r\n    eyJzdWIiOiIxMjM0NTY3ODkwIn0.\r\n    SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c', ''],
  ])('%j is a %s over %j', (text, type, value, canonical) => {
    const hit = only(text, type);
    expect(hit.value).toBe(value);
    if (canonical !== '') expect(hit.canonical).toBe(canonical);
  });

  it('leaves calls, katakana words and a JWT-looking header alone', () => {
    expect(found('f(.) and g(@) and \u30b3\u30fc\u30d2\u30fc 3\u30fc, eyJhbGciOiJIUzI1NiJ9.\n\nplain text')).toEqual([]);
    expect(found('password: |\n  please ask the admin for it\ndescription: |\n  Sup3rS3cret!')).toEqual([]);
  });
});

describe('floods of markup and look-alike chains', () => {
  it.each([
    ['unclosed comments', '4<!--'.repeat(40000)],
    ['unclosed BBCode arguments', '4[color='.repeat(30000)],
    ['unclosed tags with attributes', '4<span a="b" '.repeat(20000)],
    ['emphasis between digits', '4**'.repeat(60000)],
    ['soft line breaks', 'a=\n'.repeat(60000)],
    ['defanged dots', 'a[.]'.repeat(50000)],
    ['look-alike chains', '1O-'.repeat(60000)],
    ['mixed-script words', 'a\u043e'.repeat(60000)],
  ])('%s: finishes and finds no value', (_name, text) => {
    expect(found(text).filter(([type]) => type !== 'email' && type !== 'url')).toEqual([]);
  });
});
