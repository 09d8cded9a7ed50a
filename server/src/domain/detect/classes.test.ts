// Regex and context classes found on held-out data (issue 18 items 1-4): common chat phrases
// never hijack a phone number, context words are whole words, several values in one chain of
// digit groups are each found, context and validators settle numbers that pass two checks, and
// the print forms people actually type (lower case, dashes and dots, extensions, national
// mobiles) are found while broadcast MACs, bare www.<word> and digit chains are not.
import { describe, expect, it } from 'vitest';
import { normalizeValue } from '../token/normalize.js';
import { detectAll } from './index.js';

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

describe('phones in chat phrases (issue 18.1)', () => {
  it.each([
    'my number is (636) 452-0852',
    'My number is (636) 452-0852.',
    'my number: 636-452-0852',
    'you can reach me on my number 636.452.0852 after 5',
    'Text me, my number is 636 452 0852',
    'my personal number is (636) 452-0852',
  ])('finds the phone in %j', (text) => {
    expect(valuesOf('phone', text).length).toBe(1);
  });

  it('still reads "My Number" (as Japan writes it) as the My Number context', () => {
    expect(valuesOf('jp_my_number', 'My Number: 4550 5856 5340')).toEqual(['4550 5856 5340']);
  });

  it('suppresses a phone only after an id label right before it', () => {
    // The label names the number: not a phone.
    expect(valuesOf('phone', 'NHS number: 943 476 5918')).toEqual([]);
    expect(valuesOf('phone', 'Finnish personal identity code 010984-5120, thanks')).toEqual([]);
    // The label names something else earlier in the sentence.
    expect(valuesOf('phone', 'NHS number pending; please call (636) 452-0852 today')).toEqual(['(636) 452-0852']);
  });

  it('matches acronym context words only in capitals', () => {
    expect(valuesOf('us_ein', 'EIN 12-3456789')).toEqual(['12-3456789']);
    // German "ein", French "fin", chat "btw" lend no identity.
    expect(found('Das ist ein 123456789 Test')).toEqual([]);
    expect(found('la fin 123456789')).toEqual([]);
  });
});

describe('context words in scripts without spaces', () => {
  it('finds a CJK context word inside a run of characters', () => {
    expect(valuesOf('phone', '我的电话是8146054359，谢谢。')).toEqual(['8146054359']);
    expect(valuesOf('phone', '私の電話は 814-605-4359 です')).toEqual(['814-605-4359']);
  });

  it('finds context words with clitics (Arabic, Hebrew), in Thai, and inflected (Russian)', () => {
    expect(valuesOf('phone', 'رقم هاتفي ٠٥٠١٢٣٤٥٦٧')).toEqual(['٠٥٠١٢٣٤٥٦٧']); // "my phone": هاتف + ي
    expect(valuesOf('phone', 'رقم هاتفي 0501234567')).toEqual(['0501234567']);
    expect(valuesOf('phone', 'номер телефона: 8 912 345 67 89')).toEqual(['8 912 345 67 89']);
    expect(valuesOf('phone', 'позвоните по телефону 8 (912) 345-67-89')).toEqual(['8 (912) 345-67-89']);
    expect(valuesOf('phone', 'sđt 0912345678')).toEqual(['0912345678']);
    // A Cyrillic word needs its left boundary: "мотель" holds no "тел".
    expect(valuesOf('phone', 'мотель 0501234567')).toEqual([]);
  });

  it('finds values glued to CJK text on either side', () => {
    expect(valuesOf('credit_card', 'カード4111111111111111です')).toEqual(['4111111111111111']);
    expect(valuesOf('email', '邮箱jane@example.com谢谢')).toEqual(['jane@example.com']);
    expect(valuesOf('cn_resident_id', '身份证号码11010519491231002X。')).toEqual(['11010519491231002X']);
    // An address in CJK script is still one address.
    expect(valuesOf('email', '写信给用户@例子.中国')).toEqual(['写信给用户@例子.中国']);
  });

  it('starts an ASCII address after the last CJK character before it, not at the sentence', () => {
    // The ideographic full stop reads as a dot: the local part ran back over the sentence and the
    // phone number before it ("090-1234-5678です。メールはtaro").
    const text = '電話番号は090-1234-5678です。メールはtaro@example.jpまで';
    expect(valuesOf('email', text)).toEqual(['taro@example.jp']);
    expect(valuesOf('phone', text)).toEqual(['090-1234-5678']);
    expect(valuesOf('email', '연락처 010-1234-5678이고。이메일kim.lee@example.kr')).toEqual(['kim.lee@example.kr']);
    expect(valuesOf('email', '客服：support。team用户abc@example.cn')).toEqual(['abc@example.cn']);
    expect(valuesOf('email', 'jane用户@example.cn')).toEqual(['jane用户@example.cn']);
  });
});

