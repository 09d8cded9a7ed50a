// restoreValue: every mode for every catalog type, strategies and their fail-closed edges,
// family-first names, the bidi rule, localized labels, and properties over arbitrary input.
import { RESTORE_MODES, type RestoreMode, type RestoreStrategy } from '@veil/common';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENTITY_CATALOG } from '../catalog.js';
import { FSI, PDI } from './bidi.js';
import { ABSTRACT_LANGUAGES, BUILTIN_ABSTRACT_LABELS, FAMILY_FIRST_LANGUAGES, REDACTED, restoreValue, type RestoreTemplates } from './index.js';
import { parseNumeric } from './partial.js';

const en = { language: 'en' } as const;
const restore = (type: string, value: string, mode: RestoreMode, options: Parameters<typeof restoreValue>[2] = en): string =>
  restoreValue({ type, value }, mode, options);

/** One realistic value per catalog type, with its expected partial, masked and formatted renderings. */
const SAMPLES: Record<string, { value: string; partial: string; masked: string; formatted: string }> = {
  person: { value: 'John Smith', partial: 'J. Smith', masked: '**** *****', formatted: 'John Smith' },
  organization: { value: 'Acme Corporation', partial: '**** *******tion', masked: '**** ***********', formatted: 'Acme Corporation' },
  location: { value: 'San Francisco', partial: '*** *****isco', masked: '*** *********', formatted: 'San Francisco' },
  email: { value: 'John.Doe@Example.com', partial: 'J***@Example.com', masked: '****.***@*******.***', formatted: 'john.doe@example.com' },
  phone: { value: '+14155550100', partial: '+*******0100', masked: '+***********', formatted: '+1 415 555 0100' },
  credit_card: { value: '4111-1111-1111-1111', partial: '**** **** **** 1111', masked: '****-****-****-****', formatted: '4111 1111 1111 1111' },
  iban: { value: 'de89370400440532013000', partial: 'DE****************3000', masked: '**********************', formatted: 'DE89 3704 0044 0532 0130 00' },
  us_ssn: { value: '123456789', partial: '***-**-6789', masked: '*********', formatted: '123-45-6789' },
  ip_address: { value: '192.168.1.25', partial: '***.***.***.25', masked: '***.***.*.**', formatted: '192.168.1.25' },
  url: { value: 'https://example.com/path?q=1', partial: 'https://example.com', masked: '*****://*******.***/****?*=*', formatted: 'https://example.com/path?q=1' },
  date: { value: '2024-03-15', partial: '2024', masked: '****-**-**', formatted: '2024-03-15' },
  api_key: { value: 'sk-live-abcdef1234567890', partial: '********', masked: '********', formatted: 'sk-live-abcdef1234567890' },
  jwt: { value: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln', partial: '********', masked: '********', formatted: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln' },
  private_key: {
    value: '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----',
    partial: '********',
    masked: '********',
    formatted: '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----',
  },
  password: { value: 'hunter2!', partial: '********', masked: '********', formatted: 'hunter2!' },
  mac_address: { value: '00-1A-2B-3C-4D-5E', partial: '**-**-**-**-*D-5E', masked: '**-**-**-**-**-**', formatted: '00:1a:2b:3c:4d:5e' },
  crypto_wallet: {
    value: '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
    partial: '******************************vfNa',
    masked: '**********************************',
    formatted: '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
  },
  swift_bic: { value: 'deutdeff500', partial: '*******f500', masked: '***********', formatted: 'DEUTDEFF500' },
  // Identifier types of the full catalog (per-type defaults: last four revealed, shape kept).
  aba_routing: { value: '011000015', partial: '*****0015', masked: '*********', formatted: '011000015' },
  bank_account: { value: '000123456789', partial: '********6789', masked: '************', formatted: '000123456789' },
  card_security_code: { value: '123', partial: '***', masked: '***', formatted: '123' },
  driver_license: { value: 'D1234567', partial: '********', masked: '********', formatted: 'D1234567' },
  medical_record_number: { value: 'A1234567', partial: '********', masked: '********', formatted: 'A1234567' },
  insurance_id: { value: 'XYZ123456789', partial: '********6789', masked: '************', formatted: 'XYZ123456789' },
  eu_vat: { value: 'DE136695976', partial: '*******5976', masked: '***********', formatted: 'DE136695976' },
  connection_string: { value: 'postgres://app:s3cret@db.example.com:5432/prod', partial: '********', masked: '********', formatted: 'postgres://app:s3cret@db.example.com:5432/prod' },
  us_itin: { value: '912-78-1234', partial: '***-**-1234', masked: '***-**-****', formatted: '912-78-1234' },
  us_ein: { value: '12-3456789', partial: '**-***6789', masked: '**-*******', formatted: '12-3456789' },
  us_passport: { value: '488839667', partial: '*****9667', masked: '*********', formatted: '488839667' },
  us_npi: { value: '1234567893', partial: '******7893', masked: '**********', formatted: '1234567893' },
  us_mbi: { value: '1EG4-TE5-MK73', partial: '****-***-MK73', masked: '****-***-****', formatted: '1EG4-TE5-MK73' },
  uk_nino: { value: 'AB 12 34 56 C', partial: '** ** ** 56 C', masked: '** ** ** ** *', formatted: 'AB 12 34 56 C' },
  uk_nhs: { value: '943 476 5919', partial: '*** *** 5919', masked: '*** *** ****', formatted: '943 476 5919' },
  uk_passport: { value: '925076473', partial: '*****6473', masked: '*********', formatted: '925076473' },
  ie_pps: { value: '1234567T', partial: '********', masked: '********', formatted: '1234567T' },
  de_tax_id: { value: '86095742719', partial: '*******2719', masked: '***********', formatted: '86095742719' },
  fr_nir: { value: '1 85 05 78 006 084 36', partial: '* ** ** ** *** **4 36', masked: '* ** ** ** *** *** **', formatted: '1 85 05 78 006 084 36' },
  fr_siren: { value: '732829320', partial: '*****9320', masked: '*********', formatted: '732829320' },
  fr_siret: { value: '73282932000074', partial: '**********0074', masked: '**************', formatted: '73282932000074' },
  es_dni: { value: '12345678Z', partial: '*****678Z', masked: '*********', formatted: '12345678Z' },
  es_nie: { value: 'X1234567L', partial: '*****567L', masked: '*********', formatted: 'X1234567L' },
  it_fiscal_code: { value: 'RSSMRA85T10A562S', partial: '************562S', masked: '****************', formatted: 'RSSMRA85T10A562S' },
  nl_bsn: { value: '111222333', partial: '*****2333', masked: '*********', formatted: '111222333' },
  be_national_number: { value: '85.07.30-033.28', partial: '**.**.**-**3.28', masked: '**.**.**-***.**', formatted: '85.07.30-033.28' },
  pt_nif: { value: '123456789', partial: '*****6789', masked: '*********', formatted: '123456789' },
  pl_pesel: { value: '44051401359', partial: '*******1359', masked: '***********', formatted: '44051401359' },
  se_personnummer: { value: '811218-9876', partial: '******-9876', masked: '******-****', formatted: '811218-9876' },
  fi_hetu: { value: '131052-308T', partial: '******-308T', masked: '******-****', formatted: '131052-308T' },
  dk_cpr: { value: '010190-1234', partial: '******-1234', masked: '******-****', formatted: '010190-1234' },
  no_fodselsnummer: { value: '01019012345', partial: '*******2345', masked: '***********', formatted: '01019012345' },
  ch_ahv: { value: '756.9217.0769.85', partial: '***.****.***9.85', masked: '***.****.****.**', formatted: '756.9217.0769.85' },
  in_aadhaar: { value: '2345 6789 0124', partial: '**** **** 0124', masked: '**** **** ****', formatted: '2345 6789 0124' },
  in_pan: { value: 'ABCPD1234E', partial: '******234E', masked: '**********', formatted: 'ABCPD1234E' },
  au_tfn: { value: '123 456 782', partial: '*** *** 782', masked: '*** *** ***', formatted: '123 456 782' },
  au_medicare: { value: '2123 45670 1', partial: '**** ***70 1', masked: '**** ***** *', formatted: '2123 45670 1' },
  au_abn: { value: '51 824 753 556', partial: '** *** *** 556', masked: '** *** *** ***', formatted: '51 824 753 556' },
  au_acn: { value: '004 085 616', partial: '*** *** 616', masked: '*** *** ***', formatted: '004 085 616' },
  sg_nric: { value: 'S1234567D', partial: '*****567D', masked: '*********', formatted: 'S1234567D' },
  kr_rrn: { value: '800101-1234568', partial: '******-***4568', masked: '******-*******', formatted: '800101-1234568' },
  cn_resident_id: { value: '11010519491231002X', partial: '**************002X', masked: '******************', formatted: '11010519491231002X' },
  jp_my_number: { value: '1234 5678 9018', partial: '**** **** 9018', masked: '**** **** ****', formatted: '1234 5678 9018' },
  br_cpf: { value: '123.456.789-09', partial: '***.***.**9-09', masked: '***.***.***-**', formatted: '123.456.789-09' },
  br_cnpj: { value: '11.222.333/0001-81', partial: '**.***.***/***1-81', masked: '**.***.***/****-**', formatted: '11.222.333/0001-81' },
  ca_sin: { value: '046 454 286', partial: '*** *** 286', masked: '*** *** ***', formatted: '046 454 286' },
  mx_curp: { value: 'GODE561231HDFRRN09', partial: '**************RN09', masked: '******************', formatted: 'GODE561231HDFRRN09' },
  vin: { value: '1M8GDM9AXKP042788', partial: '*************2788', masked: '*****************', formatted: '1M8GDM9AXKP042788' },
  imei: { value: '35-209900-176148-1', partial: '**-******-****48-1', masked: '**-******-******-*', formatted: '35-209900-176148-1' },
};

