// Check-digit and structure validators for national identifiers, tax and company numbers, device
// and vehicle ids. Each takes the compact value (separators removed, letters uppercase) and
// answers true only when the published algorithm accepts it: a checksum where the format has
// one, date validity for ids that embed a birth date, and the length / range tables. Pure and
// allocation-light: the scanner calls them only for candidates that already have the right shape.
import { dateValid } from './dates.js';

/**
 * Latest plausible birth year for ids that encode one with two digits: a reading that puts the
 * birth in the future is not a person's id. Read once at load (a plausibility bound, not logic
 * that needs an injected clock).
 */
const LATEST_BIRTH_YEAR = new Date().getUTCFullYear();

/** Digit value of the character at `index` (48..57 -> 0..9), -1 otherwise. */
function digitAt(value: string, index: number): number {
  const c = value.charCodeAt(index);
  return c >= 48 && c <= 57 ? c - 48 : -1;
}

/** True when every character of `value` is an ASCII digit (and there is at least one). */
export function allDigits(value: string): boolean {
  if (value.length === 0) return false;
  for (let k = 0; k < value.length; k++) if (digitAt(value, k) < 0) return false;
  return true;
}

function allSame(value: string): boolean {
  for (let k = 1; k < value.length; k++) if (value.charCodeAt(k) !== value.charCodeAt(0)) return false;
  return true;
}

function num(value: string, from: number, to: number): number {
  let result = 0;
  for (let k = from; k < to; k++) result = result * 10 + digitAt(value, k);
  return result;
}

/** Weighted digit sum over value[0, weights.length). */
function weighted(value: string, weights: readonly number[], offset = 0): number {
  let sum = 0;
  for (let k = 0; k < weights.length; k++) sum += digitAt(value, offset + k) * weights[k]!;
  return sum;
}

