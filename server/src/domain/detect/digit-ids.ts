// National identifiers, tax, company, health and device numbers that are written as digit groups
// (123456782, 123.456.789-09, 1 85 05 78 006 084 36, 756.1234.5678.97). numeric.ts collects the
// digit groups once per candidate start; this module matches the group layout against each
// type's published print forms, runs the type's validator on the compact digits, and scores
// the match: a distinctive layout with a strong check stands on its own, a bare digit run needs
// a context word ("BSN", "Steuer-ID", "NIR") to reach the default threshold.
import { codeAt, isAlnumCode, isDigit, isUpper } from './chars.js';
import { hasWordBefore } from './context.js';
import { ANY_ID_CONTEXT, ID_CONTEXT, passportTypeFor } from './id-context.js';
import { emit, type ScanState } from './state.js';
import {
  aadhaarValid, abaRoutingValid, auAbnValid, auAcnValid, auMedicareValid, auTfnValid, beNationalNumberValid, brCnpjValid,
  brCpfValid, caSinValid, chAhvValid, cnResidentIdValid, deTaxIdValid, dkCprValid, esDniValid, euVatVerdict, fiHetuValid, frNirValid,
  iePpsValid, imeiValid, jpMyNumberValid, krRrnStructureValid, krRrnValid, nhsValid, nlBsnValid, noFodselsnummerValid,
  npiValid, plPeselValid, ptNifValid, sePersonnummerValid, sirenValid, siretValid, usEinValid, usItinValid,
} from './validators.js';

/** Context window before a candidate, in characters. */
export const ID_CONTEXT_WINDOW = 48;

/**
 * Whether any id context word stands before `start`, computed at most once per candidate start
 * (the scan is synchronous, so one module-level memo is enough).
 */
let memoText = '';
let memoStart = -1;
let memoAny = false;

function anyContextBefore(text: string, start: number): boolean {
  if (memoStart !== start || memoText !== text) {
    memoText = text;
    memoStart = start;
    memoAny = hasWordBefore(text, start, ID_CONTEXT_WINDOW, ANY_ID_CONTEXT);
  }
  return memoAny;
}

/**
 * `base` without a context word; `max(base, withContext)` after a word naming the id itself;
 * 0.1 less after a generic word (tax number, national id) that other types share.
 */
export function scoreId(text: string, type: string, start: number, base: number, withContext: number): number {
  if (withContext <= base || !anyContextBefore(text, start)) return base;
  const context = ID_CONTEXT[type];
  if (context === undefined) return base;
  if (hasWordBefore(text, start, ID_CONTEXT_WINDOW, context.specific)) return withContext;
  if (context.generic !== undefined && hasWordBefore(text, start, ID_CONTEXT_WINDOW, context.generic)) return Math.max(base, withContext - 0.1);
  return base;
}

/** Candidates scoring below this are not emitted at all (not even for callers with a low threshold). */
const MIN_EMIT = 0.3;

interface Shape {
  /** Group lengths and separators: "3.3.3-2"; `_` stands for a space or a dash, `~` for space, dash or dot. */
  readonly layout: string;
  readonly base: number;
}

interface DigitIdSpec {
  readonly type: string;
  readonly valid: (digits: string) => boolean;
  readonly shapes: readonly Shape[];
  readonly withContext: number;
  /** A looser check accepted only next to a context word (Korean RRNs issued after 2020 have no check digit). */
  readonly validWithContext?: (digits: string) => boolean;
}

function shapes(...entries: [string, number][]): Shape[] {
  return entries.map(([layout, base]) => ({ layout, base }));
}

