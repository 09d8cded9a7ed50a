// Spellings found by the probe matrix of session 12 (tools/evade-matrix/matrix.mjs, wave11/evade):
// digits written one by one with a spacing and a wider group gap (`0 7 8 - 0 5 - 1 1 2 0`,
// `4 1 1 1  1 1 1 1 …`, `0'7'8'0'5'1'1'2'0`), the separators of a number percent-escaped
// (`4111%201111%20…`, `%28415%29%20555%2D0142`) and an e-mail address in quoted-printable
// (`jane=2Edoe=40corp=2Eexample`). Each is found over its whole span with the canonical form of
// the plain value (one token, one erasure); ordinary text that looks alike is left alone.
import { describe, expect, it } from 'vitest';
import { normalizeValue } from '../token/normalize.js';
import { found, only } from '../../../test/support/detections.js';

describe('digits written one by one (letter-spaced)', () => {
  it.each([
    ['my card is 4 1 1 1  1 1 1 1  1 1 1 1  1 1 1 1', 'credit_card', '4 1 1 1  1 1 1 1  1 1 1 1  1 1 1 1', '4111111111111111'],
    ['card: 4 1 1 1 - 1 1 1 1 - 1 1 1 1 - 1 1 1 1', 'credit_card', '4 1 1 1 - 1 1 1 1 - 1 1 1 1 - 1 1 1 1', '4111111111111111'],
    ['card 5.5.0.0.0.0.0.0.0.0.0.0.0.0.0.4', 'credit_card', '5.5.0.0.0.0.0.0.0.0.0.0.0.0.0.4', '5500000000000004'],
    ['card 4 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1', 'credit_card', '4 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1', '4111111111111111'],
    ['my SSN is 0 7 8 - 0 5 - 1 1 2 0', 'us_ssn', '0 7 8 - 0 5 - 1 1 2 0', '078051120'],
    ["my SSN is 0'7'8'0'5'1'1'2'0", 'us_ssn', "0'7'8'0'5'1'1'2'0", '078051120'],
    ['ssn 0_7_8_0_5_1_1_2_0', 'us_ssn', '0_7_8_0_5_1_1_2_0', '078051120'],
    ['ssn 0 7 8  0 5  1 1 2 0', 'us_ssn', '0 7 8  0 5  1 1 2 0', '078051120'],
    ['call me at 4 1 5  5 5 5  0 1 4 2', 'phone', '4 1 5  5 5 5  0 1 4 2', '+14155550142'],
    ['call me at 4-1-5-5-5-5-0-1-4-2', 'phone', '4-1-5-5-5-5-0-1-4-2', '+14155550142'],
    // The HTML entity of a space (a spaced number written through an encoder) folds to a space first.
    ['my card is 4 1 1 1 &#32; 1 1 1 1 &#32; 1 1 1 1 &#32; 1 1 1 1', 'credit_card', '4 1 1 1 &#32; 1 1 1 1 &#32; 1 1 1 1 &#32; 1 1 1 1', '4111111111111111'],
  ])('%s', (text, type, value, canonical) => {
    expect(only(text, type)).toEqual({ value, canonical });
  });

  it('needs the value word, the checks and one spacing that most gaps share', () => {
    for (const text of [
      '4 1 1 1  1 1 1 1  1 1 1 1  1 1 1 1', // no card word, and no grouping alone decides
      'card 4 1 1 1  1 1 1 1  1 1 1 1  1 1 1 2', // Luhn fails
      'ids 0 7 8 - 0 5 - 1 1 2 0', // no SSN word
      'ssn 9 7 8 - 0 5 - 1 1 2 0', // area 978 is never issued
      'ssn 0 7 8 - 0 5 - 1 1 2', // eight digits
      'call 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1', // a count: a list gap
      'phone 1 - 2 -- 3 --- 4 - 5 -- 6 --- 7 - 8 -- 9 --- 0', // no spacing most gaps share
      'card 1 2 3 4 5 6 7', // too few digits for any value
      'score 3 1 4 1 5 9 2 6 5 3 5', // no value word
    ]) {
      expect(found(text).filter(([type]) => ['credit_card', 'us_ssn', 'phone'].includes(type)), text).toEqual([]);
    }
  });
});

