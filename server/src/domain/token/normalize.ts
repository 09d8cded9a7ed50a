// Value normalization before a value is keyed to a token (decisions.md section 3): two spellings
// of the same value must get the same token within a session, the same corpus token across
// documents, and must be revoked together (services/revocation.ts digests this form). Every type
// but the secrets is read through the shared folding first (domain/text/fold.ts: full-width
// forms, digits of every script, Unicode dashes, invisible characters), so `０７８－０５－１１２３`
// and `078-05-1123` are one value. Then, per type:
//
//   phone          E.164 (`+14155550100`, `;ext=42` appended), parsed with libphonenumber-js/max;
//                  a national number is read in `region` (detector.default_region, or the
//                  region of the session's language); `00`/`011` call prefixes read as `+`
//   email          lower case, the domain in its ASCII (punycode) form
//   ip_address     IPv4 dotted decimal without leading zeros; IPv6 in RFC 5952 form (lower
//                  case, zeros compressed); an IPv4-mapped IPv6 address as its IPv4 address
//   mac_address    twelve lower-case hex digits
//   card, SSN and the numeric national ids, tax, bank and device numbers: digits only
//                  (a number spelled out digit by digit, `four one one one ...`, read as its
//                  digits first; phones too)
//   IBAN, BIC, VAT and the alphanumeric ids (NINO, NIE, DNI, passports, ...): upper-case
//                  letters and digits only (spaces, dashes, dots, case dropped)
//   date           ISO 8601 (`2024-03-12`) when the written form is unambiguous (a month name,
//                  a four-digit year first, dotted European order) or `region` settles the
//                  order (month first in the US); otherwise the folded text
//   url            scheme and host in lower case, a bare trailing `/` dropped
//   crypto_wallet  bech32 addresses in lower case (base58 is case-sensitive: kept)
//   names, custom  folded, spaces collapsed; case kept (it can carry meaning)
//   secrets        (api_key, jwt, private_key, password, connection_string) NFC and trimmed only:
//                  an exact machine string (keys and JWTs without their white space: one wrapped
//                  over lines is the same key)
//
// A value sent base64- or hex-encoded (detect/encoded.ts: printable text that is exactly one value) is
// normalized as the value it encodes, so it shares the plain value's token and erasure (secrets
// excepted: an encoded key stays its own exact string); an encoded text that holds values but is
// not one value is its own exact string.
//
// When stripping would leave nothing (a "card" with no digits), the folded, trimmed value is
// used instead, so two unrelated odd values never collapse onto one empty key.
import { domainToASCII } from 'node:url';
import { parsePhoneNumberFromString, type CountryCode } from './phone-parse.js';
import { dateValid, monthNumber } from '../detect/dates.js';
import { unspellEmail } from '../detect/email-spelled.js';
import { unreverseValue } from '../detect/reversed.js';
import { decodeBase64Value, decodeHexValue } from '../detect/encoded.js';
import { scanBuiltin } from '../detect/scan.js';
import { unspellDigits } from '../detect/spelled-digits.js';
import { DEFAULT_PHONE_REGION } from '../detect/phone.js';
import { isKnownRegion } from '../detect/phone-metadata.js';
import { foldCharacters, foldText } from '../text/fold.js';
import { lookalikeDigit, readLookalikeDigits } from '../text/lookalike.js';
import { readSBDigits } from '../text/lookalike-sb.js';
import { decodeQpConnection } from '../text/qp-connection.js';
import { stripMarkupValue } from '../text/markup-strip.js';
import { decodeQpPunctValue } from '../text/qp-punct.js';
import { readLookalikeWallet } from '../detect/lookalike-wallet.js';
import { readLookalikeBase58 } from '../detect/lookalike-base58.js';
import { readLookalikeHex } from '../detect/lookalike-hex.js';
import { ID_LETTER_PLACES } from '../detect/lookalike-id-places.js';
import { looseValue } from '../detect/loose-numbers.js';

const SECRET_TYPES: ReadonlySet<string> = new Set(['api_key', 'jwt', 'private_key', 'password', 'connection_string']);

