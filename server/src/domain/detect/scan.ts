// The built-in detector (`builtin_regex`): one pass over the text. The loop moves a word or a
// punctuation character at a time; cheap anchors decide which detectors look closer: a word's
// first two characters, read once from one table (WORD_PAIRS: label and digit words, key
// prefixes, eyJ, http/www, bc1), its first character (digits -> numeric group checks, IBAN/BIC
// uppercase, hex -> IPv6/MAC), what follows it (month names before a number, schemes before
// ':'; a plain word of prose calls nothing), '@' (email), '=' and ':' (assigned secrets, '::'
// IPv6), '+' and '(' (phones), '-----BEGIN' (private keys), '-' before a letter (command-line
// options, read after the loop by cli-secret.ts), digit words (numbers spelled out, read after
// the loop by spelled-digits.ts), the marks of spelled e-mail addresses (an at-word between
// blanks, an '@' beside a blank, a bracket before an at-word's letter: the only places
// email-spelled.ts tries its regex). Every expansion is bounded, and long
// matches are skipped over, so the scan is linear in the text length on any input.
import type { Detection } from '../types.js';
import { detectAlnumIds } from './alnum-ids.js';
import { detectBrokenAddresses, mayBreakAddressAt } from './broken-addresses.js';
import { detectBrokenLines, mayJoinAt } from './broken-lines.js';
import { detectIndentedAndEscaped, mayJoinIndentedAt } from './broken-indent.js';
import { detectLookalikeIds, lookalikeIdMayStart } from './lookalike-ids.js';
import { detectCliSecrets, optionMayStart } from './cli-secret.js';
import { detectConnectionString } from './connection.js';
import { codeAt, F_DIGIT, F_HEX, F_LOWER, F_UPPER, F_WORD, FLAGS, isAlnumCode, isAsciiLetter, isCjkCode, isDigit, isNonAsciiLetter, isUpper, isWordCode } from './chars.js';
import { DATE_CONTEXT, hasWordBefore } from './context.js';
import { writtenDateFromMonth } from './dates.js';
import { detectEmail } from './email.js';
import { detectEncodedValues, mayStartBase64 } from './encoded.js';
import { detectReversedNumbers } from './reversed.js';
import { detectReversedReadings, END_THIRD, pushReversedWord, THIRD_BIT } from './reversed-words.js';
import { detectLetterSpaced, mayStartLetterSpaced } from './letter-spaced.js';
import { atMarkAfterBracket, atMarkIn, atWordAt, atWordMayStartWith, detectSpelledEmails } from './email-spelled.js';
import { detectCjkDigits, detectSpelledDigits, digitWord, digitWordMayStartWith, SPELLED_GATE, spelledGate } from './spelled-digits.js';
import { detectBic, detectIban, resolveBicCandidates } from './iban.js';
import { detectDoubleColonAt, detectHexAt } from './network.js';
import { detectNumeric, detectNumericGlued } from './numeric.js';
import { STRUCTURED_PRIORITY_FLOOR } from './overlap.js';
import { detectAssignedSecret } from './password.js';
import { KEYWORD_ROW, KEYWORD_THIRD, keywordMayStartWith, mayStartKeyword } from './keywords.js';
import { detectPhone, dropOutvotedNinos, fallbackRegionsFor, regionForLanguage } from './phone.js';
import { detectProseSecrets } from './prose-secret.js';
import { detectPasswordHashes } from './password-hash.js';
import { detectSeedPhrases } from './seed-phrase.js';
import { detectApiKey, detectJwt, detectPrivateKey, detectTelegramToken, jwtMayStartWith, keyMayStartAt, keyMayStartWith } from './secrets.js';
import { emit, type ScanState } from './state.js';
import { detectLabelledIds } from './labelled-ids.js';
import { detectLookalikeDigits, digitWordNearLookalike, holdsLookalikeLetter } from './lookalike-digits.js';
import { lookalikeDigit } from '../text/lookalike.js';
import { detectLookalikeWorded } from './lookalike-worded.js';
import { BASE58_MAX, BASE58_MIN, detectLookalikeBase58, lookalikeBase58MayStart } from './lookalike-base58.js';
import { addLookalikeHex } from './lookalike-hex.js';
import { addLookalikeSB, markSBWord } from './lookalike-sb.js';
import { detectUrl, urlMayStartWith } from './url.js';
import { bech32MayStartWith, detectBase58Address, detectBech32Address, detectEthereumAddress } from './wallet.js';

