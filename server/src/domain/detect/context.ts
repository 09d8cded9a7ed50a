// Context words near a candidate ("ssn" before nine digits, "swift" before a BIC, "phone" before
// a number). Only called for candidates that already passed a structural check. Each word list
// is compiled at load into one regex (an alternation of literals between letter boundaries, any
// case: no nested quantifiers), run on a short window slice, never on the whole text.
//
// A word written with capitals in a list (`EIN`, `TIN`, `BTW`, `FIN`, `PAN`, `My Number`) is
// also an ordinary word or phrase somewhere ("ein", "tin", "btw", "fin" in French or Spanish,
// "pan", "my number is ..."): it counts only when the text writes it exactly so, so a common
// word never lends a number an identity.

/** A compiled list of context words. */
export interface ContextWords {
  readonly words: readonly string[];
  /** Every word, between word boundaries (CJK words anywhere), in one regex. */
  readonly matcher: RegExp;
}

// Syntax characters only: with the u flag, escaping anything else (# -) is an error.
const SPECIALS = /[\\^$.*+?()[\]{}|/]/g;

/** A word written with a capital letter: matched as written. */
function isAcronym(word: string): boolean {
  return /\p{Lu}/u.test(word);
}

/**
 * `word` as a regex source matching it in any case: each cased letter as a two-letter class
 * ([sS][sS][nN]), so case-insensitive words and exact acronyms share one regex without the i
 * flag (one test per window instead of two).
 */
function caseless(word: string): string {
  let out = '';
  for (const ch of word) {
    const lower = ch.toLowerCase();
    const upper = ch.toUpperCase();
    if (lower === upper || lower.length !== 1 || upper.length !== 1) out += ch.replace(SPECIALS, '\\$&');
    else out += `[${lower}${upper}]`;
  }
  return out;
}

// Chinese, Japanese and Korean run words together without spaces ("我的电话是"), and so does
// Thai; Arabic and Hebrew glue pronouns and prepositions to a word ("هاتفي", my phone;
// "בטלפון", on the phone): their context words match anywhere, not between word boundaries.
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const UNBOUNDED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Arabic}\p{Script=Hebrew}]/u;
// Russian and Ukrainian inflect a word by its ending ("телефона", "телефоном"): a Cyrillic
// context word needs a boundary on its left only.
const CYRILLIC = /\p{Script=Cyrillic}/u;

export function contextWords(words: readonly string[]): ContextWords {
  const source = (word: string): string => (isAcronym(word) ? word.replace(SPECIALS, '\\$&') : caseless(word));
  const alternation = (list: readonly string[]): string => [...list].sort((a, b) => b.length - a.length).map(source).join('|');
  const bounded = words.filter((word) => !UNBOUNDED.test(word) && !CYRILLIC.test(word));
  const stems = words.filter((word) => !UNBOUNDED.test(word) && CYRILLIC.test(word));
  const free = words.filter((word) => UNBOUNDED.test(word));
  const parts: string[] = [];
  if (bounded.length > 0) parts.push(`(?<![\\p{L}\\p{N}])(?:${alternation(bounded)})(?![\\p{L}\\p{N}])`);
  if (stems.length > 0) parts.push(`(?<![\\p{L}\\p{N}])(?:${alternation(stems)})`);
  if (free.length > 0) parts.push(`(?:${alternation(free)})`);
  // No g flag: test() then neither reads nor writes lastIndex. A list with no words never matches.
  return { words, matcher: new RegExp(parts.length > 0 ? parts.join('|') : '(?!)', 'u') };
}

const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;

/**
 * A letter or digit (any script) that continues a word at `index`; false outside the text and
 * for CJK characters (each one can start a word: those scripts write no spaces).
 */
