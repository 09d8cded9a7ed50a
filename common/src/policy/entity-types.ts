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
  'credit_card',
  'iban',
  'us_ssn',
  'ip_address',
  'url',
  'date',
  'api_key',
  'jwt',
  'private_key',
  'password',
  'mac_address',
  'crypto_wallet',
  'swift_bic',
]);

const BUILTIN_SET: ReadonlySet<string> = new Set(BUILTIN_ENTITY_TYPES);

export const CUSTOM_TYPE_PREFIX = 'custom:';

/** Entity types whose values are credentials: never partially revealed by default. */
export const SECRET_ENTITY_TYPES: readonly string[] = Object.freeze(['api_key', 'jwt', 'private_key', 'password']);

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