/** Types the built-in detector can emit (catalog.ts names). */
export const BUILTIN_TYPES: readonly string[] = [
  'email', 'phone', 'ip_address', 'url', 'mac_address', 'date', 'credit_card', 'iban', 'swift_bic', 'aba_routing',
  'crypto_wallet', 'eu_vat', 'api_key', 'jwt', 'private_key', 'password', 'connection_string', 'us_ssn', 'us_itin',
  'us_ein', 'us_passport', 'us_npi', 'us_mbi', 'uk_nino', 'uk_nhs', 'uk_passport', 'ie_pps', 'de_tax_id', 'fr_nir',
  'fr_siren', 'fr_siret', 'es_dni', 'es_nie', 'it_fiscal_code', 'nl_bsn', 'be_national_number', 'pt_nif', 'pl_pesel',
  'se_personnummer', 'fi_hetu', 'dk_cpr', 'no_fodselsnummer', 'ch_ahv', 'in_aadhaar', 'in_pan', 'au_tfn',
  'au_medicare', 'au_abn', 'au_acn', 'sg_nric', 'kr_rrn', 'cn_resident_id', 'jp_my_number', 'br_cpf', 'br_cnpj',
  'ca_sin', 'mx_curp', 'vin', 'imei', 'bank_account', 'card_security_code', 'driver_license',
  'medical_record_number', 'insurance_id',
];

// What a word's first two code units allow, read once per word from one table instead of
// asking each detector: most words of prose start with a pair no label, digit word, key prefix,
// URL scheme, JWT or bech32 prefix starts with, and pass on one load and a few bit tests (the
// detectors are called only for the pairs their own predicates name; each predicate is a
// superset of where its detector matches, so the spans are the same).
const P_KEYWORD = 1;
const P_DIGIT_WORD = 2;
const P_KEY = 4;
const P_URL = 8;
const P_JWT = 16;
const P_BECH32 = 32;
/** An at-word ("at", "arroba", ...) may start here: the spelled-e-mail regex's gate (email-spelled.ts). */
const P_AT = 64;
/** The bits onWord reads (the first two are read by the main loop). */
const P_ON_WORD = P_KEY | P_URL | P_JWT | P_BECH32;
/** Every bit: no gate (scanBuiltinUngated). */
const P_ALL = P_KEYWORD | P_DIGIT_WORD | P_ON_WORD | P_AT;

/** Index of a word's first two code units in WORD_PAIRS (`second` from 127 up, or NaN past the text: slot 127). */
function pairIndex(c: number, second: number): number {
  return (c << 7) | (second < 127 ? second : 127);
}

const WORD_PAIRS: Uint8Array = (() => {
  const table = new Uint8Array(128 * 128);
  for (let c = 0; c < 128; c++) {
    if ((FLAGS[c]! & F_WORD) === 0) continue;
    for (let second = 0; second < 128; second++) {
      table[pairIndex(c, second)] =
        (keywordMayStartWith(c, second) ? P_KEYWORD : 0) |
        (digitWordMayStartWith(c, second) ? P_DIGIT_WORD : 0) |
        (keyMayStartWith(c, second) ? P_KEY : 0) |
        (urlMayStartWith(c, second) ? P_URL : 0) |
        (jwtMayStartWith(c, second) ? P_JWT : 0) |
        (bech32MayStartWith(c, second) ? P_BECH32 : 0) |
        (atWordMayStartWith(c, second) ? P_AT : 0);
    }
  }
  return table;
})();

/** isWordCode of every code unit, as a table (64 KB): the word's extension reads one byte per unit. */
export const WORD_UNITS: Uint8Array = (() => {
  const table = new Uint8Array(0x10000);
  for (let unit = 0; unit < 0x10000; unit++) table[unit] = isWordCode(unit) ? 1 : 0;
  return table;
})();

const fallbackCache = new Map<string, readonly string[]>();

function fallbacks(region: string): readonly string[] {
  let list = fallbackCache.get(region);
  if (list === undefined) {
    list = fallbackRegionsFor(region);
    fallbackCache.set(region, list);
  }
  return list;
}

/** True when text[start, end) holds an ASCII letter. */
function hasLetter(text: string, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (((FLAGS[text.charCodeAt(k)] ?? 0) & (F_UPPER | F_LOWER)) !== 0) return true;
  return false;
}

/** The last emitted detection is a NINO at `start` scored below the reporting threshold. */
function weakNinoAt(state: ScanState, start: number): boolean {
  const last = state.out[state.out.length - 1];
  return last !== undefined && last.type === 'uk_nino' && last.start === start && last.confidence < STRUCTURED_PRIORITY_FLOOR;
}

/** ':' '-' '.': what follows the first group of an IPv6 or MAC address. */
function isHexSeparator(c: number): boolean {
  return c === 58 || c === 45 || c === 46;
}