describe('the separators of a number percent-escaped', () => {
  it.each([
    ['card 4111%201111%201111%201111', 'credit_card', '4111%201111%201111%201111', '4111111111111111'],
    ['card %34%31%31%31%20%31%31%31%31%20%31%31%31%31%20%31%31%31%31', 'credit_card', '%34%31%31%31%20%31%31%31%31%20%31%31%31%31%20%31%31%31%31', '4111111111111111'],
    ['call %2B1%20415%20555%200142', 'phone', '%2B1%20415%20555%200142', '+14155550142'],
    ['tel %28415%29%20555%2D0142', 'phone', '%28415%29%20555%2D0142', '+14155550142'],
    ['ssn=078%2005%201120', 'us_ssn', '078%2005%201120', '078051120'],
  ])('%s', (text, type, value, canonical) => {
    expect(only(text, type)).toEqual({ value, canonical });
  });

  it('leaves a path or a URL whole, and escapes between words as written', () => {
    expect(found('see https://x.example/report%202024%2001.pdf')).toEqual([['url', 'https://x.example/report%202024%2001.pdf']]);
    expect(found('open /srv/files/report%202024%2001.pdf now')).toEqual([]);
    expect(found('q=hello%20world%202024')).toEqual([]);
    expect(found('a %20 b %28 c %29 d 10%20')).toEqual([]);
  });
});

describe('an e-mail address in quoted-printable', () => {
  it.each([
    ['mail jane.doe=40corp.example', 'jane.doe=40corp.example'],
    ['mail jane=2Edoe=40corp=2Eexample', 'jane=2Edoe=40corp=2Eexample'],
    ['mail =6A=61=6E=65=40=63orp=2E=65xample', '=6A=61=6E=65=40=63orp=2E=65xample'],
    ['reply to jane_doe=40corp-mail.example.', 'jane_doe=40corp-mail.example'],
  ])('%s', (text, value) => {
    expect(only(text, 'email')).toEqual({ value, canonical: normalizeValue('email', value.replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))), 'US') });
  });

  it('decodes no assignment: only an address word reads its escapes', () => {
    for (const text of ['width=40px; height=40', 'token=2E9f8e7d6c5b', 'id=2D4F and x=40', 'timeout=40s.', 'color=5F5F5F', 'ratio=40.5', 'a=40 b.example']) {
      expect(found(text).filter(([type]) => type === 'email'), text).toEqual([]);
    }
    // A secret assigned a value that starts like an escape keeps its own detection.
    expect(found('password=40Tr0ub4dor&3').map(([type]) => type)).toEqual(['password']);
  });
});

describe('an address split before its top-level label', () => {
  it.each([
    ['mail jane.doe@corp .example thanks', 'jane.doe@corp .example'],
    ['mail jane.doe@corp . example', 'jane.doe@corp . example'],
    ['write to jane.doe@corp .example.', 'jane.doe@corp .example'],
  ])('%s', (text, value) => {
    expect(only(text, 'email')).toEqual({ value, canonical: 'jane.doe@corp.example' });
  });

  it('needs a blank before the dot, a lower-case label and no path after it', () => {
    for (const text of ['scp x user@host .ssh/', 'mail jane@corp. Example', 'user@host .Then we left', '@Component .foo', 'mail jane@corp. thanks', 'ping a@b .c']) {
      expect(found(text).filter(([type]) => type === 'email'), text).toEqual([]);
    }
  });
});