describe('context windows match whole words only (issue 18.2)', () => {
  it.each(['636-452-0852', '(636) 452-0852', '636.452.0852', '636 452 0852', '+1 636 452 0852'])(
    'never reads the tail of a word cut by the window (%s)',
    (phone) => {
      for (let pad = 0; pad < 60; pad += 1) {
        const text = `Please reach${' '.repeat(pad + 1)}${phone} now`;
        expect(valuesOf('phone', text)).toEqual([phone]);
      }
    },
  );
});

describe('several values in a row, and values that pass two checks (issue 18.3)', () => {
  it('finds each card separated by single spaces', () => {
    expect(valuesOf('credit_card', '4111 1111 1111 1111 5555 5555 5555 4444 3782 822463 10005')).toEqual([
      '4111 1111 1111 1111',
      '5555 5555 5555 4444',
      '3782 822463 10005',
    ]);
    expect(valuesOf('credit_card', 'cards 4111111111111111 5555555555554444 378282246310005 on file')).toEqual([
      '4111111111111111',
      '5555555555554444',
      '378282246310005',
    ]);
    expect(valuesOf('credit_card', '4111-1111-1111-1111 4012-8888-8888-1881')).toEqual(['4111-1111-1111-1111', '4012-8888-8888-1881']);
  });

  it('does not cut a card out of a longer digit run', () => {
    expect(valuesOf('credit_card', '4111 1111 1111 1111 1111 1111')).toEqual([]);
  });

  it('finds each phone of a list', () => {
    expect(valuesOf('phone', 'call 415-555-0132 415-555-0199')).toEqual(['415-555-0132', '415-555-0199']);
  });

  it('types a number that passes Luhn and the NIR key by its context and issuer prefix', () => {
    expect(found('my credit card number is 377123767443430')).toEqual([['credit_card', '377123767443430']]);
    expect(found('card 377123767443430')).toEqual([['credit_card', '377123767443430']]);
    expect(found('377123767443430')).toEqual([['credit_card', '377123767443430']]); // Amex prefix
    expect(found('NIR 377123767443430')).toEqual([['fr_nir', '377123767443430']]);
    expect(found('109275693790170')).toEqual([['fr_nir', '109275693790170']]); // NIR-like prefix
    expect(found('Amex 109275693790170')).toEqual([['credit_card', '109275693790170']]);
  });

  it.each([
    ['call 345-899-3560x4587 today', '345-899-3560x4587'],
    ['call +1-903-140-4508x769 today', '+1-903-140-4508x769'],
    ['call 001-518-640-0854 today', '001-518-640-0854'],
    ['call 011 44 20 7946 0958 today', '011 44 20 7946 0958'],
    ['call 0044 20 7946 0958 today', '0044 20 7946 0958'],
    ['call (345) 899-3560 ext. 4587 today', '(345) 899-3560 ext. 4587'],
    ['call 345.899.3560 x 12 today', '345.899.3560 x 12'],
  ])('finds the phone with its extension or call prefix in %j', (text, phone) => {
    expect(valuesOf('phone', text)).toEqual([phone]);
  });
});

