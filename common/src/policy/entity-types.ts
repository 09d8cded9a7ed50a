// Entity-type names as policies may write them. The built-in list mirrors the server's entity
// catalog (server/src/domain/catalog.ts; a server test fails when the two drift) so that the
// policy validator, which also runs in the operator, can reject misspelled types.

/** Every built-in entity type. */
export const BUILTIN_ENTITY_TYPES: readonly string[] = Object.freeze([
  'person',
  'organization',
  'location',
  'email',
  'phone',
  'ip_address',
  'url',
  'mac_address',
  'date',
  'credit_card',
  'iban',
  'swift_bic',
  'aba_routing',
  'bank_account',
  'card_security_code',
  'crypto_wallet',
  'eu_vat',
  'api_key',
  'jwt',
  'private_key',
  'password',
  'connection_string',
  'us_ssn',
  'us_itin',
  'us_ein',
  'us_passport',
  'us_npi',
  'us_mbi',
  'uk_nino',
  'uk_nhs',
  'uk_passport',
  'ie_pps',
  'de_tax_id',
  'fr_nir',
  'fr_siren',
  'fr_siret',
  'es_dni',
  'es_nie',
  'it_fiscal_code',
  'nl_bsn',
  'be_national_number',
  'pt_nif',
  'pl_pesel',
  'se_personnummer',
  'fi_hetu',
  'dk_cpr',
  'no_fodselsnummer',
  'ch_ahv',
  'in_aadhaar',
  'in_pan',
  'au_tfn',
  'au_medicare',
  'au_abn',
  'au_acn',
  'sg_nric',
  'kr_rrn',
  'cn_resident_id',
  'jp_my_number',
  'br_cpf',
  'br_cnpj',
  'ca_sin',
  'mx_curp',
  'vin',
  'imei',
  'driver_license',
  'medical_record_number',
  'insurance_id',
]);

const BUILTIN_SET: ReadonlySet<string> = new Set(BUILTIN_ENTITY_TYPES);

export const CUSTOM_TYPE_PREFIX = 'custom:';

/** Entity types whose values are credentials: never partially revealed by default. */
export const SECRET_ENTITY_TYPES: readonly string[] = Object.freeze(['api_key', 'jwt', 'private_key', 'password', 'connection_string']);

export function isBuiltinEntityType(type: string): boolean {
  return BUILTIN_SET.has(type);
}

/**
 * Canonical form of a type written in a policy or a request: built-in names stay as they are,
 * `custom:<name>` stays, any other bare name is a custom type and gains the `custom:` prefix.
 */
export function canonicalEntityType(type: string): string {
  if (BUILTIN_SET.has(type) || type.startsWith(CUSTOM_TYPE_PREFIX)) return type;
  return `${CUSTOM_TYPE_PREFIX}${type}`;
}
