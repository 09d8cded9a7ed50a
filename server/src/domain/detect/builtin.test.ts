// Positive and negative cases for every built-in type: valid checksums and their off-by-one
// twins, the separators people write, the look-alikes that must not be flagged.
import { describe, expect, it } from 'vitest';
import { BUILTIN_REGEX_TYPES, detectAll } from './index.js';
import { ENTITY_CATALOG } from '../catalog.js';

function found(text: string, language?: string): [string, string][] {
  return detectAll(text, language === undefined ? {} : { language })
    .filter((d) => d.confidence >= 0.5)
    .map((d) => [d.type, d.value]);
}

function valuesOf(type: string, text: string, language?: string): string[] {
  return found(text, language)
    .filter(([t]) => t === type)
    .map(([, value]) => value);
}

describe('BUILTIN_REGEX_TYPES', () => {
  it('names catalog types whose source is builtin_regex', () => {
    const builtin = [...ENTITY_CATALOG.values()].filter((e) => e.source === 'builtin_regex').map((e) => e.type);
    expect([...BUILTIN_REGEX_TYPES].sort()).toEqual([...builtin].sort());
  });
});

describe('email', () => {
  it.each([
    ['Contact jane.doe@example.com today', 'jane.doe@example.com'],
    ['<Kali_Tremblay57@yahoo.co.uk>', 'Kali_Tremblay57@yahoo.co.uk'],
    ['mailto:first+tag@sub.example.org.', 'first+tag@sub.example.org'],
    ['(x-y%z@xn--bcher-kva.example)', 'x-y%z@xn--bcher-kva.example'],
  ])('finds the address in %j', (text, expected) => {
    expect(valuesOf('email', text)).toEqual([expected]);
  });

  it.each(['user@localhost', 'a@b.c', '@example.com', 'name@.com', 'a..b@example.com', 'user@exa_mple.com1', 'x@-bad.com'])(
    'rejects %j',
    (text) => {
      expect(valuesOf('email', text)).toEqual([]);
    },
  );

  it('rejects a local part longer than 64 characters', () => {
    expect(valuesOf('email', `${'a'.repeat(65)}@example.com`)).toEqual([]);
    expect(valuesOf('email', `${'a'.repeat(64)}@example.com`)).toHaveLength(1);
  });
});

describe('credit_card', () => {
  it.each([
    '4111 1111 1111 1111',
    '4111-1111-1111-1111',
    '4111111111111111',
    '5555555555554444',
    '2223003122003222',
    '3782 822463 10005',
    '378282246310005',
    '6011111111111117',
    '3530111333300000',
    '30569309025904',
  ])('finds %j (Luhn valid, plausible issuer)', (card) => {
    expect(valuesOf('credit_card', `Paid with ${card}, thanks`)).toEqual([card]);
  });

  it.each([
    '4111 1111 1111 1112', // Luhn off by one
    '4111111111111112',
    '1234 5678 9012 3456', // no issuer starts with 1 at this length
    '9111111111111111',
    '4111 1111 1111 1111 1111 1111', // too many groups
    '4111 1111 1111 1111 1', // a longer run
    '37828224631000', // Amex length must be 15
  ])('rejects %j', (card) => {
    expect(valuesOf('credit_card', `Paid with ${card}, thanks`)).toEqual([]);
  });
});

describe('iban', () => {
  it.each([
    'DE89 3704 0044 0532 0130 00',
    'DE89370400440532013000',
    'GB82 WEST 1234 5698 7654 32',
    'FR14 2004 1010 0505 0001 3M02 606',
    'NL91ABNA0417164300',
    'BE68539007547034',
    'NO9386011117947',
  ])('finds %j', (iban) => {
    expect(valuesOf('iban', `Payroll account: ${iban}.`)).toEqual([iban]);
  });

  it.each([
    'DE89 3704 0044 0532 0130 01', // check digits no longer match
    'DE88370400440532013000',
    'DE89 3704 0044 0532 0130', // too short for DE
    'XX89370400440532013000', // unknown country
    'DE89370400440532013000X',
  ])('rejects %j', (iban) => {
    expect(valuesOf('iban', `Payroll account: ${iban}.`)).toEqual([]);
  });

  it('wins over a card-looking run inside it', () => {
    expect(found('IBAN GB82 WEST 1234 5698 7654 32')).toEqual([['iban', 'GB82 WEST 1234 5698 7654 32']]);
  });
});

