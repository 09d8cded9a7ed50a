// Numbers that only their label makes personal: a bank account number ("account number
// 000123456789", "Kontonummer 1234567890"), a card security code ("CVV 123"), a driver's licence
// number ("driver's license D1234567"), a medical record number ("MRN 1234567") and an insurance
// member, policy or health plan number ("member ID XYZ123456789": HIPAA's identifiers). None has a check digit or a distinctive print form, so
// a bare run of digits is never one; right after its label it always is, and it went to the model
// raw (or under another type: "account 123456789" passed a Portuguese NIF check).
//
// Anchored on the labels (at the word starts the scan flags, keywords.ts), then read with
// bounded steps: an optional "number"/"no."/"#", a separator (":", "=", "is", "-", "#"), and the
// value in the type's shape.
import { isDigit } from './chars.js';
import { atKeywords } from './keywords.js';
import { emit, type ScanState } from './state.js';

type LabelledType = 'bank_account' | 'card_security_code' | 'driver_license' | 'medical_record_number' | 'insurance_id';

/**
 * Group 1: a bank account label; 2: a card security code label; 3: a driver's licence label;
 * 4: a medical record number label; 5: an insurance member, policy or health plan label.
 * Matched (sticky) where the scan's word loop says a label may start (keywords.ts).
 */
const LABEL = new RegExp(
  [
    '(?:',
    // Bank accounts.
    '(account(?: number| no\\.?| nr\\.?| #)?|acct(?: number| no\\.?| #)?|a/c(?: no\\.?)?|kontonummer|konto-?nr\\.?|konto|num[ée]ro de compte|n° de compte|n[úu]mero de (?:la )?cuenta|numero di conto|conto corrente|rekeningnummer|rekeningnr\\.?|n[úu]mero da conta)',
    // Card security codes.
    '|(cvv2?|cvc2?|cid|csc|cvn|card security code|security code|card verification (?:value|code|number)|verification code on the card|kartenprüfnummer|prüfnummer|cryptogramme(?: visuel)?|c[óo]digo de seguridad|codice di sicurezza|c[óo]digo de seguran[çc]a)',
    // Driver's licences.
    "|(driver'?s?'? licen[cs]e(?: number| no\\.?| #)?|driving licen[cs]e(?: number| no\\.?)?|dl(?: number| no\\.?| ?#|(?=\\s*:))|führerschein(?:nummer)?|permis de conduire|licencia de conducir|carn[ée] de conducir|patente di guida|rijbewijs(?:nummer)?|carteira de motorista|carta de condução)",
    // Medical record numbers.
    "|(mrn|medical record(?: number| no\\.?| #)?|med\\.? rec\\.?(?: no\\.?| #)?|chart number|patient (?:id|number|no\\.?)|patientennummer|fallnummer|patiëntnummer|num[ée]ro de dossier(?: médical| medical)?|n[úu]mero de historia(?: clínica| clinica)?|historia clínica|numero di cartella(?: clinica)?|cartella clinica|prontu[áa]rio)",
    // Insurance member, policy and health plan numbers.
    "|(member (?:id|number|no\\.?)|membership (?:number|no\\.?)|subscriber (?:id|number)|policy (?:number|no\\.?|#)|insurance (?:id|number|no\\.?)|health plan (?:id|number)|beneficiary (?:id|number)|versichertennummer|versicherungsnummer|policennummer|num[ée]ro d'assur[ée]|num[ée]ro de police|n[úu]mero de p[óo]liza|n[úu]mero de afiliado|numero di polizza|polisnummer|verzekeringsnummer|n[úu]mero da ap[óo]lice)",
    ')(?=[^\\p{L}\\p{N}_]|[\\p{sc=Han}\\p{sc=Hira}\\p{sc=Kana}\\p{sc=Hang}]|$)',
  ].join(''),
  'iuy',
);