/** Numbers whose digits are the whole value (separators are print form). */
const DIGIT_TYPES: ReadonlySet<string> = new Set([
  'credit_card', 'aba_routing', 'us_ssn', 'us_itin', 'us_ein', 'us_npi', 'uk_nhs', 'de_tax_id', 'fr_siren', 'fr_siret',
  'nl_bsn', 'be_national_number', 'pt_nif', 'pl_pesel', 'dk_cpr', 'no_fodselsnummer', 'ch_ahv', 'in_aadhaar', 'au_tfn',
  'au_medicare', 'au_abn', 'au_acn', 'kr_rrn', 'jp_my_number', 'br_cpf', 'br_cnpj', 'ca_sin', 'imei', 'bank_account',
  'card_security_code',
]);

/** Identifiers whose letters and digits are the whole value (separators and case are print form). */
const COMPACT_TYPES: ReadonlySet<string> = new Set([
  'iban', 'swift_bic', 'eu_vat', 'us_passport', 'us_mbi', 'uk_nino', 'uk_passport', 'ie_pps', 'fr_nir', 'es_dni', 'es_nie',
  'it_fiscal_code', 'se_personnummer', 'fi_hetu', 'in_pan', 'sg_nric', 'cn_resident_id', 'mx_curp', 'vin', 'driver_license',
  'medical_record_number', 'insurance_id',
]);

const WHITESPACE_RUN = /\s+/gu;
/** Letters in a number: maybe spelled out (checked by unspellDigits). */
const SPELLED = /\p{L}{2}/u;
/**
 * Numbers besides DIGIT_TYPES whose look-alike letters are digits: phones and IBANs (session 12),
 * dates, IP addresses and passport numbers (session 14, detect/lookalike-worded.ts; a chain of
 * look-alikes and digits only: an id's own letters are in words of other letters and stay).
 */
const LOOKALIKE_NUMBERS: ReadonlySet<string> = new Set(['phone', 'iban', 'date', 'ip_address', 'us_passport', 'uk_passport']);
/** Types besides DIGIT_TYPES and COMPACT_TYPES whose `=2D`, `=2E`, `=3A`, `=2B` are the punctuation (not URLs, addresses, secrets but keys). */
const QP_DECODED_TYPES: ReadonlySet<string> = new Set(['phone', 'ip_address', 'mac_address', 'date', 'api_key', 'jwt', 'crypto_wallet']);
/** Types read through detect/loose-numbers.ts's looseValue (session 19). */
const LOOSE_TYPES: ReadonlySet<string> = new Set(['date', 'ip_address', 'us_passport', 'uk_passport']);
/** A line break and the blanks that indent the next line. */
const LINE_BREAK_INDENT = /\r?\n[ \t]*/g;
/** A line break (after a `\` that continues the line, if any) and the blanks that indent the next line. */
const CONTINUED_LINE = /\\?\r?\n[ \t]*/g;

/**
 * `compact` (letters and digits only) with look-alikes read as digits between an id's own letters
 * (detect/lookalike-ids.ts, session 16; the places from detect/lookalike-id-places.ts since session
 * 17, which added the NRIC/FIN). A valid id has digits there, so the reading changes only a
 * look-alike spelling, which then shares the plain id's token and erasure.
 */
function readIdLookalikes(type: string, compact: string): string {
  const places = ID_LETTER_PLACES[type];
  if (places === undefined || compact.length !== places.length || !LOOKALIKE.test(compact)) return compact;
  const { head, tail } = places;
  let out = compact.slice(0, head);
  for (let k = head; k < compact.length - tail; k++) {
    const digit = lookalikeDigit(compact.charCodeAt(k));
    out += digit === 0 ? compact.charAt(k) : String.fromCharCode(digit);
  }
  return out + compact.slice(compact.length - tail);
}

/** A look-alike letter (text/lookalike.ts reads it as a digit only in a chain with digits). */
const LOOKALIKE = /[OoIl]/;

