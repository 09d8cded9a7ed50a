// Other spellings of a session value that the output guard searches for (issue 18 item 8: every
// raw value of the session that reaches the output is masked). The known-values search
// (known.ts) matches an entry's letters and digits whatever the separators and case, but:
// - a phone number is also written without its country code, with or without the trunk prefix,
//   or after the international call prefix: "+1 415 555 0100" comes back as "(415) 555-0100",
//   "4155550100" or "001 415 555 0100"; "+44 20 7946 0958" as "020 7946 0958" or "2079460958";
// - an e-mail address is spelled out against harvesters: "jane.roe at corp dot example",
//   "jane.roe [at] corp.example".
// Each is the same value, so each is searched as that entry's value (as a skeleton: letters and
// digits, lower case).
import { Metadata, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { normalizeValue } from '../token/normalize.js';

/** Skeletons (lower-cased letters and digits) of the other spellings of `value` of `type`. */
export function searchForms(type: string, value: string, region: string | undefined): readonly string[] {
  if (type === 'phone') return phoneSearchForms(value, region);
  if (type === 'email') return emailSearchForms(value);
  return [];
}

/** A form shorter than this is not searched alone (a short local number matches too much). */
export const MIN_PHONE_FORM_DIGITS = 7;

/**
 * The digit strings under which `value` (a phone entry, read in `region`) may be written:
 * the international number (country code + national number), the national significant number,
 * the national format's digits (with the trunk prefix where the country dials one) and the
 * number after the "00" international prefix. Empty when the number does not parse.
 */
export function phoneSearchForms(value: string, region: string | undefined): readonly string[] {
  // No cache of values here (issue 18 item 8, threats.md): a module-level map of raw numbers
  // outlived their erasure and told one tenant, by its timing, which numbers another had just
  // rehydrated. The forms are computed once per opened session state (session-forms.ts: keyed by
  // the blob, emptied by any revocation), else once per request,
  // from the numbering plans compiled once (metadata, no value): the canonical value is already
  // "+" calling code national number, so libphonenumber's parse (which compiles its patterns on
  // each call) is needed only where it could read the number otherwise.
  const canonical = normalizeValue('phone', value, region);
  if (!canonical.startsWith('+')) return [];
  const ext = canonical.indexOf(';');
  const number = ext > 0 ? canonical.slice(0, ext) : canonical;
  const split = splitInternational(number) ?? parsedInternational(number);
  if (split === undefined) return [];
  const international = `${split.callingCode}${split.nationalNumber}`;
  const forms = new Set([international, `00${international}`, split.nationalNumber, nationalDigits(split.callingCode, split.nationalNumber)]);
  return [...forms].filter((form) => form.length >= MIN_PHONE_FORM_DIGITS);
}

interface International {
  readonly callingCode: string;
  readonly nationalNumber: string;
}

const E164 = /^\+[1-9][0-9]{5,16}$/;

/**
 * "+" digits read as calling code and national number without parsing: the calling codes are
 * prefix-free, and what follows is the national number unless a plan of that code would strip a
 * trunk prefix from it (or its length is unusual), where the parse decides. Undefined then.
 */
function splitInternational(number: string): International | undefined {
  if (!E164.test(number)) return undefined;
  const plans = allPlans();
  for (let length = 1; length <= 3; length++) {
    const plan = plans.byCallingCode.get(number.slice(1, 1 + length));
    if (plan === undefined) continue;
    const nationalNumber = number.slice(1 + length);
    if (nationalNumber.length < MIN_SPLIT_DIGITS || nationalNumber.length > MAX_SPLIT_DIGITS) return undefined;
    for (const prefix of plan.prefixes) if (prefix.test(nationalNumber)) return undefined;
    return { callingCode: plan.callingCode, nationalNumber };
  }
  return undefined;
}

/** National numbers shorter or longer than this are left to the parse. */
const MIN_SPLIT_DIGITS = 4;
const MAX_SPLIT_DIGITS = 15;

function parsedInternational(number: string): International | undefined {
  try {
    const parsed = parsePhoneNumberFromString(number);
    return parsed === undefined ? undefined : { callingCode: parsed.countryCallingCode, nationalNumber: parsed.nationalNumber };
  } catch {
    return undefined;
  }
}

/** A national format of a numbering plan, its patterns compiled. */
interface CompiledFormat {
  /** The last (most specific) leading-digits pattern, unanchored as libphonenumber searches it. */
  readonly leading: RegExp | undefined;
  readonly whole: RegExp;
  readonly pattern: RegExp;
  /** The national format with the trunk-prefix rule applied to its first group. */
  readonly template: string;
}

/** What the forms need of the numbering plans of one calling code. */
interface CallingCodePlan {
  readonly callingCode: string;
  /** The national formats (every region of a shared code formats as its main region). */
  readonly formats: readonly CompiledFormat[];
  /** Each region's trunk prefix as the parse strips it (national_prefix_for_parsing), anchored. */
  readonly prefixes: readonly RegExp[];
}

interface FormatApi {
  pattern(): string;
  format(): string;
  leadingDigitsPatterns(): readonly string[];
  nationalPrefixFormattingRule(): string | 0 | undefined;
}

interface PlanMetadata {
  metadata: { country_calling_codes: Record<string, readonly string[]> };
  selectNumberingPlan(plan: string): unknown;
  formats(): readonly FormatApi[];
  nationalPrefixForParsing(): string | undefined;
}

const metadata = new Metadata() as unknown as PlanMetadata;
/** libphonenumber's FIRST_GROUP_PATTERN: where the trunk-prefix rule goes in a format. */
const FIRST_GROUP = /(\$\d)/;

/**
 * Every calling code's plan, compiled at the first use: metadata only, never a value, and all
 * of it at once, so which plans are compiled says nothing about the numbers seen.
 */
let compiled: { readonly byCallingCode: ReadonlyMap<string, CallingCodePlan> } | undefined;

function compileFormats(plan: string): readonly CompiledFormat[] {
  metadata.selectNumberingPlan(plan);
  return metadata.formats().map((format) => {
    const leading = format.leadingDigitsPatterns();
    const last = leading.length > 0 ? leading[leading.length - 1] : undefined;
    const rule = format.nationalPrefixFormattingRule();
    return {
      leading: last !== undefined ? new RegExp(last) : undefined,
      whole: new RegExp(`^(?:${format.pattern()})$`),
      pattern: new RegExp(format.pattern()),
      template: rule ? format.format().replace(FIRST_GROUP, rule) : format.format(),
    };
  });
}

function allPlans(): { readonly byCallingCode: ReadonlyMap<string, CallingCodePlan> } {
  if (compiled !== undefined) return compiled;
  const byCallingCode = new Map<string, CallingCodePlan>();
  for (const [callingCode, regions] of Object.entries(metadata.metadata.country_calling_codes)) {
    const prefixes: RegExp[] = [];
    for (const region of regions.length > 0 ? regions : [callingCode]) {
      metadata.selectNumberingPlan(region);
      const prefix = metadata.nationalPrefixForParsing();
      if (prefix) prefixes.push(new RegExp(`^(?:${prefix})`));
    }
    // A shared code's regions all format as its main region (forms.test.ts checks the metadata).
    byCallingCode.set(callingCode, { callingCode, formats: compileFormats(callingCode), prefixes });
  }
  return (compiled = { byCallingCode });
}

/**
 * The digits of libphonenumber's national format of `nationalNumber` under `callingCode`
 * (formatNational: the first format whose leading digits and pattern match, written with its
 * trunk-prefix rule), the number itself when no format matches. The same digits as
 * `formatNational()` (forms.test.ts: every region's example numbers, random numbers).
 */
export function nationalDigits(callingCode: string, nationalNumber: string): string {
  const plan = allPlans().byCallingCode.get(callingCode);
  if (plan === undefined) return nationalNumber;
  for (const format of plan.formats) {
    if (format.leading !== undefined && nationalNumber.search(format.leading) !== 0) continue;
    if (!format.whole.test(nationalNumber)) continue;
    return nationalNumber.replace(format.pattern, format.template).replace(/[^0-9]/g, '');
  }
  return nationalNumber;
}

/**
 * `value` as a URL encoder writes it in a link the model makes (`?q=Quentin%20Zyxwort`,
 * `?a=12%20Rue%20de%20la%20Paix%2C%20Paris`, a form encoder's `+` for a space), when that differs
 * from the value: the shared fold keeps such escapes between letters (they are text in a path or
 * a query), so these forms are read through the same view and searched as the value's.
 */
export function urlEncodedForms(value: string): string[] {
  let encoded: string;
  try {
    encoded = encodeURIComponent(value);
  } catch {
    return []; // a lone surrogate: no encoder writes it
  }
  if (encoded === value) return [];
  const form = encoded.replace(/%20/g, '+');
  return form === encoded ? [encoded] : [encoded, form];
}

const NOT_SKELETON = /[^\p{L}\p{N}]+/gu;

/**
 * An address with "at" for its `@` and, in either part, "dot" for its dots or nothing: the
 * skeletons of "jane.roe at corp.example", "jane dot roe at corp dot example", ...
 */
export function emailSearchForms(value: string): string[] {
  const at = value.lastIndexOf('@');
  if (at <= 0 || at === value.length - 1) return [];
  // Each part cleaned once and joined both ways (the four forms used to split and clean each
  // part twice: work every rehydrate's guard repeated per session address). Lower-cased after
  // the join, as before: a Greek capital sigma lower-cases by what follows it.
  const pieces = (part: string): string[] => part.split('.').map((piece) => piece.replace(NOT_SKELETON, ''));
  const joined = (parts: readonly string[]): string[] => [parts.join('').toLowerCase(), parts.join('dot').toLowerCase()];
  const locals = joined(pieces(value.slice(0, at)));
  const domains = joined(pieces(value.slice(at + 1)));
  const forms = new Set<string>();
  for (const localForm of locals) {
    for (const domainForm of domains) forms.add(`${localForm}at${domainForm}`);
  }
  return [...forms];
}