describe('print forms (issue 18.4)', () => {
  it.each([
    ['IBAN gb82west12345698765432', 'iban', 'gb82west12345698765432'],
    ['IBAN gb82 west 1234 5698 7654 32', 'iban', 'gb82 west 1234 5698 7654 32'],
    ['IBAN AL47-2121-1009-0000-0002-3569-8741', 'iban', 'AL47-2121-1009-0000-0002-3569-8741'],
    ['IBAN DE89.3704.0044.0532.0130.00', 'iban', 'DE89.3704.0044.0532.0130.00'],
    ['VAT de136695976', 'eu_vat', 'de136695976'],
    ['VAT DE-136-695-976', 'eu_vat', 'DE-136-695-976'],
    ['VAT DE.136695976', 'eu_vat', 'DE.136695976'],
    ['SSN 078.05.1123', 'us_ssn', '078.05.1123'],
    ['NIE x9613851n', 'es_nie', 'x9613851n'],
    ['NIE Y8063915-Z', 'es_nie', 'Y8063915-Z'],
    ['NIE X-9613851-N', 'es_nie', 'X-9613851-N'],
    ['DNI 12345678z', 'es_dni', '12345678z'],
    ['P.IVA 07643520567', 'eu_vat', '07643520567'],
    ['Partita IVA: 07643520567', 'eu_vat', '07643520567'],
    ['NINO AB 12 34 56 C', 'uk_nino', 'AB 12 34 56 C'],
    ['NI number AB 123456 C', 'uk_nino', 'AB 123456 C'],
    ['NINO ab 12 34 56 c', 'uk_nino', 'ab 12 34 56 c'],
    ['passport number 123456789', 'us_passport', '123456789'],
    ['passport number: AB1234567', 'us_passport', 'AB1234567'],
    ['Passport No. 12AB34567', 'us_passport', '12AB34567'],
  ])('finds %j', (text, type, value) => {
    expect(valuesOf(type, text)).toEqual([value]);
  });

  it('types a bare passport label by the region', () => {
    expect(valuesOf('uk_passport', 'passport number 123456789', 'en-GB')).toEqual(['123456789']);
  });

  it.each(['0917 123 4567', '0917-123-4567', '(02) 8123 4567', '0532 123 45 67', '(0532) 123 45 67', '0 532 123 45 67'])(
    'finds the Philippine or Turkish national number %j',
    (phone) => {
      expect(valuesOf('phone', `Reach me at ${phone} please`)).toEqual([phone]);
    },
  );

  it.each([
    'ff:ff:ff:ff:ff:ff',
    'FF-FF-FF-FF-FF-FF',
    '00:00:00:00:00:00',
    'visit www.microsoft for more',
    'AB 12 34 56 1',
    'AB 12 34 56 E',
  ])('flags nothing in %j', (text) => {
    expect(found(text)).toEqual([]);
  });

  it('keeps real MACs and www hosts', () => {
    expect(valuesOf('mac_address', 'mac 00-1A-2B-3C-4D-5E')).toEqual(['00-1A-2B-3C-4D-5E']);
    expect(valuesOf('url', 'see www.microsoft.com today')).toEqual(['www.microsoft.com']);
    expect(valuesOf('url', 'see http://192.168.1.1/admin')).toEqual(['http://192.168.1.1/admin']);
  });
});

describe('local numbers right after a phone label (issue 18.7, held-out micro F1)', () => {
  it.each([
    ['Mobile: 730 064 218\nDesk: x', '730 064 218'],
    ['Mobile: 794 1672', '794 1672'],
    ['How can we reach you? You can call 74 849 807', '74 849 807'],
    ['Mobile: 20-33-70-48\nFax: none', '20-33-70-48'],
    ['You can call 61 60 34', '61 60 34'],
    ['Fax: 1322342321\n', '1322342321'],
    ['Mobile: 97 799724', '97 799724'],
    ['You can call me at 87789328', '87789328'],
    ['Contact: 26 61 66 30', '26 61 66 30'],
    ['Please ring 7482 1237 tomorrow', '7482 1237'],
  ])('finds the phone in %j', (text, phone) => {
    expect(valuesOf('phone', text)).toEqual([phone]);
  });

  it.each([
    'Order 730 064 218 shipped', // no label
    'Invoice number: 794 1672',
    'the mobile team fixed 20-33-70-48 issues', // a phone word, but not labelling the number
    'call on 2024-12-05',
    'call 12.05.2024',
    'Mobile: 12345', // too short
    'call 20-33 70.48', // mixed separators
    'My Number: 9725 4024 9292', // Japan's My Number has 12 digits; a local phone number at most 11
  ])('finds no phone in %j', (text) => {
    expect(valuesOf('phone', text)).toEqual([]);
  });
});

describe('the North American layout outside the numbering plan (made-up and test numbers)', () => {
  it.each([
    ['I tried (547) 017-4681 twice', '(547) 017-4681'],
    ['I tried (910) 033-9075 x793 twice', '(910) 033-9075 x793'],
    ['I tried 547-017-4681 twice', '547-017-4681'],
    ['I tried 547.017.4681 twice', '547.017.4681'],
    ['I tried 1-121-809-6792 twice', '1-121-809-6792'],
    ['details: (147) 017 4681, ask for Sam', '(147) 017 4681'],
  ])('finds the phone in %j', (text, phone) => {
    expect(valuesOf('phone', text)).toEqual([phone]);
  });

  it.each([
    'the counts were 147 017 4681 in total', // spaced groups without a paren, a leading 1 or a phone word
    'the counts were 547 017 4681 in total',
  ])('finds no phone in %j', (text) => {
    expect(valuesOf('phone', text)).toEqual([]);
  });
});