/**
 * Normalize `value` for `type` (see the header). `region` (ISO 3166-1 alpha-2) reads national
 * phone numbers and ambiguous numeric dates; it defaults to US.
 */
export function normalizeValue(type: string, value: string, region: string = DEFAULT_PHONE_REGION): string {
  return normalizeFolded(type, value, region, foldText);
}

/** normalizeValue with the given fold (the current one, or foldCharacters for the previous release's form). */
function normalizeFolded(type: string, written: string, region: string, fold: (text: string) => string): string {
  // Markup inside a value is print form (detect/markup-joined.ts, session 14): `1234<b></b>5678Z` is
  // the DNI 12345678Z. A secret loses HTML tags and comments only (its `**` or backticks may be its own).
  const value = stripMarkupValue(written, SECRET_TYPES.has(type) && type !== 'api_key' && type !== 'jwt');
  // Punctuation written as quoted-printable escapes is the punctuation (detect/qp-joined.ts, session
  // 14), decoded after the fold (which decodes a run of six escapes or more whole).
  const qp = QP_DECODED_TYPES.has(type) || DIGIT_TYPES.has(type) || COMPACT_TYPES.has(type);
  // A key or token holds no white space: one wrapped over lines (detect/secrets.ts) or split into
  // concatenated literals (text/markup.ts, read through by the fold) is the same key.
  if (type === 'api_key' || type === 'jwt') return decodeQpPunctValue(fold(value)).normalize('NFC').replace(/\s+/gu, '');
  // A connection string with quoted-printable escapes after its scheme (text/qp-connection.ts; session 15, wave14/evade2).
  // One broken over a line, with or without indentation (detect/broken-indent.ts, session 16): no
  // connection string holds a line break, so the break and the blanks after it are print form.
  if (type === 'connection_string') return decodeQpConnection(value.normalize('NFC').trim().replace(LINE_BREAK_INDENT, ''));
  // A password broken over a line (detect/broken-secret.ts, session 18): the break, the next line's
  // indentation and a `\` that continues the line are print form (an unquoted password ends at white space).
  if (type === 'password') return value.normalize('NFC').trim().replace(CONTINUED_LINE, '');
  if (SECRET_TYPES.has(type)) return value.normalize('NFC').trim();
  // A value sent base64- or hex-encoded is the value it encodes (detect/encoded.ts), when the
  // decoded text is exactly one value of this type, as detection decided: a plain value whose
  // characters happen to decode to text keeps its own form.
  // A date, an IPv4 address or a passport number written one digit at a time, as digit words,
  // backwards, with S/B for 5/8, or (a passport) encoded (detect/loose-numbers.ts; session 19).
  const loose = LOOSE_TYPES.has(type) ? looseValue(type, fold(value).normalize('NFC')) : undefined;
  const encoded = loose === undefined ? encodedValue(type, value.trim()) : undefined;
  // An encoded sentence holding values (detect/encoded.ts) is its own exact string.
  if (encoded === ENCODED_SENTENCE) return value.normalize('NFC').trim();
  let base = loose ?? fold(encoded ?? value).normalize('NFC').trim();
  if (qp) base = decodeQpPunctValue(base);
  // A number spelled out digit by digit is the number (spelled-digits.ts).
  if ((DIGIT_TYPES.has(type) || type === 'phone') && SPELLED.test(base)) base = unspellDigits(base) ?? base;
  // An IP or MAC address with look-alike letters in its hex groups (detect/lookalike-hex.ts; session 15).
  if (type === 'ip_address' || type === 'mac_address') base = readLookalikeHex(base) ?? base;
  // S for 5 and B for 8 in a number's words (detect/lookalike-sb.ts; session 15, wave14/evade2).
  if (type === 'credit_card' || type === 'us_ssn' || type === 'phone') base = readSBDigits(base);
  // Digits written as look-alike letters (`415-555-O1OO`) are the digits (text/lookalike.ts).
  if ((DIGIT_TYPES.has(type) || LOOKALIKE_NUMBERS.has(type)) && LOOKALIKE.test(base)) base = readLookalikeDigits(base);
  // A card or phone written backwards is the number (detect/reversed.ts; session 12, wave11/evade).
  if (type === 'credit_card' || type === 'phone') base = unreverseValue(type, base);
  let normalized: string;
  if (DIGIT_TYPES.has(type)) normalized = base.replace(/[^0-9]/g, '');
  else if (COMPACT_TYPES.has(type)) normalized = readIdLookalikes(type, base.replace(/[^0-9A-Za-z]/g, '')).toUpperCase();
  else {
    switch (type) {
      case 'email':
        // No address holds a line break: one broken in its domain (detect/email.ts) is the address.
        // One broken with indentation after the break (detect/broken-indent.ts, session 16) likewise.
        return canonicalEmail(base.replace(LINE_BREAK_INDENT, ''));
      case 'phone':
        normalized = canonicalPhone(base, region);
        break;
      case 'ip_address':
        // No address holds a blank: one written a character at a time (detect/letter-spaced.ts) is the address.
        return canonicalIp(base.toLowerCase().replace(/\s+/gu, ''));
      case 'mac_address':
        normalized = base.toLowerCase().replace(/[^0-9a-f]/g, '');
        break;
      case 'date':
        return canonicalDate(base, region) ?? base.toLowerCase().replace(WHITESPACE_RUN, ' ');
      case 'url':
        return canonicalUrl(base);
      case 'crypto_wallet': {
        // Letter-spaced (detect/letter-spaced.ts); an Ethereum address with look-alike letters (detect/lookalike-wallet.ts).
        const spaced = readLookalikeWallet(base.replace(/\s+/gu, ''));
        // A base58 address with `l` or `I` for its `1`s (detect/lookalike-base58.ts; session 15).
        const compact = readLookalikeBase58(spaced) ?? spaced;
        return /^(?:bc|tb|ltc)1/i.test(compact) ? compact.toLowerCase() : compact;
      }
      default:
        return base.replace(WHITESPACE_RUN, ' ');
    }
  }
  return normalized === '' ? base : normalized;
}