describe('restoreValue: every mode for every type', () => {
  it('has a sample for every catalog type', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual([...ENTITY_CATALOG.keys()].sort());
  });

  for (const [type, sample] of Object.entries(SAMPLES)) {
    it(type, () => {
      expect(restore(type, sample.value, 'full')).toBe(sample.value);
      expect(restore(type, sample.value, 'none')).toBe(REDACTED);
      expect(restore(type, sample.value, 'partial')).toBe(sample.partial);
      expect(restore(type, sample.value, 'masked')).toBe(sample.masked);
      expect(restore(type, sample.value, 'formatted')).toBe(sample.formatted);
      expect(restore(type, sample.value, 'abstract')).toBe(BUILTIN_ABSTRACT_LABELS.get('en')!.get(type));
    });
  }

  it('renders custom types with the generic defaults', () => {
    expect(restore('custom:ticket_id', 'TCK-123456', 'partial')).toBe('***-**3456');
    expect(restore('custom:ticket_id', 'TCK-12', 'partial')).toBe('***-**');
    expect(restore('custom:ticket_id', 'TCK-123456', 'masked')).toBe('***-******');
    expect(restore('custom:ticket_id', ' TCK-123456 ', 'formatted')).toBe('TCK-123456');
    expect(restore('custom:ticket_id', 'TCK-123456', 'abstract')).toBe('[sensitive data]');
  });
});

