// The full catalog through detectAll: for every identifier type a valid value next to its
// context word is found with the right type, the same value with a wrong check character is not
// flagged at all, and bare digit runs without a context word stay below the default threshold.
// Plus the other catalog families: connection strings, the added secret formats, IDN emails,
// written dates in more languages, and /v1/capabilities metadata in the catalog.
import { describe, expect, it } from 'vitest';
import { ENTITY_CATALOG } from '../catalog.js';
import { detectAll } from './index.js';

function found(text: string, language?: string): [string, string][] {
  return detectAll(text, language === undefined ? {} : { language })
    .filter((d) => d.confidence >= 0.5)
    .map((d) => [d.type, d.value]);
}

// [type, text with context, value, same text with a broken check character]
const IDS: [string, string, string, string | undefined][] = [
  ['us_itin', 'ITIN: 912-70-1234', '912-70-1234', 'ITIN: 912-89-1234'],
  ['us_ein', 'EIN 12-3456789 on file', '12-3456789', 'EIN 07-3456789 on file'],
  ['us_npi', 'NPI 1234567893', '1234567893', 'NPI 1234567890'],
  ['us_mbi', 'Medicare MBI 1EG4-TE5-MK73', '1EG4-TE5-MK73', 'Medicare MBI 1SG4-TE5-MK73'],
  ['us_passport', 'US passport number 488839667', '488839667', undefined],
  ['aba_routing', 'Routing number 011000015', '011000015', 'Routing number 011000016'],
  ['uk_nino', 'National Insurance number AB 12 34 56 C', 'AB 12 34 56 C', 'National Insurance number AB 12 34 56 E'],
  ['uk_nhs', 'NHS number 943 476 5919', '943 476 5919', 'NHS number 943 476 5918'],
  ['uk_passport', 'UK passport number 925076473', '925076473', undefined],
  ['ie_pps', 'PPS number 1234567T', '1234567T', 'PPS number 1234567A'],
  ['de_tax_id', 'Steuer-ID: 86095742719', '86095742719', 'Steuer-ID: 86095742710'],
  ['fr_nir', 'Numéro de sécurité sociale : 1 85 05 78 006 084 91', '1 85 05 78 006 084 91', 'Numéro de sécurité sociale : 1 85 05 78 006 084 36'],
  ['fr_siren', 'SIREN 732 829 320', '732 829 320', 'SIREN 732 829 321'],
  ['fr_siret', 'SIRET 732 829 320 00074', '732 829 320 00074', 'SIRET 732 829 320 00075'],
  ['es_dni', 'DNI 12345678Z', '12345678Z', 'DNI 12345678A'],
  ['es_nie', 'NIE X1234567L', 'X1234567L', 'NIE X1234567A'],
  ['it_fiscal_code', 'Codice fiscale RSSMRA85T10A562S', 'RSSMRA85T10A562S', 'Codice fiscale RSSMRA85T10A562A'],
  ['nl_bsn', 'BSN: 111222333', '111222333', 'BSN: 111222334'],
  ['be_national_number', 'Rijksregisternummer 85.07.30-033.28', '85.07.30-033.28', 'Rijksregisternummer 85.07.30-033.29'],
  ['pt_nif', 'Número de contribuinte 123456789', '123456789', 'Número de contribuinte 123456788'],
  ['pl_pesel', 'PESEL 44051401359', '44051401359', 'PESEL 44051401358'],
  ['se_personnummer', 'Personnummer 811218-9876', '811218-9876', 'Personnummer 811218-9875'],
  ['fi_hetu', 'Henkilötunnus 131052-308T', '131052-308T', 'Henkilötunnus 131052-308U'],
  ['dk_cpr', 'CPR-nr. 010190-1234', '010190-1234', 'CPR-nr. 320190-1234'],
  ['no_fodselsnummer', 'Fødselsnummer 20114007081', '20114007081', 'Fødselsnummer 20114007080'],
  ['ch_ahv', 'AHV-Nr. 756.9217.0769.85', '756.9217.0769.85', 'AHV-Nr. 756.9217.0769.86'],
  ['in_aadhaar', 'Aadhaar 2345 6789 0124', '2345 6789 0124', 'Aadhaar 2345 6789 0125'],
  ['in_pan', 'PAN ABCPD1234E', 'ABCPD1234E', 'PAN ABCXD1234E'],
  ['au_tfn', 'Tax File Number 123 456 782', '123 456 782', 'Tax File Number 123 456 783'],
  ['au_medicare', 'Medicare card 2123 45670 1', '2123 45670 1', 'Medicare card 2123 45671 1'],
  ['au_abn', 'ABN 51 824 753 556', '51 824 753 556', 'ABN 51 824 753 557'],
  ['au_acn', 'ACN 004 085 616', '004 085 616', 'ACN 004 085 617'],
  ['sg_nric', 'NRIC S1234567D', 'S1234567D', 'NRIC S1234567A'],
  ['kr_rrn', 'RRN 420711-1374111', '420711-1374111', 'RRN 421311-1374111'],
  ['cn_resident_id', '身份证号码 11010519491231002X', '11010519491231002X', '身份证号码 11010519491231002Y'],
  ['jp_my_number', 'マイナンバー 1234 5678 9018', '1234 5678 9018', 'マイナンバー 1234 5678 9017'],
  ['br_cpf', 'CPF 123.456.789-09', '123.456.789-09', 'CPF 123.456.789-00'],
  ['br_cnpj', 'CNPJ 11.222.333/0001-81', '11.222.333/0001-81', 'CNPJ 11.222.333/0001-80'],
  ['ca_sin', 'SIN 230 344 830', '230 344 830', 'SIN 230 344 831'],
  ['mx_curp', 'CURP TYVW721006HSLJBZ72', 'TYVW721006HSLJBZ72', 'CURP TYVW721006HSLJBZ70'],
  ['vin', 'VIN 1HGCM82633A004352', '1HGCM82633A004352', 'VIN 1HGCM82643A004352'],
  ['imei', 'IMEI 35-209900-176148-1', '35-209900-176148-1', 'IMEI 35-209900-176148-2'],
  ['eu_vat', 'USt-IdNr. DE136695976', 'DE136695976', 'USt-IdNr. DE136695970'],
];