/**
 * The values inside an encoded text that is not one value (detect/encoded.ts protects such a run
 * with the type of one of them): revoking any of them must erase the run too, so revocation
 * checks the run under each inside value's own type and forms. Empty for every other value.
 */
export function encodedInnerValues(value: string): { readonly type: string; readonly value: string }[] {
  const trimmed = value.trim();
  const decoded = decodeHexValue(trimmed) ?? decodeBase64Value(trimmed);
  if (decoded === undefined) return [];
  return scanBuiltin(decoded, undefined, undefined, false)
    .filter((detection) => detection.confidence >= 0.5)
    .map((detection) => ({ type: detection.type, value: detection.value }));
}

/** What encodedValue answers for an encoded text that holds values but is not one value. */
const ENCODED_SENTENCE = Symbol('encoded sentence');

/**
 * The text an encoded value stands for, when that text is exactly one value of `type`;
 * ENCODED_SENTENCE when it is a text holding values (dates and URLs aside) as detection reads it.
 */
function encodedValue(type: string, value: string): string | typeof ENCODED_SENTENCE | undefined {
  const decoded = decodeHexValue(value) ?? decodeBase64Value(value);
  if (decoded === undefined) return undefined;
  const lead = decoded.length - decoded.trimStart().length;
  const trail = decoded.trimEnd().length;
  const found = scanBuiltin(decoded, undefined, undefined, false).filter((detection) => detection.confidence >= 0.5);
  if (found.some((detection) => detection.type === type && detection.start === lead && detection.end === trail)) return decoded;
  return found.some((detection) => detection.type !== 'url' && detection.type !== 'date') ? ENCODED_SENTENCE : undefined;
}

/**
 * The normalization before canonical forms (one release back): NFC and trimmed; lower case for
 * emails and IPs; digits for cards, SSNs and phones (a leading `+` kept); IBAN letters and
 * digits; MAC hex digits. Revocations written by earlier versions are digests of this form, so
 * rehydrate checks it too (services/revocation.ts): an erased value stays erased across the
 * upgrade.
 */