/** Luhn (ISO/IEC 7812-1) over a digit string. */
export function luhn(value: string): boolean {
  if (!allDigits(value)) return false;
  let sum = 0;
  let double = false;
  for (let k = value.length - 1; k >= 0; k--) {
    let d = digitAt(value, k);
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Remainder of a long digit string modulo m (no BigInt needed). */
export function modDigits(value: string, m: number): number {
  let remainder = 0;
  for (let k = 0; k < value.length; k++) remainder = (remainder * 10 + digitAt(value, k)) % m;
  return remainder;
}

/** ISO 7064 MOD 11,10 (German tax id, German and Croatian VAT): true when the last digit checks. */
export function iso7064Mod11_10(value: string): boolean {
  if (!allDigits(value) || value.length < 2) return false;
  let product = 10;
  for (let k = 0; k < value.length - 1; k++) {
    let sum = (digitAt(value, k) + product) % 10;
    if (sum === 0) sum = 10;
    product = (sum * 2) % 11;
  }
  let check = 11 - product;
  if (check === 10) check = 0;
  return check === digitAt(value, value.length - 1);
}

// Verhoeff (dihedral group D5) tables.
const VERHOEFF_D: readonly (readonly number[])[] = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
  [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
  [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
  [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
  [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
  [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
  [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
  [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
  [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
];
const VERHOEFF_P: readonly (readonly number[])[] = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
  [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
  [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
  [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
  [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
  [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
  [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
];

export function verhoeff(value: string): boolean {
  if (!allDigits(value)) return false;
  let c = 0;
  for (let k = 0; k < value.length; k++) {
    const d = digitAt(value, value.length - 1 - k);
    c = VERHOEFF_D[c]![VERHOEFF_P[k % 8]![d]!]!;
  }
  return c === 0;
}

/** EAN-13 / GTIN check digit (weights 1,3 from the left). */
export function ean13(value: string): boolean {
  if (value.length !== 13 || !allDigits(value)) return false;
  let sum = 0;
  for (let k = 0; k < 12; k++) sum += digitAt(value, k) * (k % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === digitAt(value, 12);
}

// ---------------------------------------------------------------------------------------------
// United States

/** ABA routing transit number: 9 digits, Federal Reserve prefix, 3-7-1 weighted checksum. */
export function abaRoutingValid(value: string): boolean {
  if (value.length !== 9 || !allDigits(value)) return false;
  const prefix = num(value, 0, 2);
  if (!(prefix <= 12 || (prefix >= 21 && prefix <= 32) || (prefix >= 61 && prefix <= 72) || prefix === 80)) return false;
  if (allSame(value)) return false;
  return weighted(value, [3, 7, 1, 3, 7, 1, 3, 7, 1]) % 10 === 0;
}

/** US SSN: never-issued areas 000, 666, 900-999; group 00 and serial 0000 are invalid. */
export function usSsnValid(value: string): boolean {
  if (value.length !== 9 || !allDigits(value)) return false;
  const area = num(value, 0, 3);
  if (area === 0 || area === 666 || area >= 900) return false;
  return num(value, 3, 5) !== 0 && num(value, 5, 9) !== 0;
}

/** US ITIN: area 9xx, group 50-65, 70-88, 90-92 or 94-99. */
export function usItinValid(value: string): boolean {
  if (value.length !== 9 || !allDigits(value) || value.charCodeAt(0) !== 57) return false;
  const group = num(value, 3, 5);
  return (group >= 50 && group <= 65) || (group >= 70 && group <= 88) || (group >= 90 && group <= 92) || group >= 94;
}

const EIN_PREFIXES: ReadonlySet<number> = new Set([
  1, 2, 3, 4, 5, 6, 10, 11, 12, 13, 14, 15, 16, 20, 21, 22, 23, 24, 25, 26, 27, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39,
  40, 41, 42, 43, 44, 45, 46, 47, 48, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 71,
  72, 73, 74, 75, 76, 77, 80, 81, 82, 83, 84, 85, 86, 87, 88, 90, 91, 92, 93, 94, 95, 98, 99,
]);

/** US EIN: 9 digits whose first two are an IRS campus prefix. */
export function usEinValid(value: string): boolean {
  if (value.length !== 9 || !allDigits(value)) return false;
  return EIN_PREFIXES.has(num(value, 0, 2)) && num(value, 2, 9) !== 0;
}

/** NPI: 10 digits starting 1 or 2, Luhn over "80840" + the number. */
export function npiValid(value: string): boolean {
  if (value.length !== 10 || !allDigits(value)) return false;
  const first = value.charCodeAt(0);
  if (first !== 49 && first !== 50) return false;
  return luhn(`80840${value}`);
}

/** Medicare Beneficiary Identifier (CMS MBI format): 11 characters, fixed digit/letter positions. */
export function mbiValid(value: string): boolean {
  if (value.length !== 11) return false;
  // Letters exclude S L O I B Z.
  const isLetter = (c: number): boolean => c >= 65 && c <= 90 && c !== 83 && c !== 76 && c !== 79 && c !== 73 && c !== 66 && c !== 90;
  const isDigitCode = (c: number): boolean => c >= 48 && c <= 57;
  const shape = 'NALNAANAANN'; // N digit (first 1-9), A letter, L letter or digit
  for (let k = 0; k < 11; k++) {
    const c = value.charCodeAt(k);
    const kind = shape.charCodeAt(k);
    if (kind === 78 /* N */) {
      if (!isDigitCode(c) || (k === 0 && c === 48)) return false;
    } else if (kind === 65 /* A */) {
      if (!isLetter(c)) return false;
    } else if (!isLetter(c) && !isDigitCode(c)) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// United Kingdom

const NINO_BAD_PREFIXES: ReadonlySet<string> = new Set(['BG', 'GB', 'KN', 'NK', 'NT', 'TN', 'ZZ']);

/** UK National Insurance number: prefix rules (HMRC), six digits, suffix A-D. */
export function ukNinoValid(value: string): boolean {
  if (value.length !== 9) return false;
  const a = value.charCodeAt(0);
  const b = value.charCodeAt(1);
  const upper = (c: number): boolean => c >= 65 && c <= 90;
  if (!upper(a) || !upper(b)) return false;
  if ('DFIQUV'.includes(value[0]!) || 'DFIOQUV'.includes(value[1]!)) return false;
  if (NINO_BAD_PREFIXES.has(value.slice(0, 2))) return false;
  for (let k = 2; k < 8; k++) if (digitAt(value, k) < 0) return false;
  const suffix = value.charCodeAt(8);
  return suffix >= 65 && suffix <= 68;
}

/** NHS number: 10 digits, mod 11 with weights 10..2 (a remainder giving 10 is never issued). */
export function nhsValid(value: string): boolean {
  if (value.length !== 10 || !allDigits(value) || allSame(value)) return false;
  const remainder = weighted(value, [10, 9, 8, 7, 6, 5, 4, 3, 2]) % 11;
  let check = 11 - remainder;
  if (check === 11) check = 0;
  if (check === 10) return false;
  return check === digitAt(value, 9);
}

// ---------------------------------------------------------------------------------------------
// Continental Europe

/** German tax identification number (Steuer-IdNr): 11 digits, digit-repetition rule, MOD 11,10. */
export function deTaxIdValid(value: string): boolean {
  if (value.length !== 11 || !allDigits(value) || value.charCodeAt(0) === 48) return false;
  const counts = new Array<number>(10).fill(0);
  for (let k = 0; k < 10; k++) counts[digitAt(value, k)]!++;
  // Exactly one digit appears twice or three times; the others at most once.
  let repeated = 0;
  for (const count of counts) {
    if (count > 3) return false;
    if (count >= 2) repeated++;
  }
  if (repeated !== 1) return false;
  // A digit used three times may not stand three times in a row.
  for (let k = 0; k + 2 < 10; k++) {
    if (value.charCodeAt(k) === value.charCodeAt(k + 1) && value.charCodeAt(k) === value.charCodeAt(k + 2)) return false;
  }
  return iso7064Mod11_10(value);
}

/** French social security number (NIR): 13 digits + 2-digit key = 97 - (number mod 97); Corsica 2A/2B. */
export function frNirValid(value: string): boolean {
  if (value.length !== 15) return false;
  const sex = value.charCodeAt(0);
  if (sex !== 49 && sex !== 50 && sex !== 51 && sex !== 52 && sex !== 55 && sex !== 56) return false;
  let body = value.slice(0, 13);
  const department = body.slice(5, 7);
  if (department === '2A') body = `${body.slice(0, 5)}19${body.slice(7)}`;
  else if (department === '2B') body = `${body.slice(0, 5)}18${body.slice(7)}`;
  if (!allDigits(body) || !allDigits(value.slice(13))) return false;
  const month = num(value, 3, 5);
  if (!((month >= 1 && month <= 12) || (month >= 20 && month <= 42) || (month >= 50 && month <= 99))) return false;
  const key = num(value, 13, 15);
  return key >= 1 && key <= 97 && 97 - modDigits(body, 97) === key;
}

/** SIREN: 9 digits, Luhn. */
export function sirenValid(value: string): boolean {
  return value.length === 9 && !allSame(value) && luhn(value);
}

/** SIRET: 14 digits, Luhn (La Poste establishments 356000000xxxxx: digit sum multiple of 5). */
export function siretValid(value: string): boolean {
  if (value.length !== 14 || !allDigits(value) || allSame(value)) return false;
  if (!sirenValid(value.slice(0, 9))) return false;
  if (value.startsWith('356000000')) {
    let sum = 0;
    for (let k = 0; k < 14; k++) sum += digitAt(value, k);
    return sum % 5 === 0;
  }
  return luhn(value);
}

const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';

/** Spanish DNI: 8 digits + check letter (number mod 23). */
export function esDniValid(value: string): boolean {
  if (value.length !== 9 || !allDigits(value.slice(0, 8))) return false;
  return DNI_LETTERS[num(value, 0, 8) % 23] === value[8];
}

/** Spanish NIE: X/Y/Z + 7 digits + check letter (X=0, Y=1, Z=2 prefixed). */
export function esNieValid(value: string): boolean {
  if (value.length !== 9) return false;
  const prefix = 'XYZ'.indexOf(value[0]!);
  if (prefix < 0 || !allDigits(value.slice(1, 8))) return false;
  return DNI_LETTERS[(prefix * 10_000_000 + num(value, 1, 8)) % 23] === value[8];
}

const CF_ODD: readonly number[] = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23];
const CF_MONTHS = 'ABCDEHLMPRST';
const CF_OMOCODE = 'LMNPQRSTUV';
/** Positions (0-based) that hold digits, which omocodia may replace with L..V. */
const CF_DIGIT_POSITIONS: readonly number[] = [6, 7, 9, 10, 12, 13, 14];

function cfValue(c: number): number {
  return c >= 48 && c <= 57 ? c - 48 : c - 65;
}

/** Italian codice fiscale (persons): 16 characters, month letter, day, omocodia, check letter. */
export function itFiscalCodeValid(value: string): boolean {
  if (value.length !== 16) return false;
  for (let k = 0; k < 16; k++) {
    const c = value.charCodeAt(k);
    if (!((c >= 65 && c <= 90) || (c >= 48 && c <= 57))) return false;
  }
  for (const k of [0, 1, 2, 3, 4, 5, 8, 11, 15]) {
    const c = value.charCodeAt(k);
    if (c < 65 || c > 90) return false;
  }
  // Digit positions: a digit, or its omocode letter.
  let plain = '';
  for (let k = 0; k < 16; k++) {
    const ch = value[k]!;
    if (CF_DIGIT_POSITIONS.includes(k) && (ch < '0' || ch > '9')) {
      const omocode = CF_OMOCODE.indexOf(ch);
      if (omocode < 0) return false;
      plain += String(omocode);
    } else plain += ch;
  }
  if (!CF_MONTHS.includes(plain[8]!)) return false;
  const day = num(plain, 9, 11);
  if (!((day >= 1 && day <= 31) || (day >= 41 && day <= 71))) return false;
  let sum = 0;
  for (let k = 0; k < 15; k++) {
    const v = cfValue(value.charCodeAt(k));
    sum += k % 2 === 0 ? CF_ODD[v]! : v;
  }
  return value.charCodeAt(15) === 65 + (sum % 26);
}

/** Dutch BSN: 9 digits, 11-test (9..2 weights, last digit weighted -1). */
export function nlBsnValid(value: string): boolean {
  if (value.length !== 9 || !allDigits(value) || allSame(value)) return false;
  const sum = weighted(value, [9, 8, 7, 6, 5, 4, 3, 2]) - digitAt(value, 8);
  return sum % 11 === 0 && sum > 0;
}

/** Birth-date plausibility for YYMMDD ids whose month may carry an offset (0 = unknown allowed). */
function twoDigitDateValid(yy: number, mm: number, dd: number, allowUnknown: boolean): boolean {
  if (allowUnknown && (mm === 0 || dd === 0)) return mm <= 12 && dd <= 31;
  // Either century: a YY date is valid when it is valid in 19YY or 20YY (leap days).
  return dateValid(1900 + yy, mm, dd) || dateValid(2000 + yy, mm, dd);
}

/** Belgian national register number: YYMMDD + 3-digit serial + 2-digit mod-97 check (2000+ rule). */
export function beNationalNumberValid(value: string): boolean {
  if (value.length !== 11 || !allDigits(value)) return false;
  const base = value.slice(0, 9);
  const check = num(value, 9, 11);
  const before2000 = 97 - modDigits(base, 97) === check;
  const after2000 = !before2000 && 2000 + num(value, 0, 2) <= LATEST_BIRTH_YEAR && 97 - modDigits(`2${base}`, 97) === check;
  if (!before2000 && !after2000) return false;
  let month = num(value, 2, 4);
  // Bis numbers add 20 or 40 to the month.
  if (month >= 40) month -= 40;
  else if (month >= 20) month -= 20;
  const day = num(value, 4, 6);
  const year = (after2000 ? 2000 : 1900) + num(value, 0, 2);
  if (month === 0 || day === 0) return month <= 12 && day <= 31;
  return dateValid(year, month, day);
}

/** Polish PESEL: YYMMDD with century in the month, 1-3-7-9 weighted check digit. */
export function plPeselValid(value: string): boolean {
  if (value.length !== 11 || !allDigits(value) || allSame(value)) return false;
  let month = num(value, 2, 4);
  let century = 1900;
  if (month > 80) {
    century = 1800;
    month -= 80;
  } else if (month > 60) {
    century = 2200;
    month -= 60;
  } else if (month > 40) {
    century = 2100;
    month -= 40;
  } else if (month > 20) {
    century = 2000;
    month -= 20;
  }
  if (!dateValid(century + num(value, 0, 2), month, num(value, 4, 6))) return false;
  const sum = weighted(value, [1, 3, 7, 9, 1, 3, 7, 9, 1, 3]);
  return (10 - (sum % 10)) % 10 === digitAt(value, 10);
}

/**
 * Swedish personnummer / samordningsnummer: 10 digits (YYMMDDNNNC) or 12 (YYYYMMDDNNNC); date
 * valid (coordination numbers add 60 to the day), Luhn over the 10-digit form.
 */
export function sePersonnummerValid(value: string): boolean {
  if (!allDigits(value) || (value.length !== 10 && value.length !== 12)) return false;
  const short = value.length === 12 ? value.slice(2) : value;
  const month = num(short, 2, 4);
  let day = num(short, 4, 6);
  if (day > 60) day -= 60;
  if (value.length === 12) {
    const year = num(value, 0, 4);
    if (year < 1800 || year > 2099 || !dateValid(year, month, day)) return false;
  } else if (!twoDigitDateValid(num(short, 0, 2), month, day, false)) return false;
  return luhn(short);
}

const HETU_CHECK = '0123456789ABCDEFHJKLMNPRSTUVWXY';
const HETU_CENTURY: Readonly<Record<string, number>> = {
  '+': 1800, '-': 1900, Y: 1900, X: 1900, W: 1900, V: 1900, U: 1900, A: 2000, B: 2000, C: 2000, D: 2000, E: 2000, F: 2000,
};

/** Finnish HETU: DDMMYY + century sign + 3-digit serial + check character (mod 31). */
export function fiHetuValid(value: string): boolean {
  if (value.length !== 11) return false;
  const century = HETU_CENTURY[value[6]!];
  if (century === undefined || !allDigits(value.slice(0, 6)) || !allDigits(value.slice(7, 10))) return false;
  if (!dateValid(century + num(value, 4, 6), num(value, 2, 4), num(value, 0, 2))) return false;
  const serial = num(value, 7, 10);
  if (serial < 2) return false;
  const number = num(value, 0, 6) * 1000 + serial;
  return HETU_CHECK[number % 31] === value[10];
}

/**
 * Danish CPR: DDMMYY + 4 digits with a valid, past birth date; the 7th digit fixes the century
 * (the mod-11 check was dropped in 2007).
 */
export function dkCprValid(value: string): boolean {
  if (value.length !== 10 || !allDigits(value)) return false;
  const yy = num(value, 4, 6);
  const g = digitAt(value, 6);
  let year: number;
  if (g >= 5 && g <= 8 && yy >= 58) year = 1800 + yy;
  else if (g <= 3 || ((g === 4 || g === 9) && yy >= 37)) year = 1900 + yy;
  else year = 2000 + yy;
  return year <= LATEST_BIRTH_YEAR && dateValid(year, num(value, 2, 4), num(value, 0, 2));
}

/** Danish CPR with the pre-2007 mod-11 check (weights 4,3,2,7,6,5,4,3,2,1). */
export function dkCprMod11(value: string): boolean {
  return dkCprValid(value) && weighted(value, [4, 3, 2, 7, 6, 5, 4, 3, 2, 1]) % 11 === 0;
}

/** Norwegian fødselsnummer (and D/H numbers): DDMMYY + 3 digits + two mod-11 check digits. */
export function noFodselsnummerValid(value: string): boolean {
  if (value.length !== 11 || !allDigits(value) || allSame(value)) return false;
  let day = num(value, 0, 2);
  let month = num(value, 2, 4);
  if (day > 40) day -= 40; // D-number
  if (month > 40) month -= 40; // H-number
  if (!twoDigitDateValid(num(value, 4, 6), month, day, false)) return false;
  let k1 = 11 - (weighted(value, [3, 7, 6, 1, 8, 9, 4, 5, 2]) % 11);
  if (k1 === 11) k1 = 0;
  if (k1 === 10 || k1 !== digitAt(value, 9)) return false;
  let k2 = 11 - (weighted(value, [5, 4, 3, 2, 7, 6, 5, 4, 3, 2]) % 11);
  if (k2 === 11) k2 = 0;
  return k2 !== 10 && k2 === digitAt(value, 10);
}

/** Swiss AHV/AVS number: 13 digits starting 756, EAN-13 check digit. */
export function chAhvValid(value: string): boolean {
  return value.length === 13 && value.startsWith('756') && ean13(value);
}

/** Portuguese NIF: 9 digits, known first digits, mod-11 check digit. */
export function ptNifValid(value: string): boolean {
  if (value.length !== 9 || !allDigits(value) || allSame(value)) return false;
  if (!'1235689'.includes(value[0]!) && !value.startsWith('45') && !value.startsWith('7')) return false;
  const remainder = weighted(value, [9, 8, 7, 6, 5, 4, 3, 2]) % 11;
  const check = remainder < 2 ? 0 : 11 - remainder;
  return check === digitAt(value, 8);
}

/** Irish PPS number: 7 digits, check letter (mod 23), optional second letter (A, B, H, W...). */
export function iePpsValid(value: string): boolean {
  if ((value.length !== 8 && value.length !== 9) || !allDigits(value.slice(0, 7))) return false;
  let sum = weighted(value, [8, 7, 6, 5, 4, 3, 2]);
  if (value.length === 9) {
    const second = value.charCodeAt(8);
    if (second === 87 /* W */) {
      // Old-style W suffix counts as zero.
    } else if (second >= 65 && second <= 90) sum += (second - 64) * 9;
    else return false;
  }
  return 'WABCDEFGHIJKLMNOPQRSTUV'[sum % 23] === value[7];
}

// ---------------------------------------------------------------------------------------------
// Asia-Pacific

/** Aadhaar: 12 digits, first 2-9, not a palindrome of one digit, Verhoeff check. */
export function aadhaarValid(value: string): boolean {
  if (value.length !== 12 || !allDigits(value)) return false;
  const first = value.charCodeAt(0);
  if (first < 50 || allSame(value)) return false;
  return verhoeff(value);
}

/** Indian PAN: 5 letters (4th the holder type), 4 digits, 1 letter. No checksum exists. */
export function inPanValid(value: string): boolean {
  if (value.length !== 10) return false;
  const letter = (k: number): boolean => {
    const c = value.charCodeAt(k);
    return c >= 65 && c <= 90;
  };
  for (const k of [0, 1, 2, 3, 4, 9]) if (!letter(k)) return false;
  for (let k = 5; k < 9; k++) if (digitAt(value, k) < 0) return false;
  if (!'ABCFGHJLPT'.includes(value[3]!)) return false;
  return num(value, 5, 9) !== 0;
}

/** Australian TFN: 8 or 9 digits, weighted mod 11. */
export function auTfnValid(value: string): boolean {
  if (!allDigits(value) || allSame(value)) return false;
  if (value.length === 9) return weighted(value, [1, 4, 3, 7, 5, 8, 6, 9, 10]) % 11 === 0;
  if (value.length === 8) return weighted(value, [10, 7, 8, 4, 6, 3, 5, 1]) % 11 === 0;
  return false;
}

/** Australian Medicare card: 10 digits (11 with the reference number), first 2-6, check digit. */
export function auMedicareValid(value: string): boolean {
  if ((value.length !== 10 && value.length !== 11) || !allDigits(value)) return false;
  const first = digitAt(value, 0);
  if (first < 2 || first > 6) return false;
  if (weighted(value, [1, 3, 7, 9, 1, 3, 7, 9]) % 10 !== digitAt(value, 8)) return false;
  return digitAt(value, 9) !== 0 && (value.length === 10 || digitAt(value, 10) !== 0);
}

/** Australian Business Number: 11 digits, subtract 1 from the first, weighted sum mod 89. */
export function auAbnValid(value: string): boolean {
  if (value.length !== 11 || !allDigits(value) || value.charCodeAt(0) === 48) return false;
  const weights = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19];
  let sum = (digitAt(value, 0) - 1) * weights[0]!;
  for (let k = 1; k < 11; k++) sum += digitAt(value, k) * weights[k]!;
  return sum % 89 === 0;
}

/** Australian Company Number: 9 digits, weights 8..1, complement mod 10. */
export function auAcnValid(value: string): boolean {
  if (value.length !== 9 || !allDigits(value) || allSame(value)) return false;
  const sum = weighted(value, [8, 7, 6, 5, 4, 3, 2, 1]);
  return (10 - (sum % 10)) % 10 === digitAt(value, 8);
}

/** Singapore NRIC / FIN: S T F G M + 7 digits + check letter. */
export function sgNricValid(value: string): boolean {
  if (value.length !== 9 || !allDigits(value.slice(1, 8))) return false;
  const prefix = value[0]!;
  let sum = weighted(value, [2, 7, 6, 5, 4, 3, 2], 1);
  let table: string;
  switch (prefix) {
    case 'S':
      table = 'JZIHGFEDCBA';
      break;
    case 'T':
      sum += 4;
      table = 'JZIHGFEDCBA';
      break;
    case 'F':
      table = 'XWUTRQPNMLK';
      break;
    case 'G':
      sum += 4;
      table = 'XWUTRQPNMLK';
      break;
    case 'M':
      sum += 3;
      table = 'XWUTRQPNJLK';
      break;
    default:
      return false;
  }
  return table[sum % 11] === value[8];
}

/** Korean resident registration number: YYMMDD + gender/century digit + 5 digits + check digit. */
export function krRrnStructureValid(value: string): boolean {
  if (value.length !== 13 || !allDigits(value)) return false;
  const g = digitAt(value, 6);
  const century = g === 9 || g === 0 ? 1800 : g <= 2 || g === 5 || g === 6 ? 1900 : 2000;
  // Digits 8-9 are the registration office, at most 96.
  if (num(value, 7, 9) > 96) return false;
  return dateValid(century + num(value, 0, 2), num(value, 2, 4), num(value, 4, 6));
}

/** Korean RRN with the pre-October-2020 check digit. */
export function krRrnValid(value: string): boolean {
  if (!krRrnStructureValid(value)) return false;
  const sum = weighted(value, [2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5]);
  return (11 - (sum % 11)) % 10 === digitAt(value, 12);
}

const CN_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];

/** Chinese resident identity card: 6-digit region, YYYYMMDD, 3-digit sequence, ISO 7064 MOD 11-2 check. */
export function cnResidentIdValid(value: string): boolean {
  if (value.length !== 18 || !allDigits(value.slice(0, 17))) return false;
  const region = digitAt(value, 0);
  if (region < 1 || region > 8) return false;
  const year = num(value, 6, 10);
  if (year < 1900 || year > 2099 || !dateValid(year, num(value, 10, 12), num(value, 12, 14))) return false;
  const sum = weighted(value, CN_WEIGHTS);
  return '10X98765432'[sum % 11] === value[17];
}

/** Japanese My Number (individual number): 12 digits, check digit per the Cabinet Office ordinance. */
export function jpMyNumberValid(value: string): boolean {
  if (value.length !== 12 || !allDigits(value) || allSame(value)) return false;
  let sum = 0;
  for (let n = 1; n <= 11; n++) {
    const p = digitAt(value, 11 - n);
    const q = n <= 6 ? n + 1 : n - 5;
    sum += p * q;
  }
  const remainder = sum % 11;
  const check = remainder <= 1 ? 0 : 11 - remainder;
  return check === digitAt(value, 11);
}

// ---------------------------------------------------------------------------------------------
// Americas

function twoModElevenDigits(value: string, length: number, first: readonly number[], second: readonly number[]): boolean {
  const d1sum = weighted(value, first) % 11;
  const d1 = d1sum < 2 ? 0 : 11 - d1sum;
  if (d1 !== digitAt(value, length - 2)) return false;
  const d2sum = weighted(value, second) % 11;
  const d2 = d2sum < 2 ? 0 : 11 - d2sum;
  return d2 === digitAt(value, length - 1);
}

/** Brazilian CPF: 11 digits, two mod-11 check digits, not one repeated digit. */
export function brCpfValid(value: string): boolean {
  if (value.length !== 11 || !allDigits(value) || allSame(value)) return false;
  return twoModElevenDigits(value, 11, [10, 9, 8, 7, 6, 5, 4, 3, 2], [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
}

/** Brazilian CNPJ: 14 digits, two mod-11 check digits. */
export function brCnpjValid(value: string): boolean {
  if (value.length !== 14 || !allDigits(value) || allSame(value)) return false;
  return twoModElevenDigits(value, 14, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2], [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
}

/** Canadian SIN: 9 digits, Luhn, first digit not 0 or 8. */
export function caSinValid(value: string): boolean {
  if (value.length !== 9 || !allDigits(value) || allSame(value)) return false;
  const first = value.charCodeAt(0);
  return first !== 48 && first !== 56 && luhn(value);
}

const CURP_ALPHABET = '0123456789ABCDEFGHIJKLMNÑOPQRSTUVWXYZ';
const CURP_STATES: ReadonlySet<string> = new Set(
  'AS BC BS CC CL CM CS CH DF DG GT GR HG JC MC MN MS NT NL OC PL QT QR SP SL SR TC TS TL VZ YN ZS NE'.split(' '),
);

/** Mexican CURP: 18 characters, birth date, sex, state, consonants, check digit. */
export function mxCurpValid(value: string): boolean {
  if (value.length !== 18) return false;
  const letter = (k: number): boolean => {
    const c = value.charCodeAt(k);
    return c >= 65 && c <= 90;
  };
  for (let k = 0; k < 4; k++) if (!letter(k)) return false;
  if (!allDigits(value.slice(4, 10)) || !allDigits(value.slice(17))) return false;
  const sex = value[10]!;
  if (sex !== 'H' && sex !== 'M' && sex !== 'X') return false;
  if (!CURP_STATES.has(value.slice(11, 13))) return false;
  for (let k = 13; k < 16; k++) if (!letter(k)) return false;
  const differentiator = value.charCodeAt(16);
  const centuryDigit = differentiator >= 48 && differentiator <= 57;
  if (!centuryDigit && !letter(16)) return false;
  const year = (centuryDigit ? 1900 : 2000) + num(value, 4, 6);
  if (!dateValid(year, num(value, 6, 8), num(value, 8, 10))) return false;
  let sum = 0;
  for (let k = 0; k < 17; k++) {
    const v = CURP_ALPHABET.indexOf(value[k]!);
    if (v < 0) return false;
    sum += v * (18 - k);
  }
  return (10 - (sum % 10)) % 10 === digitAt(value, 17);
}

// ---------------------------------------------------------------------------------------------
// Vehicles and devices

const VIN_WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];

function vinValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  // A-H 1-8, J-N 1-5, P 7, R 9, S-Z 2-9 (I, O, Q are not used).
  const table = '12345678-12345-7-923456789';
  const index = c - 65;
  if (index < 0 || index >= 26) return -1;
  const ch = table[index]!;
  return ch === '-' ? -1 : Number(ch);
}

/** VIN shape: 17 characters from [A-HJ-NPR-Z0-9] with at least one letter and one digit. */
export function vinShapeValid(value: string): boolean {
  if (value.length !== 17) return false;
  let letters = 0;
  let digits = 0;
  for (let k = 0; k < 17; k++) {
    const c = value.charCodeAt(k);
    if (vinValue(c) < 0) return false;
    if (c >= 65) letters++;
    else digits++;
  }
  // Model year (index 9) is never U, Z or 0; the last four are digits for most manufacturers.
  const year = value[9]!;
  if (year === 'U' || year === 'Z' || year === '0') return false;
  return letters >= 2 && digits >= 4;
}

/** VIN with the ISO 3779 / FMVSS 115 check digit at position 9 (mandatory in North America). */
export function vinValid(value: string): boolean {
  if (!vinShapeValid(value)) return false;
  let sum = 0;
  for (let k = 0; k < 17; k++) sum += vinValue(value.charCodeAt(k)) * VIN_WEIGHTS[k]!;
  const remainder = sum % 11;
  const expected = remainder === 10 ? 88 /* X */ : 48 + remainder;
  return value.charCodeAt(8) === expected;
}

/** IMEI: 15 digits with a Luhn check digit (reporting-body prefix 01-99). */
export function imeiValid(value: string): boolean {
  if (value.length !== 15 || !allDigits(value) || allSame(value)) return false;
  if (value.startsWith('00')) return false;
  return luhn(value);
}

// ---------------------------------------------------------------------------------------------
// EU VAT numbers (VIES formats; checksums where the member state publishes one)

function mod11Weights(value: string, weights: readonly number[]): number {
  return weighted(value, weights) % 11;
}

function atVat(body: string): boolean {
  // U + 8 digits.
  if (body.length !== 9 || body[0] !== 'U' || !allDigits(body.slice(1))) return false;
  const digits = body.slice(1);
  let sum = 0;
  for (let k = 0; k < 7; k++) {
    let d = digitAt(digits, k);
    if (k % 2 === 1) {
      d *= 2;
      d = Math.floor(d / 10) + (d % 10);
    }
    sum += d;
  }
  return (10 - ((sum + 4) % 10)) % 10 === digitAt(digits, 7);
}

function beVat(body: string): boolean {
  const value = body.length === 9 ? `0${body}` : body;
  if (value.length !== 10 || !allDigits(value) || (value[0] !== '0' && value[0] !== '1')) return false;
  return 97 - modDigits(value.slice(0, 8), 97) === num(value, 8, 10);
}

function deVat(body: string): boolean {
  return body.length === 9 && allDigits(body) && body[0] !== '0' && iso7064Mod11_10(body);
}

function dkVat(body: string): boolean {
  return body.length === 8 && allDigits(body) && body[0] !== '0' && mod11Weights(body, [2, 7, 6, 5, 4, 3, 2, 1]) === 0;
}

function elVat(body: string): boolean {
  const value = body.length === 8 ? `0${body}` : body;
  if (value.length !== 9 || !allDigits(value)) return false;
  let sum = 0;
  for (let k = 0; k < 8; k++) sum += digitAt(value, k) * 2 ** (8 - k);
  return ((sum % 11) % 10) === digitAt(value, 8);
}

function esVat(body: string): boolean {
  if (body.length !== 9) return false;
  if (esDniValid(body) || esNieValid(body)) return true;
  // CIF: letter + 7 digits + control digit or letter.
  const first = body[0]!;
  if (!'ABCDEFGHJNPQRSUVW'.includes(first) || !allDigits(body.slice(1, 8))) return false;
  let sum = 0;
  for (let k = 0; k < 7; k++) {
    let d = digitAt(body, k + 1);
    if (k % 2 === 0) {
      d *= 2;
      d = Math.floor(d / 10) + (d % 10);
    }
    sum += d;
  }
  const control = (10 - (sum % 10)) % 10;
  const last = body[8]!;
  return last === String(control) || last === 'JABCDEFGHI'[control];
}

function fiVat(body: string): boolean {
  if (body.length !== 8 || !allDigits(body)) return false;
  const remainder = mod11Weights(body, [7, 9, 10, 5, 8, 4, 2]);
  if (remainder === 1) return false;
  return (remainder === 0 ? 0 : 11 - remainder) === digitAt(body, 7);
}

function frVat(body: string): boolean {
  if (body.length !== 11 || !allDigits(body.slice(2))) return false;
  const siren = body.slice(2);
  if (!sirenValid(siren)) return false;
  const key = body.slice(0, 2);
  if (!allDigits(key)) return /^[0-9A-HJ-NP-Z]{2}$/.test(key); // new-style alphanumeric keys: no public check
  return Number(key) === (12 + 3 * modDigits(siren, 97)) % 97;
}

function hrVat(body: string): boolean {
  return body.length === 11 && allDigits(body) && iso7064Mod11_10(body);
}

function huVat(body: string): boolean {
  return body.length === 8 && allDigits(body) && weighted(body, [9, 7, 3, 1, 9, 7, 3, 1]) % 10 === 0;
}

function itVat(body: string): boolean {
  if (body.length !== 11 || !allDigits(body) || allSame(body)) return false;
  // Provincial office code: 001-100, 120, 121, 888 or 999.
  const office = num(body, 7, 10);
  if (office === 0 || (office > 100 && office !== 120 && office !== 121 && office !== 888 && office !== 999)) return false;
  return luhn(body);
}

function luVat(body: string): boolean {
  return body.length === 8 && allDigits(body) && num(body, 0, 6) % 89 === num(body, 6, 8);
}

function nlVat(body: string): boolean {
  // 9 digits + B + 2 digits; the 9 digits pass the 11-test (older RSIN) or the whole passes mod 97.
  if (body.length !== 12 || body[9] !== 'B' || !allDigits(body.slice(0, 9)) || !allDigits(body.slice(10))) return false;
  const digits = body.slice(0, 9);
  const sum = weighted(digits, [9, 8, 7, 6, 5, 4, 3, 2]) - digitAt(digits, 8);
  if (sum % 11 === 0 && !allSame(digits)) return true;
  // 2020 sole-proprietor numbers: "NL" + number with letters mapped (N=23, L=21, B=11) mod 97 == 1.
  return modDigits(`2321${digits}11${body.slice(10)}`, 97) === 1;
}

function plVat(body: string): boolean {
  if (body.length !== 10 || !allDigits(body)) return false;
  return mod11Weights(body, [6, 5, 7, 2, 3, 4, 5, 6, 7]) === digitAt(body, 9);
}

function ptVat(body: string): boolean {
  // With the PT prefix the check digit alone decides (no first-digit table, as VIES).
  if (body.length !== 9 || !allDigits(body) || allSame(body)) return false;
  const remainder = weighted(body, [9, 8, 7, 6, 5, 4, 3, 2]) % 11;
  return (remainder < 2 ? 0 : 11 - remainder) === digitAt(body, 8);
}

function seVat(body: string): boolean {
  return body.length === 12 && allDigits(body) && body.endsWith('01') && luhn(body.slice(0, 10));
}

function siVat(body: string): boolean {
  if (body.length !== 8 || !allDigits(body) || body[0] === '0') return false;
  const remainder = 11 - mod11Weights(body, [8, 7, 6, 5, 4, 3, 2]);
  const check = remainder === 10 ? 0 : remainder;
  return remainder !== 11 && check === digitAt(body, 7);
}

function skVat(body: string): boolean {
  if (body.length !== 10 || !allDigits(body) || body[0] === '0') return false;
  return '234789'.includes(body[2]!) && modDigits(body, 11) === 0;
}

function ieVat(body: string): boolean {
  // 7 digits + 1-2 letters (new style), or digit + letter/+/* + 5 digits + letter (old style).
  if (/^\d{7}[A-W][A-IW]?$/.test(body)) {
    const letters = 'WABCDEFGHIJKLMNOPQRSTUV';
    let sum = weighted(body, [8, 7, 6, 5, 4, 3, 2]);
    if (body.length === 9) sum += letters.indexOf(body[8]!) * 9;
    return letters[sum % 23] === body[7];
  }
  return false;
}

function gbVat(body: string): boolean {
  // nnn nnnn nn (branch traders add 3 digits): mod 97 of the 9 digits is 0, or 42 / 55 for
  // numbers issued after 2010 (first three digits 100 or more).
  if ((body.length !== 9 && body.length !== 12) || !allDigits(body)) return false;
  const remainder = weighted(body, [8, 7, 6, 5, 4, 3, 2, 10, 1]) % 97;
  if (num(body, 0, 3) >= 100) return remainder === 0 || remainder === 42 || remainder === 55;
  return remainder === 0;
}

/** Member-state formats (body after the country prefix). Checksummed where published. */
const VAT_RULES: Readonly<Record<string, (body: string) => boolean>> = {
  AT: atVat,
  BE: beVat,
  DE: deVat,
  DK: dkVat,
  EL: elVat,
  ES: esVat,
  FI: fiVat,
  FR: frVat,
  HR: hrVat,
  HU: huVat,
  IE: ieVat,
  IT: itVat,
  LU: luVat,
  NL: nlVat,
  PL: plVat,
  PT: ptVat,
  SE: seVat,
  SI: siVat,
  SK: skVat,
  GB: gbVat,
  XI: gbVat,
};

/** Member states whose VAT format has no published check digit: shape only (needs context). */
const VAT_SHAPES: Readonly<Record<string, RegExp>> = {
  BG: /^\d{9,10}$/,
  CY: /^\d{8}[A-Z]$/,
  CZ: /^\d{8,10}$/,
  EE: /^10\d{7}$/,
  LT: /^(?:\d{9}|\d{12})$/,
  LV: /^\d{11}$/,
  MT: /^\d{8}$/,
  RO: /^[1-9]\d{1,9}$/,
};

/** `checksum`: a member-state check digit passed; `shape`: the format fits but has no check. */
export function euVatVerdict(country: string, body: string): 'checksum' | 'shape' | undefined {
  const rule = VAT_RULES[country];
  if (rule !== undefined) return rule(body) ? 'checksum' : undefined;
  const shape = VAT_SHAPES[country];
  return shape?.test(body) === true ? 'shape' : undefined;
}

/** Country prefixes the VAT detector knows (EL is Greece's VAT prefix; XI Northern Ireland). */
export const VAT_COUNTRIES: ReadonlySet<string> = new Set([...Object.keys(VAT_RULES), ...Object.keys(VAT_SHAPES)]);


/** A VAT number with its country prefix (`DE136695976`), any checksum or shape verdict. */
export function vatValid(value: string): boolean {
  return euVatVerdict(value.slice(0, 2), value.slice(2)) !== undefined;
}
