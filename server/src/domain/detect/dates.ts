// Date detection helpers: calendar validity and written dates ("12 March 2024", "March 12, 2024",
// "12. März 2024", "12 de marzo de 2024", "12. maaliskuuta 2024") with month names in English,
// German, French, Spanish, Italian, Dutch, Portuguese, Swedish, Danish, Norwegian, Polish, Czech
// and Finnish. Numeric dates are recognised by the digit-group scanner in
// numeric.ts, which calls dateValid() here.
import { codeAt, isAlnumCode, isDigit, isNonAsciiLetter, isAsciiLetter } from './chars.js';

const MONTH_NAMES: readonly (readonly string[])[] = [
  // 1: January
  // en, de, fr, es, it, nl, pt, then sv/da/nb, pl (nominative and genitive), cs (genitive), fi (partitive).
  ['january', 'jan', 'januar', 'jänner', 'janvier', 'janv', 'enero', 'ene', 'gennaio', 'gen', 'januari', 'janeiro',
    'styczeń', 'stycznia', 'ledna', 'leden', 'tammikuuta'],
  ['february', 'feb', 'februar', 'février', 'fevrier', 'févr', 'fevr', 'febrero', 'febbraio', 'februari', 'fevereiro', 'fev',
    'luty', 'lutego', 'února', 'únor', 'helmikuuta'],
  ['march', 'mar', 'märz', 'maerz', 'mär', 'mrz', 'mars', 'marzo', 'maart', 'mrt', 'março', 'marco', 'marts',
    'marzec', 'marca', 'března', 'březen', 'maaliskuuta'],
  ['april', 'apr', 'avril', 'avr', 'abril', 'abr', 'aprile', 'kwiecień', 'kwietnia', 'dubna', 'duben', 'huhtikuuta'],
  ['may', 'mai', 'mayo', 'maggio', 'mag', 'mei', 'maio', 'maj', 'maja', 'května', 'květen', 'toukokuuta'],
  ['june', 'jun', 'juni', 'juin', 'junio', 'giugno', 'giu', 'junho', 'czerwiec', 'czerwca', 'června', 'červen', 'kesäkuuta'],
  ['july', 'jul', 'juli', 'juillet', 'juil', 'julio', 'luglio', 'lug', 'julho', 'lipiec', 'lipca', 'července', 'červenec',
    'heinäkuuta'],
  ['august', 'aug', 'août', 'aout', 'agosto', 'ago', 'augustus', 'augusti', 'sierpień', 'sierpnia', 'srpna', 'srpen', 'elokuuta'],
  ['september', 'sep', 'sept', 'septembre', 'septiembre', 'setiembre', 'settembre', 'set', 'setembro', 'wrzesień', 'września',
    'září', 'syyskuuta'],
  ['october', 'oct', 'oktober', 'okt', 'octobre', 'octubre', 'ottobre', 'ott', 'outubro', 'out', 'październik', 'października',
    'října', 'říjen', 'lokakuuta'],
  ['november', 'nov', 'novembre', 'noviembre', 'novembro', 'listopad', 'listopada', 'listopadu', 'marraskuuta'],
  ['december', 'dec', 'dezember', 'dez', 'décembre', 'decembre', 'déc', 'diciembre', 'dic', 'dicembre', 'dezembro', 'desember',
    'grudzień', 'grudnia', 'prosince', 'prosinec', 'joulukuuta'],
];

const MONTHS: ReadonlyMap<string, number> = (() => {
  const map = new Map<string, number>();
  MONTH_NAMES.forEach((names, index) => {
    for (const name of names) map.set(name, index + 1);
  });
  return map;
})();

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** A real calendar day (Gregorian, leap years included). */
export function dateValid(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  if (month === 2 && day === 29) return isLeapYear(year);
  return day <= DAYS_IN_MONTH[month - 1]!;
}

/** Integer value of the ASCII digits text[start, end). */
export function digitsValue(text: string, start: number, end: number): number {
  let value = 0;
  for (let k = start; k < end; k++) value = value * 10 + (text.charCodeAt(k) - 48);
  return value;
}

function isLetterCode(c: number): boolean {
  return isAsciiLetter(c) || (c >= 128 && isNonAsciiLetter(c));
}

/** End of the letter run starting at `start` (at most 12 letters, else -1). */
function letterRunEnd(text: string, start: number): number {
  let k = start;
  while (isLetterCode(codeAt(text, k))) {
    k++;
    if (k - start > 12) return -1;
  }
  return k;
}

/** Month number (1-12) of a month name or abbreviation in any of the covered languages, or 0. */
export function monthNumber(word: string): number {
  return MONTHS.get(word.toLowerCase()) ?? 0;
}

/** ASCII lower case (toLowerCase of one ASCII unit). */
const lowerAscii = (code: number): number => (code >= 65 && code <= 90 ? code | 0x20 : code);

