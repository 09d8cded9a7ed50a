// Adversarial inputs of ~200 KB each that would be quadratic or exponential in a backtracking or
// rescanning design. They must simply complete (no timing assertions: the bench measures speed);
// a regression to super-linear behaviour shows up as a test timeout.
import { describe, expect, it } from 'vitest';
import { compileCustomPatterns, detectAll } from './index.js';

const SIZE = 200_000;

function repeatTo(unit: string, length = SIZE): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

const INPUTS: [string, string][] = [
  ['digits', repeatTo('0123456789')],
  ['letters', repeatTo('abcdefghij')],
  ['one long word', 'a'.repeat(SIZE)],
  ['near-miss emails a@a@a@', repeatTo('a@')],
  ['overlong local parts', repeatTo(`${'a'.repeat(70)}@`)],
  ['overlong domains', repeatTo(`a@${'b'.repeat(300)} `)],
  ['dotted local parts', repeatTo('a.')],
  ['colons', ':'.repeat(SIZE)],
  ['dots', '.'.repeat(SIZE)],
  ['hex and colons', repeatTo('ab:')],
  ['hex groups', repeatTo('ffff:')],
  ['double colons with hex', repeatTo('1::')],
  ['digit groups with spaces', repeatTo('1 ')],
  ['digit groups with dots', repeatTo('1.')],
  ['digit groups with dashes', repeatTo('12-')],
  ['long digit groups', repeatTo('1234 ')],
  ['plus signs and digits', repeatTo('+1 ')],
  ['parentheses and digits', repeatTo('(1')],
  ['http:// flood', repeatTo('http://')],
  ['www. flood', repeatTo('www.a')],
  ['url with parentheses', `https://x.com/${repeatTo(')(')}`],
  ['PEM BEGIN without END', repeatTo('-----BEGIN RSA PRIVATE KEY-----\n')],
  ['PEM BEGIN with base64 lines', repeatTo('-----BEGIN PRIVATE KEY-----\nQUJD\n')],
  ['dashes', '-'.repeat(SIZE)],
  ['option flood', repeatTo('mysql -p -u --password ')],
  ['user:pass option flood', repeatTo('curl -u a:')],
  ['digit words', repeatTo('four one ')],
  ['digit words and numerals', repeatTo('double 5, 55 ')],
  ['glued labels', repeatTo('card4111')],
  ['character references', repeatTo('&#52;&#x31;&commat;')],
  ['broken references', repeatTo('&#99999999&#x')],
  ['percent escapes', repeatTo('%40%2B%4')],
  ['marks on digits', repeatTo('4\u0302\u0303')],
  ['password= flood', repeatTo('password=')],
  ['password: quoted flood', repeatTo('password: "')],
  ['eyJ segments', repeatTo('eyJhbGciOi.')],
  ['base64url run', repeatTo('sk-proj-abc_')],
  ['key prefixes', repeatTo('AKIA ghp_ xoxb- sk_live_ ')],
  ['uppercase words', repeatTo('DEUTDEFF ')],
  ['IBAN prefixes', repeatTo('DE89 ')],
  ['IBAN run', `DE89${'1'.repeat(SIZE)}`],
  ['month names and digits', repeatTo('March 1 ')],
  ['days and months', repeatTo('1 March ')],
  ['base58 run', repeatTo('1BoatSLRHtKNngkdXEeobR76b53LETtpy')],
  ['bc1 run', repeatTo('bc1qqqqqqq')],
  ['0x run', `0x${'a'.repeat(SIZE)}`],
  ['emoji', repeatTo('😀')],
  ['lone surrogates', repeatTo('\uD800a')],
  ['mixed punctuation', repeatTo('@:=+(-./ ')],
  // Full-catalog families.
  ['NIR-like digit groups', repeatTo('1 85 05 ')],
  ['dotted id groups', repeatTo('756.1234.')],
  ['CPF-like groups', repeatTo('123.456.789-')],
  ['uppercase id words', repeatTo('S1234567D ')],
  ['digit-letter ids', repeatTo('12345678Z')],
  ['HETU-like runs', repeatTo('131052-308')],
  ['VAT prefixes with digits', repeatTo('DE 1')],
  ['spaced NINO starts', repeatTo('AB 12 ')],
  ['long uppercase alnum', `A${'1B'.repeat(SIZE / 2)}`],
  ['connection schemes', repeatTo('postgres://a:')],
  ['connection userinfo', `postgres://${'a:'.repeat(SIZE / 2)}`],
  ['jdbc flood', repeatTo('jdbc:')],
  ['authorization flood', repeatTo('Authorization: Bearer ')],
  ['api_key= flood', repeatTo('api_key=a8Fk3Lq9Zx2Vb7Nm4Rt6 ')],
  ['telegram-like', repeatTo('123456789:AA')],
  ['IDN email halves', repeatTo('ü@ü.')],
  ['written months', repeatTo('12 października ')],
  ['id context words', repeatTo('BSN Steuer-ID NIR ')],
  // Credentials in prose (prose-secret.ts): anchors, qualifiers, copulas and unclosed quotes.
  ['password is + unclosed quote', repeatTo('password is \u2018')],
  ['password is + unclosed ascii quote', `password is "${'a'.repeat(SIZE)}`],
  ['qualified copulas', repeatTo('my password for a b c is ')],
  ['credential words', repeatTo('password token secret key pin ')],
  ['cjk credential words', repeatTo('密码是')],
  ['password values', repeatTo('password is Xk9#mL2$pQ ')],
  // Spelled-out addresses (email-spelled.ts): marks, spelled dots, long local runs.
  ['bare at marks', repeatTo(' at ')],
  ['bracketed at marks', repeatTo('a [at] b')],
  ['spelled dots', repeatTo('a at b dot ')],
  ['spelled dots in local parts', repeatTo('a dot ')],
  ['long local runs before marks', repeatTo(`${'a'.repeat(70)} (at) b.c `)],
  // Loose digit gaps (loose-digits.ts), code point escapes (fold.ts), numerals (spelled-digits.ts).
  ['loose digit gaps', repeatTo('card 4 | ')],
  ['loose gap runs', repeatTo('1 | ')],
  ['line-broken groups', repeatTo('1\n')],
  ['comma groups', repeatTo('12,')],
  ['padded dashes', repeatTo('1234 - ')],
  ['backslash escapes', repeatTo('\\u0040')],
  ['broken backslash escapes', repeatTo('\\u{4')],
  ['CJK numerals', repeatTo('一')],
  ['CJK numeral groups', repeatTo('电话一二三四五六七，')],
  ['foreign at and dot words', repeatTo('a arroba b punto ')],
  ['iban words with loose groups', repeatTo('iban DE 89 - ')],
  ['list delimiters in values', repeatTo('pw=a&b;c,')],
  ['values wrapped over lines', repeatTo('card 4111 1111\n')],
  ['IBAN groups over lines', repeatTo('IBAN DE89 3704\n')],
  ['seed-phrase words', repeatTo('abandon ')],
  ['numbered seed-phrase words', repeatTo('1. zoo\n')],
  ['seed-phrase words and punctuation', repeatTo('legal winner. thank ')],
  ['crypt prefixes', repeatTo('$2y$10$')],
  ['crypt salts', repeatTo('$6$rounds=5000$saltsalt')],
  ['argon2 parameters', repeatTo('$argon2id$v=19$m=65536,t=3,p=4$')],
  ['Django hash prefixes', repeatTo('pbkdf2_sha256$1$')],
  ['dollar signs', '$'.repeat(SIZE)],
  ['braces', '{'.repeat(SIZE)],
  ['LDAP schemes', repeatTo('{SSHA}AAAA')],
];

describe('adversarial inputs complete', () => {
  it.each(INPUTS)('%s', (_, text) => {
    const result = detectAll(text);
    for (let k = 1; k < result.length; k++) expect(result[k]!.start).toBeGreaterThanOrEqual(result[k - 1]!.end);
  });

  it('1 MB of digits', () => {
    expect(detectAll('7'.repeat(1_000_000))).toEqual([]);
  });

  it('custom patterns with nested quantifiers on near misses', () => {
    const patterns = compileCustomPatterns([
      { entity_type: 'evil', pattern: '(a+)+$' },
      { entity_type: 'evil2', pattern: '(a|aa)*c' },
      { entity_type: 'evil3', pattern: '(\\w+\\s?)*$' },
      { entity_type: 'empty', pattern: '(?:)' },
    ]);
    const text = `${'a'.repeat(SIZE)}!`;
    expect(detectAll(text, { customPatterns: patterns }).filter((d) => d.detector === 'custom_pattern').length).toBeLessThanOrEqual(1);
  });
});
