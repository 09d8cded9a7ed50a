// The entity-type catalog: every built-in type with its token id prefix, default protection
// level and the detector that finds it. Token prefixes follow decisions.md section 3; every
// other type gets a short unique prefix listed here and in /v1/capabilities.
import { VeilError } from '@veil/common';
import type { ProtectionLevel } from './types.js';

export type EntitySource = 'builtin_regex' | 'python_ner' | 'custom';

export interface EntityTypeInfo {
  readonly type: string;
  readonly prefix: string;
  readonly protectionLevel: ProtectionLevel;
  readonly source: EntitySource;
  /**
   * Languages the detector is tuned for (context words, written forms), ISO 639-1; `*` means the
   * format is language-independent (an email, a key, a checksummed number found without words).
   */
  readonly languages: readonly string[];
}

/** The context-word languages every identifier list covers (issue 3: en de fr es it nl pt). */
const CONTEXT_LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt'] as const;
const ANY = ['*'] as const;

/** Context languages plus the id's own languages (`sv` for personnummer, ...). */
function withLanguages(...own: string[]): readonly string[] {
  return [...new Set([...CONTEXT_LANGUAGES, ...own])];
}

type Entry = [type: string, prefix: string, level: ProtectionLevel, languages: readonly string[]];

// Regex/validator types found by the built-in scanner, grouped as in docs/detection.md.
const BUILTIN: readonly Entry[] = [
  // Contact and network
  ['email', 'e', 'high', ANY],
  ['phone', 'ph', 'high', withLanguages('pl', 'sv', 'da', 'fi', 'nb', 'cs')],
  ['ip_address', 'ip', 'medium', ANY],
  ['url', 'url', 'medium', ANY],
  ['mac_address', 'mac', 'low', ANY],
  ['date', 'dt', 'medium', withLanguages('sv', 'da', 'nb', 'pl', 'fi', 'cs')],
  // Payment and banking
  ['credit_card', 'cc', 'critical', ANY],
  ['iban', 'ib', 'critical', ANY],
  ['swift_bic', 'bic', 'medium', withLanguages()],
  ['aba_routing', 'aba', 'medium', ['en']],
  ['bank_account', 'acct', 'critical', withLanguages()],
  ['card_security_code', 'cvv', 'critical', withLanguages()],
  ['crypto_wallet', 'cw', 'high', ANY],
  ['eu_vat', 'vat', 'medium', withLanguages('pl', 'sv', 'da', 'fi', 'cs', 'sk', 'sl', 'hr', 'el')],
  // Credentials
  ['api_key', 'sk', 'critical', ANY],
  ['jwt', 'jwt', 'critical', ANY],
  ['private_key', 'pk', 'critical', ANY],
  ['password', 'pw', 'critical', withLanguages('fr')],
  ['connection_string', 'cs', 'critical', ANY],
  // United States
  ['us_ssn', 'ssn', 'critical', ['en']],
  ['us_itin', 'itin', 'critical', ['en']],
  ['us_ein', 'ein', 'high', ['en']],
  ['us_passport', 'uspp', 'critical', ['en']],
  ['us_npi', 'npi', 'medium', ['en']],
  ['us_mbi', 'mbi', 'critical', ['en']],
  // United Kingdom and Ireland
  ['uk_nino', 'nino', 'critical', ['en']],
  ['uk_nhs', 'nhs', 'critical', ['en']],
  ['uk_passport', 'ukpp', 'critical', ['en']],
  ['ie_pps', 'pps', 'critical', ['en']],
  // Continental Europe
  ['de_tax_id', 'deti', 'critical', withLanguages()],
  ['fr_nir', 'nir', 'critical', withLanguages()],
  ['fr_siren', 'siren', 'low', withLanguages()],
  ['fr_siret', 'siret', 'low', withLanguages()],
  ['es_dni', 'dni', 'critical', withLanguages()],
  ['es_nie', 'nie', 'critical', withLanguages()],
  ['it_fiscal_code', 'cf', 'critical', withLanguages()],
  ['nl_bsn', 'bsn', 'critical', withLanguages()],
  ['be_national_number', 'bnn', 'critical', withLanguages()],
  ['pt_nif', 'nif', 'high', withLanguages()],
  ['pl_pesel', 'pesel', 'critical', withLanguages('pl')],
  ['se_personnummer', 'pnr', 'critical', withLanguages('sv')],
  ['fi_hetu', 'hetu', 'critical', withLanguages('fi', 'sv')],
  ['dk_cpr', 'cpr', 'critical', withLanguages('da')],
  ['no_fodselsnummer', 'fnr', 'critical', withLanguages('nb')],
  ['ch_ahv', 'ahv', 'critical', withLanguages()],
  // Asia-Pacific
  ['in_aadhaar', 'adh', 'critical', withLanguages('hi')],
  ['in_pan', 'pan', 'high', withLanguages('hi')],
  ['au_tfn', 'tfn', 'critical', ['en']],
  ['au_medicare', 'aumc', 'critical', ['en']],
  ['au_abn', 'abn', 'low', ['en']],
  ['au_acn', 'acn', 'low', ['en']],
  ['sg_nric', 'nric', 'critical', ['en']],
  ['kr_rrn', 'rrn', 'critical', withLanguages('ko')],
  ['cn_resident_id', 'cnid', 'critical', withLanguages('zh')],
  ['jp_my_number', 'mynum', 'critical', withLanguages('ja')],
  // Americas
  ['br_cpf', 'cpf', 'critical', withLanguages()],
  ['br_cnpj', 'cnpj', 'low', withLanguages()],
  ['ca_sin', 'sin', 'critical', withLanguages()],
  ['mx_curp', 'curp', 'critical', withLanguages()],
  // Vehicles and devices
  ['vin', 'vin', 'medium', withLanguages()],
  ['imei', 'imei', 'medium', withLanguages()],
  // Documents, health records and insurance
  ['driver_license', 'dl', 'high', withLanguages()],
  ['medical_record_number', 'mrn', 'critical', withLanguages()],
  ['insurance_id', 'ins', 'high', withLanguages()],
];