describe('local numbers labelled in a list, after the number, or after "reached at" (issue 18.7)', () => {
  it.each([
    ['Phone numbers: 609 141 777, 6911 524493', ['609 141 777', '6911 524493']],
    ['call me on 0354911160 or 92723362 tomorrow', ['0354911160', '92723362']],
    ['Mobile: 500 080 636 / Office: 22 565 08 89', ['500 080 636', '22 565 08 89']],
    ['Tel.: 79623421', ['79623421']],
    ['I can be reached at 0570035125 during the day.', ['0570035125']],
    ['0256347039 (mobile)', ['0256347039']],
    ['925986372 is my direct line', ['925986372']],
    ['Mobile: 48 8982-0660', ['48 8982-0660']],
  ])('finds the phones in %j', (text, phones) => {
    expect(valuesOf('phone', text)).toEqual(phones);
  });

  it.each([
    'Order 20240512 is my order number', // not a phone noun after the number
    'Invoice 730 064 218, 6911 524493', // a list without a phone label
    'Items: 609 141 777 or 6911 524493',
    'Mobile: 12 2024-05', // the area-code-then-dashes form ends in four digits after four or five
  ])('finds no phone in %j', (text) => {
    expect(valuesOf('phone', text)).toEqual([]);
  });
});

describe('the trunk zero printed after a country code (issue 18.7)', () => {
  it.each([
    ['reach me on +44(0)161 4960932', '+44(0)161 4960932'],
    ['Tel. +31(0)619-345145', '+31(0)619-345145'],
    ['Mobile +49(0)1421774366', '+49(0)1421774366'],
    ['Phone: +44 (0)20 7946 0958', '+44 (0)20 7946 0958'],
  ])('finds %j', (text, phone) => {
    expect(valuesOf('phone', text)).toEqual([phone]);
  });

  it('needs digits after it', () => {
    expect(valuesOf('phone', 'see +44(0) and more')).toEqual([]);
  });
});

describe('a number laid out as some numbering plan prints it, with no phone word (issue 18.7)', () => {
  // Lists, signatures, tables, CSV, a number in parentheses after a name: no phone word, but the
  // digit groups are exactly the groups a region's plan prints for a valid national number.
  it.each([
    ['Best regards,\nJonas Berg\n730 064 218', '730 064 218'], // CZ 3-3-3
    ['Ana Souza (51 65 63 15) will bring the slides.', '51 65 63 15'], // DK 2-2-2-2
    ['name,city,number\nIlse Vos,Porto,612 34 56 78', '612 34 56 78'], // ES 3-2-2-2
    ['| Mei Tanaka | Gdansk | 512 345 678 |', '512 345 678'], // PL 3-3-3
    ['Ask Omar on 08-67 99 45 before Friday.', '08-67 99 45'], // SE: trunk zero on the area code
    ['Lena Fischer, 2200-7747', '2200-7747'], // CR 4-4
    ['Best,\nIlse Vos\n51 65 63 15\nLangley Street office', '51 65 63 15'], // a street word, not right after it
  ])('finds the phone in %j', (text, phone) => {
    expect(valuesOf('phone', text)).toEqual([phone]);
  });

  it('scores it below a labelled number', () => {
    const [plain] = detectAll('Jonas Berg 730 064 218').filter((d) => d.type === 'phone');
    const [labelled] = detectAll('Jonas Berg, mobile: 730 064 218').filter((d) => d.type === 'phone');
    expect(plain!.confidence).toBeGreaterThanOrEqual(0.5);
    expect(plain!.confidence).toBeLessThan(labelled!.confidence);
  });

  it.each([
    'The budget is 730 064 218 EUR this year.', // an amount
    'It weighs 730 064 218 kg in total.', // a measure
    'the mobile team fixed 20-33-70-48 issues', // a count
    'Population 12 345 678 (census 2021).', // thousands
    'Total: 1 234 567,89 €',
    'Covered in the years 1368-1644 and 1990–2005.', // year ranges (en dash folds to '-')
    'Dates: 12 05 2024 and 2024-05-12 10:30:15',
    'Scores: 20 83 45 21 33', // five pairs without a trunk zero: a list of small numbers
    'SKU 649-528-221 is back in stock.', // a numbered thing
    'Invoice number: 612 345 678',
    'ISBN 0 306 40615 2', // a book number, its check digit alone at the end
    'Row RG 53 63 72 14 of the table', // digits that go on from a code in capitals
    'The wreck lies at 48.8566, 2.3522.', // coordinates
    'Upgrade from 10.15.7 to 12.4.1024.', // versions
    'See pages 1200-1450 and 612-678.',
    '3579 1619 Langley St\nSuite 863', // a building number before a street
    'Suite 1200 3456, 12 345 Rue de la Paix', // after an address part, before a street prefix
  ])('finds no phone in %j', (text) => {
    expect(valuesOf('phone', text)).toEqual([]);
  });
});