describe('partial defaults', () => {
  it('email keeps the first character and the domain', () => {
    expect(restore('email', 'a@b.example', 'partial')).toBe('a***@b.example');
    expect(restore('email', '@b.example', 'partial')).toBe('***@b.example');
    expect(restore('email', 'not-an-email', 'partial')).toBe('***-**-*****');
  });

  it('phone keeps the last four digits and separators', () => {
    expect(restore('phone', '+1 (415) 555-0100', 'partial')).toBe('+* (***) ***-0100');
    expect(restore('phone', '0100', 'partial')).toBe('****');
  });

  it('cards need at least 12 digits, SSNs exactly 9, IBANs a country code', () => {
    expect(restore('credit_card', '4111 1111', 'partial')).toBe('**** ****');
    expect(restore('us_ssn', '123-45-678', 'partial')).toBe('***-**-***');
    expect(restore('iban', '1234567890123', 'partial')).toBe('*************');
    expect(restore('iban', 'GB82 WEST 1234 5698 7654 32', 'partial')).toBe('GB****************5432');
  });

  it('IP addresses keep the last octet or group', () => {
    expect(restore('ip_address', '10.0.0.1', 'partial')).toBe('***.***.***.1');
    expect(restore('ip_address', '2001:db8::8a2e:370:7334', 'partial')).toBe('****:****::****:****:7334');
    expect(restore('ip_address', '::ffff:192.0.2.128', 'partial')).toBe('::****:***.***.***.128');
  });

  it('URLs keep scheme and host only, dropping user info and port', () => {
    expect(restore('url', 'https://user:pw@shop.example.com:8443/orders/42', 'partial')).toBe('https://shop.example.com');
    expect(restore('url', 'www.example.com/a/b', 'partial')).toBe('www.example.com');
    // Nothing beyond the host: the subset would be the whole value, so it is masked.
    expect(restore('url', 'https://example.com', 'partial')).toBe('*****://*******.***');
  });

  it('dates keep the year only', () => {
    expect(restore('date', '15/03/2024', 'partial')).toBe('2024');
    expect(restore('date', 'March 15, 2024', 'partial')).toBe('2024');
    expect(restore('date', '15/03/24', 'partial')).toBe('**/**/**');
    expect(restore('date', '2024', 'partial')).toBe('****');
  });

  it('names become an initial and the surname', () => {
    expect(restore('person', 'Mary Ann Smith', 'partial')).toBe('M. Smith');
    expect(restore('person', 'Smith, John', 'partial')).toBe('J. Smith');
    expect(restore('person', 'Madonna', 'partial')).toBe('M.');
    expect(restore('person', 'Élodie Durand', 'partial', { language: 'fr' })).toBe('É. Durand');
    expect(restore('person', 'J. Smith', 'partial')).toBe('*. *****');
  });

  it('masks family-first names entirely (zh, ja, ko, vi, hu), and names in CJK scripts', () => {
    expect(FAMILY_FIRST_LANGUAGES).toEqual(['zh', 'ja', 'ko', 'vi', 'hu']);
    for (const language of ['zh', 'ja', 'ko', 'vi', 'hu', 'zh-TW', 'HU']) {
      expect(restore('person', 'Nguyen Van An', 'partial', { language }), language).toBe('****** *** **');
    }
    expect(restore('person', '王小明', 'partial')).toBe('***');
    expect(restore('person', '김민준', 'partial')).toBe('***');
    expect(restore('person', 'Nagy Péter', 'partial', { language: 'en' })).toBe('N. Péter');
  });

  it('credentials are fully masked with a fixed length', () => {
    for (const type of ['api_key', 'jwt', 'private_key', 'password']) {
      expect(restore(type, 'x'.repeat(5000), 'partial')).toBe('********');
      expect(restore(type, 'ab', 'masked')).toBe('********');
    }
  });

  it('other types reveal the last four only when longer than eight characters', () => {
    expect(restore('organization', 'Acme Inc', 'partial')).toBe('**** ***');
    expect(restore('organization', 'Acme Inc.', 'partial')).toBe('**** Inc.');
  });
});

