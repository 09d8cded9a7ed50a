// Generates the labeled corpora for the offline detection eval: data/catalog-cases.jsonl
// (positives for every built-in type in the languages the detectors cover, with valid check
// digits, mostly next to a context word, some in distinctive print forms without one) and
// data/hard-negatives.jsonl (look-alikes that must not be flagged: version strings, order
// numbers, hashes, UUIDs, ISBNs, tracking numbers, timestamps and every checksum-backed id with a
// wrong check digit, next to its own context word). Check characters are found by trying each
// candidate against the validator (server/src/domain/detect/validators.ts), and the result is
// cross-checked independently by crosscheck.py (python-stdnum); phone numbers are validated by
// libphonenumber-js. Deterministic: a seeded generator.
// Usage: npx tsx tools/catalog-cases/generate.mjs [SEED] [PER_TYPE]
import { writeFileSync } from 'node:fs';
import { getExampleNumber, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/examples.mobile.json';
import * as v from '../../server/src/domain/detect/validators.ts';
import { ibanChecksumValid, luhnValid } from '../../server/src/domain/detect/checksums.ts';

const seed = Number(process.argv[2] ?? 20261122);
const perType = Number(process.argv[3] ?? 12);

let state = seed >>> 0;
function random() {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
const pick = (list) => list[Math.floor(random() * list.length)];
const digits = (n) => Array.from({ length: n }, () => String(int(0, 9))).join('');
const pad = (n, width = 2) => String(n).padStart(width, '0');
const DIGITS = '0123456789';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Append the first check string from `alphabet` that makes `valid` accept body + check. */
function complete(body, alphabet, valid) {
  for (const c of alphabet) if (valid(body + c)) return body + c;
  return undefined;
}
function retry(make) {
  for (let k = 0; k < 500; k++) {
    const value = make();
    if (value !== undefined) return value;
  }
  throw new Error('generator could not produce a valid value');
}
const twoDigits = Array.from({ length: 100 }, (_, k) => pad(k));
function birth(yearLo = 1940, yearHi = 2004) {
  return { y: int(yearLo, yearHi), m: int(1, 12), d: int(1, 28) };
}

// Each generator returns [print form, compact form]; `strong` marks print forms distinctive enough
// to be found without a context word.
const GENERATORS = {
  us_itin: () => { const s = `9${digits(2)}-${pick(['70', '78', '84', '93'].filter((g) => g !== '93'))}-${digits(4)}`; return [s, s.replace(/-/g, '')]; },
  us_ein: () => retry(() => { const s = `${pick(['12', '20', '45', '61', '94'])}-${digits(7)}`; return v.usEinValid(s.replace('-', '')) ? [s, s.replace('-', '')] : undefined; }),
  us_passport: () => { const s = pick([digits(9).replace(/^0/, '5'), `${pick(['A', 'C', 'E'])}${digits(8)}`]); return [s, s]; },
  us_npi: () => retry(() => { const c = complete(`1${digits(8)}`, DIGITS, v.npiValid); return c && [c, c]; }),
  us_mbi: () => {
    const letters = 'ACDEFGHJKMNPQRTUVWXY';
    const s = `${int(1, 9)}${pick(letters)}${pick(letters)}${int(0, 9)}-${pick(letters)}${pick(letters)}${int(0, 9)}-${pick(letters)}${pick(letters)}${int(0, 9)}${int(0, 9)}`;
    return [s, s.replace(/-/g, '')];
  },
  aba_routing: () => retry(() => { const c = complete(`0${int(1, 9)}${digits(6)}`, DIGITS, v.abaRoutingValid); return c && [c, c]; }),
  uk_nino: () => { const p = `${pick('ABCEGHJKLMNOPRSTWXYZ')}${pick('ABCEGHJKLMNPRSTWXYZ')}`; const d = digits(6); const s = pick([`${p} ${d.slice(0, 2)} ${d.slice(2, 4)} ${d.slice(4)} ${pick('ABCD')}`, `${p}${d}${pick('ABCD')}`]); return v.ukNinoValid(s.replace(/ /g, '')) ? [s, s.replace(/ /g, '')] : GENERATORS.uk_nino(); },
  uk_nhs: () => retry(() => { const c = complete(digits(9), DIGITS, v.nhsValid); return c && [`${c.slice(0, 3)} ${c.slice(3, 6)} ${c.slice(6)}`, c]; }),
  uk_passport: () => { const s = `${int(1, 9)}${digits(8)}`; return [s, s]; },
  ie_pps: () => retry(() => { const c = complete(digits(7), UPPER, v.iePpsValid); return c && [c, c]; }),
  de_tax_id: () => retry(() => {
    const pool = [...'0123456789'].sort(() => random() - 0.5);
    const ten = [pool[0] === '0' ? pool[1] : pool[0], ...pool.slice(2, 10)];
    ten.splice(int(1, 8), 0, ten[int(1, 7)]);
    const c = complete(ten.join('').slice(0, 10), DIGITS, v.deTaxIdValid);
    return c && [pick([c, `${c.slice(0, 2)} ${c.slice(2, 5)} ${c.slice(5, 8)} ${c.slice(8)}`]), c];
  }),
  fr_nir: () => retry(() => {
    const body = `${pick('12')}${pad(int(40, 99))}${pad(int(1, 12))}${pad(int(1, 95))}${digits(3)}${digits(3)}`;
    const c = complete(body, twoDigits, v.frNirValid);
    return c && [pick([`${c[0]} ${c.slice(1, 3)} ${c.slice(3, 5)} ${c.slice(5, 7)} ${c.slice(7, 10)} ${c.slice(10, 13)} ${c.slice(13)}`, c]), c];
  }),
  fr_siren: () => retry(() => { const c = complete(`${int(1, 9)}${digits(7)}`, DIGITS, v.sirenValid); return c && [pick([c, `${c.slice(0, 3)} ${c.slice(3, 6)} ${c.slice(6)}`]), c]; }),
  fr_siret: () => retry(() => {
    const siren = complete(`${int(1, 9)}${digits(7)}`, DIGITS, v.sirenValid);
    const c = siren && complete(`${siren}${digits(4)}`, DIGITS, v.siretValid);
    return c && [pick([c, `${c.slice(0, 3)} ${c.slice(3, 6)} ${c.slice(6, 9)} ${c.slice(9)}`]), c];
  }),
  es_dni: () => { const c = complete(digits(8), UPPER, v.esDniValid); return [pick([c, `${c.slice(0, 8)}-${c[8]}`]), c]; },
  es_nie: () => { const c = complete(`${pick('XYZ')}${digits(7)}`, UPPER, v.esNieValid); return [c, c]; },
  it_fiscal_code: () => retry(() => {
    const b = birth();
    const body = `${Array.from({ length: 6 }, () => pick(UPPER)).join('')}${pad(b.y % 100)}${'ABCDEHLMPRST'[b.m - 1]}${pad(b.d + pick([0, 40]))}${pick(UPPER)}${digits(3)}`;
    const c = complete(body, UPPER, v.itFiscalCodeValid);
    return c && [c, c];
  }),
  nl_bsn: () => retry(() => { const c = complete(`${int(1, 9)}${digits(7)}`, DIGITS, v.nlBsnValid); return c && [pick([c, `${c.slice(0, 4)}.${c.slice(4, 6)}.${c.slice(6)}`]), c]; }),
  be_national_number: () => retry(() => {
    const b = birth(1940, 1999);
    const c = complete(`${pad(b.y % 100)}${pad(b.m)}${pad(b.d)}${digits(3)}`, twoDigits, v.beNationalNumberValid);
    return c && [pick([c, `${c.slice(0, 2)}.${c.slice(2, 4)}.${c.slice(4, 6)}-${c.slice(6, 9)}.${c.slice(9)}`]), c];
  }),
  pt_nif: () => retry(() => { const c = complete(`${pick('12356')}${digits(7)}`, DIGITS, v.ptNifValid); return c && [c, c]; }),
  pl_pesel: () => retry(() => {
    const b = birth(1940, 2010);
    const month = b.y >= 2000 ? b.m + 20 : b.m;
    const c = complete(`${pad(b.y % 100)}${pad(month)}${pad(b.d)}${digits(4)}`, DIGITS, v.plPeselValid);
    return c && [c, c];
  }),
  se_personnummer: () => retry(() => {
    const b = birth();
    const c = complete(`${pad(b.y % 100)}${pad(b.m)}${pad(b.d)}${digits(3)}`, DIGITS, v.sePersonnummerValid);
    return c && [pick([`${c.slice(0, 6)}-${c.slice(6)}`, `${b.y}${pad(b.m)}${pad(b.d)}-${c.slice(6)}`]), c];
  }),
  fi_hetu: () => retry(() => {
    const b = birth(1940, 2010);
    const c = complete(`${pad(b.d)}${pad(b.m)}${pad(b.y % 100)}${b.y >= 2000 ? 'A' : '-'}${pad(int(2, 899), 3)}`, '0123456789ABCDEFHJKLMNPRSTUVWXY', v.fiHetuValid);
    return c && [c, c];
  }),
  dk_cpr: () => { const b = birth(1940, 1999); const s = `${pad(b.d)}${pad(b.m)}${pad(b.y % 100)}-${int(0, 3)}${digits(3)}`; return [s, s.replace('-', '')]; },
  no_fodselsnummer: () => retry(() => {
    const b = birth(1940, 1999);
    const c = complete(`${pad(b.d)}${pad(b.m)}${pad(b.y % 100)}${int(0, 4)}${digits(2)}`, twoDigits, v.noFodselsnummerValid);
    return c && [pick([c, `${c.slice(0, 6)} ${c.slice(6)}`]), c];
  }),
  ch_ahv: () => { const c = complete(`756${digits(9)}`, DIGITS, v.chAhvValid); return [pick([`${c.slice(0, 3)}.${c.slice(3, 7)}.${c.slice(7, 11)}.${c.slice(11)}`, c]), c]; },
  in_aadhaar: () => retry(() => { const c = complete(`${int(2, 9)}${digits(10)}`, DIGITS, v.aadhaarValid); return c && [pick([c, `${c.slice(0, 4)} ${c.slice(4, 8)} ${c.slice(8)}`]), c]; }),
  in_pan: () => { const s = `${pick(UPPER)}${pick(UPPER)}${pick(UPPER)}${pick('PCHFAT')}${pick(UPPER)}${int(1000, 9999)}${pick(UPPER)}`; return [s, s]; },
  au_tfn: () => retry(() => { const c = complete(`${int(1, 9)}${digits(7)}`, DIGITS, v.auTfnValid); return c && [pick([c, `${c.slice(0, 3)} ${c.slice(3, 6)} ${c.slice(6)}`]), c]; }),
  au_medicare: () => retry(() => {
    const body = `${int(2, 6)}${digits(7)}`;
    const c = complete(body, DIGITS, (x) => x.length === 9 && v.auMedicareValid(`${x}1`));
    return c && [`${c.slice(0, 4)} ${c.slice(4, 9)} ${int(1, 9)}`, c];
  }),
  au_abn: () => retry(() => { const c = complete(`${int(1, 9)}${digits(9)}`, DIGITS, v.auAbnValid); return c && [`${c.slice(0, 2)} ${c.slice(2, 5)} ${c.slice(5, 8)} ${c.slice(8)}`, c]; }),
  au_acn: () => retry(() => { const c = complete(`0${digits(7)}`, DIGITS, v.auAcnValid); return c && [`${c.slice(0, 3)} ${c.slice(3, 6)} ${c.slice(6)}`, c]; }),
  sg_nric: () => retry(() => { const c = complete(`${pick('STFG')}${digits(7)}`, UPPER, v.sgNricValid); return c && [c, c]; }),
  kr_rrn: () => retry(() => {
    const b = birth(1940, 2004);
    const c = complete(`${pad(b.y % 100)}${pad(b.m)}${pad(b.d)}${b.y >= 2000 ? pick('34') : pick('12')}${pad(int(0, 96))}${digits(3)}`, DIGITS, v.krRrnValid);
    return c && [`${c.slice(0, 6)}-${c.slice(6)}`, c];
  }),
  cn_resident_id: () => retry(() => {
    const b = birth();
    const c = complete(`${pick(['110105', '310101', '440305', '320102', '510104'])}${b.y}${pad(b.m)}${pad(b.d)}${digits(3)}`, `${DIGITS}X`, v.cnResidentIdValid);
    return c && [c, c];
  }),
  jp_my_number: () => retry(() => { const c = complete(`${int(1, 9)}${digits(10)}`, DIGITS, v.jpMyNumberValid); return c && [pick([c, `${c.slice(0, 4)} ${c.slice(4, 8)} ${c.slice(8)}`]), c]; }),
  br_cpf: () => retry(() => { const c = complete(digits(9), twoDigits, v.brCpfValid); return c && [pick([`${c.slice(0, 3)}.${c.slice(3, 6)}.${c.slice(6, 9)}-${c.slice(9)}`, c]), c]; }),
  br_cnpj: () => retry(() => { const c = complete(`${digits(8)}0001`, twoDigits, v.brCnpjValid); return c && [`${c.slice(0, 2)}.${c.slice(2, 5)}.${c.slice(5, 8)}/${c.slice(8, 12)}-${c.slice(12)}`, c]; }),
  ca_sin: () => retry(() => { const c = complete(`${pick('1234567')}${digits(7)}`, DIGITS, v.caSinValid); return c && [pick([c, `${c.slice(0, 3)} ${c.slice(3, 6)} ${c.slice(6)}`, `${c.slice(0, 3)}-${c.slice(3, 6)}-${c.slice(6)}`]), c]; }),
  mx_curp: () => retry(() => {
    const b = birth(1940, 1999);
    const states = ['AS', 'BC', 'DF', 'JC', 'NL', 'PL', 'VZ', 'YN'];
    const body = `${Array.from({ length: 4 }, () => pick(UPPER)).join('')}${pad(b.y % 100)}${pad(b.m)}${pad(b.d)}${pick('HM')}${pick(states)}${Array.from({ length: 3 }, () => pick('BCDFGHJKLMNPRSTVXZ')).join('')}${int(0, 9)}`;
    const c = complete(body, DIGITS, v.mxCurpValid);
    return c && [c, c];
  }),
  vin: () => retry(() => {
    const chars = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';
    const body = `${pick('12345')}${pick('FGHNT')}${Array.from({ length: 6 }, () => pick(chars)).join('')}`;
    const tail = `${pick('ABCDEFGHJKLMNPRSTVWXY123456789')}${pick(UPPER.replace(/[IOQ]/g, ''))}${digits(6)}`;
    for (const check of `${DIGITS}X`) if (v.vinValid(body + check + tail)) return [body + check + tail, body + check + tail];
    return undefined;
  }),
  imei: () => retry(() => { const c = complete(`${pick(['35', '86', '01', '49'])}${digits(12)}`, DIGITS, v.imeiValid); return c && [pick([c, `${c.slice(0, 2)}-${c.slice(2, 8)}-${c.slice(8, 14)}-${c[14]}`]), c]; }),
  eu_vat: () => retry(() => {
    const country = pick(['DE', 'FR', 'IT', 'NL', 'BE', 'AT', 'ES', 'PL', 'PT', 'SE', 'DK', 'FI']);
    const bodies = {
      DE: () => complete(`${int(1, 9)}${digits(7)}`, DIGITS, (x) => v.vatValid(`DE${x}`)),
      FR: () => { const siren = complete(`${int(1, 9)}${digits(7)}`, DIGITS, v.sirenValid); return siren && complete('', twoDigits.map((k) => k + siren), (x) => v.vatValid(`FR${x}`)); },
      IT: () => complete(`${digits(7)}${pad(int(1, 99), 3)}`, DIGITS, (x) => v.vatValid(`IT${x}`)),
      NL: () => { const bsn = complete(`${int(1, 9)}${digits(7)}`, DIGITS, v.nlBsnValid); return bsn && `${bsn}B0${int(1, 9)}`; },
      BE: () => complete(`0${int(2, 9)}${digits(6)}`, twoDigits, (x) => v.vatValid(`BE${x}`)),
      AT: () => complete(`U${digits(7)}`, DIGITS, (x) => v.vatValid(`AT${x}`)),
      ES: () => complete(`${pick('ABG')}${digits(7)}`, DIGITS, (x) => v.vatValid(`ES${x}`)),
      PL: () => complete(`${int(1, 9)}${digits(8)}`, DIGITS, (x) => v.vatValid(`PL${x}`)),
      PT: () => complete(`5${digits(7)}`, DIGITS, (x) => v.vatValid(`PT${x}`)),
      SE: () => { const c = complete(`5${digits(8)}`, DIGITS, v.luhn); return c && `${c}01`; },
      DK: () => complete(`${int(1, 9)}${digits(6)}`, DIGITS, (x) => v.vatValid(`DK${x}`)),
      FI: () => complete(`${digits(7)}`, DIGITS, (x) => v.vatValid(`FI${x}`)),
    };
    const body = bodies[country]();
    if (body === undefined || !v.vatValid(country + body)) return undefined;
    return [pick([country + body, `${country} ${body}`]), country + body];
  }),
};

// Context labels per type and language (what forms and letters print before the value).
const LABELS = {
  us_itin: { en: ['ITIN', 'Individual Taxpayer Identification Number'] },
  us_ein: { en: ['EIN', 'Employer Identification Number', 'FEIN'] },
  us_passport: { en: ['US passport', 'Passport No.', 'passport number'] },
  us_npi: { en: ['NPI', 'National Provider Identifier', 'NPI number'] },
  us_mbi: { en: ['Medicare Beneficiary Identifier', 'MBI', 'Medicare number'] },
  aba_routing: { en: ['ABA routing number', 'Routing number', 'RTN'] },
  uk_nino: { en: ['National Insurance number', 'NINO', 'NI number'] },
  uk_nhs: { en: ['NHS number', 'NHS No.'] },
  uk_passport: { en: ['UK passport number', 'British passport no.', 'HM Passport number'] },
  ie_pps: { en: ['PPS number', 'PPSN'] },
  de_tax_id: { de: ['Steuer-ID', 'Steueridentifikationsnummer', 'Steuerliche Identifikationsnummer'], en: ['German tax ID'] },
  fr_nir: { fr: ['Numéro de sécurité sociale', 'NIR', 'N° de sécu'], en: ['French social security number'] },
  fr_siren: { fr: ['SIREN', 'N° SIREN', 'RCS Paris'], en: ['company SIREN'] },
  fr_siret: { fr: ['SIRET', 'N° SIRET'] },
  es_dni: { es: ['DNI', 'Documento Nacional de Identidad', 'NIF'] },
  es_nie: { es: ['NIE', 'Número de Identidad de Extranjero'] },
  it_fiscal_code: { it: ['Codice fiscale', 'C.F.'] },
  nl_bsn: { nl: ['BSN', 'Burgerservicenummer', 'sofinummer'] },
  be_national_number: { nl: ['Rijksregisternummer'], fr: ['Numéro de registre national'] },
  pt_nif: { pt: ['NIF', 'Número de contribuinte', 'contribuinte n.º'] },
  pl_pesel: { pl: ['PESEL', 'numer PESEL'], en: ['PESEL'] },
  se_personnummer: { sv: ['Personnummer', 'personnr'], en: ['Swedish personal number'] },
  fi_hetu: { fi: ['Henkilötunnus', 'HETU'], en: ['Finnish personal identity code'] },
  dk_cpr: { da: ['CPR-nr.', 'CPR-nummer'], en: ['CPR'] },
  no_fodselsnummer: { nb: ['Fødselsnummer', 'fnr.'], en: ['Norwegian national identity number (fødselsnummer)'] },
  ch_ahv: { de: ['AHV-Nummer', 'AHV-Nr.'], fr: ['Numéro AVS'] },
  in_aadhaar: { en: ['Aadhaar', 'Aadhaar number', 'UIDAI number'] },
  in_pan: { en: ['PAN', 'PAN card', 'Permanent Account Number'] },
  au_tfn: { en: ['TFN', 'Tax File Number'] },
  au_medicare: { en: ['Medicare card', 'Medicare number'] },
  au_abn: { en: ['ABN', 'Australian Business Number'] },
  au_acn: { en: ['ACN', 'Australian Company Number'] },
  sg_nric: { en: ['NRIC', 'NRIC/FIN'] },
  kr_rrn: { ko: ['주민등록번호'], en: ['Resident Registration Number', 'RRN'] },
  cn_resident_id: { zh: ['身份证号码', '身份证号'], en: ['Resident ID card'] },
  jp_my_number: { ja: ['マイナンバー', '個人番号'], en: ['My Number'] },
  br_cpf: { pt: ['CPF', 'CPF/MF', 'inscrito no CPF sob o nº'] },
  br_cnpj: { pt: ['CNPJ', 'inscrita no CNPJ sob o nº'] },
  ca_sin: { en: ['SIN', 'Social Insurance Number'], fr: ["Numéro d'assurance sociale"] },
  mx_curp: { es: ['CURP', 'Clave Única de Registro de Población'] },
  vin: { en: ['VIN', 'Vehicle Identification Number'], de: ['Fahrgestellnummer', 'FIN'], fr: ['Numéro VIN'], es: ['Número de bastidor'] },
  imei: { en: ['IMEI', 'IMEI number'], de: ['IMEI-Nummer'], es: ['Número IMEI'] },
  eu_vat: { en: ['VAT number', 'VAT ID'], de: ['USt-IdNr.', 'Umsatzsteuer-ID'], fr: ['N° TVA intracommunautaire'], it: ['Partita IVA'], nl: ['BTW-nummer'], es: ['NIF-IVA'], pt: ['NIF'] },
};

// Types whose print forms stand on their own (found without a context word at the default threshold).
const STANDALONE = {
  us_itin: (s) => s.includes('-'), us_ein: (s) => s.includes('-'), us_mbi: () => true, uk_nino: () => true, es_dni: () => true,
  es_nie: () => true, it_fiscal_code: () => true, be_national_number: (s) => s.includes('.'), fr_nir: (s) => s.includes(' ') || s.length === 15,
  ch_ahv: () => true, fi_hetu: () => true, sg_nric: () => true, kr_rrn: () => true, cn_resident_id: () => true, br_cpf: (s) => s.includes('.'),
  br_cnpj: () => true, mx_curp: () => true, vin: () => true, imei: (s) => s.includes('-'), eu_vat: () => true, in_pan: () => true,
  no_fodselsnummer: () => true, au_abn: (s) => s.includes(' '), au_medicare: () => true, se_personnummer: (s) => s.length === 13,
  fr_siret: (s) => s.includes(' '), nl_bsn: (s) => s.includes('.'),
};

const TEMPLATES = {
  en: ['{label}: {value}', 'Please update the record: {label} {value}, thanks.', 'The form lists {label} {value} for the applicant.', '{label} ({value}) was verified on file.'],
  de: ['{label}: {value}', 'Bitte prüfen Sie die Angaben, {label} {value}, danke.', 'Im Formular steht {label} {value}.'],
  fr: ['{label} : {value}', 'Merci de vérifier le dossier, {label} {value}.', 'Le formulaire indique {label} {value}.'],
  es: ['{label}: {value}', 'Por favor, revise el expediente: {label} {value}.', 'En el formulario figura {label} {value}.'],
  it: ['{label}: {value}', 'Si prega di verificare: {label} {value}.', 'Nel modulo risulta {label} {value}.'],
  nl: ['{label}: {value}', 'Controleer het dossier, {label} {value}, bedankt.', 'Op het formulier staat {label} {value}.'],
  pt: ['{label}: {value}', 'Por favor, confirme o cadastro: {label} {value}.', 'No formulário consta {label} {value}.'],
  pl: ['{label}: {value}', 'Proszę sprawdzić dane: {label} {value}.'],
  sv: ['{label}: {value}', 'Kontrollera uppgifterna: {label} {value}.'],
  fi: ['{label}: {value}', 'Tarkista tiedot: {label} {value}.'],
  da: ['{label}: {value}', 'Kontrollér oplysningerne: {label} {value}.'],
  nb: ['{label}: {value}', 'Kontroller opplysningene: {label} {value}.'],
  ko: ['{label}: {value}', '{label} {value} 확인 바랍니다.'],
  zh: ['{label}：{value}', '请核对{label} {value}。'],
  ja: ['{label}：{value}', '{label} {value} を確認してください。'],
};
const NEUTRAL = ['Ref. {value} attached to the case.', 'Record {value} was updated yesterday.', 'See {value} in the attached file.'];

const records = [];
let counter = 0;
function add(lang, text, entities, negative = false) {
  records.push({ id: `cc-${counter++}`, lang, domain: negative ? 'negative' : 'catalog', negative, text, entities });
}
/** Record with `value` placed into `template`; spans in code points. */
function place(lang, template, type, value, label = '') {
  const filled = template.replace('{label}', label);
  const at = filled.indexOf('{value}');
  const text = filled.replace('{value}', value);
  const start = [...filled.slice(0, at)].length;
  add(lang, text, type === undefined ? [] : [{ type, start, end: start + [...value].length }], type === undefined);
}

for (const [type, make] of Object.entries(GENERATORS)) {
  const labels = LABELS[type];
  const langs = Object.keys(labels);
  for (let k = 0; k < perType; k++) {
    const [printed] = make();
    const lang = langs[k % langs.length];
    place(lang, pick(TEMPLATES[lang]), type, printed, pick(labels[lang]));
  }
  const standalone = STANDALONE[type];
  if (standalone !== undefined) {
    let made = 0;
    for (let k = 0; k < 50 && made < Math.ceil(perType / 3); k++) {
      const [printed] = make();
      if (!standalone(printed)) continue;
      place('en', pick(NEUTRAL), type, printed);
      made++;
    }
  }
}

// Phones: libphonenumber example mobile numbers of 28 countries, varied and re-validated,
// international form always, national form with the country's language hint.
const PHONE_COUNTRIES = {
  US: 'en', GB: 'en-GB', DE: 'de', FR: 'fr', ES: 'es', IT: 'it', NL: 'nl', PT: 'pt', BR: 'pt-BR', PL: 'pl', SE: 'sv', DK: 'da', FI: 'fi',
  NO: 'nb', CH: 'de-CH', AT: 'de-AT', BE: 'nl-BE', IE: 'en-IE', AU: 'en-AU', IN: 'en-IN', JP: 'ja', KR: 'ko', CN: 'zh', MX: 'es-MX',
  CA: 'en-CA', SG: 'en-SG', CZ: 'cs', GR: 'el',
};
const PHONE_WORDS = { en: 'Phone', de: 'Telefon', fr: 'Téléphone', es: 'Teléfono', it: 'Telefono', nl: 'Telefoon', pt: 'Telefone', pl: 'Telefon', sv: 'Telefon', da: 'Telefon', fi: 'Puhelin', nb: 'Telefon', ja: '電話', ko: '전화', zh: '电话', cs: 'Telefon', el: 'Τηλέφωνο' };
for (const [country, lang] of Object.entries(PHONE_COUNTRIES)) {
  const example = getExampleNumber(country, examples);
  if (example === undefined) continue;
  for (let k = 0; k < 3; k++) {
    const national = example.nationalNumber;
    const varied = national.slice(0, -3) + digits(3);
    const phone = parsePhoneNumberFromString(`+${example.countryCallingCode}${varied}`);
    if (phone === undefined || !phone.isValid()) continue;
    const word = PHONE_WORDS[lang.split('-')[0]] ?? 'Phone';
    place(lang, `${word}: {value}`, 'phone', phone.formatInternational());
    if (k === 0) place(lang, `${word}: {value}`, 'phone', phone.formatNational());
  }
}

// Core types in forms the dev corpus lacks: IDN emails, connection strings, multilingual dates,
// more secret formats.
const IDN_EMAILS = ['jörg.müller@bücher.de', 'anaïs@société.fr', 'josé.garcía@correo.es', '用户@例子.中国', 'иван@пример.рф', 'zoë@voorbeeld.nl'];
for (const email of IDN_EMAILS) place('en', 'Write to {value} for details.', 'email', email);
const CONNECTIONS = [
  () => `postgres://app_${digits(2)}:${digits(4)}Xy!q@db${int(1, 9)}.internal:5432/prod`,
  () => `mongodb+srv://admin:Pa55w0rd${digits(3)}@cluster0.ab${digits(3)}.mongodb.net/test`,
  () => `redis://:s3cr3t${digits(4)}@cache.internal:6379/0`,
  () => `mysql://root:hunter${digits(3)}@10.0.${int(0, 9)}.${int(1, 250)}:3306/shop`,
  () => `amqp://guest:gu3st${digits(3)}@mq.example.com:5672/vhost`,
  () => `jdbc:postgresql://report:R3port${digits(2)}@pg.example.org:5432/bi`,
  () => `https://deploy:tok${digits(6)}@git.example.com/org/repo.git`,
];
for (const make of CONNECTIONS) for (let k = 0; k < 3; k++) place('en', pick(['DATABASE_URL={value}', 'connect with {value} then run the migration', 'url: "{value}"']), 'connection_string', make());
const DATE_FORMS = {
  en: () => `${pick(['March', 'July', 'October'])} ${int(1, 28)}, ${int(1950, 2020)}`,
  de: () => `${int(1, 28)}. ${pick(['März', 'Juli', 'Oktober', 'Dezember'])} ${int(1950, 2020)}`,
  fr: () => `${int(1, 28)} ${pick(['mars', 'juillet', 'octobre', 'décembre'])} ${int(1950, 2020)}`,
  es: () => `${int(1, 28)} de ${pick(['marzo', 'julio', 'octubre', 'diciembre'])} de ${int(1950, 2020)}`,
  it: () => `${int(1, 28)} ${pick(['marzo', 'luglio', 'ottobre', 'dicembre'])} ${int(1950, 2020)}`,
  nl: () => `${int(1, 28)} ${pick(['maart', 'juli', 'oktober', 'december'])} ${int(1950, 2020)}`,
  pt: () => `${int(1, 28)} de ${pick(['março', 'julho', 'outubro', 'dezembro'])} de ${int(1950, 2020)}`,
  pl: () => `${int(1, 28)} ${pick(['marca', 'lipca', 'października', 'grudnia'])} ${int(1950, 2020)}`,
  sv: () => `${int(1, 28)} ${pick(['mars', 'juli', 'oktober', 'december'])} ${int(1950, 2020)}`,
  fi: () => `${int(1, 28)}. ${pick(['maaliskuuta', 'heinäkuuta', 'lokakuuta'])} ${int(1950, 2020)}`,
};
const DATE_TEMPLATES = { en: 'Signed on {value}.', de: 'Unterschrieben am {value}.', fr: 'Signé le {value}.', es: 'Firmado el {value}.', it: 'Firmato il {value}.', nl: 'Getekend op {value}.', pt: 'Assinado em {value}.', pl: 'Podpisano dnia {value}.', sv: 'Undertecknat den {value}.', fi: 'Allekirjoitettu {value}.' };
for (const [lang, make] of Object.entries(DATE_FORMS)) for (let k = 0; k < 4; k++) place(lang, DATE_TEMPLATES[lang], 'date', make());
const b64 = (n) => Array.from({ length: n }, () => pick('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789')).join('');
const hex = (n) => Array.from({ length: n }, () => pick('0123456789abcdef')).join('');
const SECRETS = [
  () => `ghp_${b64(36)}`, () => `glpat-${b64(20)}`, () => `xoxp-${digits(12)}-${digits(12)}-${b64(24)}`, () => `sk_live_${b64(24)}`,
  () => `sk-ant-api03-${b64(80)}`, () => `sk-proj-${b64(48)}`, () => `AIza${b64(35)}`, () => `AKIA${Array.from({ length: 16 }, () => pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')).join('')}`,
  () => `hvs.${b64(90)}`, () => `npm_${b64(36)}`, () => `hf_${b64(34)}`, () => `glc_${b64(40)}`, () => `NRAK-${Array.from({ length: 27 }, () => pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')).join('')}`,
  () => `sk-or-v1-${hex(64)}`, () => `sbp_${hex(40)}`, () => `dop_v1_${hex(64)}`, () => `shpat_${hex(32)}`, () => `PMAK-${hex(24)}-${hex(34)}`,
  () => `gsk_${b64(52)}`, () => `pypi-AgEIcHlwaS5vcmc${b64(60)}`, () => `SG.${b64(22)}.${b64(43)}`, () => `${digits(9)}:AA${b64(33)}`,
];
for (const make of SECRETS) for (let k = 0; k < 2; k++) place('en', pick(['export TOKEN={value}', 'client = Client("{value}")', 'leaked key {value} in the logs']), 'api_key', make());

// ---------------------------------------------------------------------------------------------
// Hard negatives

const negatives = [];
function negative(lang, text) {
  negatives.push({ id: `hn-${negatives.length}`, lang, domain: 'negative', negative: true, text, entities: [] });
}
const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-${pick('89ab')}${hex(3)}-${hex(12)}`;
for (let k = 0; k < 40; k++) {
  negative('en', `Release v${int(1, 20)}.${int(0, 40)}.${int(0, 99)} (build ${int(1000, 99999)}) ships with libfoo ${int(1, 9)}.${int(0, 9)}.${int(0, 9)}.${int(0, 9)}.${int(0, 9)}.`);
  negative('en', `Order #${digits(8)} and order ${int(100000000, 999999999)} shipped; invoice INV-${int(2019, 2025)}-${digits(6)}.`);
  negative('en', `commit ${hex(40)} sha256:${hex(64)} md5 ${hex(32)} request ${uuid()}`);
  negative('en', `ISBN 978-${int(0, 1)}-${digits(3)}-${digits(5)}-${int(0, 9)} and ISBN-10 ${digits(9)}X were cited.`);
  negative('en', `Tracking 1Z${Array.from({ length: 6 }, () => pick('0123456789ABCDEFGHJKLMNPRSTUVWXYZ')).join('')}${digits(10)}, USPS 9400 ${digits(4)} ${digits(4)} ${digits(4)} ${digits(4)} ${digits(2)}, FedEx ${digits(12)}.`);
  negative('en', `Timestamps: ${int(2019, 2025)}-${pad(int(1, 12))}-${pad(int(1, 28))}T${pad(int(0, 23))}:${pad(int(0, 59))}:${pad(int(0, 59))}Z, epoch ${int(1500000000, 1800000000)}, at ${pad(int(0, 23))}:${pad(int(0, 59))}:${pad(int(0, 59))}.`);
  negative('en', `Totals: $${int(1, 999)},${digits(3)}.${digits(2)}, ratio ${int(1, 9)}:${int(1, 9)}, ${int(1, 99)}.${digits(2)}% up, coordinates ${int(-80, 80)}.${digits(4)}, ${int(-170, 170)}.${digits(4)}.`);
  negative('en', `Part no. ${pick(UPPER)}${pick(UPPER)}-${digits(5)}-${pick(UPPER)}, SKU ${digits(12)}, lot ${pick(UPPER)}${digits(6)}, room ${int(100, 999)}.`);
}

/** Every validator that could claim a compact value: a mutated id must pass none of them. */
const ALL_VALIDATORS = Object.values(v).filter((fn) => typeof fn === 'function' && fn.name.endsWith('Valid'));
const claimedByAny = (compact) => ALL_VALIDATORS.some((fn) => fn(compact)) || luhnValid(compact, 0, compact.length) || ibanChecksumValid(compact);

/** Change one check character so the validator fails, keeping the print form. */
function breakCheck(printed, compact, valid) {
  for (let attempt = 0; attempt < 40; attempt++) {
    const last = printed.length - 1 - [...printed].reverse().findIndex((ch) => /[0-9A-Z]/.test(ch));
    const original = printed[last];
    const alphabet = /[0-9]/.test(original) ? DIGITS : UPPER;
    const replacement = pick([...alphabet].filter((ch) => ch !== original));
    const broken = printed.slice(0, last) + replacement + printed.slice(last + 1);
    const brokenCompact = compact.slice(0, -1) + replacement;
    if (!valid(brokenCompact) && !claimedByAny(brokenCompact)) return broken;
  }
  return undefined;
}
const CHECKED = {
  us_npi: v.npiValid, aba_routing: v.abaRoutingValid, uk_nhs: v.nhsValid, ie_pps: v.iePpsValid, de_tax_id: v.deTaxIdValid, fr_nir: v.frNirValid,
  fr_siren: v.sirenValid, fr_siret: v.siretValid, es_dni: v.esDniValid, es_nie: v.esNieValid, it_fiscal_code: v.itFiscalCodeValid, nl_bsn: v.nlBsnValid,
  be_national_number: v.beNationalNumberValid, pt_nif: v.ptNifValid, pl_pesel: v.plPeselValid, se_personnummer: v.sePersonnummerValid,
  fi_hetu: v.fiHetuValid, no_fodselsnummer: v.noFodselsnummerValid, ch_ahv: v.chAhvValid, in_aadhaar: v.aadhaarValid, au_tfn: v.auTfnValid,
  au_medicare: (x) => v.auMedicareValid(x.length === 9 ? `${x}1` : x), au_abn: v.auAbnValid, au_acn: v.auAcnValid, sg_nric: v.sgNricValid,
  kr_rrn: v.krRrnValid, cn_resident_id: v.cnResidentIdValid, jp_my_number: v.jpMyNumberValid, br_cpf: v.brCpfValid, br_cnpj: v.brCnpjValid,
  ca_sin: v.caSinValid, mx_curp: v.mxCurpValid, vin: v.vinValid, imei: v.imeiValid, eu_vat: v.vatValid,
};
for (const [type, valid] of Object.entries(CHECKED)) {
  const labels = LABELS[type];
  let made = 0;
  for (let k = 0; k < 40 && made < 4; k++) {
    const [printed, compact] = GENERATORS[type]();
    if (type === 'vin' || type === 'kr_rrn') continue; // VINs and new RRNs may lack a check: covered below without context
    const broken = breakCheck(printed, type === 'au_medicare' ? compact.slice(0, 9) : compact, valid);
    if (broken === undefined) continue;
    const lang = Object.keys(labels)[made % Object.keys(labels).length];
    negative(lang, pick(TEMPLATES[lang]).replace('{label}', pick(labels[lang])).replace('{value}', broken));
    made++;
  }
}
// Checksum look-alikes of the core types, with their context words.
for (let k = 0; k < 10; k++) {
  negative('en', `Card number 4${digits(3)} ${digits(4)} ${digits(4)} ${digits(4)}`.replace(/(\d)$/, (d) => d) + ' (declined)');
  negative('en', `Pay to IBAN DE${pad(int(10, 99))} ${digits(4)} ${digits(4)} ${digits(4)} ${digits(4)} ${digits(2)} today`);
  negative('en', `VIN ${pick('12345')}${pick('FGHNT')}${Array.from({ length: 15 }, () => pick('ABCDEFGHJKLMNPRSTUVWXYZ0123456789')).join('')}`);
}
// Keep only the card/IBAN/VIN look-alikes that really fail their checks.
const finalNegatives = negatives.filter((record) => {
  const card = /Card number ([\d ]+)/.exec(record.text);
  if (card) return !luhnValid(card[1].trim(), 0, card[1].trim().length);
  const iban = /IBAN (DE[\d ]+\d)/.exec(record.text);
  if (iban) return !ibanChecksumValid(iban[1].replace(/ /g, ''));
  const vin = /^VIN (\S+)$/.exec(record.text);
  if (vin) return !v.vinValid(vin[1]);
  return true;
});

const toLines = (list) => `${list.map((record) => JSON.stringify(record)).join('\n')}\n`;
writeFileSync(new URL('../../data/catalog-cases.jsonl', import.meta.url), toLines(records));
writeFileSync(new URL('../../data/hard-negatives.jsonl', import.meta.url), toLines(finalNegatives));
console.log(`catalog-cases: ${records.length} records; hard-negatives: ${finalNegatives.length} records`);
