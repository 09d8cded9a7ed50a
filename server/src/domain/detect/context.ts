// Context words near a candidate ("ssn" before nine digits, "swift" before a BIC, "phone" before
// a number). Only called for candidates that already passed a structural check. Each word list
// is one case-insensitive regex compiled at load (an alternation of literals between letter
// boundaries: no nested quantifiers), run on a short window slice, never on the whole text.

/** A compiled list of context words. */
export interface ContextWords {
  readonly words: readonly string[];
  readonly matcher: RegExp;
}

// Syntax characters only: with the u flag, escaping anything else (# -) is an error.
const SPECIALS = /[\\^$.*+?()[\]{}|/]/g;

export function contextWords(words: readonly string[]): ContextWords {
  const alternatives = [...words].sort((a, b) => b.length - a.length).map((word) => word.replace(SPECIALS, '\\$&'));
  // No g flag: test() then neither reads nor writes lastIndex.
  return { words, matcher: new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}])`, 'iu') };
}

const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;

/** A letter or digit (any script) at `index`; false outside the text. */
function isWordCharAt(text: string, index: number): boolean {
  if (index < 0 || index >= text.length) return false;
  const code = text.charCodeAt(index);
  if (code < 128) return (code >= 48 && code <= 57) || ((code | 0x20) >= 97 && (code | 0x20) <= 122);
  if (code >= 0xdc00 && code <= 0xdfff) return false; // the second half of a pair: judged at its first half
  return LETTER_OR_DIGIT.test(String.fromCodePoint(text.codePointAt(index)!));
}

/**
 * True when one of the words appears as a whole word in text[from, to). A window that starts
 * inside a word skips the rest of that word first: the tail of a word ("ach" of "reach") is
 * never a context word.
 */
export function hasWordIn(text: string, from: number, to: number, context: ContextWords): boolean {
  let start = Math.max(0, from);
  const end = Math.min(text.length, to);
  if (isWordCharAt(text, start - 1)) while (start < end && isWordCharAt(text, start)) start++;
  if (end <= start) return false;
  // One extra character on the left (never a letter or digit now) lets the boundary check see
  // what precedes the window.
  return context.matcher.test(text.slice(Math.max(0, start - 1), end));
}

/** One of the words within `distance` characters before `start`. */
export function hasWordBefore(text: string, start: number, distance: number, context: ContextWords): boolean {
  return hasWordIn(text, start - distance, start, context);
}

export const PHONE_CONTEXT: ContextWords = contextWords([
  'phone', 'tel', 'telephone', 'mobile', 'mob', 'cell', 'call', 'contact', 'fax', 'whatsapp', 'sms',
  'telefon', 'handy', 'rufnummer', 'téléphone', 'portable', 'tél', 'teléfono', 'móvil', 'celular',
  'telefono', 'cellulare', 'telefoon', 'mobiel', 'telefone', 'telemóvel', 'puhelin', 'telefonnummer', 'tlf', 'tel.',
  'telefonu', 'komórka', 'τηλέφωνο', 'κινητό', '电话', '手机', '電話', '携帯', '전화', '휴대폰', 'fone', 'whats',
]);

export const SSN_CONTEXT: ContextWords = contextWords(['ssn', 'ssns', 'social security', 'soc sec', 'soc. sec', 'ss#', 'ss #', 'ss no', 'ssn#', 'tin', 'taxpayer']);

export const CARD_CONTEXT: ContextWords = contextWords([
  'card', 'credit', 'debit', 'visa', 'mastercard', 'amex', 'american express', 'discover', 'jcb', 'diners', 'cc',
  'kreditkarte', 'karte', 'carte', 'tarjeta', 'carta', 'kaart', 'cartão', 'paid', 'pay', 'payment',
]);

export const DATE_CONTEXT: ContextWords = contextWords([
  'born', 'birth', 'birthday', 'dob', 'd.o.b', 'date', 'since', 'geboren', 'geburtsdatum', 'datum', 'né', 'née',
  'naissance', 'nacimiento', 'fecha', 'nascita', 'data', 'geboortedatum', 'nascimento', 'expires', 'expiry', 'issued',
]);

export const BIC_CONTEXT: ContextWords = contextWords(['swift', 'bic', 'swift/bic', 'bic/swift', 'swift code', 'bank code', 'bank identifier', 'bic code', 'bic-code', 'routing']);