describe('values hidden by their separators', () => {
  it.each([
    ['card 4111.1111.1111.1111 ok', '4111.1111.1111.1111'],
    ['card 4111/1111/1111/1111', '4111/1111/1111/1111'],
    ['card 4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 ok', '4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1'],
    ['card 5-5-0-0-0-0-0-0-0-0-0-0-0-0-0-4', '5-5-0-0-0-0-0-0-0-0-0-0-0-0-0-4'],
    ['card 4111_1111_1111_1111 ok', '4111_1111_1111_1111'],
    ['CARD_NUMBER = 5500_0000_0000_0004', '5500_0000_0000_0004'],
  ])('finds the card in %j', (text, value) => {
    expect(valuesOf('credit_card', text)).toEqual([value]);
  });

  it('finds an SSN written digit by digit after an SSN word only', () => {
    expect(valuesOf('us_ssn', 'my ssn is 0 7 8 0 5 1 1 2 0')).toEqual(['0 7 8 0 5 1 1 2 0']);
    expect(valuesOf('us_ssn', 'SSN: 0.7.8.0.5.1.1.2.0.')).toEqual(['0.7.8.0.5.1.1.2.0']);
    expect(valuesOf('us_ssn', 'scores 0 7 8 0 5 1 1 2 0')).toEqual([]);
    expect(valuesOf('us_ssn', 'my ssn is 9 7 8 0 5 1 1 2 0')).toEqual([]); // area 978: never issued
  });

  it('leaves digit lists, versions and failing checks alone', () => {
    for (const text of [
      'card 4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 2', // Luhn fails
      'ranks 1 2 3 4 5 6 7 8 9 1 2 3 4 5 6 7 8 9 1 2',
      'version 4111.1111.1111.1112',
      '1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4',
      '4.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1',
      'MAX = 4111_1111_1111_1112', // Luhn fails
      'n = 1_000_000_000_000_000',
    ]) {
      expect(valuesOf('credit_card', text), text).toEqual([]);
    }
  });

  it('reads underscores as card groups only: no date, SSN or address from them', () => {
    for (const text of ['backup 2024_01_15.tar', 'x 078_05_1120', 'ip 10_0_0_1', 'run 12_25_2024']) {
      expect(found(text), text).toEqual([]);
    }
  });

  it('finds every value of a list written with slashes', () => {
    expect(valuesOf('credit_card', 'cards 4111111111111111/5500000000000004')).toEqual(['4111111111111111', '5500000000000004']);
    expect(valuesOf('credit_card', 'cards 4111 1111 1111 1111/5500 0000 0000 0004')).toEqual([
      '4111 1111 1111 1111',
      '5500 0000 0000 0004',
    ]);
    // A date is no list of values.
    expect(found('due 12/25/2024')).toEqual([['date', '12/25/2024']]);
  });
});

describe('numbers spelled out with the dash read out', () => {
  it.each([
    ['my ssn: zero seven eight dash zero five dash one one two zero', 'us_ssn', '078051120'],
    ['call four one five dash five five five dash zero one zero zero', 'phone', '+14155550100'],
    ['Telefon null drei null Bindestrich eins zwei drei vier fünf sechs sieben', 'phone', undefined],
  ])('finds the value in %j, normalized to its digits', (text, type, normal) => {
    const values = valuesOf(type, text);
    expect(values.length).toBe(1);
    if (normal !== undefined) expect(normalizeValue(type, values[0]!)).toBe(normal);
  });

  it('leaves counting with dashes alone', () => {
    expect(found('one dash two dash three')).toEqual([]);
  });
});

describe('numbers read out in Chinese or Japanese numerals', () => {
  it.each([
    ['我的电话是一三八一二三四五六七八', 'phone', '一三八一二三四五六七八'],
    ['电话：幺三八 一二三四 五六七八', 'phone', '幺三八 一二三四 五六七八'],
    ['电话 010-一二三四五六七八', 'phone', '010-一二三四五六七八'],
    ['卡号四一一一一一一一一一一一一一一一', 'credit_card', '四一一一一一一一一一一一一一一一'],
  ])('finds the value in %j', (text, type, value) => {
    expect(valuesOf(type, text)).toEqual([value]);
  });

  it('normalizes the numerals to the digits: one token with the written number', () => {
    expect(normalizeValue('phone', '一三八一二三四五六七八', 'CN')).toBe(normalizeValue('phone', '138 1234 5678', 'CN'));
    expect(normalizeValue('credit_card', '四一一一一一一一一一一一一一一一')).toBe('4111111111111111');
  });

  it('leaves counting, dates and quantities alone', () => {
    for (const text of ['一二三四五六七八九', '二〇二四年一月一日', '我有一二三四五六七个苹果', '第一二三四五六七八章']) {
      expect(found(text), text).toEqual([]);
    }
  });
});

