// Phone numbers: a cheap shape collector at '+', '(' and digit-group starts, then validation with
// libphonenumber-js/max metadata (phone-metadata.ts). Never runs a whole-text phone finder per
// country (stack-notes: ~0.5 ms per KB per country, and a German pass reads dates as numbers).
// Confidence: international and valid 0.9, NANP-shaped and valid 0.85, national with a trunk
// prefix and valid 0.75, merely possible shapes 0.6-0.7, bare digits only with a context word.
import { codeAt, isAlnumCode, isDigit } from './chars.js';
import { hasLabelBefore, hasWordBefore, PHONE_CONTEXT } from './context.js';
import { SPECIFIC_ID_CONTEXT } from './id-context.js';
import { callingCodeOf, checkInternational, hasCallingCode, checkNational, isKnownRegion, nationalLayoutRegion, usesTrunkPrefix } from './phone-metadata.js';
import type { Detection } from '../types.js';
import { emit, type ScanState } from './state.js';

const PLUS = 43;
const LPAREN = 40;
const RPAREN = 41;
const SPACE = 32;
const DASH = 45;
const DOT = 46;
const SLASH = 47;

const LANGUAGE_REGIONS: Readonly<Record<string, string>> = {
  de: 'DE', fr: 'FR', nl: 'NL', es: 'ES', it: 'IT', pt: 'PT', pl: 'PL', sv: 'SE', da: 'DK',
  fi: 'FI', nb: 'NO', nn: 'NO', no: 'NO', cs: 'CZ', sk: 'SK', hu: 'HU', ro: 'RO', bg: 'BG', el: 'GR',
  tr: 'TR', ru: 'RU', uk: 'UA', he: 'IL', ar: 'SA', hi: 'IN', ja: 'JP', zh: 'CN', ko: 'KR', vi: 'VN',
  th: 'TH', id: 'ID', ms: 'MY', hr: 'HR', sl: 'SI', sr: 'RS', lt: 'LT', lv: 'LV', et: 'EE', ga: 'IE',
  is: 'IS', ca: 'ES', eu: 'ES', gl: 'ES', lb: 'LU', mt: 'MT', fa: 'IR', ur: 'PK', bn: 'BD', tl: 'PH',
};

const LANGUAGE_TAG_SEPARATOR = /[-_]/;

/** Regions tried for trunk-prefixed national numbers that fail the language region. */
const FALLBACK_REGIONS = ['GB', 'DE', 'FR', 'NL', 'IT', 'ES', 'BE', 'AT', 'CH', 'IE', 'PT', 'AU', 'TR', 'PH'];

/** The region when neither the language hint nor the configuration names one. */
export const DEFAULT_PHONE_REGION = 'US';

/**
 * Phone region from an ISO 639-1 hint: `en-GB` / `pt_BR` style tags use their region; a
 * language spoken in one main region uses it (`de` -> DE); English, or no hint, uses
 * `defaultRegion` (`detector.default_region`), else US.
 */
export function regionForLanguage(language: string | undefined, defaultRegion: string = DEFAULT_PHONE_REGION): string {
  const fallback = isKnownRegion(defaultRegion) ? defaultRegion : DEFAULT_PHONE_REGION;
  if (language === undefined || language === '') return fallback;
  const parts = language.split(LANGUAGE_TAG_SEPARATOR);
  const regionPart = parts[1]?.toUpperCase();
  if (regionPart !== undefined && regionPart.length === 2 && isKnownRegion(regionPart)) return regionPart;
  const primary = parts[0]!.toLowerCase();
  if (primary === 'en') return fallback;
  return LANGUAGE_REGIONS[primary] ?? fallback;
}

export function fallbackRegionsFor(region: string): readonly string[] {
  return FALLBACK_REGIONS.filter((candidate) => candidate !== region);
}

interface PhoneShape {
  readonly international: boolean;
  /** Digit count, span end and parenthesised flag per group. */
  readonly groupDigits: number[];
  readonly groupEnds: number[];
  readonly paren: boolean[];
  /** Separator code before each group (0 for the first, or none after a parenthesis). */
  readonly seps: number[];
  readonly digits: string[];
  /** The country code was written in parentheses, "(+30) 6946 223059": the value starts at the '('. */
  ccParen: boolean;
  /** Where the collector started ('+', '(' or the first digit), in `text`. */
  readonly start: number;
  readonly text: string;
}

const MAX_DIGITS = 15;
const MAX_GROUPS = 8;

function collect(text: string, start: number, plusWord: boolean): PhoneShape | undefined {
  let pos = start;
  const international = plusWord || text.charCodeAt(pos) === PLUS;
  if (text.charCodeAt(pos) === PLUS) pos++;
  const shape: PhoneShape = { international, groupDigits: [], groupEnds: [], paren: [], seps: [], digits: [], ccParen: false, start, text };
  let total = 0;
  let sep = 0;
  while (shape.groupDigits.length < MAX_GROUPS) {
    let c = codeAt(text, pos);
    const paren = c === LPAREN;
    if (paren) c = codeAt(text, ++pos);
    if (!isDigit(c)) break;
    const digitStart = pos;
    while (isDigit(codeAt(text, pos))) {
      pos++;
      if (pos - digitStart > MAX_DIGITS) return undefined; // an overlong run is not a phone
    }
    const digitEnd = pos;
    // "(+30) 6946 223059", "(+57)3011832288": the country code in parentheses.
    const ccParen = !paren && international && !plusWord && shape.groupDigits.length === 0 && digitEnd - digitStart <= 3 &&
      codeAt(text, start - 1) === LPAREN && codeAt(text, pos) === RPAREN;
    if (ccParen) {
      shape.ccParen = true;
      pos++;
    }
    if (paren) {
      if (codeAt(text, pos) !== RPAREN || digitEnd - digitStart > 5) break;
      pos++;
    }
    if (total + (digitEnd - digitStart) > MAX_DIGITS) break;
    total += digitEnd - digitStart;
    shape.groupDigits.push(digitEnd - digitStart);
    shape.groupEnds.push(pos);
    shape.paren.push(paren);
    shape.seps.push(sep);
    shape.digits.push(text.slice(digitStart, digitEnd));
    // "+44 (0)161 496 0932", "+49(0)5384 01916": the trunk zero printed after the country code
    // is not dialled from abroad; it is skipped, the number goes on after it.
    if (international && shape.groupDigits.length === 1) {
      const resumed = afterTrunkZero(text, pos);
      if (resumed !== pos) {
        pos = resumed;
        sep = SPACE;
        continue;
      }
    }
    const raw = codeAt(text, pos);
    // "+1(212)555-0143", "+90(719)157-5492": an area code in parentheses glued to the country code.
    if (international && shape.groupDigits.length === 1 && !paren && !ccParen && raw === LPAREN) {
      sep = 0;
      continue;
    }
    const s = phoneSeparator(raw); // no-break and thin spaces, middle dots, typographic dashes
    let next = pos;
    // Session 19 (wave18/phone): "030 / 1234567", "0221 / 6994233": a German area code with the
    // trunk zero, then a slash with one space each side (spacedSlashAt); read as "030/1234567".
    if (s === SPACE && spacedSlashAt(text, pos, shape, international)) {
      sep = SLASH;
      pos += 3;
      continue;
    }
    if (s === SPACE || s === DASH || s === DOT || s === SLASH) next = pos + 1;
    else if (!paren && !ccParen) break;
    const after = codeAt(text, next);
    if (!isDigit(after) && after !== LPAREN) break;
    sep = next === pos ? 0 : s;
    pos = next;
  }
  return shape.groupDigits.length === 0 ? undefined : shape;
}

