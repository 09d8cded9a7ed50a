// Other spellings of a session's phone number that the output guard searches for (issue 18
// item 8: every raw value of the session that reaches the output is masked). The known-values
// search (known.ts) matches an entry's letters and digits whatever the separators, but a phone
// number is also written without its country code, with or without the trunk prefix, or after
// the international call prefix: "+1 415 555 0100" comes back as "(415) 555-0100", "4155550100"
// or "001 415 555 0100"; "+44 20 7946 0958" as "020 7946 0958" or "2079460958". Each of those
// digit strings is the same subscriber, so each is searched as that entry's value.
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { normalizeValue } from '../token/normalize.js';

/** A form shorter than this is not searched alone (a short local number matches too much). */
export const MIN_PHONE_FORM_DIGITS = 7;

/**
 * The digit strings under which `value` (a phone entry, read in `region`) may be written:
 * the international number (country code + national number), the national significant number,
 * the national format's digits (with the trunk prefix where the country dials one) and the
 * number after the "00" international prefix. Empty when the number does not parse.
 */
export function phoneSearchForms(value: string, region: string | undefined): string[] {
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