describe('us_ssn', () => {
  it.each(['123-45-6789', '123 45 6789', '078-05-1120'])('finds %j after a context word', (ssn) => {
    expect(valuesOf('us_ssn', `SSN: ${ssn}`)).toEqual([ssn]);
  });

  it('finds a dashed SSN without context', () => {
    expect(valuesOf('us_ssn', 'ref 264-81-1498 filed')).toEqual(['264-81-1498']);
  });

  it('needs a context word for bare nine digits', () => {
    expect(valuesOf('us_ssn', 'Social Security Number 123456789')).toEqual(['123456789']);
    expect(valuesOf('us_ssn', 'order 123456789 shipped')).toEqual([]);
  });

  it.each(['000-12-3456', '666-12-3456', '900-12-3456', '999-12-3456', '123-00-4567', '123-45-0000', '123-45-67890', '123-45-6789-1'])(
    'rejects never-issued or malformed %j',
    (ssn) => {
      expect(valuesOf('us_ssn', `SSN: ${ssn}`)).toEqual([]);
    },
  );
});

describe('ip_address', () => {
  it.each([
    ['could not reach 77.98.238.92:5432', '77.98.238.92'],
    ['host 10.0.0.1.', '10.0.0.1'],
    ['net 192.168.1.0/24', '192.168.1.0'],
    ['from e028:ccd4:4a91:6785:6df0:bbc8:e2f4:428e attached', 'e028:ccd4:4a91:6785:6df0:bbc8:e2f4:428e'],
    ['v6 2001:db8::8a2e:370:7334 up', '2001:db8::8a2e:370:7334'],
    ['mapped ::ffff:192.0.2.1 ok', '::ffff:192.0.2.1'],
    ['link fe80::1 ok', 'fe80::1'],
    ['[2001:db8::1]:8080', '2001:db8::1'],
    ['full 2001:0db8:85a3:0000:0000:8a2e:0370:7334.', '2001:0db8:85a3:0000:0000:8a2e:0370:7334'],
  ])('finds the address in %j', (text, expected) => {
    expect(valuesOf('ip_address', text)).toEqual([expected]);
  });

  it.each(['256.1.1.1', '1.2.3.4.5', 'v1.2.3.4', 'version 1.2.3.4', 'see section 2.1.4.3', 'pkg 3.5.2.1-beta', 'ratio 1:2:3:4:5:6:7:8', '01.02.03.04', 'at 12:30:45', 'std::vector', 'a::b', 'x[1::2]', '1:2:3:4:5:6:7:8:9', 'ratio 3.14159'])(
    'rejects %j',
    (text) => {
      expect(valuesOf('ip_address', text)).toEqual([]);
    },
  );
});

describe('url', () => {
  it.each([
    ['Web: https://appropriate-tennis.us', 'https://appropriate-tennis.us'],
    ['see https://example.com/path?x=1&y=2#frag.', 'https://example.com/path?x=1&y=2#frag'],
    ['(see https://en.wikipedia.org/wiki/Foo_(bar))', 'https://en.wikipedia.org/wiki/Foo_(bar)'],
    ['(see https://example.com/a)', 'https://example.com/a'],
    ['ftp://files.example.org/pub, then', 'ftp://files.example.org/pub'],
    ['visit www.example.org/docs.', 'www.example.org/docs'],
    ['HTTP://EXAMPLE.COM', 'HTTP://EXAMPLE.COM'],
    ['http://localhost:8080/health', 'http://localhost:8080/health'],
    ['GET http://[2001:db8::1]:8080/x then', 'http://[2001:db8::1]:8080/x'],
    ['query https://shop.example/list?ids[]=1&ids[]=2 sent', 'https://shop.example/list?ids[]=1&ids[]=2'],
    ['[see docs]: https://docs.example.org/a]', 'https://docs.example.org/a'],
  ])('finds the URL in %j', (text, expected) => {
    expect(valuesOf('url', text)).toEqual([expected]);
  });

  it('ends a URL at a closing square bracket it never opened (Markdown links with a URL as text)', () => {
    expect(valuesOf('url', 'read [http://zlib.net/manual.html#Advanced](http://zlib.net/manual.html#Advanced) first')).toEqual([
      'http://zlib.net/manual.html#Advanced',
      'http://zlib.net/manual.html#Advanced',
    ]);
    expect(valuesOf('url', '[https://a.example/x](https://b.example/y)')).toEqual(['https://a.example/x', 'https://b.example/y']);
  });

  it.each(['http://', 'https:// example.com', 'file app.py', 'www.', 'http://nodot/'])('rejects %j', (text) => {
    expect(valuesOf('url', text)).toEqual([]);
  });
});

