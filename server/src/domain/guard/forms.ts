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
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
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
  // Parsing costs 10-30 us; every rehydrate of a session asks again for the same few numbers.
  const key = `${region ?? ''}\u0000${value}`;
  const cached = phoneFormsCache.get(key);
  if (cached !== undefined) return cached;
  const forms = phoneFormsOf(value, region);
  if (phoneFormsCache.size >= PHONE_FORMS_CACHE_LIMIT) phoneFormsCache.clear();
  phoneFormsCache.set(key, forms);
  return forms;
}

const PHONE_FORMS_CACHE_LIMIT = 4096;
const phoneFormsCache = new Map<string, readonly string[]>();

function phoneFormsOf(value: string, region: string | undefined): readonly string[] {
  const canonical = normalizeValue('phone', value, region);
  if (!canonical.startsWith('+')) return [];
  const ext = canonical.indexOf(';');
  let parsed;
  try {
    parsed = parsePhoneNumberFromString(ext > 0 ? canonical.slice(0, ext) : canonical);
  } catch {
    return [];
  }
  if (parsed === undefined) return [];
  const international = `${parsed.countryCallingCode}${parsed.nationalNumber}`;
  const forms = new Set([
    international,
    `00${international}`,
    parsed.nationalNumber,
    parsed.formatNational().replace(/[^0-9]/g, ''),
  ]);
  return [...forms].filter((form) => form.length >= MIN_PHONE_FORM_DIGITS);
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