describe('values sent base32-encoded', () => {
  it.each([
    ['mail NJQW4ZJOMRXWKQDDN5ZHALTFPBQW24DMMU======', 'email', 'jane.doe@corp.example'],
    ['card GQYTCMJAGEYTCMJAGEYTCMJAGEYTCMI=', 'credit_card', '4111111111111111'],
    ['ssn GA3TQLJQGUWTCMJSGA======', 'us_ssn', '078051120'],
    ['call FMYSANBRGUQDKNJVEAYDCNBS', 'phone', '+14155550142'],
  ])('%s', (text, type, canonical) => {
    const value = text.slice(text.indexOf(' ') + 1);
    expect(only(text, type)).toEqual({ value, canonical });
  });

  it('reads no ordinary capitals, hashes or base32 of plain words', () => {
    for (const text of ['HTTPSCONNECTIONPOOL ERROR', 'see README2FIRST7ABCDEFG', 'secret JBSWY3DPEHPK3PXP', 'MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43UOV3HO6DZPI======']) {
      expect(found(text).filter(([type]) => ['email', 'credit_card', 'us_ssn', 'phone'].includes(type)), text).toEqual([]);
    }
  });
});

describe('IBANs grouped by a form-encoded space or an apostrophe, and look-alike digits after a bank code', () => {
  it.each([
    ['iban=DE89+3704+0044+0532+0130+00', 'DE89+3704+0044+0532+0130+00', 'DE89370400440532013000'],
    ["IBAN DE89'3704'0044'0532'0130'00", "DE89'3704'0044'0532'0130'00", 'DE89370400440532013000'],
    ['IBAN GB82 WEST l234 5698 7654 32', 'GB82 WEST l234 5698 7654 32', 'GB82WEST12345698765432'],
    ['IBAN IE29 AIBK 93l1 5212 3456 78', 'IE29 AIBK 93l1 5212 3456 78', 'IE29AIBK93115212345678'],
  ])('%s', (text, value, canonical) => {
    expect(only(text, 'iban')).toEqual({ value, canonical });
  });

  it('reads a bank code as letters and still needs mod 97', () => {
    // The bank code's own I stays a letter: the plain IBAN keeps its canonical form.
    expect(normalizeValue('iban', 'IE29 AIBK 9311 5212 3456 78')).toBe('IE29AIBK93115212345678');
    for (const text of ['IBAN GB82 WEST l234 5698 7654 33', 'IBAN GB82 WEST l234 5698 7654 3Z', 'GB82 WEST lOl', 'sum 1+2+3+4+5+6+7+8+9']) {
      expect(found(text).filter(([type]) => type === 'iban'), text).toEqual([]);
    }
  });
});

describe('international phones in loose groups after a +', () => {
  it.each([
    ['call me at +33 | 1 | 42 | 68 | 53 | 00', '+33 | 1 | 42 | 68 | 53 | 00', '+33142685300'],
    ['call me at +81_3_1234_5678', '+81_3_1234_5678', '+81312345678'],
    ['call me at +49_30_90182044', '+49_30_90182044', '+493090182044'],
    ['call me at + 4 4   2 0   7 9 4 6   0 9 5 8', '+ 4 4   2 0   7 9 4 6   0 9 5 8', '+442079460958'],
    ['call me at + 3 3   1   4 2   6 8   5 3   0 0', '+ 3 3   1   4 2   6 8   5 3   0 0', '+33142685300'],
  ])('%s', (text, value, canonical) => {
    expect(only(text, 'phone')).toEqual({ value, canonical });
  });

  it('keeps counts and short runs out', () => {
    for (const text of ['call +1 | 2 | 3 | 4', 'call 1+2+3+4+5+6', 'call +3 | 1 | 4 | 1 | 5 | 9 | 2 | 6']) {
      expect(found(text).filter(([type]) => type === 'phone'), text).toEqual([]);
    }
  });
});

