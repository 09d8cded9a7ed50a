// IBAN (country code + check digits, per-country length, ISO 7064 mod 97) and SWIFT/BIC codes.
// IBANs are accepted compact (DE89370400440532013000), in print form with single spaces
// (DE89 3704 0044 0532 0130 00), and after an IBAN word in any grouping (see detectIban). A BIC is an ordinary-looking uppercase word, so it needs a
// context word (swift, bic) or an IBAN close by; see resolveBicCandidates.
import { codeAt, isAlnumCode, isAsciiLetter, isDigit, isUpper } from './chars.js';
import { BIC_CONTEXT, hasWordBefore, IBAN_CONTEXT } from './context.js';
import { ibanChecksumValidIn } from './checksums.js';
import { emit, type ScanState } from './state.js';
import type { Detection } from '../types.js';

/** IBAN lengths: the SWIFT registry plus the partial/national IBAN countries in common use. */
const IBAN_LENGTH_LIST: readonly [string, number][] = (
  (
    'AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BI27 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 DJ27 DK18 ' +
    'DO28 EE20 EG29 ES24 FI18 FK18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HN28 HR21 HU28 IE22 IL23 ' +
    'IQ23 IS26 IT27 JO30 KW30 KZ20 LB28 LC32 LI21 LT20 LU20 LV21 LY25 MC27 MD24 ME22 MK19 MN20 MR27 ' +
    'MT31 MU30 NI28 NL18 NO15 OM23 PK24 PL28 PS29 PT25 QA29 RO24 RS22 RU33 SA24 SC31 SD18 SE24 SI19 ' +
    'SK24 SM27 SO23 ST25 SV28 TL23 TN24 TR26 UA29 VA22 VG24 XK20 YE30 ' +
    // Partial / experimental IBAN countries (national formats published by SWIFT members).
    'AO25 BF28 BJ28 CF27 CG27 CI28 CM27 CV25 DZ26 GA27 GQ27 GW25 IR26 KM27 MA28 MG27 ML28 MZ25 NE28 ' +
    'SN28 TD27 TG28 ' +
    // French overseas territories use the French format under their own code.
    'GF27 GP27 MQ27 RE27 PF27 TF27 YT27 NC27 PM27 WF27 BL27 MF27'
  )
    .split(' ')
    .map((entry): [string, number] => [entry.slice(0, 2), Number(entry.slice(2))])
);

/** Keyed by the two country-code characters as one number, so the lookup allocates nothing. */
const IBAN_LENGTHS: ReadonlyMap<number, number> = new Map(
  IBAN_LENGTH_LIST.map(([country, length]) => [(country.charCodeAt(0) << 8) | country.charCodeAt(1), length]),
);

/** ISO 3166-1 alpha-2 codes (plus XK), for the country part of a BIC. */
const COUNTRIES: ReadonlySet<string> = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT ' +
    'BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ' +
    'ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT ' +
    'HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS ' +
    'LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI ' +
    'NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG ' +
    'SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
    'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW XK'
  ).split(' '),
);

function isUpperOrDigit(c: number): boolean {
  return isUpper(c) || isDigit(c);
}

function isAlnumAscii(c: number): boolean {
  return isUpper(c) || isDigit(c) || (c >= 97 && c <= 122);
}

/** Longest gap between two groups of an IBAN after an IBAN word ("DE89 - 3704", "GB82 | WEST"). */
const MAX_LOOSE_GAP = 3;

/**
 * Characters of a gap between groups: spaces, dashes, dots, slashes, underscores, bars, `+` (a
 * space in a form-encoded query: `iban=DE89+3704+…`) and apostrophes (the Swiss group separator).
 */
function isGapCode(c: number): boolean {
  return c === 32 || c === 9 || c === 0xa0 || c === 45 || c === 46 || c === 47 || c === 95 || c === 124 || c === 43 || c === 39 || c === 0x2019;
}

/** The letters and digits of [start, end). */
function compact(text: string, start: number, end: number): string {
  let out = '';
  for (let k = start; k < end; k++) if (isAlnumAscii(text.charCodeAt(k))) out += text.charAt(k);
  return out;
}

/**
 * At a word start "CCdd..." or "CC dd...": an IBAN with a valid length and mod-97 checksum,
 * compact or in groups, in either case (gb82west12345698765432). Without an IBAN word before it
 * the groups are joined by single spaces, dashes or dots, one kind throughout, and a country code
 * written apart from its check digits ("DE 89 3704 …") needs a digit in every group, so words
 * are never counted in; after an IBAN word any grouping goes ("GB 82 WEST 123456 98765432",
 * "DE89 - 3704 - 0044 …", mixed separators). All-lowercase IBANs score a little lower: the
 * checksum still holds.
 */