// Order matters only for identical spans and scores (the first emitted wins a tie): the more
// specific checks come first.
const SPECS: readonly DigitIdSpec[] = [
  { type: 'us_itin', valid: usItinValid, shapes: shapes(['3-2-4', 0.8], ['3 2 4', 0.5], ['9', 0.3]), withContext: 0.95 },
  { type: 'us_ein', valid: usEinValid, shapes: shapes(['2-7', 0.55], ['9', 0]), withContext: 0.9 },
  { type: 'fr_nir', valid: frNirValid, shapes: shapes(['1 2 2 2 3 3 2', 0.85], ['15', 0.6], ['13 2', 0.7]), withContext: 0.98 },
  { type: 'ch_ahv', valid: chAhvValid, shapes: shapes(['3.4.4.2', 0.9], ['3 4 4 2', 0.7], ['13', 0.6]), withContext: 0.98 },
  { type: 'br_cpf', valid: brCpfValid, shapes: shapes(['3.3.3-2', 0.85], ['11', 0.4]), withContext: 0.95 },
  { type: 'br_cnpj', valid: brCnpjValid, shapes: shapes(['2.3.3/4-2', 0.9], ['14', 0.45]), withContext: 0.95 },
  { type: 'be_national_number', valid: beNationalNumberValid, shapes: shapes(['2.2.2-3.2', 0.85], ['6_3_2', 0.6], ['11', 0.45]), withContext: 0.95 },
  { type: 'cn_resident_id', valid: cnResidentIdValid, shapes: shapes(['18', 0.75]), withContext: 0.95 },
  {
    type: 'kr_rrn',
    valid: krRrnValid,
    validWithContext: krRrnStructureValid,
    shapes: shapes(['6-7', 0.75], ['13', 0.45]),
    withContext: 0.95,
  },
  { type: 'imei', valid: imeiValid, shapes: shapes(['2-6-6-1', 0.75], ['2 6 6 1', 0.7], ['15', 0.4]), withContext: 0.95 },
  { type: 'fr_siret', valid: siretValid, shapes: shapes(['3 3 3 5', 0.55], ['14', 0.4]), withContext: 0.95 },
  { type: 'no_fodselsnummer', valid: noFodselsnummerValid, shapes: shapes(['6 5', 0.7], ['11', 0.55]), withContext: 0.95 },
  { type: 'pl_pesel', valid: plPeselValid, shapes: shapes(['11', 0.45]), withContext: 0.95 },
  { type: 'de_tax_id', valid: deTaxIdValid, shapes: shapes(['11', 0.4], ['2 3 3 3', 0.4]), withContext: 0.95 },
  { type: 'au_abn', valid: auAbnValid, shapes: shapes(['2 3 3 3', 0.55], ['11', 0.35]), withContext: 0.95 },
  { type: 'se_personnummer', valid: sePersonnummerValid, shapes: shapes(['8-4', 0.6], ['6-4', 0.45], ['12', 0.4], ['10', 0.3]), withContext: 0.95 },
  { type: 'dk_cpr', valid: dkCprValid, shapes: shapes(['6-4', 0.4], ['10', 0.25]), withContext: 0.9 },
  { type: 'uk_nhs', valid: nhsValid, shapes: shapes(['3_3_4', 0.4], ['10', 0.3]), withContext: 0.95 },
  { type: 'us_npi', valid: npiValid, shapes: shapes(['10', 0.35]), withContext: 0.9 },
  { type: 'au_medicare', valid: auMedicareValid, shapes: shapes(['4 5 1', 0.55], ['10', 0.3], ['11', 0.25]), withContext: 0.9 },
  { type: 'in_aadhaar', valid: aadhaarValid, shapes: shapes(['4_4_4', 0.45], ['12', 0.35]), withContext: 0.95 },
  { type: 'jp_my_number', valid: jpMyNumberValid, shapes: shapes(['4_4_4', 0.35], ['12', 0.3]), withContext: 0.9 },
  { type: 'nl_bsn', valid: nlBsnValid, shapes: shapes(['4.2.3', 0.5], ['9', 0.35], ['3 3 3', 0.35]), withContext: 0.95 },
  { type: 'ca_sin', valid: caSinValid, shapes: shapes(['3_3_3', 0.4], ['9', 0.3]), withContext: 0.95 },
  { type: 'fr_siren', valid: sirenValid, shapes: shapes(['3 3 3', 0.35], ['9', 0.3]), withContext: 0.9 },
  { type: 'au_tfn', valid: auTfnValid, shapes: shapes(['3 3 3', 0.35], ['9', 0.3], ['8', 0.25]), withContext: 0.9 },
  { type: 'au_acn', valid: auAcnValid, shapes: shapes(['3 3 3', 0.3], ['9', 0.25]), withContext: 0.9 },
  { type: 'pt_nif', valid: ptNifValid, shapes: shapes(['3 3 3', 0.35], ['9', 0.3]), withContext: 0.9 },
  { type: 'aba_routing', valid: abaRoutingValid, shapes: shapes(['9', 0.3]), withContext: 0.9 },
  // Italian VAT numbers are written without their IT prefix after "P.IVA" / "Partita IVA".
  { type: 'eu_vat', valid: italianVatBody, shapes: shapes(['11', 0]), withContext: 0.9 },
  // Passport numbers have no check digit: only a context word makes nine digits one.
  { type: 'uk_passport', valid: passportDigits, shapes: shapes(['9', 0]), withContext: 0.8 },
  { type: 'us_passport', valid: passportDigits, shapes: shapes(['9', 0]), withContext: 0.8 },
];