/** " / " then a digit at `pos`, after a first group of 2-5 digits starting with the trunk zero (national numbers only). */
function spacedSlashAt(text: string, pos: number, shape: PhoneShape, international: boolean): boolean {
  if (international || shape.groupDigits.length !== 1 || shape.paren[0] === true || shape.groupDigits[0]! < 2 || shape.groupDigits[0]! > 5) return false;
  return shape.digits[0]!.charCodeAt(0) === 48 && codeAt(text, pos + 1) === SLASH && codeAt(text, pos + 2) === SPACE && isDigit(codeAt(text, pos + 3));
}

/**
 * The separator a character stands for between a phone's digit groups: the ASCII ones, and what
 * other keyboards and typesetting put there (session 18, wave17/phone): no-break, narrow no-break,
 * thin and figure spaces as a space, the middle dot (`020·7946·0958`, Catalan and French forms)
 * as a dot, hyphens, the non-breaking hyphen, the en dash and the minus sign as a dash. Every
 * layout and context rule then judges the number as if typed with the ASCII separator.
 */
function phoneSeparator(c: number): number {
  switch (c) {
    case 0xa0: case 0x202f: case 0x2009: case 0x2007: return SPACE;
    case 0xb7: return DOT;
    case 0x2010: case 0x2011: case 0x2013: case 0x2212: return DASH;
    default: return c;
  }
}

/** The character at `index` as a phone separator (phoneSeparator), -1 past the text. */
function separatorAt(text: string, index: number): number {
  return phoneSeparator(codeAt(text, index));
}

/** Position of the digit after a printed trunk zero "(0)" at `pos` (one space around it at most), or `pos`. */
function afterTrunkZero(text: string, pos: number): number {
  let k = pos;
  if (codeAt(text, k) === SPACE) k++;
  if (codeAt(text, k) !== LPAREN || codeAt(text, k + 1) !== 48 /* 0 */ || codeAt(text, k + 2) !== RPAREN) return pos;
  k += 3;
  const c = codeAt(text, k);
  if (c === SPACE || c === DASH) k++;
  return isDigit(codeAt(text, k)) ? k : pos;
}

/** North American shapes: 555-123-4567, 555.123.4567, 555 123 4567, (555) 123-4567, 1-555-123-4567. */
function nanpShape(shape: PhoneShape, count: number): 'strong' | 'spaced' | undefined {
  const g = shape.groupDigits;
  const seps = shape.seps;
  let first = 0;
  if (count === 4 && g[0] === 1 && shape.digits[0] === '1') first = 1;
  else if (count !== 3) return undefined;
  if (g[first] !== 3 || g[first + 1] !== 3 || g[first + 2] !== 4) return undefined;
  if (shape.paren[first + 1] || shape.paren[first + 2]) return undefined;
  const s1 = seps[first + 1]!;
  const s2 = seps[first + 2]!;
  if (shape.paren[first]) {
    // (555) 123-4567, (555)123-4567, (555) 123 4567
    if (s1 !== SPACE && s1 !== 0) return undefined;
    return s2 === DASH || s2 === SPACE || s2 === DOT ? 'strong' : undefined;
  }
  if (s1 !== s2 || s1 === SLASH) return undefined;
  return s1 === SPACE ? 'spaced' : 'strong';
}

function joinDigits(shape: PhoneShape, count: number): string {
  let digits = '';
  for (let k = 0; k < count; k++) digits += shape.digits[k]!;
  return digits;
}

/**
 * A phone word labelling the number directly ("Mobile: 730 064 218", "Fax: 1322342321", "call
 * 74 849 807", "call me at 87789328", "my number is 61 60 34"): nothing but an optional
 * "number"/"no."/"#" (after a noun) or "me"/"us" (after a verb), a colon or "is"/"at"/"on"
 * between the word and the number. Local numbers of many regions (6-8 digits in
 * Greenland, Denmark, Norway, Iceland, ...) validate in no region the text hints at; written
 * right after such a label they are phone numbers all the same.
 */