/** After the label (sticky): an optional "number"/"no." and a separator; the value follows. */
const SEPARATOR = /(?:\s+(?:number|no\.?|nr\.?|num(?:ber)?|nummer|numéro|número|numero))?(?:\s*[:=#是为為]\s*|\s*(?:は|는|은)\s*|\s+(?:is|was|ist|lautet|est|es|é|è)\s+|\s*-\s*|\s+)/iuy;

/** What may not follow a value: a digit, or a letter of a script that puts spaces between words. */
const NOT_AFTER = '(?:\\p{N}|(?![\\p{sc=Han}\\p{sc=Hira}\\p{sc=Kana}\\p{sc=Hang}])\\p{L})';

const RECORD_ID = `[A-Za-z]{0,6}-?\\d[A-Za-z0-9]{0,19}(?:-[A-Za-z0-9]{1,8}){0,3}(?!${NOT_AFTER})`;

/** Values per type (sticky), each ending at a boundary. */
const VALUE: Readonly<Record<LabelledType, RegExp>> = {
  // 6 to 17 digits, in groups of two or more joined by single spaces or dashes.
  bank_account: new RegExp(`\\d{2,17}(?:[ -]\\d{2,17}){0,5}(?!${NOT_AFTER}|[ -]?\\d)`, 'uy'),
  card_security_code: new RegExp(`\\d{3,4}(?!${NOT_AFTER}|[ .-]?\\d)`, 'uy'),
  // Letters and digits, a digit among the first seven (US states print 1-2 letters + digits,
  // digits alone or dashed groups; the UK 16 characters, five letters first).
  // Record and member numbers: letters (an "MRN-" prefix) then digits and letters, dashed groups.
  medical_record_number: new RegExp(RECORD_ID, 'uy'),
  insurance_id: new RegExp(RECORD_ID, 'uy'),
  driver_license: new RegExp(`[A-Za-z]{0,6}\\d[A-Za-z0-9]{0,19}(?:-[A-Za-z0-9]{1,8}){0,3}(?: \\d{2,8}){0,3}(?!${NOT_AFTER})`, 'uy'),
};

const CONFIDENCE: Readonly<Record<LabelledType, number>> = {
  bank_account: 0.85,
  card_security_code: 0.9,
  driver_license: 0.8,
  medical_record_number: 0.8,
  insurance_id: 0.8,
};

/** The type of the label group that matched (LABEL's groups 1 to 5). */
const GROUP_TYPES: readonly LabelledType[] = ['bank_account', 'card_security_code', 'driver_license', 'medical_record_number', 'insurance_id'];

function digitCount(text: string, start: number, end: number): number {
  let digits = 0;
  for (let k = start; k < end; k++) if (isDigit(text.charCodeAt(k))) digits++;
  return digits;
}

/**
 * Emit the labelled account numbers, card security codes, driver's licence, medical record and
 * insurance numbers: labels at `starts` (word starts the scan flagged with mayStartKeyword).
 */
export function detectLabelledIds(state: ScanState, starts: readonly number[]): void {
  const text = state.text;
  atKeywords(text, starts, LABEL, (match, start) => {
    const type = GROUP_TYPES[match.slice(1).findIndex((group) => group !== undefined)]!;
    SEPARATOR.lastIndex = start + match[0].length;
    if (SEPARATOR.exec(text) === null) return -1;
    const valueStart = SEPARATOR.lastIndex;
    const shape = VALUE[type];
    shape.lastIndex = valueStart;
    const value = shape.exec(text);
    if (value === null) return -1;
    const end = valueStart + value[0].length;
    const digits = digitCount(text, valueStart, end);
    if (type === 'bank_account' ? digits < 6 || digits > 17 || /^0+$/.test(value[0].replace(/[ -]/g, '')) : type === 'card_security_code' ? false : digits < 4 || end - valueStart < 5) return -1;
    emit(state, type, valueStart, end, CONFIDENCE[type]);
    return end;
  });
}