describe('strategies', () => {
  const last4: RestoreStrategy = { kind: 'reveal_last_n', n: 4 };
  const withStrategy = (type: string, value: string, strategy: RestoreStrategy): string => restore(type, value, 'partial', { language: 'en', strategy });

  it('reveal_last_n masks the rest, honours mask_char, and masks everything when the value is not longer than n', () => {
    expect(withStrategy('credit_card', '4111 1111 1111 1234', last4)).toBe('**** **** **** 1234');
    expect(withStrategy('custom:acct', 'AB-99887766', { kind: 'reveal_last_n', n: 3, mask_char: '#' })).toBe('##-#####766');
    expect(withStrategy('custom:acct', '1234', last4)).toBe('****');
    expect(withStrategy('custom:acct', '123', last4)).toBe('***');
    expect(withStrategy('custom:acct', '----1234', last4)).toBe('----****');
  });

  it('reveal_first_n reveals the head only', () => {
    expect(withStrategy('custom:member', 'ABC123456789', { kind: 'reveal_first_n', n: 3 })).toBe('ABC*********');
    expect(withStrategy('custom:member', 'ABC', { kind: 'reveal_first_n', n: 3, mask_char: 'x' })).toBe('xxx');
  });

  it('reveal_range reveals a window and masks when out of bounds or covering everything', () => {
    const range: RestoreStrategy = { kind: 'reveal_range', start: 2, len: 3 };
    expect(withStrategy('custom:code', 'AB123CD', range)).toBe('**123**');
    expect(withStrategy('custom:code', 'AB12', range)).toBe('****');
    expect(withStrategy('custom:code', 'ABC', { kind: 'reveal_range', start: 0, len: 3 })).toBe('***');
    expect(withStrategy('custom:code', 'ABCDEF', { kind: 'reveal_range', start: 0, len: 2, mask_char: '·' })).toBe('AB····');
  });

  it('counts code points, not UTF-16 units', () => {
    // Astral letters are one character each: four masks, not eight.
    expect(withStrategy('custom:code', '𝒜𝒞𝒟𝒢x', { kind: 'reveal_last_n', n: 1 })).toBe('****x');
    // Emoji are not letters or digits: they stay like separators.
    expect(withStrategy('custom:code', 'ab😀cd', { kind: 'reveal_last_n', n: 1 })).toBe('**😀*d');
  });

  it('mask hides the whole value', () => {
    expect(withStrategy('email', 'a@b.co', { kind: 'mask' })).toBe('*@*.**');
    expect(withStrategy('password', 'a@b.co', { kind: 'mask' })).toBe('********');
  });

  it('bucket outputs the label of the range (min inclusive, max exclusive) and masks otherwise', () => {
    const bucket: RestoreStrategy = {
      kind: 'bucket',
      ranges: [
        { max: 100, label: 'under 100' },
        { min: 100, max: 1000, label: '100 to 999' },
        { min: 1000, max: 5000, label: '1000 to 4999' },
      ],
    };
    expect(withStrategy('custom:amount', '$99.99', bucket)).toBe('under 100');
    expect(withStrategy('custom:amount', '100', bucket)).toBe('100 to 999');
    expect(withStrategy('custom:amount', 'USD 1,234.50', bucket)).toBe('1000 to 4999');
    expect(withStrategy('custom:amount', '1.234,50 EUR', bucket)).toBe('1000 to 4999');
    expect(withStrategy('custom:amount', '€ 5000', bucket)).toBe('€ ****');
    expect(withStrategy('custom:amount', 'about twelve', bucket)).toBe('***** ******');
    expect(withStrategy('custom:amount', '-5', bucket)).toBe('under 100');
  });

  it('parses numbers with currency signs, codes and thousand separators', () => {
    expect(parseNumeric('$1,234.56')).toBe(1234.56);
    expect(parseNumeric("1'234")).toBe(1234);
    expect(parseNumeric('1 234 567')).toBe(1234567);
    expect(parseNumeric('CHF 12.50')).toBe(12.5);
    expect(parseNumeric('12abc')).toBeUndefined();
    expect(parseNumeric('')).toBeUndefined();
  });

  it('masks every unrevealed character of a credential, separators included', () => {
    expect(withStrategy('api_key', 'sk-live-1234', last4)).toBe('********1234');
    expect(withStrategy('api_key', 'sk-1', last4)).toBe('********');
  });

  it('prefers the rule strategy over templates.partial_formats, which wins over the default', () => {
    const templates: RestoreTemplates = { partial_formats: { email: { kind: 'reveal_first_n', n: 2 }, ticket_id: { kind: 'reveal_last_n', n: 2 } } };
    expect(restore('email', 'ab@c.de', 'partial', { language: 'en', templates })).toBe('ab@*.**');
    expect(restore('email', 'ab@c.de', 'partial', { language: 'en', templates, strategy: { kind: 'mask' } })).toBe('**@*.**');
    expect(restore('custom:ticket_id', 'TCK-123456', 'partial', { language: 'en', templates })).toBe('***-****56');
    expect(restore('phone', '+14155550100', 'partial', { language: 'en', templates })).toBe('+*******0100');
  });

  it('applies strategies only in partial mode', () => {
    expect(restore('email', 'a@b.co', 'full', { language: 'en', strategy: { kind: 'mask' } })).toBe('a@b.co');
    expect(restore('email', 'a@b.co', 'masked', { language: 'en', strategy: last4 })).toBe('*@*.**');
  });
});