function italianVatBody(digits: string): boolean {
  return euVatVerdict('IT', digits) === 'checksum';
}

function passportDigits(digits: string): boolean {
  return digits.length === 9 && digits !== '000000000';
}

interface IndexedShape {
  readonly spec: DigitIdSpec;
  readonly base: number;
}

/** Expand `_` (space or dash) and `~` (space, dash or dot) into every concrete layout. */
function expandLayout(layout: string): string[] {
  let results = [''];
  for (const ch of layout) {
    const options = ch === '_' ? [' ', '-'] : ch === '~' ? [' ', '-', '.'] : [ch];
    results = results.flatMap((prefix) => options.map((option) => prefix + option));
  }
  return results;
}

/** Concrete layout ("3.3.3-2") -> the specs that accept it, in SPECS order: one Map lookup per candidate prefix. */
const SHAPE_INDEX: ReadonlyMap<string, readonly IndexedShape[]> = (() => {
  const index = new Map<string, IndexedShape[]>();
  for (const spec of SPECS) {
    for (const shape of spec.shapes) {
      for (const layout of expandLayout(shape.layout)) {
        const list = index.get(layout) ?? [];
        list.push({ spec, base: shape.base });
        index.set(layout, list);
      }
    }
  }
  return index;
})();

/**
 * At a digit-group chain (groups k in [0, count): text[starts[k], ends[k]), separator seps[k]
 * before group k): try every prefix of the chain that ends at a token boundary (or before a
 * space that continues it) against each type's layouts.
 */
export function detectDigitIds(
  state: ScanState,
  count: number,
  starts: Int32Array,
  ends: Int32Array,
  seps: Int32Array,
): void {
  const text = state.text;
  const start = starts[0]!;
  // Cheap gate: the whole chain holds at least 8 digits (every layout here does).
  let total = 0;
  for (let k = 0; k < count; k++) total += ends[k]! - starts[k]!;
  if (total < 8) return;
  let layout = '';
  let digits = '';
  for (let k = 0; k < count; k++) {
    if (k > 0) layout += String.fromCharCode(seps[k]!);
    layout += String(ends[k]! - starts[k]!);
    digits += text.slice(starts[k], ends[k]);
    if (digits.length < 8) continue;
    if (digits.length > 18) return;
    const end = ends[k]!;
    // The prefix must end the token: at the chain's end a non-alphanumeric, inside the chain a space.
    if (k === count - 1) {
      if (isAlnumCode(codeAt(text, end))) return;
    } else if (seps[k + 1] !== 32) continue;
    const candidates = SHAPE_INDEX.get(layout);
    if (candidates === undefined) continue;
    for (const { spec, base } of candidates) {
      // Nine digits after "passport": one passport type, the region's, unless the words name the other.
      if (spec.valid === passportDigits && spec.type !== passportTypeFor(state.region) && !hasWordBefore(text, start, ID_CONTEXT_WINDOW, ID_CONTEXT[spec.type]!.specific)) continue;
      let confidence = 0;
      if (spec.valid(digits)) confidence = scoreId(text, spec.type, start, base, spec.withContext);
      else if (spec.validWithContext?.(digits) === true) confidence = scoreId(text, spec.type, start, 0, spec.withContext - 0.1);
      if (confidence >= MIN_EMIT) emit(state, spec.type, start, end, confidence);
    }
  }
}