const ENTRIES: readonly EntityTypeInfo[] = [
  // Named entities come from the NER sidecar; their languages are the sidecar model's.
  { type: 'person', prefix: 'p', protectionLevel: 'high', source: 'python_ner', languages: ANY },
  { type: 'organization', prefix: 'o', protectionLevel: 'medium', source: 'python_ner', languages: ANY },
  { type: 'location', prefix: 'loc', protectionLevel: 'medium', source: 'python_ner', languages: ANY },
  ...BUILTIN.map(([type, prefix, protectionLevel, languages]): EntityTypeInfo => ({ type, prefix, protectionLevel, source: 'builtin_regex', languages })),
];

export const ENTITY_CATALOG: ReadonlyMap<string, EntityTypeInfo> = new Map(
  ENTRIES.map((entry) => [entry.type, entry]),
);

/** Prefix used for every `custom:<name>` type. */
export const CUSTOM_PREFIX = 'c';
/** Default protection level of custom types. */
export const CUSTOM_PROTECTION_LEVEL: ProtectionLevel = 'high';

export const CUSTOM_TYPE_PREFIX = 'custom:';
/** A custom entity name: lowercase letter first, then [a-z0-9_], at most 64 characters. */
export const CUSTOM_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

export function isCustomType(type: string): boolean {
  return type.startsWith(CUSTOM_TYPE_PREFIX);
}

/** Look up a type; custom types get the shared custom prefix and level. */
export function entityInfo(type: string): EntityTypeInfo | undefined {
  const known = ENTITY_CATALOG.get(type);
  if (known !== undefined) return known;
  if (isCustomType(type) && CUSTOM_NAME_PATTERN.test(type.slice(CUSTOM_TYPE_PREFIX.length))) {
    return { type, prefix: CUSTOM_PREFIX, protectionLevel: CUSTOM_PROTECTION_LEVEL, source: 'custom', languages: ANY };
  }
  return undefined;
}

/**
 * Entity types a request names (a detect filter, transform override keys, a dry run's types)
 * must exist, or the request would silently do nothing for them (a misspelt override key never
 * tightens anything). A name is known when it is a built-in type or one of `customTypes`: the
 * `custom:<name>` types of the custom patterns in force (the request's and the policy's).
 * Throws 400 VEIL_VALIDATION_FAILED naming the field (`fieldOf(index)`), never the name, which
 * is caller text.
 */
export function checkRequestedTypes(names: readonly string[], customTypes: ReadonlySet<string>, fieldOf: (index: number) => string): void {
  names.forEach((name, index) => {
    if (ENTITY_CATALOG.has(name) || customTypes.has(name)) return;
    throw new VeilError(
      'VEIL_VALIDATION_FAILED',
      `${fieldOf(index)}: unknown entity type (a built-in type, or custom:<name> of a custom pattern in the request or the policy)`,
    );
  });
}

export function prefixFor(type: string): string {
  return entityInfo(type)?.prefix ?? CUSTOM_PREFIX;
}