export function detectIban(state: ScanState, start: number): number {
  const text = state.text;
  const a = codeAt(text, start);
  // "IBAN D E 8 9 3 7 …": the country code's letters apart too (loose: an IBAN word must say so).
  const spacedCode = codeAt(text, start + 1) === 32 && isAsciiLetter(codeAt(text, start + 2)) && !isAlnumCode(codeAt(text, start + 3));
  const b = spacedCode ? codeAt(text, start + 2) : codeAt(text, start + 1);
  if (!isAsciiLetter(a) || !isAsciiLetter(b)) return -1;
  const expected = IBAN_LENGTHS.get(((a & ~0x20) << 8) | (b & ~0x20));
  if (expected === undefined) return -1;
  let count = 2;
  let pos = spacedCode ? start + 3 : start + 2;
  let separator = -1;
  let loose = spacedCode;
  let apart = false; // the country code written apart from its check digits
  let groupHasDigit = true;
  let everyGroupHasDigit = true;
  let upper = isUpper(a) && isUpper(b);
  while (count < expected) {
    const c = codeAt(text, pos);
    if (isAlnumAscii(c)) {
      if (isUpper(c)) upper = true;
      if (isDigit(c)) groupHasDigit = true;
      else if (count < 4) return -1; // the check digits
      count++;
      pos++;
      continue;
    }
    let gap = pos;
    let lineBreak = false;
    while (gap - pos < MAX_LOOSE_GAP) {
      const g = codeAt(text, gap);
      // One line break (an IBAN wrapped in a form or an e-mail) counts as a loose gap.
      if ((g === 10 || g === 13) && !lineBreak) lineBreak = true;
      else if (g === 10 && codeAt(text, gap - 1) === 13) {
        // the \n of a \r\n
      } else if (!isGapCode(g)) break;
      gap++;
    }
    if (gap === pos || !isAlnumAscii(codeAt(text, gap))) break;
    if (gap - pos === 1 && !lineBreak && (c === 32 || c === 45 || c === 46) && (separator === -1 || separator === c)) separator = c;
    else loose = true;
    if (count === 2) apart = true;
    if (!groupHasDigit) everyGroupHasDigit = false;
    groupHasDigit = false;
    pos = gap;
  }
  if (!groupHasDigit) everyGroupHasDigit = false;
  if (count !== expected || isAlnumCode(codeAt(text, pos))) return -1;
  // "DE89-3704-...-00-12": the same separator going on makes it part of something longer.
  if ((separator === 45 || separator === 46) && codeAt(text, pos) === separator && isAlnumAscii(codeAt(text, pos + 1))) return -1;
  if ((loose || (apart && !everyGroupHasDigit)) && !hasWordBefore(text, start, 40, IBAN_CONTEXT)) return -1;
  // The in-place check reads the check digits at start + 2 and skips single separators only.
  const checked = loose || apart ? compact(text, start, pos) : text;
  if (!(checked === text ? ibanChecksumValidIn(text, start, pos) : ibanChecksumValidIn(checked, 0, checked.length))) return -1;
  emit(state, 'iban', start, pos, upper ? 0.98 : 0.9);
  return pos;
}

/**
 * At an uppercase word of 8 or 11 characters: bank (4 letters), country (2 letters, ISO 3166),
 * location (2 alnum), optional branch (3 alnum). Emitted at once with a context word before it;
 * otherwise parked in bicPending for resolveBicCandidates.
 */
export function detectBic(state: ScanState, start: number, wordEnd: number): void {
  const length = wordEnd - start;
  if (length !== 8 && length !== 11) return;
  const text = state.text;
  for (let k = 0; k < 6; k++) if (!isUpper(text.charCodeAt(start + k))) return;
  for (let k = 6; k < length; k++) if (!isUpperOrDigit(text.charCodeAt(start + k))) return;
  if (!COUNTRIES.has(text.slice(start + 4, start + 6))) return;
  if (hasWordBefore(text, start, 50, BIC_CONTEXT)) {
    emit(state, 'swift_bic', start, wordEnd, 0.9);
    return;
  }
  state.bicPending.push({
    type: 'swift_bic',
    start,
    end: wordEnd,
    value: text.slice(start, wordEnd),
    confidence: 0.8,
    detector: 'builtin_regex',
  });
}

const BIC_IBAN_DISTANCE = 120;

/** Keep parked BIC candidates that sit within BIC_IBAN_DISTANCE characters of an IBAN. */
export function resolveBicCandidates(state: ScanState): void {
  if (state.bicPending.length === 0) return;
  const ibans: Detection[] = state.out.filter((detection) => detection.type === 'iban');
  if (ibans.length === 0) return;
  for (const candidate of state.bicPending) {
    for (const iban of ibans) {
      const gap = candidate.start >= iban.end ? candidate.start - iban.end : iban.start - candidate.end;
      if (gap >= 0 && gap <= BIC_IBAN_DISTANCE) {
        state.out.push(candidate);
        break;
      }
    }
  }
}