describe('formatted', () => {
  it('formats phones internationally or by groups', () => {
    expect(restore('phone', '+44 20 7946 0958', 'formatted')).toBe('+44 20 7946 0958');
    expect(restore('phone', '+442079460958', 'formatted')).toBe('+44 20 7946 0958');
    expect(restore('phone', '(415) 555-0100', 'formatted')).toBe('415 555 0100');
    expect(restore('phone', '555 0100 ext 12', 'formatted')).toBe('555 0100 ext 12');
  });

  it('leaves values that do not look like their type trimmed but otherwise untouched', () => {
    expect(restore('credit_card', ' 4111 ', 'formatted')).toBe('4111');
    expect(restore('iban', 'not an iban', 'formatted')).toBe('not an iban');
    expect(restore('us_ssn', '12-34', 'formatted')).toBe('12-34');
    expect(restore('mac_address', '00:1a', 'formatted')).toBe('00:1a');
    expect(restore('email', ' Bob@X.ORG ', 'formatted')).toBe('bob@x.org');
  });
});

describe('bidi rule', () => {
  it('wraps right-to-left values in FSI ... PDI', () => {
    expect(restore('person', 'שרה כהן', 'full')).toBe(`${FSI}שרה כהן${PDI}`);
    expect(restore('location', 'القاهرة', 'full')).toBe(`${FSI}القاهرة${PDI}`);
    expect(restore('person', 'ދިވެހި', 'full')).toBe(`${FSI}ދިވެހި${PDI}`); // Thaana
    expect(restore('person', 'ߒߞߏ', 'full')).toBe(`${FSI}ߒߞߏ${PDI}`); // NKo
    expect(restore('person', 'ܫܠܡܐ', 'full')).toBe(`${FSI}ܫܠܡܐ${PDI}`); // Syriac
  });

  it('strips inner bidi controls and wraps values that carry them', () => {
    const controls = '\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C';
    expect(restore('email', `evil${controls}@example.com`, 'full')).toBe(`${FSI}evil@example.com${PDI}`);
    expect(restore('url', 'https://x.example/\u202Etxt.exe', 'full')).toBe(`${FSI}https://x.example/txt.exe${PDI}`);
    expect(restore('person', `\u202Eשרה`, 'full')).toBe(`${FSI}שרה${PDI}`);
  });

  it('leaves left-to-right values unchanged', () => {
    for (const value of ['John Smith', 'Zoë Müller', '王小明', 'Ελένη', 'Иван']) expect(restore('person', value, 'full')).toBe(value);
  });

  it('applies to labels of right-to-left languages', () => {
    expect(restore('email', 'a@b.co', 'abstract', { language: 'ar' })).toBe(`${FSI}[عنوان البريد الإلكتروني]${PDI}`);
    expect(restore('email', 'a@b.co', 'abstract', { language: 'he' })).toBe(`${FSI}[כתובת דואר אלקטרוני]${PDI}`);
  });
});