const HETU_SIGNS = '+-YXWVUABCDEF';

/**
 * Letters glued to or dashed after a digit run: Spanish DNI (12345678Z, 12345678-Z,
 * 12.345.678-Z), Finnish HETU (131052-308T), Irish PPS (1234567T, 1234567TW). Returns the end of
 * an emitted match or -1.
 */
export function detectDigitLetterIds(state: ScanState, count: number, starts: Int32Array, ends: Int32Array, seps: Int32Array): number {
  const text = state.text;
  const start = starts[0]!;
  const firstLength = ends[0]! - start;
  const after = ends[0]!;
  const next = codeAt(text, after);
  // HETU: DDMMYY, century sign, three digits, check character.
  if (firstLength === 6 && HETU_SIGNS.includes(String.fromCharCode(next))) {
    const end = after + 5;
    if (isDigit(codeAt(text, after + 1)) && isDigit(codeAt(text, after + 2)) && isDigit(codeAt(text, after + 3)) && !isAlnumCode(codeAt(text, end))) {
      const value = text.slice(start, end);
      if (fiHetuValid(value)) {
        emit(state, 'fi_hetu', start, end, scoreId(text, 'fi_hetu', start, 0.85, 0.98));
        return end;
      }
    }
  }
  // DNI: 8 digits (or 2.3.3) then the check letter, glued or after a dash.
  let digits: string | undefined;
  let letterAt = -1;
  if (count === 1 && firstLength === 8) {
    digits = text.slice(start, after);
    letterAt = next === 45 ? after + 1 : after;
  } else if (count === 3 && firstLength === 2 && ends[1]! - starts[1]! === 3 && ends[2]! - starts[2]! === 3 && seps[1] === 46 && seps[2] === 46) {
    digits = text.slice(start, ends[0]) + text.slice(starts[1], ends[1]) + text.slice(starts[2], ends[2]);
    letterAt = codeAt(text, ends[2]!) === 45 ? ends[2]! + 1 : ends[2]!;
  }
  const letter = codeAt(text, letterAt);
  if (digits !== undefined && (isUpper(letter) || (letter >= 97 && letter <= 122)) && !isAlnumCode(codeAt(text, letterAt + 1))) {
    if (esDniValid(digits + text.charAt(letterAt).toUpperCase())) {
      const glued = letterAt === after && count === 1;
      const base = (glued ? 0.6 : 0.7) - (isUpper(letter) ? 0 : 0.1);
      emit(state, 'es_dni', start, letterAt + 1, scoreId(text, 'es_dni', start, base, 0.95));
      return letterAt + 1;
    }
  }
  // PPS: 7 digits and one or two letters, glued.
  if (count === 1 && firstLength === 7 && isUpper(next)) {
    const two = isUpper(codeAt(text, after + 1));
    const end = two ? after + 2 : after + 1;
    if (!isAlnumCode(codeAt(text, end)) && iePpsValid(text.slice(start, end))) {
      emit(state, 'ie_pps', start, end, scoreId(text, 'ie_pps', start, two ? 0.55 : 0.45, 0.95));
      return end;
    }
  }
  return -1;
}