/** The first two units of the month names whose first two are ASCII, as a 128 x 128 table. */
const MONTH_PAIRS = new Uint8Array(128 * 128);
for (const name of MONTHS.keys()) {
  const a = name.charCodeAt(0);
  const b = name.charCodeAt(1);
  if (a < 128 && b < 128) MONTH_PAIRS[(a << 7) | b] = 1;
}

/** Month number for the word text[start, end), or 0. */
export function monthAt(text: string, start: number, end: number): number {
  const length = end - start;
  if (length < 3 || length > 12) return 0;
  // A word whose first two units are ASCII lower-cases them to exactly those two (lowerAscii):
  // unless a month name starts so, no slice and no lookup (most words before a number).
  const a = text.charCodeAt(start);
  const b = text.charCodeAt(start + 1);
  if (a < 128 && b < 128 && MONTH_PAIRS[(lowerAscii(a) << 7) | lowerAscii(b)] === 0) return 0;
  return MONTHS.get(text.slice(start, end).toLowerCase()) ?? 0;
}

/** Parse a 4-digit year at `start` followed by a non-alphanumeric; returns its end or -1. */
function yearEnd(text: string, start: number): number {
  for (let k = 0; k < 4; k++) if (!isDigit(codeAt(text, start + k))) return -1;
  if (isAlnumCode(codeAt(text, start + 4))) return -1;
  return start + 4;
}

function skipWord(text: string, pos: number, word: string): number {
  // Case-insensitive match of a short ASCII connector ("de", "of") followed by one space.
  if (text.length < pos + word.length + 1) return pos;
  if (text.slice(pos, pos + word.length).toLowerCase() !== word) return pos;
  return text.charCodeAt(pos + word.length) === 32 ? pos + word.length + 1 : pos;
}

/**
 * "12 March 2024", "12. März 2024", "1er mars 2024", "12 de marzo de 2024", "12th of March 2024",
 * "12-Mar-2024", starting at the day digits text[start, dayEnd).
 */
export function writtenDateFromDay(text: string, start: number, dayEnd: number): number {
  if (dayEnd - start > 2) return -1;
  const day = digitsValue(text, start, dayEnd);
  if (day < 1 || day > 31) return -1;
  let pos = dayEnd;
  let c = codeAt(text, pos);
  if (c === 46) c = codeAt(text, ++pos); // "12."
  else if (isAsciiLetter(c)) {
    // Ordinal suffixes: st nd rd th (en), er (fr "1er").
    const suffix = text.slice(pos, pos + 2).toLowerCase();
    if (suffix !== 'st' && suffix !== 'nd' && suffix !== 'rd' && suffix !== 'th' && suffix !== 'er') return -1;
    pos += 2;
    c = codeAt(text, pos);
  } else if (c === 0xba || c === 0xb0) c = codeAt(text, ++pos); // "1º", "1° maggio"
  const dash = c === 45;
  if (c !== 32 && !dash) return -1;
  pos++;
  if (!dash) {
    pos = skipWord(text, pos, 'de');
    pos = skipWord(text, pos, 'of');
  }
  const monthStart = pos;
  const monthEnd = letterRunEnd(text, monthStart);
  if (monthEnd < 0) return -1;
  const month = monthAt(text, monthStart, monthEnd);
  if (month === 0) return -1;
  pos = monthEnd;
  if (codeAt(text, pos) === 46) pos++; // "Mar."
  if (dash) {
    if (codeAt(text, pos) !== 45) return -1;
    pos++;
  } else {
    if (codeAt(text, pos) === 44) pos++; // "12 March, 2024"
    if (codeAt(text, pos) !== 32) return -1;
    pos++;
    pos = skipWord(text, pos, 'de');
  }
  const end = yearEnd(text, pos);
  if (end < 0) return -1;
  const year = digitsValue(text, pos, end);
  if (year < 1000 || year > 2999 || !dateValid(year, month, day)) return -1;
  return end;
}

/** "March 12, 2024", "Mar. 12 2024", "March 12th, 2024", starting at the month word. */
export function writtenDateFromMonth(text: string, start: number, wordEnd: number): number {
  let pos = wordEnd;
  if (codeAt(text, pos) === 46) pos++;
  if (codeAt(text, pos) !== 32 || !isDigit(codeAt(text, pos + 1))) return -1;
  const month = monthAt(text, start, wordEnd);
  if (month === 0) return -1;
  pos++;
  const dayStart = pos;
  while (isDigit(codeAt(text, pos)) && pos - dayStart < 3) pos++;
  if (pos - dayStart > 2) return -1;
  const day = digitsValue(text, dayStart, pos);
  const suffix = text.slice(pos, pos + 2).toLowerCase();
  if (suffix === 'st' || suffix === 'nd' || suffix === 'rd' || suffix === 'th') pos += 2;
  if (codeAt(text, pos) === 44) pos++;
  if (codeAt(text, pos) !== 32) return -1;
  pos++;
  const end = yearEnd(text, pos);
  if (end < 0) return -1;
  const year = digitsValue(text, pos, end);
  if (year < 1000 || year > 2999 || !dateValid(year, month, day)) return -1;
  return end;
}