describe('percent-escaped separators of values with letters', () => {
  it.each([
    ['IBAN GB82%20WEST%201234%205698%207654%2032', 'iban', 'GB82%20WEST%201234%205698%207654%2032'],
    ['mac 00%3A1A%3A2B%3A3C%3A4D%3A5E', 'mac_address', '00%3A1A%3A2B%3A3C%3A4D%3A5E'],
    ['ip 2a00%3A1450%3A4001%3A82a%3A%3A200e', 'ip_address', '2a00%3A1450%3A4001%3A82a%3A%3A200e'],
  ])('%s', (text, type, value) => {
    expect(only(text, type).value).toBe(value);
  });

  it('leaves words and host names as written', () => {
    for (const text of ['Version%202 is out', 'host%3A8080', 'a%20b 1%20x', 'name%3Avalue']) expect(found(text), text).toEqual([]);
  });
});

describe('cards and phones written backwards', () => {
  it.each([
    ['my card number backwards: 1881 8888 8888 2104', 'credit_card', '1881 8888 8888 2104', '4012888888881881'],
    ['card 1111111111111114', 'credit_card', '1111111111111114', '4111111111111111'],
    ['call me at 2410 555 514 1+', 'phone', '2410 555 514 1+', '+14155550142'],
    ['call me at 2410-555-514-1+', 'phone', '2410-555-514-1+', '+14155550142'],
    ['call 8590 6497 02 44+', 'phone', '8590 6497 02 44+', '+442079460958'],
    // Forwards its first digits read as a phone; the run goes on to the `+`.
    ['ruf mich an unter 44028109 03 94+', 'phone', '44028109 03 94+', '+493090182044'],
  ])('%s', (text, type, value, canonical) => {
    expect(only(text, type)).toEqual({ value, canonical });
  });

  it('needs the value word, and a phone its + at the end', () => {
    for (const text of ['order 1881 8888 8888 2104', 'ref 1111111111111114', 'call 2410 555 514 1', 'total 2410 555 514 1+ items', 'card 1881 8888 8888 2105']) {
      expect(found(text).filter(([type]) => type === 'credit_card' || (type === 'phone' && text.includes('+'))), text).toEqual([]);
    }
    // A forward card keeps its digits.
    expect(normalizeValue('credit_card', '4012 8888 8888 1881')).toBe('4012888888881881');
  });
});

describe('values written one character at a time (letter-spaced)', () => {
  const spaced = (value: string): string => [...value].join(' ');
  it.each([
    ['token', 'ghp_R7mK2pQ9xV4nL8wZ3cT6yB1hJ5dF0sG2aE9u', 'api_key'],
    ['server ip', '81.2.69.160', 'ip_address'],
    ['mac address', '00:1A:2B:3C:4D:5E', 'mac_address'],
    ['my NI number is', 'AB123456C', 'uk_nino'],
    ['DNI', '12345678Z', 'es_dni'],
    ['send to', '1BoatSLRHtKNngkdXEeobR76b53LETtpyT', 'crypto_wallet'],
    ['IBAN', 'GB82WEST12345698765432', 'iban'],
  ])('%s %s', (label, value, type) => {
    const text = `${label} ${spaced(value)} ok`;
    const hit = only(text, type);
    expect(hit.value).toBe(spaced(value));
    expect(hit.canonical).toBe(normalizeValue(type, value, 'US'));
  });

  it('reads words of a spaced phrase apart, and finds nothing in spaced prose', () => {
    expect(found('my password is T r 0 u b 4 d o r & 3 x').map(([type]) => type)).toEqual(['password']);
    for (const text of ['a b c d e f g h i j k', 'S P E C I A L   O F F E R', 'x = 1 + 2 + 3 + 4 + 5', '| a | b | c | d | e |', '1 2 3 4 5 6 7 8 9 10', 'w w w . e x a m p l e . c o m']) {
      expect(found(text), text).toEqual([]);
    }
  });
});

describe('"call me" in the catalog languages is a phone word', () => {
  it.each([
    ['ruf mich an unter +49_30_90182044', '+49_30_90182044'],
    ['appelez-moi au +33_1_42_68_53_00', '+33_1_42_68_53_00'],
    ['llámame al +34 | 612 | 345 | 678', '+34 | 612 | 345 | 678'],
    ['chiamami al +39 | 06 | 6982 | 1234', '+39 | 06 | 6982 | 1234'],
  ])('%s', (text, value) => {
    expect(only(text, 'phone').value).toBe(value);
  });
});