/**
 * The id dispatch of onWord for a word starting with a letter (`second`: its second code unit):
 * upper-case ids and BICs, the same ids typed in lower case, IBANs in any case. Returns the end
 * of a match or -1.
 */
function onIdWord(state: ScanState, start: number, end: number, flags: number, second: number): number {
  const text = state.text;
  const length = end - start;
  const third = text.charCodeAt(start + 2);
  let resume = -1;
  if ((flags & F_UPPER) !== 0 && (isUpper(second) || isDigit(second))) {
    if (isUpper(second)) detectBic(state, start, end);
    // NINO, NIE, NRIC, PAN, codice fiscale, CURP, VIN, VAT: uppercase letters mixed with digits.
    resume = detectAlnumIds(state, start, end);
  } else if (
    isDigit(second) ||
    isDigit(third) ||
    (second === 45 && length === 1) ||
    (length === 2 && isDigit(text.charCodeAt(end + 1))) ||
    (length >= 10 && isDigit(text.charCodeAt(start + 3)))
  ) {
    // The same ids typed in lower case (x9613851n, de136695976, ab 12 34 56 c) or X-1234567-L.
    resume = detectAlnumIds(state, start, end, true);
    // "at 85 3131-2421", "on 22 87 10": a lower-case word read as a NINO below the reporting
    // threshold does not claim the digits after it; the numeric scan reads them too and overlap
    // resolution keeps the stronger value (a phone after "call me at").
    if (length === 2 && resume > end && weakNinoAt(state, start)) resume = -1;
  }
  // IBANs in any case (GB82WEST..., gb82west...): two letters, two check digits.
  if (isDigit(third) && isAsciiLetter(second)) resume = Math.max(resume, detectIban(state, start));
  // A country code written apart from its check digits ("DE 89 3704 …").
  else if (length === 2 && isAsciiLetter(second) && isDigit(text.charCodeAt(end + 1))) resume = Math.max(resume, detectIban(state, start));
  // Its letters apart too ("IBAN D E 8 9 3 7 …"; detectIban wants an IBAN word then).
  else if (length === 1 && second === 32 && isAsciiLetter(third) && text.charCodeAt(start + 3) === 32 && isDigit(text.charCodeAt(start + 4))) {
    resume = Math.max(resume, detectIban(state, start));
  }
  return resume;
}

// Label words a value is sometimes glued to, without a space or colon (`card4111111111111111`,
// `SSN078-05-1120`, `tel4155550100`, `DOB03/04/1985`): the card, SSN, phone and birth-date
// words of context.ts that are one ASCII word. Lower case; the word is compared in any case.
const GLUED_LABELS: ReadonlySet<string> = new Set([
  'card', 'cc', 'ccn', 'visa', 'amex', 'mastercard', 'creditcard', 'debitcard', 'ssn', 'ssns', 'tel', 'phone', 'telephone',
  'mobile', 'mob', 'cell', 'fax', 'whatsapp', 'telefon', 'tlf', 'dob', 'born',
]);
const GLUED_LABEL_MAX = 10;

/**
 * A letter word [start, end) ending in a digit that is a label word with digits glued to it: the
 * digit's index, or -1.
 */
function gluedLabel(text: string, start: number, end: number): number {
  let first = start;
  while (first < end && first - start <= GLUED_LABEL_MAX && isAsciiLetter(text.charCodeAt(first))) first++;
  if (first - start < 2 || first - start > GLUED_LABEL_MAX || !isDigit(text.charCodeAt(first))) return -1;
  return GLUED_LABELS.has(text.slice(start, first).toLowerCase()) ? first : -1;
}