describe('abstract labels', () => {
  const required = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'da', 'no', 'nb', 'fi', 'pl', 'cs', 'sk', 'hu', 'ro', 'el', 'tr', 'ru', 'uk', 'bg', 'hr', 'sl', 'et', 'lv', 'lt', 'ar', 'he', 'zh', 'ja', 'ko', 'vi', 'hi', 'id', 'th'];

  it('covers at least 30 languages, including the required ones', () => {
    expect(ABSTRACT_LANGUAGES.length).toBeGreaterThanOrEqual(30);
    for (const language of required) expect(ABSTRACT_LANGUAGES).toContain(language);
  });

  it('has a bracketed label for every catalog type and a generic label in every language', () => {
    for (const language of ABSTRACT_LANGUAGES) {
      const labels = BUILTIN_ABSTRACT_LABELS.get(language)!;
      for (const type of [...ENTITY_CATALOG.keys(), '_generic']) {
        const label = labels.get(type);
        expect(label, `${language}/${type}`).toMatch(/^\[[^[\]]+\]$/);
      }
      expect(new Set(labels.values()).size, language).toBeGreaterThanOrEqual(15);
    }
  });

  it('localizes labels', () => {
    expect(restore('email', 'a@b.co', 'abstract', { language: 'en' })).toBe('[email address]');
    expect(restore('email', 'a@b.co', 'abstract', { language: 'fr' })).toBe('[adresse e-mail]');
    expect(restore('email', 'a@b.co', 'abstract', { language: 'de' })).toBe('[E-Mail-Adresse]');
    expect(restore('email', 'a@b.co', 'abstract', { language: 'de-CH' })).toBe('[E-Mail-Adresse]');
    expect(restore('phone', '1', 'abstract', { language: 'no' })).toBe(restore('phone', '1', 'abstract', { language: 'nb' }));
    expect(restore('custom:mrn', 'MRN-1', 'abstract', { language: 'es' })).toBe('[datos sensibles]');
  });

  it('falls back to the English generic label for unknown languages', () => {
    expect(restore('email', 'a@b.co', 'abstract', { language: 'xx' })).toBe('[sensitive data]');
    expect(restore('email', 'a@b.co', 'abstract', { language: '' })).toBe('[sensitive data]');
  });

  it('lets templates extend and override labels', () => {
    const templates: RestoreTemplates = {
      abstract_labels: {
        en: { email: '<an email>', 'custom:mrn': '[medical record number]' },
        ga: { email: '[seoladh ríomhphoist]', _generic: '[sonraí íogaire]' },
        fr: { mrn: '[numéro de dossier médical]' },
        'pt-br': { email: '[e-mail]' },
      },
    };
    const label = (type: string, language: string): string => restore(type, 'v', 'abstract', { language, templates });
    expect(label('email', 'en')).toBe('<an email>');
    expect(label('custom:mrn', 'en')).toBe('[medical record number]');
    expect(label('custom:mrn', 'fr')).toBe('[numéro de dossier médical]');
    expect(label('email', 'ga')).toBe('[seoladh ríomhphoist]');
    expect(label('phone', 'ga')).toBe('[sonraí íogaire]');
    expect(label('email', 'pt-BR')).toBe('[e-mail]');
    expect(label('email', 'pt')).toBe('[endereço de e-mail]');
    expect(label('constructor', 'en')).toBe('[sensitive data]');
  });
});