describe('digit groups joined by gaps no print form uses', () => {
  it.each([
    ['card 4111 - 1111 - 1111 - 1111', 'credit_card', '4111 - 1111 - 1111 - 1111'],
    ['4111  1111  1111  1111 thanks', 'credit_card', '4111  1111  1111  1111'],
    ['card 4111\t1111\t1111\t1111', 'credit_card', '4111\t1111\t1111\t1111'],
    ['card 4111 | 1111 | 1111 | 1111', 'credit_card', '4111 | 1111 | 1111 | 1111'],
    ['card: 4111*1111*1111*1111', 'credit_card', '4111*1111*1111*1111'],
    ['card 4111:1111:1111:1111', 'credit_card', '4111:1111:1111:1111'],
    ['card 4111,1111,1111,1111', 'credit_card', '4111,1111,1111,1111'],
    ['card 4111-1111 1111-1111', 'credit_card', '4111-1111 1111-1111'],
    ['card 41 11 11 11 11 11 11 11', 'credit_card', '41 11 11 11 11 11 11 11'],
    ['card 4111\n1111 1111 1111', 'credit_card', '4111\n1111 1111 1111'],
    ['visa (3782) (822463) (10005)', 'credit_card', '3782) (822463) (10005'],
    ['ssn 078 - 05 - 1120', 'us_ssn', '078 - 05 - 1120'],
    ['SSN: 078  05  1120', 'us_ssn', '078  05  1120'],
    ['phone 415 . 555 . 0100', 'phone', '415 . 555 . 0100'],
    ['call me: 415 | 555 | 0100', 'phone', '415 | 555 | 0100'],
    // A value wrapped over two lines, where numeric.ts read its first line as something shorter.
    ['card 4111 1111\n1111 1111', 'credit_card', '4111 1111\n1111 1111'],
    ['ssn 078-05\n1120', 'us_ssn', '078-05\n1120'],
  ])('finds the value in %j', (text, type, value) => {
    expect(valuesOf(type, text)).toEqual([value]);
  });

  it('needs the words before it for any gap but padded or doubled print separators', () => {
    for (const text of [
      '| 4111 | 1111 | 1111 | 1111 |', // a table row of amounts
      'totals 4111,1111,1111,1111', // CSV
      '4111:1111:1111:1111',
      'ids 078 - 05 - 1120', // no SSN word
      '415 | 555 | 0100',
      'call 2024 | 01 | 15', // a date after a phone word: eight digits
      'card 4111 - 1111 - 1111 - 1112', // Luhn fails
      'ssn 978 - 05 - 1120', // area 978 is never issued
      'My Number: 9725 4024 9292', // print form: numeric.ts has judged it
      'phone hours 9:00-17:00, 18:00-20:00', // times
      'call 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11', // a count
      'call 12, 34, 56, 78, 90', // a list
      'card 4 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 2', // digits one by one, Luhn fails (letter-spaced cards: evade12.test.ts)
      'ssn 0780 - 51 - 120', // not 3-2-4
      'card 4111 | 1111 | 1111 | 1111 | 1111', // a longer run is no card
    ]) {
      expect(found(text).filter(([type]) => ['credit_card', 'us_ssn', 'phone'].includes(type)), text).toEqual([]);
    }
  });

  it('never runs a phone over a line break into the next number', () => {
    expect(valuesOf('phone', 'call 415 555 0100\n2024 report')).toEqual(['415 555 0100']);
    expect(valuesOf('phone', 'phone 415-555-0100 - 0199')).toEqual(['415-555-0100']);
  });

  it('reads "my social" as an SSN word', () => {
    expect(valuesOf('us_ssn', 'my social is 078051120')).toEqual(['078051120']);
  });

  it('stays linear on floods of loosely grouped digits', () => {
    const text = 'card ' + '4 | '.repeat(50_000);
    expect(detectAll(text).length).toBeLessThan(50_000);
  });
});

describe('the word for "+" read out before an international number', () => {
  it.each([
    ['call plus 44 20 7946 0958', 'plus 44 20 7946 0958', '+442079460958'],
    ['Plus 49 30 901820 ist meine Nummer', 'Plus 49 30 901820', '+4930901820'],
    ['llámame al más 34 612 345 678', 'más 34 612 345 678', '+34612345678'],
    ['chiamami più 39 312 345 6789', 'più 39 312 345 6789', '+393123456789'],
  ])('finds the number in %j, one token with the + spelling', (text, value, e164) => {
    expect(valuesOf('phone', text)).toEqual([value]);
    expect(normalizeValue('phone', value)).toBe(e164);
  });

  it('leaves sums and words ending in "plus" alone', () => {
    for (const text of ['2 plus 2 is 4', 'price 10 plus 20 plus 30', 'surplus 44 20 7946 0958']) {
      expect(valuesOf('phone', text), text).toEqual([]);
    }
  });
});