/** Dispatch on a word [start, end) whose first character is ASCII [A-Za-z0-9_]; returns where to resume. */
function onWord(state: ScanState, start: number, end: number, c: number, flags: number, pair: number): number {
  const text = state.text;
  // Resume past the word, or past a longer match that started here. (No closure helpers: this
  // runs once per word and must not allocate.)
  let resume = end;
  // The unit after the word; NaN past the text fails every comparison below, as codeAt's -1 would.
  const next = text.charCodeAt(end);
  if ((flags & F_DIGIT) !== 0) {
    detectNumeric(state, start);
    if (digitWordNearLookalike(text, start, end)) state.lookalikeSeeds.push(start);
    markSBWord(state, text, start, end); // Session 15 (wave14/evade2): S for 5, B for 8 (lookalike-sb.ts).
    // A digit word with letters in it: MBI (1EG4-TE5-MK73), VIN, Chinese id ending in X,
    // Corsican NIR (2A/2B).
    const length = end - start;
    if (next === 58 && length >= 8) resume = Math.max(resume, detectTelegramToken(state, start, end));
    if ((length === 4 || (length >= 6 && length <= 9) || length === 11 || length === 15 || length === 17 || length === 18) && hasLetter(text, start, end)) {
      resume = Math.max(resume, detectAlnumIds(state, start, end));
    }
    if (c === 49 || c === 51) resume = Math.max(resume, detectBase58Address(state, start)); // '1' / '3'
    else if (c === 48 && end - start === 42) resume = Math.max(resume, detectEthereumAddress(state, start)); // 0x + 40 hex
    if (end - start <= 4 && isHexSeparator(next)) resume = Math.max(resume, detectHexAt(state, start));
    return resume;
  }
  if ((pair & P_KEY) !== 0) resume = Math.max(resume, detectApiKey(state, start));
  // `O78-O5-1120`: a look-alike letter before a digit may be a digit; `DE8937O4OO44…`: an IBAN
  // written whole with look-alike letters (lookalike-digits.ts).
  if ((c === 83 || c === 66) && isDigit(text.charCodeAt(start + 1))) markSBWord(state, text, start, end);
  if (lookalikeDigit(c) !== 0 && isDigit(text.charCodeAt(start + 1))) state.lookalikeSeeds.push(start);
  else if (end - start >= 12 && isUpper(c) && isDigit(text.charCodeAt(start + 2)) && holdsLookalikeLetter(text, start + 2, end)) state.lookalikeSeeds.push(start);
  else if ((isUpper(c) || lookalikeDigit(c) !== 0) && lookalikeIdMayStart(text, start, end)) state.lookalikeSeeds.push(start); // Session 16: `ABl23456C` (lookalike-ids.ts); session 18: `ll345678Z`.
  // Most words end in a letter: the glued-label check only for a word ending in a digit.
  const lastCode = text.charCodeAt(end - 1);
  if (lastCode >= 48 && lastCode <= 57) {
    const glued = gluedLabel(text, start, end);
    if (glued > 0) detectNumericGlued(state, glued);
  }
  switch (c) {
    case 101: // e
      if ((pair & P_JWT) !== 0) resume = Math.max(resume, detectJwt(state, start));
      break;
    case 104: // h
    case 72:
    case 102: // f
    case 70:
    case 119: // w
    case 87:
      if ((pair & P_URL) !== 0) resume = Math.max(resume, detectUrl(state, start));
      break;
    case 98: // b
    case 66:
      if ((pair & P_BECH32) !== 0) resume = Math.max(resume, detectBech32Address(state, start));
      break;
    default: {
      // scheme://user:password@host (postgres, mongodb+srv, redis, jdbc:mysql, ...).
      if ((next === 58 || next === 43) && text.charCodeAt(end + 1) !== 32) resume = Math.max(resume, detectConnectionString(state, start, end));
      break;
    }
  }
  if ((flags & F_HEX) !== 0 && end - start <= 4 && isHexSeparator(next)) {
    resume = Math.max(resume, detectHexAt(state, start));
  }
  const length = end - start;
  // Ids (NINO, NIE, VAT, IBAN, ...) hold a digit in their first word's second to fourth place,
  // or start with a one- or two-letter word ("DE 136 ...", "ab 12 34 56 c", "X-1234567-L"). One
  // cheap test here (NaN past the text fails it), the dispatch in its own function.
  const second = text.charCodeAt(start + 1);
  if (
    second <= 57 ||
    (flags & F_UPPER & FLAGS[second & 127]!) !== 0 ||
    text.charCodeAt(start + 2) <= 57 ||
    (length <= 2 && text.charCodeAt(end + 1) <= 57) ||
    (length >= 10 && text.charCodeAt(start + 3) <= 57)
  ) {
    resume = Math.max(resume, onIdWord(state, start, end, flags, second));
  }
  // "March 12, 2024": a 3-10 letter word followed by " <digit>" (or ". <digit>").
  if (length >= 3 && length <= 10) {
    let after = end;
    let code = next;
    if (code === 46) code = text.charCodeAt(++after);
    if (code === 32 && isDigit(text.charCodeAt(after + 1))) {
      const dateEnd = writtenDateFromMonth(text, start, end);
      if (dateEnd > 0) {
        let confidence = 0.8;
        if (hasWordBefore(text, start, 40, DATE_CONTEXT)) confidence += 0.1;
        emit(state, 'date', start, dateEnd, confidence);
      }
    }
  }
  return resume;
}

/**
 * The UTF-16 code units of `text` as a typed array of its length: Buffer's utf16le encoding copies
 * each unit as it is (lone surrogates too) in the machine's order, little-endian on every platform
 * Node ships for; a view when its bytes are aligned, a copy otherwise.
 */
export function codeUnits(text: string): Uint16Array {
  const bytes = Buffer.from(text, 'utf16le');
  return (bytes.byteOffset & 1) === 0 ? new Uint16Array(bytes.buffer, bytes.byteOffset, text.length) : copiedUnits(text);
}