function isWordCharAt(text: string, index: number): boolean {
  if (index < 0 || index >= text.length) return false;
  const code = text.charCodeAt(index);
  if (code < 128) return (code >= 48 && code <= 57) || ((code | 0x20) >= 97 && (code | 0x20) <= 122);
  if (code >= 0xdc00 && code <= 0xdfff) return false; // the second half of a pair: judged at its first half
  const ch = String.fromCodePoint(text.codePointAt(index)!);
  return LETTER_OR_DIGIT.test(ch) && !CJK.test(ch);
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

// What may stand between a label and its value: words and spaces ("NHS number: ", "inscrito no
// CPF sob o nº ", "personal identity code "), but no digit (another number is what the label
// names) and no sentence or clause break after the label's own abbreviation dot.
const LABEL_GAP = '[.:#]?[^\\p{N}.;!?,\\n]{0,30}$';

/** Each list's words followed by LABEL_GAP up to the end of the window, made on first use. */
const LABEL_FORMS = new WeakMap<RegExp, RegExp>();

function labelForm(pattern: RegExp): RegExp {
  let form = LABEL_FORMS.get(pattern);
  if (form === undefined) {
    form = new RegExp(`(?:${pattern.source})${LABEL_GAP}`, pattern.flags);
    LABEL_FORMS.set(pattern, form);
  }
  return form;
}

/**
 * One of the words stands as the label of the value at `start`: within `distance` characters
 * before it, with no other number and no sentence or clause break between. Stricter than
 * hasWordBefore: "Patient number 12, call 555-0100" labels 12, not the phone number.
 */
export function hasLabelBefore(text: string, start: number, distance: number, context: ContextWords): boolean {
  let from = Math.max(0, start - distance);
  if (isWordCharAt(text, from - 1)) while (from < start && isWordCharAt(text, from)) from++;
  if (from >= start) return false;
  return labelForm(context.matcher).test(text.slice(Math.max(0, from - 1), start));
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
  // How people hand out a number in chat.
  'my number', 'reach me', 'reach us', 'text me', 'text us', 'ring me', 'dial', 'hotline', 'helpline', 'landline',
  // "Call me" in the catalog's other languages (session 12: `ruf mich an unter +49 …` in loose groups was raw).
  'ruf mich an', 'rufen sie', 'anrufen', 'erreichbar unter', 'appelez-moi', 'appelle-moi', 'appeler', 'joignable',
  'llámame', 'llámeme', 'llamar al', 'chiamami', 'chiamare', 'liga-me', 'ligue-me', 'me liga', 'bel me', 'bel mij', 'bellen',
  // Beyond the catalog's languages: Russian, Arabic, Hindi, Indonesian, Vietnamese.
  'телефон', 'тел.', 'тел:', 'моб.', 'мобильн', 'сотов', 'هاتف', 'جوال', 'موبايل', 'تلفن', 'موبایل', 'טלפון', 'נייד', 'โทร', 'เบอร์',
  'फ़ोन', 'फोन', 'मोबाइल', 'telepon', 'ponsel', 'nomor hp', 'no hp', 'điện thoại', 'sđt',
]);

export const SSN_CONTEXT: ContextWords = contextWords(['ssn', 'ssns', 'social security', 'my social', 'social #', 'social no', 'social number', 'soc sec', 'soc. sec', 'ss#', 'ss #', 'ss no', 'ssn#', 'TIN', 'taxpayer']);

export const CARD_CONTEXT: ContextWords = contextWords([
  'card', 'credit', 'debit', 'visa', 'mastercard', 'amex', 'american express', 'discover', 'jcb', 'diners', 'cc',
  'kreditkarte', 'karte', 'carte', 'tarjeta', 'carta', 'kaart', 'cartão', 'paid', 'pay', 'payment',
]);

export const DATE_CONTEXT: ContextWords = contextWords([
  'born', 'birth', 'birthday', 'dob', 'd.o.b', 'date', 'since', 'geboren', 'geburtsdatum', 'datum', 'né', 'née',
  'naissance', 'nacimiento', 'fecha', 'nascita', 'data', 'geboortedatum', 'nascimento', 'expires', 'expiry', 'issued',
]);

export const IBAN_CONTEXT: ContextWords = contextWords([
  'iban', 'ibans', 'bank account', 'account number', 'account no', 'acct', 'kontonummer', 'konto', 'rib', 'cuenta', 'conto', 'conta', 'rekening',
]);

export const BIC_CONTEXT: ContextWords = contextWords(['swift', 'bic', 'swift/bic', 'bic/swift', 'swift code', 'bank code', 'bank identifier', 'bic code', 'bic-code', 'routing']);