export function legacyNormalizeValue(type: string, value: string): string {
  const base = value.normalize('NFC').trim();
  let normalized: string;
  switch (type) {
    case 'email':
    case 'ip_address':
      return base.toLowerCase();
    case 'credit_card':
    case 'us_ssn':
      normalized = base.replace(/[^0-9]/g, '');
      break;
    case 'phone': {
      const digits = base.replace(/[^0-9]/g, '');
      normalized = digits === '' ? '' : base.startsWith('+') ? `+${digits}` : digits;
      break;
    }
    case 'iban':
      normalized = base.toUpperCase().replace(/[^0-9A-Z]/g, '');
      break;
    case 'mac_address':
      normalized = base.toLowerCase().replace(/[^0-9a-f]/g, '');
      break;
    default:
      return base;
  }
  return normalized === '' ? base : normalized;
}

/**
 * Names erase whatever their case: "JOHN SMITH" and "john smith" are the person "John Smith"
 * revoked (their tokens stay apart, case kept, but an erasure covers every casing).
 */
const CASELESS_ERASURE: ReadonlySet<string> = new Set(['person', 'organization', 'location']);

/**
 * The forms a revoke request writes for `value`: its canonical form (what every release checks,
 * so replicas of an older release still honour it during an upgrade) and, for a name, its lower
 * case (which every casing of the name is checked under, revocationForms).
 */
export function revokeForms(type: string, value: string, region: string): string[] {
  const forms = new Set<string>();
  addForms(forms, type, normalizeValue(type, value, region));
  // A value written with escapes or marks on digits (`jane&#64;corp.example`): also its form
  // under the previous release's fold, which that release's replicas check during an upgrade.
  if (foldsDifferently(value)) addForms(forms, type, normalizeFolded(type, value, region, foldCharacters));
  return [...forms];
}

function addForms(forms: Set<string>, type: string, canonical: string): void {
  forms.add(canonical);
  if (CASELESS_ERASURE.has(type)) forms.add(canonical.toLowerCase());
}

/** True when the previous release's fold reads `value` otherwise than the current one. */
function foldsDifferently(value: string): boolean {
  return foldCharacters(value) !== foldText(value);
}

/**
 * Every form under which a stored value of a session may have been revoked: its canonical form
 * in each of `regions` (the session's language region and the configured default region, in
 * which a revoke request's national phone number is read), a name in lower case (revokeForms),
 * the phone without its extension (revoking a number erases its extensions), the canonical form
 * under the previous release's fold (foldCharacters) when it differs, and the legacy form.
 * Deduplicated.
 */
export function revocationForms(type: string, value: string, regions: readonly string[]): string[] {
  const forms = new Set<string>();
  const previousFold = foldsDifferently(value);
  for (const region of regions) {
    const canonical = normalizeValue(type, value, region);
    addForms(forms, type, canonical);
    if (type === 'phone') {
      const ext = canonical.indexOf(EXTENSION_MARK);
      if (ext > 0) forms.add(canonical.slice(0, ext));
    }
    // Revoked by the previous release, whose fold left escapes and marks on digits as written.
    if (previousFold) addForms(forms, type, normalizeFolded(type, value, region, foldCharacters));
  }
  forms.add(legacyNormalizeValue(type, value));
  return [...forms];
}

// ---------------------------------------------------------------------------------------------
// Phones.

const EXTENSION_MARK = ';ext=';
/**
 * A phone number's canonical form, parsed afresh for every call (10-30 µs). No cache across calls:
 * one would hold raw numbers of every tenant in the process after their erasure, and its hits
 * would tell one tenant which numbers another had used (guard/forms.ts keeps none either).
 */
function canonicalPhone(value: string, region: string): string {
  return parsePhone(value, isKnownRegion(region) ? region : DEFAULT_PHONE_REGION);
}