describe('mac_address', () => {
  it.each(['00:1A:2B:3C:4D:5E', '00-1a-2b-3c-4d-5e', '001a.2b3c.4d5e'])('finds %j', (mac) => {
    expect(valuesOf('mac_address', `iface ${mac} up`)).toEqual([mac]);
  });

  it.each(['00:1A:2B:3C:4D', '00:1A:2B:3C:4D:5E:6F', '00:1A:2B:3C:4D:5G', '0011.2233.4455'])('rejects %j', (mac) => {
    expect(valuesOf('mac_address', `iface ${mac} up`)).toEqual([]);
  });
});

describe('date', () => {
  it.each([
    ['Birth date: 20.10.1987', '20.10.1987'],
    ['born 11/01/1936 in', '11/01/1936'],
    ['since 1943-09-09)', '1943-09-09'],
    ['on 02/29/2024', '02/29/2024'],
    ['on 29.02.2024', '29.02.2024'],
    ['on 2024/03/12', '2024/03/12'],
    ['on 12 March 2024', '12 March 2024'],
    ['on March 12, 2024.', 'March 12, 2024'],
    ['on May 23 1982', 'May 23 1982'],
    ['on Mar. 3rd, 2021', 'Mar. 3rd, 2021'],
    ['am 12. März 2024', '12. März 2024'],
    ['le 1er mars 2024', '1er mars 2024'],
    ['le 14 juillet 1789', '14 juillet 1789'],
    ['el 12 de marzo de 2024', '12 de marzo de 2024'],
    ['il 12 marzo 2024', '12 marzo 2024'],
    ['op 12 maart 2024', '12 maart 2024'],
    ['em 12 de março de 2024', '12 de março de 2024'],
    ['on 12-Mar-2024', '12-Mar-2024'],
    ['on 12th of March 2024', '12th of March 2024'],
    ['birthday 3/3/85', '3/3/85'],
    ['DOB 1.12.85', '1.12.85'],
  ])('finds the date in %j', (text, expected) => {
    expect(valuesOf('date', text)).toEqual([expected]);
  });

  it.each([
    'built at 2024-01-02T03:04:05Z',
    'on 30.02.2024',
    'on 2023-02-29',
    'on 13/13/2024',
    'on 32 March 2024',
    'on March 32, 2024',
    'version 1.2.2024.1',
    'on 12 Marchy 2024',
    'score 12/10',
    'ratio 3.14159',
    'steps 3/3/85 done',
    'version 1.2.85',
  ])('rejects %j', (text) => {
    expect(valuesOf('date', text)).toEqual([]);
  });
});

describe('phone', () => {
  it.each([
    ['Mobile: +33 7 06 88 32 74', '+33 7 06 88 32 74', 'fr'],
    ['call +44 20 7946 0958 now', '+44 20 7946 0958', 'en'],
    ['Tel. +49 30 93835072', '+49 30 93835072', 'de'],
    ['Contact number 318.793.1905;', '318.793.1905', 'en'],
    ['Phone (212) 555-0188', '(212) 555-0188', 'en'],
    ['ring 0171 9939519', '0171 9939519', 'de'],
    ['mobile 07684 255698', '07684 255698', 'en'],
    ['+1 589-900-7520', '+1 589-900-7520', 'nl'],
    ['fax +44 (0)20 7946 0958', '+44 (0)20 7946 0958', 'en'],
    ['Tel: 06 12 34 56 78', '06 12 34 56 78', 'fr'],
  ])('finds the number in %j', (text, expected, language) => {
    expect(valuesOf('phone', text, language)).toEqual([expected]);
  });

  it.each([
    ['order 12345678 shipped', 'en'],
    ['tracking 1Z999AA10123456784', 'en'],
    ['3 + 4 = 7', 'en'],
    ['+1 23', 'en'],
    ['total 1234 5678 9012', 'de'],
    ['Birth date: 20.10.1987', 'de'],
  ])('rejects %j', (text, language) => {
    expect(valuesOf('phone', text, language)).toEqual([]);
  });

  it('takes its default region from the language hint', () => {
    expect(valuesOf('phone', 'Telefon 030 12345678', 'de')).toEqual(['030 12345678']);
  });
});