describe('identifier types', () => {
  it.each(IDS)('%s: found next to its context word', (type, text, value) => {
    expect(found(text)).toEqual([[type, value]]);
  });

  it.each(IDS.filter((entry) => entry[3] !== undefined))('%s: a wrong check character flags nothing', (_type, _text, _value, broken) => {
    expect(found(broken!)).toEqual([]);
  });

  it('keeps bare digit runs without context below the threshold', () => {
    for (const text of ['ref 111222333 sent', 'order 86095742719', 'id 2345 6789 0124 ok', 'ticket 123 456 782', 'run 44051401359', 'no 1234567893']) {
      expect(found(text), text).toEqual([]);
    }
  });

  it('finds distinctive print forms without context', () => {
    expect(found('see 756.9217.0769.85 today')).toEqual([['ch_ahv', '756.9217.0769.85']]);
    expect(found('see 123.456.789-09 today')).toEqual([['br_cpf', '123.456.789-09']]);
    expect(found('see RSSMRA85T10A562S today')).toEqual([['it_fiscal_code', 'RSSMRA85T10A562S']]);
    expect(found('ref 1M8GDM9AXKP042788')).toEqual([['vin', '1M8GDM9AXKP042788']]);
    expect(found('billed to NL111222333B01')).toEqual([['eu_vat', 'NL111222333B01']]);
  });

  it('accepts European VINs without a check digit only next to a context word', () => {
    expect(found('Fahrgestellnummer WVWZZZ1JZXW000001')).toEqual([['vin', 'WVWZZZ1JZXW000001']]);
    expect(found('code WVWZZZ1JZXW000001')).toEqual([]);
  });
});

describe('connection strings', () => {
  it.each([
    'postgres://app:s3cr3t@db.internal:5432/prod',
    'mongodb+srv://admin:Pa55w0rd@cluster0.abcde.mongodb.net/test',
    'jdbc:mysql://root:hunter2@10.0.0.5:3306/shop',
    'redis://:topsecret@cache:6379/0',
    'https://deploy:tok123456@git.example.com/org/repo.git',
  ])('finds %j whole', (uri) => {
    expect(found(`DATABASE_URL=${uri} ok`)).toEqual([['connection_string', uri]]);
  });

  it.each(['postgres://user:***@db/x', 'postgres://db.example.com/app', 'redis://user:${REDIS_PASSWORD}@cache:6379', 'https://user@example.com/x'])(
    'ignores %j (no real password)',
    (uri) => {
      expect(found(uri).filter(([type]) => type === 'connection_string')).toEqual([]);
    },
  );
});

