// libphonenumber-js/max's parsePhoneNumberFromString for token/normalize.ts, without the search for
// the exact country of a calling code that several countries share when that country cannot change
// what normalize.ts reads of the parse (issue 20, session 17, wave16/large).
//
// normalize.ts reads three things of a parsed number: `number` (E.164: '+', the calling code, the
// national number), `ext`, and `isPossible()`. The first two never depend on the country the parser
// picks; `isPossible()` is the national number's length checked against the possible lengths of that
// country's plan. For a calling code shared by several countries (+1: 25 of them) the parser tries
// each country's number types in turn (libphonenumber's getCountryByNationalNumber: ~40 % of a
// North American number's parse, 40-150 µs per distinct phone on the 2-core machine). Where every
// country of the calling code gives the same answer for the national number's length, which
// country the parser picks cannot change what normalize.ts returns, so a second metadata, the
// same JSON with each shared calling code listing its first country only, parses it without the
// search. A length on which the countries disagree (+1: 7 digits, and 8 where a stripped `1` leaves
// 7; +290: 5) is parsed with the full metadata, as before; a code whose main country's national
// prefix is a pattern and whose countries disagree on some length (+44, +61) keeps all its countries. The table of such lengths is built once at load from the metadata
// alone (nothing of a request is kept: no cache across requests, see normalize.ts canonicalPhone).
//
// The result's `country` may differ (the first country instead of the exact one): callers read
// `number`, `ext` and `isPossible()` only. `phone-parse.test.ts` holds the three to the /max parse
// over seeded numbers of every shared calling code, lengths, formats and default regions.
// A number with a default region (no `+`) is parsed with the full metadata (see the function).
import { Metadata, parsePhoneNumberFromString as parseWith, type CountryCode, type MetadataJson, type PhoneNumber } from 'libphonenumber-js/core';
import maxMetadata from 'libphonenumber-js/max/metadata';

interface SharedPlans {
  /** The metadata with each reducible shared calling code listing its first (main) country only. */
  readonly reduced: MetadataJson;
  /** Per reduced calling code, the national number lengths for which the full parse decides. */
  readonly disputed: ReadonlyMap<string, ReadonlySet<number>>;
}

/** The longest national number libphonenumber reads (MAX_LENGTH_FOR_NSN), and some room. */
const LONGEST = 20;

interface PlanView {
  selectNumberingPlan(country: string): void;
  possibleLengths(): number[] | undefined;
  readonly numberingPlan: { nationalPrefixForParsing(): string | 0 | undefined; nationalPrefixTransformRule(): string | 0 | undefined };
}

/**
 * What the exact country decides of a national number of `length` digits, under the plan whose
 * possible lengths are `lengths` (libphonenumber's checkNumberLength): whether isPossible() holds,
 * and whether extractNationalNumber keeps a national prefix it stripped (a length too short or
 * invalid for the plan puts the prefix back).
 */
function verdicts(lengths: readonly number[], length: number): string {
  const possible = lengths.includes(length);
  const keepsStrip = possible || length > Math.max(...lengths);
  return `${possible}${keepsStrip}`;
}

function sharedPlans(full: MetadataJson): SharedPlans {
  // The library's own reading of the compressed JSON (selectNumberingPlan, possibleLengths,
  // numberingPlan), which parse and isPossible use; not all in the package's type declarations.
  const metadata = new Metadata(full) as unknown as PlanView;
  const codes: Record<string, string[]> = {};
  const disputed = new Map<string, Set<number>>();
  for (const [code, countries] of Object.entries(full.country_calling_codes) as [string, string[]][]) {
    codes[code] = countries;
    if (countries.length < 2) continue;
    const plans = countries.map((country) => {
      metadata.selectNumberingPlan(country);
      return { lengths: metadata.possibleLengths() ?? [], prefix: metadata.numberingPlan.nationalPrefixForParsing(), transform: metadata.numberingPlan.nationalPrefixTransformRule() };
    });
    // A plan without possible lengths answers "possible" for any length: the code stays whole.
    if (plans.some((plan) => plan.lengths.length === 0)) continue;
    // Lengths on which two countries' plans answer differently.
    const split = new Set<number>();
    for (let length = 1; length <= LONGEST; length++) {
      const first = verdicts(plans[0]!.lengths, length);
      if (plans.some((plan) => verdicts(plan.lengths, length) !== first)) split.add(length);
    }
    if (split.size > 0) {
      // The country also decides whether a national prefix stripped after the calling code stays
      // stripped, judged on the length after the strip; the result then shows the length before
      // it. A `+` number is stripped by the main country's plan (the calling code selects it): with
      // a literal prefix (`1`) and no transform rule, that is a disputed length plus the prefix's.
      // A pattern (`0|180020`, `(183[12])|0`) could strip more: such a code keeps all its countries.
      // (The library answers 0 for a plan without a prefix or rule.)
      const main = plans[0]!;
      if (main.transform) continue;
      if (main.prefix) {
        if (!/^\d+$/.test(main.prefix)) continue;
        for (const length of [...split]) split.add(length + main.prefix.length);
      }
    }
    codes[code] = [countries[0]!];
    disputed.set(code, split);
  }
  return { reduced: { ...full, country_calling_codes: codes } as MetadataJson, disputed };
}

const PLANS = sharedPlans(maxMetadata);

/**
 * libphonenumber-js/max's `parsePhoneNumberFromString(text[, defaultCountry])`, the same `number`,
 * `ext` and `isPossible()` (not necessarily the same `country`). Only a number given without a
 * default country (normalize.ts: written with `+` or `00`) takes the reduced metadata: with a
 * default country the parser also tries the number as one written without its `+`, judging both
 * readings through the exact country, which the length check below does not see; that form is
 * parsed with the full metadata, as before.
 */
export function parsePhoneNumberFromString(text: string, defaultCountry?: CountryCode): PhoneNumber | undefined {
  if (defaultCountry !== undefined) return parseWith(text, defaultCountry, maxMetadata);
  const parsed = parseWith(text, PLANS.reduced);
  if (parsed === undefined) return undefined;
  const split = PLANS.disputed.get(parsed.countryCallingCode);
  if (split === undefined || !split.has(parsed.nationalNumber.length)) return parsed;
  // The countries of this calling code may answer differently for this length: the exact country decides.
  return parseWith(text, maxMetadata);
}

export type { CountryCode };