describe('api_key', () => {
  const keys = [
    'AKIAIOSFODNN7EXAMPLE',
    'ASIAFRHDTHKQFRYHSLYE',
    `ghp_${'a1B2'.repeat(9)}`,
    `github_pat_11ABCDEFG0${'x'.repeat(72)}`,
    'xoxb-347834508592-612924898541-VJCLXsDkx3ruCnIMQQSaeDZT',
    'sk_live_4eC39HqLyjWDarjtT1zdp7dc',
    'rk_live_4eC39HqLyjWDarjtT1zdp7dc',
    `sk-proj-${'WhGswUq76gbHHFmxPgxhL5'.repeat(2)}`,
    `sk-ant-api03-${'AbCd1234'.repeat(10)}`,
    `sk-${'T3BlbkFJ9x'.repeat(5)}`,
    `AIza${'SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q'.slice(0, 35)}`,
    'glpat-ToBnBPHLzjdnhLHd21It',
    `npm_${'a1B2c3'.repeat(6)}`,
    `SG.${'a'.repeat(22)}.${'B'.repeat(43)}`,
    `SK${'0123456789abcdef'.repeat(2)}`,
  ];
  it.each(keys)('finds %j', (key) => {
    expect(valuesOf('api_key', `client = Client(key="${key}")`)).toEqual([key]);
  });

  it.each(['sk-learn is a library', 'AKIA is a prefix', 'AKIAIOSFODNN7EXAMPL', 'AKIAIOSFODNN7EXAMPLEX', 'ghp_short', 'xoxb-', 'sk-abcdefghijklmnopqrstuvwxyzabcdefgh'])(
    'rejects %j',
    (text) => {
      expect(valuesOf('api_key', text)).toEqual([]);
    },
  );
});

describe('jwt', () => {
  const token =
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
  it('finds a signed token', () => {
    expect(valuesOf('jwt', `Authorization: Bearer ${token}.`)).toEqual([token]);
  });

  it('rejects a header that is not JSON with alg', () => {
    const noAlg = `${Buffer.from('{"typ":"JWT"}').toString('base64url')}.eyJzdWIiOiIxIn0.${'s'.repeat(43)}`;
    expect(valuesOf('jwt', noAlg)).toEqual([]);
    expect(valuesOf('jwt', `eyJub3Rqc29u.eyJzdWIiOiIxIn0.${'s'.repeat(43)}`)).toEqual([]);
    expect(valuesOf('jwt', 'eyJhbGciOiJIUzI1NiJ9')).toEqual([]);
  });
});

describe('private_key', () => {
  const body = 'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n';
  it('takes the whole block from BEGIN through END', () => {
    const block = `-----BEGIN RSA PRIVATE KEY-----\n${body}-----END RSA PRIVATE KEY-----`;
    expect(valuesOf('private_key', `key:\n${block}\nthanks`)).toEqual([block]);
  });

  it('finds OpenSSH and PKCS#8 blocks', () => {
    for (const label of ['OPENSSH PRIVATE KEY', 'PRIVATE KEY', 'ENCRYPTED PRIVATE KEY', 'EC PRIVATE KEY']) {
      const block = `-----BEGIN ${label}-----\n${body}-----END ${label}-----`;
      expect(valuesOf('private_key', block)).toEqual([block]);
    }
  });

  it('keeps a truncated block without END, but not the prose after it', () => {
    const text = `-----BEGIN RSA PRIVATE KEY-----\n${body}\nThanks, Bob`;
    expect(valuesOf('private_key', text)).toEqual([`-----BEGIN RSA PRIVATE KEY-----\n${body.trimEnd()}`]);
  });

  it('ignores public keys and certificates', () => {
    expect(valuesOf('private_key', `-----BEGIN PUBLIC KEY-----\n${body}-----END PUBLIC KEY-----`)).toEqual([]);
    expect(valuesOf('private_key', `-----BEGIN CERTIFICATE-----\n${body}-----END CERTIFICATE-----`)).toEqual([]);
  });
});