const DIRECT_PHONE_LABEL =
  /(?<![\p{L}\p{N}])(?:(?:phone|tel|telephone|mobile|mob|cell|cellphone|fax|contact|whatsapp|sms|telefon|handy|téléphone|portable|tél|teléfono|móvil|celular|telefono|cellulare|telefoon|mobiel|telefone|telemóvel|tlf|my number)s?(?:[ \t]*(?:numbers?|no\.?|nr\.?|#))?|(?:call|ring|text|reach|dial|whatsapp|sms|fax)(?:[ \t]+(?:me|us|him|her|them))?|(?:be|been|is|are)[ \t]+reached)[ \t]*(?:[.:#]{1,2}|is|at|on)?[ \t]*$/iu;
const DIRECT_LABEL_WINDOW = 40;
/**
 * A calling verb, the one to call and "at"/"on" right before the number: "You can reach Mei Tanaka
 * at ...", "call Dr. Smith on ...", "reach out to the front desk at ...". The callee is a capitalised
 * word or a determiner, then at most two more words (a lower-cased name: "reach john smith at").
 */
const CALL_SOMEONE_AT =
  /(?<![\p{L}\p{N}])(?:[Cc]all|[Rr]each(?:[ \t]+out[ \t]+to)?|[Rr]ing|[Tt]ext|[Pp]hone|[Dd]ial|[Cc]ontact|[Ww]hats[Aa]pp)[ \t]+\p{L}[\p{L}'’.-]*(?:[ \t]+\p{L}[\p{L}'’.-]*){0,2}[ \t]+(?:at|on)[ \t]*:?[ \t]*$/u;
/**
 * Session 17 (wave16/phone): a person's name asked for "on"/"at" ("Ask Mei Tanaka on 33 50 57",
 * "Ping Raj at ..."): one to three capitalised words after the verb. A weaker cue than a calling
 * verb: the number must also be grouped as phones are (plainGroups).
 */
const ASK_SOMEONE_AT =
  /(?<![\p{L}\p{N}])(?:[Aa]sk|[Pp]ing|[Mm]essage|[Tt]ry|SMS|[Ss]ms)[ \t]+\p{Lu}\p{Ll}[\p{L}'’-]*(?:[ \t]+\p{Lu}\p{Ll}[\p{L}'’-]*){0,2}[ \t]+(?:at|on)[ \t]*:?[ \t]*$/u;
/**
 * The next number of a list after a labelled one: "Phone: 609 141 777, 6911 524493", "call me on
 * 0354911160 or 92723362", "Mobile: 500 080 636 / Office: 22 565 08 89". Matched at the end of
 * the text before the candidate; what stands before the earlier number must be a label again.
 */
const PREVIOUS_LISTED_NUMBER =
  /(?<![\p{L}\p{N}])\+?\(?\d[\d \t().\-/]{4,22}\d(?:[ \t]*(?:x|ext\.?)[ \t]*\d{1,6})?[ \t]*(?:,|;|\/|\bor\b|\band\b)[ \t]*(?:(?:home|work|office|mobile|cell|landline|fax|private|business)[ \t]*:?[ \t]*)?$/iu;
const LIST_WINDOW = 120;
/**
 * A phone word right after the number: "0256347039 (mobile)", "925986372 is my direct line",
 * "61 60 34 is my cell" (not "is my order number": only phone nouns and their usual modifiers).
 */
const PHONE_LABEL_AFTER =
  /^(?:[ \t]*(?:ext\.?|extension)[ \t]*\d{1,6}(?![\p{L}\p{N}])|x\d{1,6}(?![\p{L}\p{N}])|[ \t]*(?:\([ \t]*(?:mobile|cell|cellphone|home|work|office|landline|fax|tel|phone|private|business)[ \t]*\)|(?:is|=)[ \t]+(?:my|our|his|her|their|the)[ \t]+(?:(?:direct|home|work|office|private|business|personal|new|main)[ \t]+)?(?:phone|cell|cellphone|mobile|line|landline|fax|(?:phone|cell|mobile|contact|telephone)[ \t]+number)(?![\p{L}\p{N}])))/iu;
const AFTER_WINDOW = 48;

/** `text` ends with the word "at" or "on" (then spaces and a colon at most): CALL_SOMEONE_AT's cheap gate. */
function endsWithAtOrOn(text: string): boolean {
  let k = text.length;
  while (k > 0 && (text.charCodeAt(k - 1) === SPACE || text.charCodeAt(k - 1) === 9 || text.charCodeAt(k - 1) === 58)) k--;
  if (k < 3 || (text.charCodeAt(k - 3) !== SPACE && text.charCodeAt(k - 3) !== 9)) return false;
  const word = text.slice(k - 2, k);
  return word === 'at' || word === 'on';
}

/** The word "at" or "on" (then spaces and a colon at most) ends right before `start`, without slicing the text. */
function atOrOnBefore(text: string, start: number): boolean {
  let k = start;
  while (k > 0 && (text.charCodeAt(k - 1) === SPACE || text.charCodeAt(k - 1) === 9 || text.charCodeAt(k - 1) === 58)) k--;
  if (k < 3 || (text.charCodeAt(k - 3) !== SPACE && text.charCodeAt(k - 3) !== 9)) return false;
  const a = text.charCodeAt(k - 2);
  const b = text.charCodeAt(k - 1);
  return (a === 97 && b === 116) || (a === 111 && b === 110);
}

/** Phone context of one candidate, computed at most once (only candidates past the gates get here). */
class CandidateContext {
  private known = false;
  private value = false;
  private labelKnown = false;
  private labelValue = false;
  private askedValue = false;

  constructor(
    private readonly text: string,
    private readonly start: number,
    /** End of the whole run of groups (a phone word after it labels the number too). */
    private readonly runEnd: number,
  ) {}

  /** A phone word near the number: before it, as its label, or right after it. */
  get present(): boolean {
    if (!this.known) {
      this.value = hasWordBefore(this.text, this.start, 40, PHONE_CONTEXT) || this.labelled || this.labelledAfter(this.runEnd);
      this.known = true;
    }
    return this.value;
  }

  /**
   * A phone word labels the number directly (DIRECT_PHONE_LABEL), or the number follows a
   * labelled one in a list (PREVIOUS_LISTED_NUMBER, up to three numbers back).
   */
  get labelled(): boolean {
    if (!this.labelKnown) {
      let before = this.text.slice(Math.max(0, this.start - LIST_WINDOW), this.start);
      const near = before.slice(-DIRECT_LABEL_WINDOW);
      this.labelValue = DIRECT_PHONE_LABEL.test(near) || (endsWithAtOrOn(near) && CALL_SOMEONE_AT.test(near));
      if (!this.labelValue && endsWithAtOrOn(near) && ASK_SOMEONE_AT.test(near)) this.labelValue = this.askedValue = true;
      for (let k = 0; k < 3 && !this.labelValue; k++) {
        const listed = PREVIOUS_LISTED_NUMBER.exec(before);
        if (listed === null) break;
        before = before.slice(0, listed.index);
        this.labelValue = DIRECT_PHONE_LABEL.test(before.slice(-DIRECT_LABEL_WINDOW));
      }
      this.labelKnown = true;
    }
    return this.labelValue;
  }

  /** The only label is a name asked for "on"/"at" (ASK_SOMEONE_AT), no phone word. */
  get asked(): boolean {
    return this.labelled && this.askedValue;
  }

  /** A phone word right after the number ending at `end` (PHONE_LABEL_AFTER). */
  labelledAfter(end: number): boolean {
    return PHONE_LABEL_AFTER.test(this.text.slice(end, end + AFTER_WINDOW));
  }
}

/** Confidence for the first `count` groups, or 0 when they are not a phone number. */
function classify(state: ScanState, shape: PhoneShape, count: number, context: CandidateContext): number {
  const digits = joinDigits(shape, count);
  if (digits.length < 7) return labelledLocal(shape, count, digits, context);
  if (shape.international) {
    if (digits.length < 8) return 0;
    const verdict = checkInternational(digits);
    if (verdict.valid) return 0.9;
    // Possible length after an explicit "+CC": still strongly phone-like when written in groups.
    if (verdict.possible && (count >= 2 || context.present)) return 0.7;
    return unplannedInternational(state.text, shape, count, digits, context);
  }
  // A name asked for "on"/"at" is the only label: the whole run, grouped as phones are (plainGroups).
  if (atOrOnBefore(state.text, shape.start) && context.asked && (count !== shape.groupDigits.length || !plainGroups(shape, count))) return 0;
  // International call prefix instead of '+': 00 (most of the world), 011 (North America).
  const idd = digits.startsWith('00') ? 2 : digits.startsWith('011') && callingCodeOf(state.region) === '1' ? 3 : 0;
  if (idd > 0 && digits.length - idd >= 8 && (count >= 2 || context.present)) {
    const verdict = checkInternational(digits.slice(idd));
    // Like "+CC ...": a possible length in groups is still a phone number (unassigned area codes).
    if (verdict.valid) return 0.85;
    if (verdict.possible && count >= 3) return 0.7;
    // "00972 22716325" after "call Omar on": a calling code no plan completes, labelled.
    if (context.labelled && hasCallingCode(digits.slice(idd)) && count === shape.groupDigits.length) return UNPLANNED_CONFIDENCE;
  }
  const nanp = nanpShape(shape, count);
  if (nanp !== undefined) {
    const national = digits.length === 11 ? digits.slice(1) : digits;
    if (checkNational(national, 'US').valid) return nanp === 'strong' ? 0.85 : 0.75;
    // Unassigned area codes still look exactly like phone numbers to a reader; keep them at a
    // weaker score when area code and exchange start with 2-9 as the plan requires.
    const area = national.charCodeAt(0);
    const exchange = national.charCodeAt(3);
    if (area >= 50 && exchange >= 50) return nanp === 'strong' ? 0.7 : 0.6;
    // The layout alone is the evidence for a reader when it is the North American one written
    // with dashes, dots or a parenthesised area code (made-up and test numbers such as
    // (547) 017-4681 break the plan but are given as phone numbers): protect it, weakly. Spaced
    // groups need a parenthesised area code, a leading 1 or a phone word.
    if (nanp === 'strong' || shape.paren[0] === true || count === 4 || context.present) return 0.55;
    // Not a North American number: the national checks below may still accept it (IE 085 012 3863).
  }
  if (digits.charCodeAt(0) === 48 /* 0 */) {
    // Trunk-prefixed national number (0171 1234567, 07684 255698, 06 12 34 56 78).
    // Eight digits with the trunk 0 exist (Stockholm 08-62 10 04) but only next to a phone word,
    // and so do thirteen (Austria 07448 78298548: an area code and a long extension number).
    if (digits.length < (context.present ? 8 : 9) || digits.length > (context.present ? 13 : 12)) return labelledLocal(shape, count, digits, context);
    if (count < 2 && !context.present) return 0;
    if (!separatorsPlausible(shape, count, context.present)) return 0;
    if (checkNational(digits, state.region).valid) return count >= 2 ? 0.75 : 0.65;
    for (const region of state.fallbackRegions) {
      if (checkNational(digits, region).valid) return count >= 2 ? 0.65 : 0.6;
    }
    // Valid nowhere the text hints at, but labelled as a phone number: a local number.
    return labelledLocal(shape, count, digits, context);
  }
  // A parenthesised area code in front of a valid national number: (11) 96123-4073.
  if (shape.paren[0] === true && count >= 2 && digits.length >= 8 && checkNational(digits, state.region).valid) return 0.75;
  // No trunk prefix: only next to a phone word, and then only numbers valid in the hinted region
  // (ES 612 34 56 78, IT 312 345 6789, CN 131 2345 6984, MX 222 123 4415).
  if (digits.length < 8 || !context.present) return labelledLocal(shape, count, digits, context);
  if (!separatorsPlausible(shape, count, true)) return 0;
  if (checkNational(digits, state.region).valid) return usesTrunkPrefix(state.region) ? 0.6 : 0.65;
  // Written as at home, without the trunk prefix ("(532) 123 4567" in Turkey): after a phone
  // word, a number valid in one of the fallback regions.
  if (shape.paren[0] === true && count <= 3) {
    for (const region of state.fallbackRegions) if (checkNational(digits, region).valid) return 0.55;
  }
  // "my number is 8893716518": ten bare digits shaped like a North American number (area code
  // and exchange 2-9), right after a phone word.
  const national = digits.length === 11 && digits.charCodeAt(0) === 49 ? digits.slice(1) : digits;
  if (national.length === 10 && national.charCodeAt(0) >= 50 && national.charCodeAt(3) >= 50) return 0.55;
  return labelledLocal(shape, count, digits, context);
}

const MIN_LABELLED_DIGITS = 6;
const MAX_LABELLED_DIGITS = 11;

/**
 * Session 17 (wave16/phone): a number no numbering plan accepts, written as people write phones
 * ("+54 9 3859 7059", Faker's 13-digit `msisdn()`, a calling code before another country's
 * number). Below every validated score: at the reporting threshold alone, 0.6 with a phone word.
 */
const UNPLANNED_CONFIDENCE = 0.5;
const MIN_UNPLANNED_DIGITS = 8;
const MAX_UNPLANNED_DIGITS = 15;

/**
 * After an explicit '+', digits no plan accepts: a phone number when a phone word or calling verb
 * labels it, or when it is grouped as phones are printed (the first group a calling code, two
 * groups or more of at most five digits after it with one kind of separator, not dots), and
 * nothing says amount, unit or count ("+12 345 678" in thousands, "+61 975 161 EUR").
 */
function unplannedInternational(text: string, shape: PhoneShape, count: number, digits: string, context: CandidateContext): number {
  if (count !== shape.groupDigits.length || digits.length < MIN_UNPLANNED_DIGITS || digits.length > MAX_UNPLANNED_DIGITS) return 0;
  if (!hasCallingCode(digits) || continuesOnNextLine(text, shape.groupEnds[count - 1]!)) return 0;
  if (context.labelled || context.labelledAfter(shape.groupEnds[count - 1]!)) return UNPLANNED_CONFIDENCE;
  const groups = shape.groupDigits;
  if (count < 3 || shape.paren.some((paren) => paren) || !hasCallingCode(shape.digits[0]!, true)) return 0;
  for (let k = 1; k < count; k++) if (groups[k]! > 5 || shape.seps[k] !== shape.seps[1] || shape.seps[k] === DOT || shape.seps[k] === SLASH) return 0;
  let thousands = true;
  for (let k = 1; k < count; k++) if (groups[k] !== 3) thousands = false;
  if (thousands) return 0;
  const start = shape.start;
  const end = shape.groupEnds[count - 1]!;
  if (NOT_PHONE_BEFORE.test(text.slice(Math.max(0, start - 24), start)) || NOT_PHONE_AFTER.test(text.slice(end, end + 16))) return 0;
  return UNPLANNED_CONFIDENCE;
}

/**
 * Last resort: a number of 6-11 digits right after a phone label (DIRECT_PHONE_LABEL), written
 * whole or in groups with one kind of separator, is a phone number that no region's metadata
 * confirmed (0.55: above the default threshold only because the label says so).
 */
function labelledLocal(shape: PhoneShape, count: number, digits: string, context: CandidateContext): number {
  if (!shape.international && digits.length > MAX_LABELLED_DIGITS) return labelledLong(shape, count, digits, context);
  if (shape.international || digits.length < MIN_LABELLED_DIGITS || digits.length > MAX_LABELLED_DIGITS) return 0;
  // The whole run of groups: never a prefix of a longer number ("My Number: 9725 4024 9292").
  if (count !== shape.groupDigits.length) return 0;
  if (!context.labelled && !context.labelledAfter(shape.groupEnds[count - 1]!)) return 0;
  if (!uniformOrAreaSpaced(shape, count, digits.length) && (!context.labelled || context.asked || !spacesAndDashes(shape, count))) return 0;
  if (context.asked && !plainGroups(shape, count)) return 0;
  // "call on 2024-12-05", "call 12.05.2024": a date, not a number.
  const groups = shape.groupDigits.slice(0, count).join(',');
  if (groups === '4,2,2' || groups === '2,2,4' || groups === '2,2,2') {
    if (shape.seps[1] !== SPACE) return 0;
    // Session 17 (wave16/phone): "Ask Tom on 12 03 24", "Text me on 12 03 2024": spaced pairs
    // that read as a date after "on"/"at" are one ("call 31 07 20", "Phone: 31 07 20" stay phones).
    if (atOrOnBefore(shape.text, shape.start) && isDate(shape.digits.slice(0, count).map(Number), groups)) return 0;
  }
  return 0.55;
}

/**
 * Session 17 (wave16/phone): 12-15 digits right after a phone label ("Phone: 4003787685670",
 * "call me at 6559273114620": a number in international form without its '+', as Faker's
 * `msisdn()` prints it), in one run or uniform groups, starting with a calling code.
 */
function labelledLong(shape: PhoneShape, count: number, digits: string, context: CandidateContext): number {
  // Cheap shape tests first: long digit runs (card and account numbers) reach this often.
  if (digits.length > MAX_UNPLANNED_DIGITS || count !== shape.groupDigits.length || !hasCallingCode(digits)) return 0;
  for (let k = 2; k < count; k++) if (shape.seps[k] !== shape.seps[1]) return 0;
  if (!context.labelled || (context.asked && !plainGroups(shape, count))) return 0;
  if (continuesOnNextLine(shape.text, shape.groupEnds[count - 1]!)) return 0;
  return UNPLANNED_CONFIDENCE;
}

/**
 * Digits again right after a line break that ends the run ("+44 20 7946\n0958"): the number goes
 * on below, so the run alone is no whole number no plan accepts, but a piece of one that the
 * readers of values broken over a line (broken-lines.ts) join; an unplanned acceptance never takes
 * the piece.
 */
function continuesOnNextLine(text: string, end: number): boolean {
  return CONTINUES_ON_NEXT_LINE.test(text.slice(end, end + 12));
}

const CONTINUES_ON_NEXT_LINE = /^[ \t]*\r?\n[ \t]*[+(]?[0-9]/;

/**
 * Groups as phones are written, for a number only a name asked for "on"/"at" labels: no dots (a
 * decimal or thousands mark), no thousands layout ("46 641 859"), no one-digit check group ("2-616-41299-3"),
 * at most four groups unless the trunk zero starts it ("21 46 37 32 23 34" is a list of scores).
 */
function plainGroups(shape: PhoneShape, count: number): boolean {
  const groups = shape.groupDigits;
  if (count > 4 && shape.digits[0]!.charCodeAt(0) !== 48) return false;
  if (count > 1 && groups[count - 1]! < 2) return false;
  let thousands = count > 1 && groups[0]! <= 3;
  for (let k = 1; k < count; k++) {
    if (shape.seps[k] === DOT) return false;
    if (groups[k] !== 3) thousands = false;
  }
  return !thousands;
}

/** Day, month and year (4,2,2 year first; else day and month in either order, then the year). */
function isDate(values: number[], groups: string): boolean {
  const [a, b, c] = groups === '4,2,2' ? [values[2]!, values[1]!, values[0]!] : [values[0]!, values[1]!, values[2]!];
  const year = groups === '2,2,2' || isYear(c);
  const dayMonth = (a >= 1 && a <= 31 && b >= 1 && b <= 12) || (b >= 1 && b <= 31 && a >= 1 && a <= 12);
  return year && dayMonth;
}

/** A year a text could name in a range (the Ming dynasty 1368-1644, a contract 2019-2024). */
function isYear(value: number): boolean {
  return value >= 1000 && value <= 2099;
}

/** Confidence of a number placed by its layout alone: below a label's 0.55, at the default threshold. */
const LAYOUT_CONFIDENCE = 0.5;
const MIN_LAYOUT_DIGITS = 7;
const MAX_LAYOUT_DIGITS = 12;
/**
 * Money, measures, ranges and numbered things right before the digits: "EUR 12 345 678", "pp.
 * 12-34", "#", "No.", "Invoice number:", "Items:", "between".
 */
const NOT_PHONE_BEFORE =
  /(?:[$€£¥₹₽₩¢%#§°]|\b(?:eur|usd|gbp|chf|jpy|cny|inr|rub|sek|nok|dkk|pln|czk|huf|brl|aud|cad|kr|zł|rs|no|nr|nos|p|pp|pg|page|pages|vol|ch|art|isbn|issn|id|ref|order|invoice|inv|tracking|parcel|case|ticket|sku|item|account|acct|serial|version|v|build|lot|batch|po|bs|count|port|between|from|to|weighs|population|total|balance|sum|amount|price|cost|items?)\.?(?:[ \t]+(?:numbers?|no\.?|nr\.?|ids?)|[ \t]*#)?)[ \t]*:?[ \t]*$/iu;
const CODE_BEFORE = /(?<![\p{L}\p{N}])\p{Lu}{1,4}[ ]$/u;
const ISBN_BEFORE = /\bisbn(?:-1[03])?[ \t]*:?[ \t]*$/i;
/**
 * A street right after the number: "3579 1619 Langley St", "12 345 Rue de la Paix": a building
 * number (an address generator or a form glued two numbers), not a phone number.
 */
const STREET_TYPES = [
  'st', 'street', 'rd', 'road', 'ave', 'av', 'avenue', 'blvd', 'boulevard', 'ln', 'lane', 'dr', 'drive', 'way', 'ct',
  'court', 'pl', 'place', 'sq', 'square', 'ter', 'terrace', 'hwy', 'highway', 'pkwy', 'parkway', 'cir', 'circle',
  'cres', 'crescent', 'close', 'row', 'walk', 'gardens', 'grove', 'trail', 'loop', 'pike', 'plaza', 'alley',
  'straße', 'strasse', 'str', 'weg', 'gasse', 'allee', 'platz', 'laan', 'straat', 'gatan', 'vägen', 'vej', 'gade', 'veien',
];
const STREET_PREFIXES = ['rue', 'via', 'viale', 'calle', 'avenida', 'avda', 'rua', 'travessa', 'largo', 'paseo', 'ulica', 'ul'];
/** `word` in lower case or capitalised ("st" -> "[Ss]t"): the street name before it must be capitalised, so no /i flag. */
const eitherCase = (word: string): string => `[${word[0]!.toUpperCase()}${word[0]}]${word.slice(1)}`;
const STREET_AFTER = new RegExp(
  `^[ \\t]+(?:(?:\\p{Lu}[\\p{L}'-]*[ \\t]+){1,3}(?:${STREET_TYPES.map(eitherCase).join('|')})\\.?(?![\\p{L}\\p{N}])` +
    `|(?:${STREET_PREFIXES.map(eitherCase).join('|')})\\.?[ \\t])`,
  'u',
);
/** Address parts right before the number: "Suite 1200 3456", "PO Box 12 345". */
const ADDRESS_BEFORE = /(?<![\p{L}\p{N}])(?:suite|ste|apt|apartment|unit|box|floor|fl|room|rm|building|bldg|house)\.?[ \t]*#?[ \t]*$/iu;
/** A unit or currency right after the digits: "12 345 678 EUR", "2 500 000 kg", "34 %". */
const NOT_PHONE_AFTER =
  /^[ \t]*(?:[$€£¥₹₽₩¢%°‰]|(?:eur|usd|gbp|chf|jpy|kr|kg|km|mb|gb|kb|ms|m|t|g|l|people|units|inhabitants|times|euros?|dollars?|pounds?|yen|items|bytes|rows|votes|views|users|issues|records|files|errors|requests|lines|pages|tickets|orders|customers|visitors|downloads|steps|words|characters|seconds|minutes|hours|days|weeks|months|years|copies|pieces|tons|litres|liters|meters|metres|miles)(?![\p{L}\p{N}]))/iu;

/**
 * A number in running text with no phone word near it: its digit groups must be exactly the
 * groups some region's numbering plan prints for a valid national number (nationalLayoutRegion:
 * "730 064 218", "51 65 63 15", "08-67 99 45", "0161 496 0932"), written with one kind of separator
 * (a '/' or a different one after the area code allowed), 7-12 digits in two groups or more, and
 * nothing that makes it a date, a range, an amount, a measure or a numbered thing.
 */
function layoutOnly(text: string, shape: PhoneShape, count: number, digits: string, start: number, end: number): number {
  if (shape.international || count < 2 || count !== shape.groupDigits.length) return 0;
  if (digits.length < MIN_LAYOUT_DIGITS || digits.length > MAX_LAYOUT_DIGITS) return 0;
  const groups = shape.groupDigits;
  const seps = shape.seps;
  // A single trailing digit is a check digit ("AB 12 34 56 1", ISBN-10), never a plan's group.
  if (groups[count - 1]! < 2) return 0;
  // The digits go on from a code in capitals ("Row RG 53 63 72 45", "EP 4926 045"): one identifier.
  if (codeAt(text, start - 1) === SPACE && CODE_BEFORE.test(text.slice(Math.max(0, start - 6), start))) return 0;
  // Five or more pairs without a trunk zero are a list of small numbers (scores, lottery draws):
  // plans printed in pairs (FR, BE, ...) start with the trunk zero; Denmark's and Norway's are four.
  if (count >= 5 && digits.charCodeAt(0) !== 48 && groups.every((size) => size <= 2)) return 0;
  // Separators: uniform after the first group; the first may be '/', '-' or a parenthesis.
  for (let k = 2; k < count; k++) if (seps[k] !== seps[2] || seps[k] === SLASH) return 0;
  if (count === 2 && seps[1] === DOT) return 0; // 10.273721: a decimal number
  if (seps[1] === DOT || seps[2] === DOT) {
    // Dotted: 06.12.34.56.78, 555.123.4567; never 1.234.567 (thousands) or an IPv4 address.
    if (count === 4 && groups.every((size) => size <= 3)) return 0;
  }
  // Thousands: 1 234 567, 12.345.678, 999 999 (groups of three after a short first one).
  let thousands = groups[0]! <= 3;
  for (let k = 1; k < count && thousands; k++) if (groups[k] !== 3) thousands = false;
  if (thousands && (groups[0]! < 3 || seps[1] === DOT)) return 0;
  // Dates (12 05 2024, 2024-05-12) and year ranges (1990-2005, 1368–1644: the en dash folds to '-').
  const shapeKey = groups.join(',');
  if (shapeKey === '2,2,4' || shapeKey === '4,2,2' || shapeKey === '1,2,4' || shapeKey === '2,1,4') return 0;
  if (count === 2 && groups[0] === groups[1] && seps[1] !== SPACE) {
    // Other ranges ("pages 1200-1450") are caught by the word before them (NOT_PHONE_BEFORE).
    const [first, second] = [Number(shape.digits[0]), Number(shape.digits[1])];
    if (groups[0] === 4 && isYear(first) && isYear(second)) return 0;
  }
  // Part of a longer numeric expression: "3,5 12 345", "1 234 567,89", "12:30 45 67".
  const before = separatorAt(text, start - 1);
  const beforeDigit = isDigit(codeAt(text, start - 2));
  if ((before === 44 || before === DOT || before === 58 || before === DASH || before === SLASH) && beforeDigit) return 0;
  const after = separatorAt(text, end);
  if ((after === 44 || after === DOT || after === 58) && isDigit(codeAt(text, end + 1))) return 0;
  if (NOT_PHONE_BEFORE.test(text.slice(Math.max(0, start - 24), start))) return 0;
  if (NOT_PHONE_AFTER.test(text.slice(end, end + 16))) return 0;
  if (STREET_AFTER.test(text.slice(end, end + 64)) || ADDRESS_BEFORE.test(text.slice(Math.max(0, start - 16), start))) return 0;
  return nationalLayoutRegion(groups.slice(0, count), digits) === undefined ? 0 : LAYOUT_CONFIDENCE;
}

/**
 * One kind of separator throughout, or a space after the area code and dashes after it as
 * Brazil writes numbers ("48 8982-0660", "37 6100-8316": eight digits at least, the last two
 * groups of four or five and four).
 */
function uniformOrAreaSpaced(shape: PhoneShape, count: number, digitCount: number): boolean {
  let uniform = true;
  for (let k = 2; k < count; k++) if (shape.seps[k] !== shape.seps[1]) uniform = false;
  if (uniform) return true;
  const groups = shape.groupDigits;
  if (digitCount < 8 || shape.seps[1] !== SPACE || groups[count - 1] !== 4 || (groups[count - 2]! < 4)) return false;
  for (let k = 2; k < count; k++) if (shape.seps[k] !== DASH) return false;
  return true;
}

/**
 * Session 18 (wave17/phone): spaces and dashes mixed, nothing else ("62 75 08-49", "53-4100 7265"),
 * as people type a local number right after a phone label. Dots mixed in stay out: "call me at
 * 10.30-11.45" is a time range.
 */
function spacesAndDashes(shape: PhoneShape, count: number): boolean {
  const groups = shape.groupDigits;
  for (let k = 1; k < count; k++) {
    if (shape.seps[k] !== SPACE && shape.seps[k] !== DASH) return false;
    // A year and a month or day joined by the dash ("Mobile: 12 2024-05"): a date in the run.
    if (shape.seps[k] !== DASH) continue;
    const [left, right] = [groups[k - 1]!, groups[k]!];
    if ((left === 4 && right <= 2 && isYear(Number(shape.digits[k - 1]))) || (right === 4 && left <= 2 && isYear(Number(shape.digits[k])))) return false;
  }
  return true;
}

/**
 * Reject shapes that read as other things: a '.' or '/' separated run must be uniform, unless a
 * phone word stands before it (Phone: 0475.339.281).
 */
function separatorsPlausible(shape: PhoneShape, count: number, phoneWord: boolean): boolean {
  if (phoneWord) return true;
  let dotted = false;
  for (let k = 1; k < count; k++) {
    const s = shape.seps[k]!;
    if (s === DOT || s === SLASH) dotted = true;
  }
  if (!dotted) return true;
  // 030/1234567 (one slash after the area code) or 06.12.34.56.78 (uniform dots).
  if (count === 2 && shape.seps[1] === SLASH) return true;
  for (let k = 1; k < count; k++) if (shape.seps[k] !== DOT || shape.groupDigits[k] !== 2) return false;
  return shape.groupDigits[0] === 2;
}

/**
 * Allocation-free gate: at least `minimum` digits before the phone-shaped run ends (28 chars max), with
 * '+' only first, balanced parentheses and no doubled separators.
 */
function enoughDigits(text: string, start: number, minimum: number): boolean {
  let digits = 0;
  // "(+30) 6946 223059": a country code opened before the '+' closes after it.
  let open = codeAt(text, start) === PLUS && codeAt(text, start - 1) === LPAREN;
  let previousSeparator = false;
  const limit = Math.min(text.length, start + 28);
  for (let k = start; k < limit; k++) {
    const c = text.charCodeAt(k);
    if (isDigit(c)) {
      if (++digits >= minimum) return true;
      previousSeparator = false;
    } else if (c === LPAREN) {
      if (open) return false;
      open = true;
    } else if (c === RPAREN) {
      if (!open) return false;
      open = false;
    } else if (isSeparatorCode(phoneSeparator(c))) {
      // " / " (spacedSlashAt): the one doubled separator the collector reads.
      if (c === SPACE && text.charCodeAt(k - 1) === SLASH && codeAt(text, k - 2) === SPACE) continue;
      if (previousSeparator && !(c === SLASH && text.charCodeAt(k - 1) === SPACE && codeAt(text, k + 1) === SPACE)) return false;
      previousSeparator = true;
    } else if (c !== PLUS || k !== start) {
      return false;
    }
  }
  return false;
}

function isSeparatorCode(s: number): boolean {
  return s === SPACE || s === DASH || s === DOT || s === SLASH;
}

const MAX_EXTENSION_DIGITS = 6;

/** `literal` (lowercase ASCII) at `index`, compared case-insensitively. */
function wordAt(text: string, index: number, literal: string): boolean {
  for (let k = 0; k < literal.length; k++) if ((codeAt(text, index + k) | 0x20) !== literal.charCodeAt(k)) return false;
  return true;
}

/**
 * End of an extension after a number ending at `end`: `x`, `ext`, `ext.` or `extension`, glued
 * or after one space, then 1-6 digits (optionally after one space); `end` when there is none.
 */
function extensionEnd(text: string, end: number): number {
  let pos = end;
  if (codeAt(text, pos) === SPACE) pos++;
  let marker = 0;
  if (wordAt(text, pos, 'extension')) marker = 9;
  else if (wordAt(text, pos, 'ext')) marker = codeAt(text, pos + 3) === DOT ? 4 : 3;
  else if ((codeAt(text, pos) | 0x20) === 120 /* x */) marker = 1;
  if (marker === 0) return end;
  pos += marker;
  if (codeAt(text, pos) === SPACE && marker > 1) pos++;
  else if (codeAt(text, pos) === SPACE && marker === 1 && pos > end + 1) pos++; // "555-0100 x 42"
  const digitsStart = pos;
  while (isDigit(codeAt(text, pos)) && pos - digitsStart <= MAX_EXTENSION_DIGITS) pos++;
  const length = pos - digitsStart;
  if (length === 0 || length > MAX_EXTENSION_DIGITS || isAlnumCode(codeAt(text, pos))) return end;
  return pos;
}

/**
 * Try a phone number starting at `start` ('+', '(' or the first digit). Emits at most one match
 * (the longest group prefix that validates).
 */
/**
 * `plusWordStart`: where a word standing for `+` begins ("plus 44 20 7946 0958", as
 * speech-to-text writes a number read out; plusWordBefore), or -1. The number is then read as
 * international and the word is part of the value.
 */
export function detectPhone(state: ScanState, start: number, plusWordStart = -1): void {
  const text = state.text;
  if (!enoughDigits(text, start, MIN_LABELLED_DIGITS)) {
    if (plusWordStart < 0 && codeAt(text, start) !== PLUS && codeAt(text, start) !== LPAREN) detectShortPhone(state, start);
    return;
  }
  const shape = collect(text, start, plusWordStart >= 0);
  if (shape === undefined) return;
  const context = new CandidateContext(text, start, shape.groupEnds[shape.groupEnds.length - 1]!);
  const groups = shape.groupDigits.length;
  const minimum = Math.max(1, groups - 3);
  for (let count = groups; count >= minimum; count--) {
    const numberEnd = shape.groupEnds[count - 1]!;
    // An extension belongs to the number: 555-0100x42, 555-0100 ext. 42, 555-0100 x 42.
    const end = count === groups ? extensionEnd(text, numberEnd) : numberEnd;
    const after = separatorAt(text, end);
    if (isAlnumCode(after)) continue;
    // A number that runs on with the same separator is a longer token (a date, a reference).
    if (count === groups && (after === DOT || after === DASH) && after === shape.seps[count - 1] && isDigit(codeAt(text, end + 1))) return;
    let confidence = classify(state, shape, count, context);
    // Last: the layout of some numbering plan (cheap shape gates first; no context lookup needed).
    if (confidence === 0) confidence = layoutOnly(text, shape, count, joinDigits(shape, count), start, end);
    // "NHS number: 943 476 5918", "CPR-nr. 010984-5120": a number labelled as an id is not a
    // phone number, even when its check digit is wrong (then it is nothing at all). Only a label
    // directly before the number counts: "Patient number 12, call 555 0100" is a phone.
    // A number no plan accepts is not a phone after an id's own label even with a phone word in
    // reach ("My Number: 9725 4024 9292" is Japan's My Number; session 17).
    if (confidence > 0 && !shape.international && (!context.present || confidence === UNPLANNED_CONFIDENCE) && hasLabelBefore(text, start, 40, SPECIFIC_ID_CONTEXT)) return;
    // "ISBN 0 306 40615 2": a book number's groups can read as a trunk-prefixed phone number.
    if (confidence > 0 && !shape.international && !context.present && ISBN_BEFORE.test(text.slice(Math.max(0, start - 12), start))) return;
    if (confidence > 0) {
      if (confidence < 0.9 && context.present) confidence += 0.1;
      emit(state, 'phone', plusWordStart >= 0 ? plusWordStart : shape.ccParen ? start - 1 : start, end, confidence);
      return;
    }
  }
}

/**
 * Session 18 (wave17/phone): a phone word right before a short number names an extension or an
 * in-house number ("ext. 4587", "call 5-0199 inside the office", "Tel. 2 34 56", "my extension is
 * 4587", "Durchwahl 4587"): a phone noun (with "number"/"no."/"#" after it), or a dialling verb
 * (call, dial, ring, then "me"/"us"/... and "at"/"on"). Nothing else labels 4-5 digits: "text",
 * "reach", "contact", "cell" and "mobile" name counts and grid cells as often.
 */
const SHORT_PHONE_LABEL =
  /(?<![\p{L}\p{N}])(?:(?:phone|tel|telephone|fax|ext|extension|durchwahl|nebenstelle|poste|interno|extensión|ramal)(?:[ \t]*(?:numbers?|no\.?|nr\.?|#))?\.?|(?:call|dial|ring)(?:[ \t]+(?:me|us|him|her|them))?(?:[ \t]+(?:at|on))?|(?:my|our|his|her|their|the)[ \t]+(?:extension|ext\.?)[ \t]+(?:is|:))[ \t]*[:#]?[ \t]*$/iu;
/** The dialling verbs of SHORT_PHONE_LABEL, after which a bare four-digit year stays a year ("call 2024 a good year"). */
const SHORT_VERB_LABEL = /(?<![\p{L}\p{N}])(?:call|dial|ring)(?:[ \t]+(?:me|us|him|her|them))?(?:[ \t]+(?:at|on))?[ \t]*$/iu;
const MIN_SHORT_DIGITS = 4;
const MIN_EXTENSION_DIGITS = 2;
/**
 * Session 19 (wave18/phone): an extension written alone after a dialling verb ("dial ext 12", "Call
 * ext. 305", "ring extension 42"): the verb, optionally "me"/"us"/... and "at"/"on", then
 * "ext"/"ext."/"extension" right before 2-3 digits. Never the extension word alone ("ext 12" is a
 * file suffix, a ticket field, a section as often).
 */
const CALLED_EXTENSION =
  /(?<![\p{L}\p{N}])(?:call|dial|ring|phone)(?:[ \t]+(?:me|us|him|her|them))?(?:[ \t]+(?:at|on))?[ \t]+(?:ext\.?|extension)[ \t]*[:#]?[ \t]*$/iu;
const MAX_SHORT_DIGITS = 5;
const SHORT_LABEL_WINDOW = 32;
const SHORT_CONFIDENCE = 0.55;

/**
 * 4-5 digits right after a phone word (SHORT_PHONE_LABEL): one run or at most three groups of
 * one kind of separator, a space or a dash (`5-0199`, `2 34 56`; never dots or slashes: a decimal,
 * a date), the last group two digits at least, the whole run, and nothing of money, units, counts
 * or a longer token around it. Never bare: without the label a short number is a count, a year or
 * a code.
 */
function detectShortPhone(state: ScanState, start: number): void {
  const text = state.text;
  // Cheap gate: a letter (the label's last) before the spaces, colon, '#' or '.' before the digits.
  let k = start - 1;
  while (k >= 0 && k >= start - 4) {
    const c = text.charCodeAt(k);
    if (c !== SPACE && c !== 9 && c !== 58 && c !== 35 && c !== DOT) break;
    k--;
  }
  if (k < 0 || k === start - 1 || !isAsciiLetterCode(text.charCodeAt(k))) return;
  const shape = collect(text, start, false);
  if (shape === undefined) return;
  const count = shape.groupDigits.length;
  let total = 0;
  for (const size of shape.groupDigits) total += size;
  if (total < MIN_EXTENSION_DIGITS || total > MAX_SHORT_DIGITS || count > 3 || shape.paren.some((paren) => paren)) return;
  if (count > 1 && shape.groupDigits[count - 1]! < 2) return;
  for (let g = 1; g < count; g++) {
    const sep = shape.seps[g]!;
    if ((sep !== SPACE && sep !== DASH) || sep !== shape.seps[1]) return;
  }
  const end = shape.groupEnds[count - 1]!;
  const after = separatorAt(text, end);
  // "call 1-800-FLOWERS", "ext. 4587.2", "call 5-0199/12": a longer token goes on after the digits.
  if (isAlnumCode(after) || ((after === DASH || after === DOT || after === SLASH || after === 44 || after === 58) && isAlnumCode(codeAt(text, end + 1)))) return;
  if (total < MIN_SHORT_DIGITS) {
    // Session 19 (wave18/phone): 2-3 digits only as an extension a dialling verb names ("dial ext 12");
    // the word before must end "ext" or "extension" (no slice or pattern for "page 12", "at 10").
    if (count === 1 && (wordAt(text, k - 2, 'ext') || wordAt(text, k - 8, 'extension')) && CALLED_EXTENSION.test(text.slice(Math.max(0, start - SHORT_LABEL_WINDOW), start)) && !NOT_PHONE_AFTER.test(text.slice(end, end + 16))) emit(state, 'phone', start, end, SHORT_CONFIDENCE);
    return;
  }
  const before = text.slice(Math.max(0, start - SHORT_LABEL_WINDOW), start);
  if (!SHORT_PHONE_LABEL.test(before)) return;
  if (count === 1 && total === 4 && isYear(Number(shape.digits[0])) && SHORT_VERB_LABEL.test(before)) return;
  if (NOT_PHONE_AFTER.test(text.slice(end, end + 16))) return;
  if (hasLabelBefore(text, start, 40, SPECIFIC_ID_CONTEXT)) return;
  emit(state, 'phone', start, end, SHORT_CONFIDENCE);
}

function isAsciiLetterCode(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c > 0x7f;
}

/** The words for `+` read out before a number (en, de, fr, nl `plus`; es `más`; it `più`; pt `mais`). */
const PLUS_WORD = /(?:^|[^\p{L}\p{N}])(plus|m[áa]s|più|mais) $/iu;

/** Where a word for `+` and one space end right before `start` begins, or -1. */
export function plusWordBefore(text: string, start: number): number {
  if (codeAt(text, start - 1) !== SPACE) return -1;
  const match = PLUS_WORD.exec(text.slice(Math.max(0, start - 6), start));
  return match === null ? -1 : start - match[1]!.length - 1;
}

/**
 * Session 17 (wave16/phone): "You can reach Raj Patel at 85 3131-2421". A lower-case NINO reading
 * of "at 85 3131" scored below the reporting threshold yields its digits to the numeric scan
 * (scan.ts, weakNinoAt); when a stronger value of another type then holds every digit of it, the
 * reading lost and leaves nothing behind: without this the overlap resolution kept its free
 * piece, the word "at", as a 0.40 `uk_nino` that a low request threshold would tokenize.
 * Called once per scan; it walks `out` only when a weak NINO is in it.
 */
export function dropOutvotedNinos(out: Detection[], floor: number): void {
  let weak = false;
  for (const detection of out) if (detection.type === 'uk_nino' && detection.confidence < floor) weak = true;
  if (!weak) return;
  const outvoted = (nino: Detection): boolean => {
    if (nino.type !== 'uk_nino' || nino.confidence >= floor) return false;
    return out.some(
      (other) =>
        other.type !== 'uk_nino' && other.confidence > nino.confidence && other.start > nino.start && other.start < nino.end &&
        other.end >= nino.end && !hasDigit(nino.value, 0, other.start - nino.start),
    );
  };
  let kept = 0;
  for (const detection of out) if (!outvoted(detection)) out[kept++] = detection;
  out.length = kept;
}

function hasDigit(value: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (isDigit(value.charCodeAt(k))) return true;
  return false;
}