describe('IBANs in any grouping after an IBAN word', () => {
  it.each([
    ['IBAN DE 89 37040044 0532013000', 'DE 89 37040044 0532013000'],
    ['iban GB 82 WEST 123456 98765432', 'GB 82 WEST 123456 98765432'],
    ['iban: DE89 - 3704 - 0044 - 0532 - 0130 - 00', 'DE89 - 3704 - 0044 - 0532 - 0130 - 00'],
    ['IBAN DE89-3704 0044.0532 0130 00', 'DE89-3704 0044.0532 0130 00'],
    ['bank account: IT 60 X054 2811 1010 0000 0123 456', 'IT 60 X054 2811 1010 0000 0123 456'],
    ['IBAN: DE89 3704 0044\n0532 0130 00', 'DE89 3704 0044\n0532 0130 00'],
    ['IBAN: DE89 3704 0044\r\n0532 0130 00', 'DE89 3704 0044\r\n0532 0130 00'],
    // Without a word: the country code apart from its check digits, every group with a digit.
    ['DE 89 3704 0044 0532 0130 00', 'DE 89 3704 0044 0532 0130 00'],
    ['de 89 3704 0044 0532 0130 00 ok', 'de 89 3704 0044 0532 0130 00'],
  ])('finds the IBAN in %j', (text, value) => {
    expect(valuesOf('iban', text)).toEqual([value]);
  });

  it('needs the word for mixed or loose gaps and for letter groups apart from the country code', () => {
    for (const text of [
      'DE89 - 3704 - 0044 - 0532 - 0130 - 00',
      'DE89-3704 0044.0532 0130 00',
      'GB 82 WEST 1234 5698 7654 32',
      'IBAN DE 89 3704 0044 0532 0130 01', // checksum fails
    ]) {
      expect(valuesOf('iban', text), text).toEqual([]);
    }
  });
});

describe('delimiters inside an assigned secret', () => {
  it.each([
    ['pw=Tr0ub4dor&3', 'Tr0ub4dor&3'],
    ['pw=Tr0ub;4dor', 'Tr0ub;4dor'],
    ['PASSWORD=a,b,c9', 'a,b,c9'],
  ])('keeps the whole value of %j', (text, value) => {
    expect(valuesOf('password', text)).toEqual([value]);
  });

  it.each([
    ['?user=bob&password=s3cr3tX&remember=1', 's3cr3tX'],
    ['Cookie: session=x; password=Zq9!ab; path=/', 'Zq9!ab'],
    ['password: hunter2X, user: bob', 'hunter2X'],
    ['password=s3cr3tX&amp;x=1', 's3cr3tX'],
    ['password=s3cr3tX;', 's3cr3tX'],
    ['db_password=s3cr3tX,db_user=bob', 's3cr3tX'],
  ])('ends the value of %j at the next key', (text, value) => {
    expect(valuesOf('password', text)).toEqual([value]);
  });
});

describe('values glued to their label word', () => {
  it.each([
    ['card4111111111111111', 'credit_card', '4111111111111111'],
    ['CC4111 1111 1111 1111', 'credit_card', '4111 1111 1111 1111'],
    ['Visa4111-1111-1111-1111.', 'credit_card', '4111-1111-1111-1111'],
    ['SSN078-05-1120', 'us_ssn', '078-05-1120'],
    ['ssn078051120', 'us_ssn', '078051120'],
    ['tel4155550100', 'phone', '4155550100'],
    ['Mobile415-555-0100 after six', 'phone', '415-555-0100'],
    ['DOB03/04/1985', 'date', '03/04/1985'],
  ])('finds the value in %j', (text, type, value) => {
    expect(valuesOf(type, text)).toEqual([value]);
  });

  it('reads no value glued to any other word', () => {
    for (const text of ['order4111111111111111', 'build20240115', 'sha256 abc123', 'v4155550100', 'ticket078051120', 'cardinal1234']) {
      expect(found(text), text).toEqual([]);
    }
  });
});

