// Context words near a candidate ("ssn" before nine digits, "swift" before a BIC, "phone" before
// a number). Only called for candidates that already passed a structural check, so lowercasing a
// short window per call is cheap; the scan itself never lowercases the text.
import { isAlnumCode } from './chars.js';

function containsWord(window: string, word: string): boolean {
  let from = 0;
  for (;;) {
    const at = window.indexOf(word, from);
    if (at < 0) return false;
    const before = at > 0 ? window.charCodeAt(at - 1) : -1;
    const after = at + word.length < window.length ? window.charCodeAt(at + word.length) : -1;
    if (!isAlnumCode(before) && !isAlnumCode(after)) return true;
    from = at + 1;
  }
}

/** True when one of `words` (lowercase) appears as a whole word in text[from, to). */
export function hasWordIn(text: string, from: number, to: number, words: readonly string[]): boolean {
  const start = Math.max(0, from);
  const end = Math.min(text.length, to);
  if (end <= start) return false;
  const window = text.slice(start, end).toLowerCase();
  for (const word of words) if (containsWord(window, word)) return true;
  return false;
}

/** One of `words` within `distance` characters before `start`. */
export function hasWordBefore(text: string, start: number, distance: number, words: readonly string[]): boolean {
  return hasWordIn(text, start - distance, start, words);
}

/** One of `words` within `distance` characters before `start` or after `end`. */
export function hasWordAround(text: string, start: number, end: number, distance: number, words: readonly string[]): boolean {
  return hasWordIn(text, start - distance, start, words) || hasWordIn(text, end, end + distance, words);
}

export const PHONE_CONTEXT = [
  'phone', 'tel', 'telephone', 'mobile', 'mob', 'cell', 'call', 'contact', 'fax', 'whatsapp', 'sms',
  'telefon', 'handy', 'rufnummer', 'téléphone', 'portable', 'tél', 'teléfono', 'móvil', 'celular',
  'telefono', 'cellulare', 'telefoon', 'mobiel', 'telefone', 'telemóvel',
];

export const SSN_CONTEXT = ['ssn', 'ssns', 'social security', 'soc sec', 'soc. sec', 'ss#', 'ss #', 'ss no', 'ssn#', 'tin', 'taxpayer'];

export const CARD_CONTEXT = [
  'card', 'credit', 'debit', 'visa', 'mastercard', 'amex', 'american express', 'discover', 'jcb', 'diners', 'cc',
  'kreditkarte', 'karte', 'carte', 'tarjeta', 'carta', 'kaart', 'cartão', 'paid', 'pay', 'payment',
];

export const DATE_CONTEXT = [
  'born', 'birth', 'birthday', 'dob', 'd.o.b', 'date', 'since', 'geboren', 'geburtsdatum', 'datum', 'né', 'née',
  'naissance', 'nacimiento', 'fecha', 'nascita', 'data', 'geboortedatum', 'nascimento', 'expires', 'expiry', 'issued',
];

export const BIC_CONTEXT = ['swift', 'bic', 'swift/bic', 'bic/swift', 'swift code', 'bank code', 'bank identifier', 'bic code', 'bic-code', 'routing'];
