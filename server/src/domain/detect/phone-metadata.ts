// Phone-number validity from libphonenumber-js/max metadata, with the metadata's regular
// expressions compiled once per country and cached. libphonenumber-js's own parse()+isValid()
// rebuilds every pattern with `new RegExp` on each call (10 to 30 us per number, measured), which
// alone would exceed the detection budget of a 1 KB request; the cached path costs about 1 us.
// Semantics follow isValid(): the national significant number must match the country's
// national-number pattern and one of its number-type patterns (fixed line, mobile, ...), after
// stripping the national (trunk) prefix the way libphonenumber does. If the metadata API ever
// changes shape, we fall back to the library's parse().
import { Metadata, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

/** The NumberingPlan methods we rely on (present on libphonenumber-js metadata v4 objects). */
interface PlanApi {
  callingCode(): string;
  nationalNumberPattern(): string;
  possibleLengths(): number[] | undefined;
  nationalPrefixForParsing(): string | undefined;
  nationalPrefixTransformRule(): string | undefined;
  leadingDigits(): string | undefined;
  type(name: string): { pattern(): string } | undefined;
  formats(): readonly FormatApi[];
}

/** A national format of a numbering plan ("(\\d{3})(\\d{3})(\\d{3})" written "$1 $2 $3"). */
interface FormatApi {
  pattern(): string;
  format(): string;
  leadingDigitsPatterns(): readonly string[];
  /** The national format prints the trunk prefix (a real "0$1" rule, not a bare "$1"). */
  usesNationalPrefix(): boolean;
  nationalPrefixIsOptionalWhenFormattingInNationalFormat(): boolean | undefined;
}

interface MetadataApi {
  metadata?: { countries?: Record<string, unknown> };
  selectNumberingPlan(country: string): unknown;
  numberingPlan?: unknown;
  getCountryCodesForCallingCode(callingCode: string): string[] | undefined;
}

interface CompiledPlan {
  readonly country: string;
  readonly callingCode: string;
  readonly national: RegExp;
  readonly types: readonly RegExp[];
  readonly lengths: ReadonlySet<number>;
  readonly prefix: RegExp | undefined;
  readonly prefixTransform: string | undefined;
  /** Countries sharing a calling code (NANP) are told apart by leading digits where defined. */
  readonly leading: RegExp | undefined;
  /** The plan's national formats, compiled on first use by the layout check. */
  layouts?: readonly Layout[];
  readonly formatsOf: () => readonly FormatApi[];
}

/** One national format: which numbers it formats and the digit groups it prints. */
interface Layout {
  readonly pattern: RegExp;
  readonly leading: RegExp | undefined;
  /** The trunk prefix is printed in national format ("0$1", "(0$1)") and not optional. */
  readonly prefixPrinted: boolean;
}

const TYPE_NAMES = [
  'FIXED_LINE', 'MOBILE', 'TOLL_FREE', 'PREMIUM_RATE', 'PERSONAL_NUMBER',
  'VOICEMAIL', 'UAN', 'PAGER', 'VOIP', 'SHARED_COST',
];

const metadata = new Metadata() as unknown as MetadataApi;
const planCache = new Map<string, CompiledPlan | null>();

function isPlanApi(value: unknown): value is PlanApi {
  if (typeof value !== 'object' || value === null) return false;
  const plan = value as Record<string, unknown>;
  return (
    typeof plan.callingCode === 'function' &&
    typeof plan.nationalNumberPattern === 'function' &&
    typeof plan.possibleLengths === 'function' &&
    typeof plan.nationalPrefixForParsing === 'function' &&
    typeof plan.nationalPrefixTransformRule === 'function' &&
    typeof plan.leadingDigits === 'function' &&
    typeof plan.type === 'function' &&
    typeof plan.formats === 'function'
  );
}

function compilePlan(country: string): CompiledPlan | null {
  try {
    metadata.selectNumberingPlan(country);
  } catch {
    return null;
  }
  const plan = metadata.numberingPlan;
  if (!isPlanApi(plan)) return null;
  const types: RegExp[] = [];
  for (const name of TYPE_NAMES) {
    const pattern = plan.type(name)?.pattern();
    // An empty pattern means "same as fixed line" (deduplicated in the metadata).
    if (pattern !== undefined && pattern !== '') types.push(new RegExp(`^(?:${pattern})$`));
  }
  const prefixSource = plan.nationalPrefixForParsing();
  const leadingSource = plan.leadingDigits();
  return {
    country,
    callingCode: plan.callingCode(),
    national: new RegExp(`^(?:${plan.nationalNumberPattern()})$`),
    types,
    lengths: new Set(plan.possibleLengths() ?? []),
    prefix: prefixSource ? new RegExp(`^(?:${prefixSource})`) : undefined,
    prefixTransform: plan.nationalPrefixTransformRule() || undefined,
    leading: leadingSource ? new RegExp(`^(?:${leadingSource})`) : undefined,
    formatsOf: () => plan.formats(),
  };
}

function planFor(country: string): CompiledPlan | null {
  let plan = planCache.get(country);
  if (plan === undefined) {
    plan = compilePlan(country);
    planCache.set(country, plan);
  }
  return plan;
}

const useFastPath = planFor('US') !== null && planFor('DE') !== null;

function validNational(plan: CompiledPlan, nationalNumber: string): boolean {
  if (!plan.national.test(nationalNumber)) return false;
  for (const type of plan.types) if (type.test(nationalNumber)) return true;
  return false;
}

/** National-number forms of `digits`: trunk prefix stripped (when the plan has one), then as is. */
function nationalForms(plan: CompiledPlan, digits: string): string[] {
  const forms: string[] = [];
  if (plan.prefix !== undefined) {
    const match = plan.prefix.exec(digits);
    if (match !== null && match[0].length > 0) {
      const stripped = plan.prefixTransform !== undefined ? digits.replace(plan.prefix, plan.prefixTransform) : digits.slice(match[0].length);
      if (stripped.length > 0) forms.push(stripped);
    }
  }
  forms.push(digits);
  return forms;
}

export interface PhoneVerdict {
  readonly valid: boolean;
  /** Length is possible for the numbering plan (what isPossible() reports). */
  readonly possible: boolean;
}

const INVALID: PhoneVerdict = { valid: false, possible: false };

/**
 * Validity among the countries sharing one calling code, the way libphonenumber picks the country
 * (getCountryByNationalNumber): a country with leading digits owns the numbers starting with
 * them; a country without is tried against its number-type patterns. The trunk prefix is
 * stripped per the first (main) country's plan.
 */
function checkCountries(countries: readonly string[], digits: string): PhoneVerdict {
  const main = planFor(countries[0] ?? '');
  if (main === null) return INVALID;
  let possible = false;
  for (const form of nationalForms(main, digits)) {
    if (main.lengths.has(form.length)) possible = true;
    for (const country of countries) {
      const plan = planFor(country);
      if (plan === null) continue;
      if (plan.leading !== undefined) {
        if (!plan.leading.test(form)) continue;
        if (validNational(plan, form)) return { valid: true, possible: true };
        break; // the leading digits name this country, and it says no
      }
      if (validNational(plan, form)) return { valid: true, possible: true };
    }
  }
  return { valid: false, possible };
}

/** `digits` are the digits after '+': country calling code then national number. */
export function checkInternational(digits: string): PhoneVerdict {
  if (digits.length < 6 || digits.length > 17) return INVALID;
  if (!useFastPath) return slowCheck(`+${digits}`, undefined);
  // Calling codes are prefix-free, so the first length that names countries is the one.
  for (let length = 1; length <= 3; length++) {
    const countries = metadata.getCountryCodesForCallingCode(digits.slice(0, length));
    if (countries !== undefined && countries.length > 0) return checkCountries(countries, digits.slice(length));
  }
  return INVALID;
}

/**
 * `digits` start with a country calling code (calling codes are prefix-free); with `exact`, the
 * whole of `digits` is one ("54", "995"), as the first printed group of an international number.
 */
export function hasCallingCode(digits: string, exact = false): boolean {
  for (let length = 1; length <= 3 && length <= digits.length; length++) {
    const countries = metadata.getCountryCodesForCallingCode(digits.slice(0, length));
    if (countries !== undefined && countries.length > 0) return !exact || length === digits.length;
  }
  return false;
}

/** `digits` as written nationally in `country` (possibly with the trunk prefix). */
export function checkNational(digits: string, country: string): PhoneVerdict {
  // Short national numbers exist (small territories have 4-5 digits); callers gate on length.
  if (digits.length < 4 || digits.length > 17) return INVALID;
  if (!useFastPath) return slowCheck(digits, country);
  const plan = planFor(country);
  if (plan === null) return INVALID;
  // Countries sharing the calling code (NANP: US, CA, ...) accept each other's national numbers.
  return checkCountries(metadata.getCountryCodesForCallingCode(plan.callingCode) ?? [country], digits);
}

function slowCheck(text: string, country: string | undefined): PhoneVerdict {
  const parsed = country === undefined ? parsePhoneNumberFromString(text) : parsePhoneNumberFromString(text, country as CountryCode);
  if (parsed === undefined) return INVALID;
  return { valid: parsed.isValid(), possible: parsed.isPossible() };
}

/**
 * True when national numbers in `country` are written with a trunk prefix (0 in most of Europe),
 * so a national number without it is not how people there write phone numbers.
 */
export function usesTrunkPrefix(country: string): boolean {
  return planFor(country)?.prefix !== undefined;
}

/** The country calling code of a region ('1' for US and CA), or undefined. */
export function callingCodeOf(country: string): string | undefined {
  return planFor(country)?.callingCode;
}

/** True for a two-letter region libphonenumber knows. */
export function isKnownRegion(country: string): boolean {
  return planFor(country) !== null;
}

function compileLayouts(plan: CompiledPlan): readonly Layout[] {
  const layouts: Layout[] = [];
  for (const format of plan.formatsOf()) {
    const leading = format.leadingDigitsPatterns();
    // libphonenumber matches the last (most specific) leading-digits pattern.
    const last = leading.length > 0 ? leading[leading.length - 1] : undefined;
    layouts.push({
      pattern: new RegExp(`^(?:${format.pattern()})$`),
      leading: last !== undefined ? new RegExp(`^(?:${last})`) : undefined,
      prefixPrinted: format.usesNationalPrefix() && format.nationalPrefixIsOptionalWhenFormattingInNationalFormat() !== true,
    });
  }
  return layouts;
}

/** Digit-group sizes libphonenumber prints for a valid national significant number, or undefined. */
function printedGroups(plan: CompiledPlan, nationalNumber: string): { sizes: number[]; prefixPrinted: boolean } | undefined {
  plan.layouts ??= compileLayouts(plan);
  for (const layout of plan.layouts) {
    if (layout.leading !== undefined && !layout.leading.test(nationalNumber)) continue;
    const match = layout.pattern.exec(nationalNumber);
    if (match === null) continue;
    const sizes: number[] = [];
    for (let k = 1; k < match.length; k++) if (match[k] !== undefined) sizes.push(match[k]!.length);
    return { sizes, prefixPrinted: layout.prefixPrinted };
  }
  return undefined;
}

/** Longest trunk prefix worth trying when indexing plans by written length ("0", "8", "06", "01"). */
const MAX_TRUNK_DIGITS = 3;
/** Per written digit count, the plans a number of that length can belong to (with or without a trunk prefix). */
const plansByLength = new Map<number, readonly CompiledPlan[]>();

function plansForLength(length: number): readonly CompiledPlan[] {
  let plans = plansByLength.get(length);
  if (plans === undefined) {
    const chosen: CompiledPlan[] = [];
    for (const country of Object.keys(metadata.metadata?.countries ?? {})) {
      const plan = planFor(country);
      if (plan === null || plan.prefixTransform !== undefined) continue; // rewritten national numbers (AR, MX, ...): not a plain layout
      let fits = plan.lengths.has(length);
      for (let k = 1; k <= MAX_TRUNK_DIGITS && !fits && plan.prefix !== undefined; k++) fits = plan.lengths.has(length - k);
      if (fits) chosen.push(plan);
    }
    plans = chosen;
    plansByLength.set(length, plans);
  }
  return plans;
}

function sameSizes(written: readonly number[], printed: readonly number[], offset: number, prefix: number): boolean {
  if (written.length !== printed.length + offset) return false;
  for (let k = offset; k < written.length; k++) {
    const expected = printed[k - offset]! + (k === 0 ? prefix : 0);
    if (written[k] !== expected) return false;
  }
  return true;
}

/**
 * A region where `groups` (digit groups as written, trunk prefix included) is a valid national
 * number printed in exactly these groups: the plan's own national format, its trunk prefix on
 * the first group ("0161 496 0932") or alone ("8 912 345 6789"), or no trunk prefix where the
 * plan prints none ("612 34 56 78", "51 65 63 15"). Undefined when no numbering plan lays the
 * number out this way. Tries every region whose plan has numbers of this length.
 */
export function nationalLayoutRegion(groups: readonly number[], digits: string): string | undefined {
  if (!useFastPath) return undefined;
  for (const plan of plansForLength(digits.length)) {
    let stripped = 0;
    if (plan.prefix !== undefined) {
      const match = plan.prefix.exec(digits);
      if (match !== null) stripped = match[0].length;
    }
    const nationalNumber = digits.slice(stripped);
    if (!plan.lengths.has(nationalNumber.length) || !validNational(plan, nationalNumber)) continue;
    const printed = printedGroups(plan, nationalNumber);
    if (printed === undefined) continue;
    if (stripped > 0) {
      if (sameSizes(groups, printed.sizes, 0, stripped) || (groups[0] === stripped && sameSizes(groups, printed.sizes, 1, 0))) return plan.country;
    } else if (!printed.prefixPrinted && sameSizes(groups, printed.sizes, 0, 0)) {
      return plan.country;
    }
  }
  return undefined;
}