describe('values written with web escapes or marks on their digits', () => {
  it.each([
    ['mail john.doe&#64;corp.example now', 'email', 'john.doe&#64;corp.example'],
    ['mail john.doe&#x40;corp&#46;example', 'email', 'john.doe&#x40;corp&#46;example'],
    ['<a>&#106;&#111;&#104;&#110;&#64;&#99;&#111;&#114;&#112;&#46;&#101;&#120;</a>', 'email', '&#106;&#111;&#104;&#110;&#64;&#99;&#111;&#114;&#112;&#46;&#101;&#120;'],
    ['write to jane&commat;corp&period;example', 'email', 'jane&commat;corp&period;example'],
    ['mailto:john.doe%40corp.example', 'email', 'john.doe%40corp.example'],
    ['unsubscribe?email=john.doe%40corp.example&list=7', 'email', 'john.doe%40corp.example'],
    ['card &#52;111 1111 1111 1111', 'credit_card', '&#52;111 1111 1111 1111'],
    ['ssn 078&#45;05&#45;1120', 'us_ssn', '078&#45;05&#45;1120'],
    ['phone=%2B14155550100', 'phone', '%2B14155550100'],
    ['card 4\u03021\u03021\u03021 1111 1111 1111', 'credit_card', '4\u03021\u03021\u03021 1111 1111 1111'],
    ['ssn 0\u03357\u03358-0\u03355-1120', 'us_ssn', '0\u03357\u03358-0\u03355-1120'],
  ])('finds the value in %j', (text, type, value) => {
    const unescaped = (s: string): string => s.replace(/\\u([0-9a-f]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    expect(valuesOf(type, unescaped(text))).toEqual([unescaped(value)]);
  });

  it.each([
    ['email john\\u0040corp.example', 'email', 'john\\u0040corp.example'],
    ['"contact": "jane\\x40corp.example"', 'email', 'jane\\x40corp.example'],
    ['s = "\\u006a\\u006f\\u0068\\u006e\\u0040\\u0063\\u006f\\u002e\\u0069\\u006f"', 'email', '\\u006a\\u006f\\u0068\\u006e\\u0040\\u0063\\u006f\\u002e\\u0069\\u006f'],
    ['card \\u0034111 1111 1111 1111', 'credit_card', '\\u0034111 1111 1111 1111'],
    ['phone: \\u002B1 415 555 0100', 'phone', '\\u002B1 415 555 0100'],
    ['mailto:%6A%6F%68%6E%40%63%6F%72%70%2E%65%78%61%6D%70%6C%65', 'email', '%6A%6F%68%6E%40%63%6F%72%70%2E%65%78%61%6D%70%6C%65'],
    ['card %34%31%31%31 1111 1111 1111', 'credit_card', '%34%31%31%31 1111 1111 1111'],
  ])('finds the value written with code point escapes in %j', (text, type, value) => {
    expect(valuesOf(type, text)).toEqual([value]);
  });

  it('leaves escapes in code that spell no value alone', () => {
    for (const text of ['printf("%s\\n", "\\x1b[0m")', 'C:\\users\\xyz\\x64', 'const re = /\\u00e9|\\u{1F600}/u;', 'echo -e "\\x41\\x42\\x43"']) {
      expect(found(text), text).toEqual([]);
    }
  });

  it('leaves ordinary ampersands, percent signs and accents alone', () => {
    for (const text of ['R&D at AT&T; 100% sure, 50%40 mix', 'Tom &amp; Jerry &copy; 2024', 'café naïve José', '&#;&#x;&#xZZ;&#99999999;']) {
      expect(found(text), text).toEqual([]);
    }
  });
});

describe('numbers spelled out digit by digit (speech-to-text, filter evasion)', () => {
  it.each([
    ['my card is four one one one one one one one one one one one one one one one', 'credit_card', 'four one one one one one one one one one one one one one one one'],
    ['card: Five Five, zero zero, zero zero zero zero, zero zero zero zero, zero zero zero four.', 'credit_card', 'Five Five, zero zero, zero zero zero zero, zero zero zero zero, zero zero zero four'],
    ['call me on four one five, five five five, zero one double zero please', 'phone', 'four one five, five five five, zero one double zero'],
    ['it is four one five 555 0100', 'phone', 'four one five 555 0100'],
    ['my ssn is zero seven eight zero five one one two zero', 'us_ssn', 'zero seven eight zero five one one two zero'],
    ['mon téléphone: zéro six un deux trois quatre cinq six sept huit', 'phone', 'zéro six un deux trois quatre cinq six sept huit'],
    ['Telefon null eins sieben eins, zwei drei vier fünf sechs sieben acht', 'phone', 'null eins sieben eins, zwei drei vier fünf sechs sieben acht'],
  ])('finds the value in %j', (text, type, value) => {
    expect(valuesOf(type, text)).toEqual([value]);
  });

  it('reads counting and ordinary number words as nothing', () => {
    for (const text of [
      'numbers one two three four five six seven',
      'I have one, two, three, four, five, six, seven eight nine apples',
      'Count: one, two, three, four, five, six, seven, eight, nine, ten.',
      'one of the two or three best, then one more',
      'oh oh seven, double o seven',
      'four one one one one one one one one one one one one one one two', // Luhn fails
      'my ssn is nine seven eight zero five one one two zero', // area 978: never issued
    ]) {
      expect(found(text), text).toEqual([]);
    }
  });
});