describe('password', () => {
  it.each([
    ['password=hunter22', 'hunter22'],
    ['DB_PASSWORD: s3cr3t!x', 's3cr3t!x'],
    ['{"password": "p@ss w0rd"}', 'p@ss w0rd'],
    ["Server=db;User Id=sa;Pwd=abc123;", 'abc123'],
    ['export MYSQL_ROOT_PASSWORD="Zx9!kq"', 'Zx9!kq'],
    ['Passwort: Geheim123', 'Geheim123'],
    ['client_secret = "9f8e7d6c5b4a39281706"', '9f8e7d6c5b4a39281706'],
    ['accessToken: QWxhZGRpbjpvcGVuIHNlc2FtZQ', 'QWxhZGRpbjpvcGVuIHNlc2FtZQ'],
    ['mot de passe: Soleil2024', 'Soleil2024'],
  ])('finds the value in %j', (text, expected) => {
    expect(valuesOf('password', text)).toEqual([expected]);
  });

  it.each([
    'password=***',
    'password: ********',
    'password: <redacted>',
    'password=[REDACTED]',
    'password: str',
    'password: string;',
    'password = getpass()',
    'password=${DB_PASSWORD}',
    'Password: please contact the service desk',
    'bypass=true',
    'compass: north',
    'max_tokens: 4096',
    'token: abc',
    'if password == "x"',
    'password=',
  ])('rejects %j', (text) => {
    expect(valuesOf('password', text)).toEqual([]);
  });

  it('lets a provider key in the value keep its own type', () => {
    expect(found('password=sk_live_4eC39HqLyjWDarjtT1zdp7dc')).toEqual([['api_key', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc']]);
  });
});

describe('crypto_wallet', () => {
  it.each([
    '1BoatSLRHtKNngkdXEeobR76b53LETtpyT',
    '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
    'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
    'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4',
    'bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297',
    '0x52908400098527886E0F7030069857D2E4169EE7',
  ])('finds %j', (address) => {
    expect(valuesOf('crypto_wallet', `send to ${address} today`)).toEqual([address]);
  });

  it.each([
    '1BoatSLRHtKNngkdXEeobR76b53LETtpyU', // checksum off by one character
    'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdr',
    'Bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', // mixed case
    '0x52908400098527886E0F7030069857D2E4169EE', // 39 hex digits
    '0x52908400098527886E0F7030069857D2E4169EE7a',
    '1Z999AA10123456784',
  ])('rejects %j', (address) => {
    expect(valuesOf('crypto_wallet', `send to ${address} today`)).toEqual([]);
  });
});

describe('swift_bic', () => {
  it.each([
    ['SWIFT: DEUTDEFF500', 'DEUTDEFF500'],
    ['BIC DEUTDEFF', 'DEUTDEFF'],
    ['swift code NWBKGB2L.', 'NWBKGB2L'],
  ])('finds the code in %j', (text, expected) => {
    expect(valuesOf('swift_bic', text)).toEqual([expected]);
  });

  it('accepts a code next to an IBAN without a context word', () => {
    expect(valuesOf('swift_bic', 'DE89 3704 0044 0532 0130 00 / COBADEFFXXX')).toEqual(['COBADEFFXXX']);
  });

  it.each(['ATTACHED DOCUMENT', 'PLEASE CONTINUE', 'SWIFT: DEUTXXFF', 'BIC deutdeff', 'BIC DEUTDEFF5'])('rejects %j', (text) => {
    expect(valuesOf('swift_bic', text)).toEqual([]);
  });
});

describe('negative look-alikes', () => {
  it('flags nothing in build metadata', () => {
    const text =
      'Color #b5aabf, ratio 3.14159, built at 2024-01-02T03:04:05Z on node-17, PR #553, checksum ' +
      'sha256:fc0a37ccc4ca23cf7dc47143865edbea1c1246da54a1bdd0e44f651ad4da360f, tracking 1Z999AA10123456784, 3 + 4 = 7.';
    expect(found(text)).toEqual([]);
  });

  it('flags nothing in ordinary prose with numbers', () => {
    const text = 'In 2023 we shipped 1,250 units across 14 regions; revenue grew 12.5% to $3.4 million (see page 42).';
    expect(found(text)).toEqual([]);
  });
});

describe('spans', () => {
  it('reports UTF-16 offsets whose slice is the value, after astral characters', () => {
    const text = '😀😀 write to jane@example.com or call +44 20 7946 0958 🎉';
    for (const detection of detectAll(text)) {
      expect(text.slice(detection.start, detection.end)).toBe(detection.value);
      expect(detection.detector).toBe('builtin_regex');
    }
    expect(found(text).map(([type]) => type)).toEqual(['email', 'phone']);
  });
});