/**
 * Session 19 (wave18/large): a text of SPARE_MIN to SPARE_MAX units is copied into one array kept
 * between scans instead of a new one (Buffer.from of a 100 KB text maps and faults ~200 KB
 * afresh, 35-100 µs per scan, and its external memory drives the collector). borrowCodeUnits
 * hands the kept array out (a view of exactly the text's length, so reads past either end still
 * give undefined) and takes it away until returnCodeUnits gives it back zeroed: no text stays in
 * it between scans, and a scan started while it is out (a reading scanned inside another scan)
 * gets an array of its own, as before. Its units are the ones codeUnits gives (Buffer's utf16le
 * write, the encoding Buffer.from uses; code-units.test.ts).
 */
const SPARE_MIN = 4096;
const SPARE_MAX = 1 << 19;
let spare: ArrayBuffer | undefined;

/** codeUnits(text), in the kept array when it is free and the text's length is in its range. */
export function borrowCodeUnits(text: string): Uint16Array {
  const n = text.length;
  if (n < SPARE_MIN || n > SPARE_MAX) return codeUnits(text);
  let buffer = spare;
  spare = undefined;
  // Grown by powers of two up to SPARE_MAX units (allocUnsafeSlow: its own memory, at offset 0).
  if (buffer === undefined || buffer.byteLength < 2 * n) buffer = Buffer.allocUnsafeSlow(2 * Math.min(SPARE_MAX, Math.max(n, 2 ** Math.ceil(Math.log2(n))))).buffer;
  Buffer.from(buffer, 0, 2 * n).write(text, 0, 'utf16le');
  return new Uint16Array(buffer, 0, n);
}

/** Zero a borrowed array's units and keep its memory for the next scan (nothing for an array of its own). */
export function returnCodeUnits(units: Uint16Array): void {
  if (units.length < SPARE_MIN || units.length > SPARE_MAX || units.byteOffset !== 0) return;
  units.fill(0);
  if (spare === undefined || spare.byteLength < units.buffer.byteLength) spare = units.buffer as ArrayBuffer;
}

/** codeUnits by charCodeAt (a Buffer at an odd offset cannot be viewed as 16-bit units). */
export function copiedUnits(text: string): Uint16Array {
  const units = new Uint16Array(text.length);
  for (let k = 0; k < text.length; k++) units[k] = text.charCodeAt(k);
  return units;
}

/** Run the built-in detector. Candidates may overlap; index.ts resolves overlaps. */
export function scanBuiltin(text: string, language: string | undefined, defaultRegion?: string, decode = true): Detection[] {
  return scan(text, language, defaultRegion, true, decode);
}

/**
 * The built-in detector without its word gates: every word asks every detector its first
 * characters could start (each detector's own checks decide), as before the pair table and the
 * quiet-word path. The reference the property tests hold scanBuiltin to; not for production.
 */
export function scanBuiltinUngated(text: string, language: string | undefined, defaultRegion?: string): Detection[] {
  return scan(text, language, defaultRegion, false, true);
}