describe('properties', () => {
  const types = [...ENTITY_CATALOG.keys(), 'custom:ticket_id', 'unknown_type'];
  const strategyArb: fc.Arbitrary<RestoreStrategy> = fc.oneof(
    fc.record({ kind: fc.constant('reveal_last_n' as const), n: fc.integer({ min: 1, max: 64 }) }),
    fc.record({ kind: fc.constant('reveal_first_n' as const), n: fc.integer({ min: 1, max: 64 }), mask_char: fc.constantFrom('*', '#', 'x') }),
    fc.record({ kind: fc.constant('reveal_range' as const), start: fc.integer({ min: 0, max: 20 }), len: fc.integer({ min: 1, max: 64 }) }),
    fc.constant({ kind: 'mask' as const }),
    fc.constant({ kind: 'bucket' as const, ranges: [{ max: 0, label: 'neg' }, { min: 0, max: 10, label: 'small' }, { min: 10, label: 'big' }] }),
  );
  const valueArb = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ maxLength: 40 }),
    fc.emailAddress(),
    fc.webUrl(),
    fc.ipV4(),
    fc.ipV6(),
    fc.stringMatching(/^\+?[0-9 ()-]{0,20}$/),
  );
  const optionsArb = fc.record(
    {
      language: fc.constantFrom('en', 'zh', 'ar', 'he-IL', 'xx', '', 'pt_BR', 'HU'),
      strategy: strategyArb,
    },
    { requiredKeys: ['language'] },
  );

  it('never throws, for any type, mode, language, strategy and value', () => {
    fc.assert(
      fc.property(fc.constantFrom(...types), fc.constantFrom(...RESTORE_MODES), valueArb, optionsArb, (type, mode, value, options) => {
        expect(typeof restoreValue({ type, value }, mode, options)).toBe('string');
      }),
      { numRuns: 3000 },
    );
  });

  it('non-full modes never return the full value when it is longer than 8 characters (formatted excepted)', () => {
    const leakyModes: RestoreMode[] = ['partial', 'masked', 'abstract', 'none'];
    fc.assert(
      fc.property(
        fc.constantFrom(...types),
        fc.constantFrom(...leakyModes),
        // Longer than 8 characters once trimmed: a value of spaces around one letter ('        a')
        // is "contained" in any label with that letter ('[email address]'), which says nothing
        // about a leak (this made the property fail once in CI-like runs).
        valueArb.filter((value) => Array.from(value.trim()).length > 8),
        optionsArb,
        (type, mode, value, options) => {
          const restored = restoreValue({ type, value }, mode, options);
          expect(restored).not.toBe(value);
          expect(restored.includes(value)).toBe(false);
          expect(restored.includes(value.trim())).toBe(false);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