describe('secrets', () => {
  it.each([
    `hvs.${'A1b2C3d4'.repeat(12)}`,
    `sk-or-v1-${'0a1b2c3d'.repeat(8)}`,
    `glc_${'eyJvIjoiMTIzNCIsIm4iOiJ0b2tlbiJ9'.repeat(2)}`,
    `NRAK-A1B2C3D4E5F6G7H8I9J0K1L2M3N`,
    `sbp_0123456789abcdef0123456789abcdef01234567`,
    `PMAK-0123456789abcdef01234567-0123456789abcdef0123456789abcdef01`,
    `AGE-SECRET-KEY-1${'QQQQQQQQQQ'.repeat(5)}QQQQQQQQ`,
    '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0',
    'MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs',
    'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
  ])('finds %j as api_key', (key) => {
    expect(found(`token ${key} leaked`)).toEqual([['api_key', key]]);
  });

  it('takes high-entropy values of key-like names, not words or code', () => {
    expect(found('api_key = "a8Fk3Lq9Zx2Vb7Nm4Rt6Yu1Io0Pe5Ws"')).toEqual([['api_key', 'a8Fk3Lq9Zx2Vb7Nm4Rt6Yu1Io0Pe5Ws']]);
    expect(found('AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg==;')).toEqual([['api_key', 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg==']]);
    expect(found('api_key = "your-api-key-here"')).toEqual([]);
    expect(found('secret_key: settings.SECRET_KEY')).toEqual([]);
    expect(found('monkey=a8Fk3Lq9Zx2Vb7Nm4Rt6Yu1Io0Pe5Ws')).toEqual([]);
  });

  it('takes the credential of an Authorization header', () => {
    expect(found('Authorization: Basic dXNlcjpwYXNzd29yZA==')).toEqual([['api_key', 'dXNlcjpwYXNzd29yZA==']]);
    expect(found('Authorization: Bearer <token>')).toEqual([]);
  });
});

describe('emails with internationalized names', () => {
  it.each(['jörg.müller@bücher.de', '用户@例子.中国', 'иван@пример.рф'])('finds %j', (email) => {
    expect(found(`write to ${email} please`)).toEqual([['email', email]]);
  });
});

describe('written dates in more languages', () => {
  it.each([
    ['dnia 12 października 2024 r.', '12 października 2024'],
    ['den 3 marts 2021', '3 marts 2021'],
    ['12. maaliskuuta 2024', '12. maaliskuuta 2024'],
    ['il 1° maggio 2024', '1° maggio 2024'],
    ['dne 5. května 2020', '5. května 2020'],
  ])('finds the date in %j', (text, value) => {
    expect(found(text)).toEqual([['date', value]]);
  });

  it('keeps two-digit-year dates below the threshold without a context word', () => {
    expect(found('ref 01/02/03')).toEqual([]);
    expect(found('born 01/02/03')).toEqual([['date', '01/02/03']]);
  });
});

describe('phones in national formats', () => {
  it.each([
    ['Telefone: (11) 96123-4073', '(11) 96123-4073', 'pt-BR'],
    ['Phone: 085 012 3863', '085 012 3863', 'en-IE'],
    ['电话: 131 2345 6984', '131 2345 6984', 'zh'],
    ['Teléfono: 222 123 4415', '222 123 4415', 'es-MX'],
  ])('finds %j', (text, value, language) => {
    expect(found(text, language)).toEqual([['phone', value]]);
  });

  it('does not read a labelled id as a phone number', () => {
    expect(found('NHS number 943 476 5918')).toEqual([]);
  });
});

describe('catalog', () => {
  it('has at least 60 types with unique prefixes and languages', () => {
    const entries = [...ENTITY_CATALOG.values()];
    expect(entries.length).toBeGreaterThanOrEqual(60);
    expect(new Set(entries.map((entry) => entry.prefix)).size).toBe(entries.length);
    for (const entry of entries) {
      expect(entry.type).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(entry.languages.length).toBeGreaterThan(0);
    }
  });
});