/** `decode`: read base64- and hex-encoded values (encoded.ts) and look-alike digits (lookalike-digits.ts); off for a decoded or read text (one level deep). */
function scan(text: string, language: string | undefined, defaultRegion: string | undefined, gated: boolean, decode: boolean): Detection[] {
  const region = regionForLanguage(language, defaultRegion);
  const state: ScanState = {
    text,
    out: [],
    region,
    fallbackRegions: fallbacks(region),
    pemEndAt: -2,
    assignScanEnd: 0,
    bicPending: [],
    lookalikeSeeds: [],
    reversedSeeds: [],
  };
  const n = text.length;
  // The loop reads the text's code units from a typed array: V8 compiles an indexed load of it to
  // one bounds check and a load, where each charCodeAt of a string dispatches on its layout first
  // (flat, sliced, cons; one or two bytes), a cost the loop paid ~10 times per word. Past either end
  // the array gives undefined where charCodeAt gives NaN; the loop only compares such a unit
  // (`<` `>` `===` `!==`) or masks it (`|` `&`), where both are NaN, so it reads the same (the
  // detectors it calls still read the string). See codeUnits.
  const codes = borrowCodeUnits(text);
  /** Word starts where a label or credential word may begin (keywords.ts). */
  const keywordStarts: number[] = [];
  /** Command-line options (`-p`, `--password`) the scan passed (cli-secret.ts). */
  const optionStarts: number[] = [];
  /** Digit words (start, end pairs) and their values (spelled-digits.ts). */
  const spelledWords: number[] = [];
  const spelledValues: number[] = [];
  /** Word starts that may begin a base64-encoded value (encoded.ts). */
  const base64Starts: number[] = [];
  /** One-character words that begin a letter-spaced run (letter-spaced.ts). */
  const spacedStarts: number[] = [];
  /** Words ending with a value's word or prefix written backwards: start, end, kind (reversed-words.ts). */
  const reversedWords: number[] = [];
  /** Line breaks that may break a value (broken-lines.ts). */
  const lineBreaks: number[] = [];
  /** Line breaks that may break an IP, MAC or wallet address (broken-addresses.ts; session 15, wave14/evade2). */
  const addressBreaks: number[] = [];
  /** Line breaks the next line's indentation follows that may break a value (broken-indent.ts; session 16, wave15/evade). */
  const indentBreaks: number[] = [];
  let sawCjk = false;
  /** Where the spelled-e-mail regex may match (email-spelled.ts: at-words, "@" and brackets the loop saw), ascending. */
  const atMarks: number[] = [];
  /** A span the loop stepped over may hold an "at" mark: the regex searches the whole text. */
  let atMarkSkipped = false;
  let i = 0;
  while (i < n) {
    const c = codes[i]!;
    if (c < 128) {
      const flags = FLAGS[c]!;
      if ((flags & F_WORD) !== 0) {
        // A word: [A-Za-z0-9_] then word characters (non-ASCII letters included).
        let end = i + 1;
        while (end < n && WORD_UNITS[codes[end]!] !== 0) end++;
        const second = codes[i + 1]!;
        // Session 15 (wave14/evade): a base58 address with `l` or `I` for its `1`s (lookalike-base58.ts).
        if (decode && end - i >= BASE58_MIN && end - i <= BASE58_MAX && lookalikeBase58MayStart(c) && detectLookalikeBase58(state, i, end) > 0) {
          i = end;
          continue;
        }
        let pair = gated ? WORD_PAIRS[pairIndex(c, second)]! : P_ALL;
        if ((pair & P_KEYWORD) !== 0) {
          // keywords.ts keywordStartAt, inlined (a call per word of prose cost more than the test).
          const third = codes[i + 2]!;
          if (
            second < 127 && third < 128
              ? (KEYWORD_THIRD[(KEYWORD_ROW[(c << 7) | second]! << 2) | (third >>> 5)]! & (1 << (third & 31))) !== 0
              : mayStartKeyword(text, i)
          ) {
            keywordStarts.push(i);
          }
        }
        const next = codes[end]!;
        if ((pair & P_AT) !== 0 && (next === 32 || next === 9) && atWordAt(text, i, end)) atMarks.push(i - 1);
        // mayStartBase64 refuses a word shorter than 12 units unless a `+ / -` follows it (encoded.ts
        // base64MayStartAfter): the call only for those.
        if (decode && end - i >= 4 && (end - i >= 12 || next === 43 || next === 47 || next === 45) && mayStartBase64(text, i, end)) base64Starts.push(i);
        if (decode && end - i === 1 && mayStartLetterSpaced(text, i)) spacedStarts.push(i);
        // A value's word or prefix written backwards ends this word (reversed-words.ts; END_THIRD
        // read inline: a call per word cost 5 us per KB of prose on this loop).
        const last = codes[end - 1]!;
        // (Most words end in a pair no value's word starts with backwards: the third unit is read only after a hit.)
        if (
          decode &&
          (last <= 90
            ? last >= 65 || end - i >= 26
            : END_THIRD[(((last | 32) & 127) << 7) | ((codes[end - 2]! | 32) & 127)]! !== 0 &&
              (END_THIRD[(((last | 32) & 127) << 7) | ((codes[end - 2]! | 32) & 127)]! & THIRD_BIT[codes[end - 3]! & 127]!) !== 0)
        ) {
          pushReversedWord(reversedWords, text, i, end);
        }
        if ((pair & P_DIGIT_WORD) !== 0 && end - i <= 7) {
          const gate = spelledGate(c, second, codes[i + 2]!);
          if ((SPELLED_GATE[gate >>> 5]! & (1 << (gate & 31))) !== 0) {
            const value = digitWord(text, i, end);
            if (value >= 0) {
              spelledWords.push(i, end);
              spelledValues.push(value);
            }
          }
        }
        // A key pair whose third unit starts none of its prefixes (`do`g, `fo`r, `wh`ile): no key
        // there (secrets.ts keyMayStartAt), so the word may take the quiet path below.
        if ((pair & P_KEY) !== 0 && gated && !keyMayStartAt(text, i)) pair &= ~P_KEY;
        // Most words of prose: no pair onWord looks closer at, no digit in the places its id
        // shapes read (the second to fourth units and, session 18, the last but one of a word of
        // eight units or more: `Xll34567L`; a digit after a one- or
        // two-letter word; for a one-letter word, at the fifth unit: "D E 8 9 …"), not two
        // capitals, and after it no scheme or separator character (`:`
        // `+` `-` `.`) and no space before a digit. onWord would find nothing in such a word (no
        // id shape, no glued label, no date, no connection string, no hex group): skipped
        // without the call. (NaN past the text fails every `>` and isDigit, and passes every
        // `!==`, as in onWord.) A detector added to onWord's letter path must be let through
        // here too (a WORD_PAIRS bit, or a condition below): property.test.ts holds this loop to
        // scanBuiltinUngated, and tools/scan-ab/equiv.mjs compares two builds on every corpus.
        const length = end - i;
        if (
          (pair & P_ON_WORD) === 0 &&
          gated &&
          (flags & F_DIGIT) === 0 &&
          codes[end - 1]! > 57 &&
          (length >= 3
            ? second > 57 && codes[i + 2]! > 57 && (length < 8 || (codes[i + 3]! > 57 && codes[end - 2]! > 57))
            : !isDigit(codes[i + 2]!) && (length === 1 ? !isDigit(codes[i + 4]!) : !isDigit(codes[end + 1]!))) &&
          (flags & F_UPPER & FLAGS[second & 127]!) === 0 &&
          (next === 32 ? codes[end + 1]! > 57 : next !== 58 && next !== 43 && next !== 45 && next !== 46)
        ) {
          // The space after the word too (the loop would only step over it).
          i = next === 32 ? end + 1 : end;
          continue;
        }
        const resume = onWord(state, i, end, c, flags, pair);
        // A span a detector matched past the word is stepped over: an "at" mark in it still counts.
        if (resume > end && !atMarkSkipped) atMarkSkipped = atMarkIn(text, end, resume);
        i = resume;
        continue;
      }
      switch (c) {
        case 64: {
          // '@'
          const before = codes[i - 1]!;
          if (before === 32 || before === 9) atMarks.push(i - 1);
          const after = codes[i + 1]!;
          if (after === 32 || after === 9) atMarks.push(i);
          const end = detectEmail(state, i);
          if (end > i + 1 && !atMarkSkipped) atMarkSkipped = atMarkIn(text, i + 1, end);
          i = end > i ? end : i + 1;
          continue;
        }
        case 58: // ':'
          if (codeAt(text, i + 1) === 58) {
            const end = detectDoubleColonAt(state, i);
            if (end > i) {
              if (!atMarkSkipped) atMarkSkipped = atMarkIn(text, i + 1, end);
              i = end;
              continue;
            }
          }
          detectAssignedSecret(state, i);
          break;
        case 61: // '='
          detectAssignedSecret(state, i);
          break;
        case 10: // '\n'
          if (decode && mayJoinAt(text, i)) lineBreaks.push(i);
          if (decode && mayBreakAddressAt(text, i)) addressBreaks.push(i);
          if (decode && (codes[i + 1] === 32 || codes[i + 1] === 9) && mayJoinIndentedAt(text, i)) indentBreaks.push(i);
          break;
        case 91: // '['
        case 123: // '{'
        case 60: // '<'
          if (atMarkAfterBracket(text, i)) atMarks.push(i);
          break;
        case 43: // '+'
        case 40: // '('
          if (c === 40 && atMarkAfterBracket(text, i)) atMarks.push(i);
          if (isDigit(codeAt(text, i + 1)) && !isAlnumCode(codeAt(text, i - 1)) && codeAt(text, i - 1) !== 43) detectPhone(state, i);
          // "+(370) 77844699", "+(44) 20 7946 0958": the country code in parentheses after the '+'.
          else if (c === 43 && codeAt(text, i + 1) === 40 && isDigit(codeAt(text, i + 2)) && !isAlnumCode(codeAt(text, i - 1))) detectPhone(state, i);
          break;
        case 45: // '-'
          if (codeAt(text, i + 1) === 45 && codeAt(text, i - 1) !== 45) {
            const end = detectPrivateKey(state, i);
            if (end > i) {
              if (!atMarkSkipped) atMarkSkipped = atMarkIn(text, i + 1, end);
              i = end;
              continue;
            }
          }
          if (optionMayStart(text, i)) optionStarts.push(i);
          break;
        default:
          break;
      }
      i++;
    } else if (isNonAsciiLetter(c) && !isCjkCode(c)) {
      // A word that starts with a non-ASCII letter: no detector anchors there; skip it whole.
      // (A CJK character is a word of its own: what follows it may start a value.) "ät" is an at-word.
      if ((c === 0xe4 || c === 0xc4) && i > 0) atMarks.push(i - 1);
      i++;
      while (i < n && WORD_UNITS[codes[i]!] !== 0) i++;
    } else {
      if (c >= 0x1100) sawCjk = true; // CJK credential words are searched only then (prose-secret.ts)
      if (c === 0x212a && i > 0) atMarks.push(i - 1); // the Kelvin sign is a k to the regex (Klammeraffe)
      i++;
    }
  }
  detectProseSecrets(state, keywordStarts, sawCjk);
  detectCliSecrets(state, optionStarts);
  detectSpelledDigits(state, spelledWords, spelledValues);
  if (sawCjk) detectCjkDigits(state);
  // The spelled-e-mail regex only where the loop saw an "at" mark may start (the whole text when
  // ungated, or when a span the loop stepped over held a mark).
  if (atMarkSkipped || !gated) detectSpelledEmails(state);
  else if (atMarks.length > 0) detectSpelledEmails(state, atMarks);
  detectLabelledIds(state, keywordStarts);
  // Secrets no word anchor reads: seed phrases (probed every few words) and password hashes (at `$`, `{`).
  detectSeedPhrases(state, codes);
  // The last reader of the units (session 19): the array goes back zeroed.
  returnCodeUnits(codes);
  detectPasswordHashes(state);
  resolveBicCandidates(state);
  // Numbers written with look-alike letters, read by this scan one level deep (lookalike-digits.ts).
  if (decode && state.lookalikeSeeds.length > 0) {
    detectLookalikeDigits(state, state.lookalikeSeeds, (reading) => scanBuiltin(reading, language, defaultRegion, false));
    // Session 14 (wave13/evade): more letters than digits, and other numbers, on the value's word (lookalike-worded.ts).
    detectLookalikeWorded(state, state.lookalikeSeeds, (reading) => scanBuiltin(reading, language, defaultRegion, false));
    // Session 16 (wave15/evade): national ids with letters of their own (`ABl23456C`, `l2345678Z`; lookalike-ids.ts).
    detectLookalikeIds(state, state.lookalikeSeeds, (reading) => scanBuiltin(reading, language, defaultRegion, false));
  }
  // Session 15 (wave14/evade): IP and MAC addresses with look-alike letters in their hex groups (lookalike-hex.ts).
  if (decode) addLookalikeHex(text, state.out, (reading) => scanBuiltin(reading, language, defaultRegion, false));
  // Session 15 (wave14/evade2): cards, SSNs and phones with S for 5 and B for 8 (lookalike-sb.ts).
  if (decode) addLookalikeSB(state, text, state.out, (reading) => scanBuiltin(reading, language, defaultRegion, false));
  // Values written one character at a time, read by this scan one level deep (letter-spaced.ts).
  if (spacedStarts.length > 0) detectLetterSpaced(state, spacedStarts, (reading) => scanBuiltin(reading, language, defaultRegion, false));
  // Numbers written backwards, read by this scan one level deep (reversed.ts).
  if (decode) detectReversedNumbers(state, state.reversedSeeds, (reading) => scanBuiltin(reading, language, defaultRegion, false));
  // SSNs, phones and national ids broken by a line break, read by this scan one level deep (broken-lines.ts).
  if (lineBreaks.length > 0) detectBrokenLines(state, lineBreaks, (reading) => scanBuiltin(reading, language, defaultRegion, false));
  // Session 15 (wave14/evade2): IP, MAC and wallet addresses broken by a line break (broken-addresses.ts).
  if (addressBreaks.length > 0) detectBrokenAddresses(state, addressBreaks, (reading) => scanBuiltin(reading, language, defaultRegion, false));
  // Session 16 (wave15/evade): values broken by a line break and the next line's indentation (broken-indent.ts), and
  // connection strings with an escaped scheme (escaped-scheme.ts); one call (scanBuiltin's size is near V8's inlining limits).
  if (decode) detectIndentedAndEscaped(state, indentBreaks, (reading) => scanBuiltin(reading, language, defaultRegion, false), keywordStarts);
  // Values and sentences written backwards, read by this scan one level deep (reversed-words.ts).
  if (reversedWords.length > 0) detectReversedReadings(state, reversedWords, (reading) => scanBuiltin(reading, language, defaultRegion, false));
  // Base64-encoded values, read by this scan one level deep (encoded.ts).
  if (decode && base64Starts.length > 0) detectEncodedValues(state, base64Starts, (decoded) => scanBuiltin(decoded, language, defaultRegion, false));
  // Session 17 (wave16/phone): a weak NINO reading whose digits a stronger value took leaves no piece (phone.ts).
  dropOutvotedNinos(state.out, STRUCTURED_PRIORITY_FLOOR);
  return state.out;
}