// Round 2 (wave11/evade2).
describe('a value written wholly in quoted-printable escapes', () => {
  const qp = (value: string): string => [...value].map((c) => `=${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');
  it.each([
    ['my card is', '4111 1111 1111 1111', 'credit_card', '4111111111111111'],
    ['my SSN is', '078-05-1120', 'us_ssn', '078051120'],
    ['call me at', '+1 415 555 0142', 'phone', '+14155550142'],
    ['email me at', 'jane.doe@corp.example', 'email', 'jane.doe@corp.example'],
  ])('%s %s', (label, value, type, canonical) => {
    const spelled = qp(value);
    const hit = only(`${label} ${spelled} ok`, type);
    expect(hit.value).toBe(spelled);
    expect(hit.canonical).toBe(canonical);
    expect(normalizeValue(type, value, 'US')).toBe(canonical);
  });
});

describe('a value broken by one line break whose joined form proves itself', () => {
  const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUgRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
  it.each([
    ['email me at jane.doe@c\norp.example ok', 'email', 'jane.doe@c\norp.example', 'jane.doe@corp.example'],
    ['email me at jane.doe@corp\r\n.example ok', 'email', 'jane.doe@corp', ''],
    ['email me at jane.doe@c\r\norp.example ok', 'email', 'jane.doe@c\r\norp.example', 'jane.doe@corp.example'],
    [`auth ${JWT.slice(0, 64)}\n${JWT.slice(64)} ok`, 'jwt', `${JWT.slice(0, 64)}\n${JWT.slice(64)}`, JWT],
    [`auth ${JWT.slice(0, 20)}\r\n${JWT.slice(20)} ok`, 'jwt', `${JWT.slice(0, 20)}\r\n${JWT.slice(20)}`, JWT],
    ['send to 1BoatSLRHtKNngkdX\nEeobR76b53LETtpyT ok', 'crypto_wallet', '1BoatSLRHtKNngkdX\nEeobR76b53LETtpyT', '1BoatSLRHtKNngkdXEeobR76b53LETtpyT'],
    ['send to bc1qar0srrr7xfkvy5l6\r\n43lydnw9re59gtzzwf5mdq ok', 'crypto_wallet', 'bc1qar0srrr7xfkvy5l6\r\n43lydnw9re59gtzzwf5mdq', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'],
  ])('%j', (text, type, value, canonical) => {
    if (canonical === '') {
      // A break right before the dot: the half before it is no address, and no line starts with a dot.
      expect(found(text).filter(([t]) => t === type)).toEqual([]);
      return;
    }
    const hit = only(text, type);
    expect(hit.value).toBe(value);
    expect(hit.canonical).toBe(normalizeValue(type, canonical, 'US'));
  });

  it('joins nothing when a half is a value, the joined form fails its check, or the lines are prose', () => {
    // The half before the break is an address already: kept as it is, the next line is not read into it.
    expect(found('mail jane@corp.example\nexample.org is ours')).toEqual([['email', 'jane@corp.example']]);
    // Checksums fail: no join, no wallet.
    expect(found('send to 1BoatSLRHtKNngkdX\nEeobR76b53LETtpyX ok')).toEqual([]);
    // A JWT header or payload that does not decode once joined.
    expect(found('auth eyJhbGciOiJIUz\nzzzz.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6 ok').filter(([t]) => t === 'jwt')).toEqual([]);
    // Words on two lines, an address-like word without a dotted domain after it, indentation.
    expect(found('Thanks\nJohn')).toEqual([]);
    expect(found('see user@host\nnext line')).toEqual([]);
    expect(found('ssh admin@bastion\n  corp.example')).toEqual([]);
  });
});