/** A word read out for `+` before the number (detect/phone.ts plusWordBefore). */
const PLUS_WORD_FIRST = /^(?:plus|m[áa]s|più|mais) (?=[0-9(])/iu;

function parsePhone(spelled: string, region: string): string {
  const value = spelled.replace(PLUS_WORD_FIRST, '+');
  const digits = value.replace(/[^0-9]/g, '');
  // 00 (and North America's 011) is the international call prefix: the same as '+'.
  const international = value.startsWith('+') || digits.startsWith('00');
  const text = !value.startsWith('+') && digits.startsWith('00') ? `+${value.slice(value.indexOf('00') + 2)}` : value;
  let parsed;
  try {
    parsed = international ? parsePhoneNumberFromString(text) : parsePhoneNumberFromString(text, region as CountryCode);
  } catch {
    parsed = undefined;
  }
  if (parsed?.isPossible() === true) return parsed.ext !== undefined ? `${parsed.number}${EXTENSION_MARK}${parsed.ext}` : parsed.number;
  if (digits === '') return '';
  // Separators the parser does not read ("415 | 555 | 0100", "415 : 555 : 0100", detect/loose-digits.ts):
  // the digits alone are the same number. What failed before normalized to these digits, which
  // legacyNormalizeValue still yields, so an earlier revocation holds.
  try {
    const plain = international ? `+${digits.startsWith('00') && !value.startsWith('+') ? digits.slice(2) : digits}` : digits;
    parsed = international ? parsePhoneNumberFromString(plain) : parsePhoneNumberFromString(plain, region as CountryCode);
  } catch {
    parsed = undefined;
  }
  if (parsed?.isPossible() === true) return parsed.number;
  return international ? `+${digits.startsWith('00') && !value.startsWith('+') ? digits.slice(2) : digits}` : digits;
}

// ---------------------------------------------------------------------------------------------
// Emails, IPs, URLs.

/**
 * A domain domainToASCII returns unchanged: lower-case ASCII letters, digits and hyphens in
 * non-empty labels, no punycode label (`xn--` is decoded and checked), and a last label that
 * starts with a letter (a last label that is a number makes the host an IPv4 address, which
 * the URL parser rewrites: `0x7f.1` is `127.0.0.1`). Nearly every email domain is one; skipping
 * the URL parser for it saves a few microseconds per email (normalize.test.ts checks both paths agree).
 */
const PLAIN_DOMAIN = /^(?:[a-z0-9-]+\.)*[a-z][a-z0-9-]*$/;

/** The domain in ASCII form (punycode for an internationalized one), as the URL parser gives it. */
export function asciiDomain(domain: string): string {
  if (PLAIN_DOMAIN.test(domain) && !domain.includes('xn--')) return domain;
  const ascii = domainToASCII(domain);
  return ascii === '' ? domain : ascii;
}

function canonicalEmail(value: string): string {
  // A spelled-out address ("jane [at] corp [dot] example") is the same address.
  const lower = (value.includes('@') && !/\s[@.]|[@.]\s/u.test(value) ? value : unspellEmail(value)).toLowerCase();
  const at = lower.lastIndexOf('@');
  if (at <= 0) return lower;
  return `${lower.slice(0, at)}@${asciiDomain(lower.slice(at + 1))}`;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function canonicalIpv4(value: string): string | undefined {
  const match = IPV4.exec(value);
  if (match === null) return undefined;
  const octets = match.slice(1, 5).map(Number);
  if (octets.some((octet) => octet > 255)) return undefined;
  return octets.join('.');
}

/** Eight 16-bit groups of an IPv6 text (an embedded IPv4 tail included), or undefined. */
function ipv6Groups(value: string): number[] | undefined {
  let text = value;
  const tail: number[] = [];
  if (text.includes('.')) {
    // An embedded IPv4 tail (::ffff:192.0.2.1): two more groups.
    const lastColon = text.lastIndexOf(':');
    if (lastColon < 0) return undefined;
    const v4 = canonicalIpv4(text.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    const head = text.slice(0, lastColon + 1);
    text = head.endsWith('::') ? head : text.slice(0, lastColon);
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string): number[] | undefined => {
    if (part === '') return [];
    const groups: number[] = [];
    for (const group of part.split(':')) {
      if (!/^[0-9a-f]{1,4}$/.test(group)) return undefined;
      groups.push(parseInt(group, 16));
    }
    return groups;
  };
  const left = parse(halves[0]!);
  const right = halves.length === 2 ? parse(halves[1]!) : [];
  if (left === undefined || right === undefined) return undefined;
  const explicit = left.length + right.length + tail.length;
  if (halves.length === 1 ? explicit !== 8 : explicit > 7) return undefined;
  return [...left, ...new Array<number>(8 - explicit).fill(0), ...right, ...tail];
}

/** RFC 5952 text of eight groups: lower case, no leading zeros, the longest zero run (2+) as `::`. */
function ipv6Text(groups: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let k = 0; k < 8; ) {
    if (groups[k] !== 0) {
      k++;
      continue;
    }
    let end = k;
    while (end < 8 && groups[end] === 0) end++;
    if (end - k > bestLength) {
      bestStart = k;
      bestLength = end - k;
    }
    k = end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

function canonicalIp(value: string): string {
  const bare = value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
  const v4 = canonicalIpv4(bare);
  if (v4 !== undefined) return v4;
  const zone = bare.indexOf('%');
  const address = zone >= 0 ? bare.slice(0, zone) : bare;
  const groups = ipv6Groups(address);
  if (groups === undefined) return bare;
  // ::ffff:a.b.c.d is the IPv4 address a.b.c.d.
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff && zone < 0) {
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  }
  return ipv6Text(groups) + (zone >= 0 ? bare.slice(zone) : '');
}

const URL_PARTS = /^([a-z][a-z0-9+.-]*:\/\/)?([^/?#]*)(.*)$/is;

function canonicalUrl(value: string): string {
  const match = URL_PARTS.exec(value);
  if (match === null) return value;
  const scheme = (match[1] ?? '').toLowerCase();
  const authority = match[2]!;
  const at = authority.lastIndexOf('@');
  const host = at >= 0 ? `${authority.slice(0, at + 1)}${authority.slice(at + 1).toLowerCase()}` : authority.toLowerCase();
  const rest = match[3] === '/' ? '' : match[3]!;
  return `${scheme}${host}${rest}`;
}

// ---------------------------------------------------------------------------------------------
// Dates.

/** Regions that write numeric dates month first. */
const MONTH_FIRST_REGIONS: ReadonlySet<string> = new Set(['US', 'PH', 'FM', 'PW', 'MH']);
const DATE_PARTS = /\p{L}+|\d+/gu;

function iso(year: number, month: number, day: number, yearDigits: number): string | undefined {
  if (!dateValid(yearDigits === 2 ? 2000 + year : year, month, day)) return undefined;
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${yearDigits === 2 ? pad(year) : String(year)}-${pad(month)}-${pad(day)}`;
}

function canonicalDate(value: string, region: string): string | undefined {
  const parts = value.toLowerCase().match(DATE_PARTS) ?? [];
  const numbers = parts.filter((part) => /^\d+$/.test(part));
  const month = parts.map(monthNumber).find((number) => number > 0);
  if (month !== undefined) {
    const year = numbers.find((part) => part.length === 4);
    const day = numbers.find((part) => part.length <= 2);
    if (year === undefined || day === undefined || numbers.length !== 2) return undefined;
    return iso(Number(year), month, Number(day), 4);
  }
  if (numbers.length !== 3 || parts.length !== 3) return undefined;
  const [a, b, c] = numbers as [string, string, string];
  if (a.length === 4) return iso(Number(a), Number(b), Number(c), 4);
  if (c.length !== 4 && c.length !== 2) return undefined;
  const year = Number(c);
  const dayFirst = iso(year, Number(b), Number(a), c.length);
  const monthFirst = iso(year, Number(a), Number(b), c.length);
  if (dayFirst === undefined || monthFirst === undefined) return dayFirst ?? monthFirst;
  // Both readings are real days: dots are European (day first); slashes and dashes follow the region.
  if (value.includes('.')) return dayFirst;
  return MONTH_FIRST_REGIONS.has(region) ? monthFirst : dayFirst;
}
