// The entity-type catalog: every built-in type with its token id prefix, default protection
// level and the detector that finds it. Token prefixes follow decisions.md section 3; every
// other type gets a short unique prefix listed here and in /v1/capabilities.
import type { ProtectionLevel } from './types.js';

export type EntitySource = 'builtin_regex' | 'python_ner' | 'custom';

export interface EntityTypeInfo {
  readonly type: string;
  readonly prefix: string;
  readonly protectionLevel: ProtectionLevel;
  readonly source: EntitySource;
}

const ENTRIES: readonly EntityTypeInfo[] = [
  { type: 'person', prefix: 'p', protectionLevel: 'high', source: 'python_ner' },
  { type: 'organization', prefix: 'o', protectionLevel: 'medium', source: 'python_ner' },
  { type: 'location', prefix: 'loc', protectionLevel: 'medium', source: 'python_ner' },
  { type: 'email', prefix: 'e', protectionLevel: 'high', source: 'builtin_regex' },
  { type: 'phone', prefix: 'ph', protectionLevel: 'high', source: 'builtin_regex' },
  { type: 'credit_card', prefix: 'cc', protectionLevel: 'critical', source: 'builtin_regex' },
  { type: 'iban', prefix: 'ib', protectionLevel: 'critical', source: 'builtin_regex' },
  { type: 'us_ssn', prefix: 'ssn', protectionLevel: 'critical', source: 'builtin_regex' },
  { type: 'ip_address', prefix: 'ip', protectionLevel: 'medium', source: 'builtin_regex' },
  { type: 'url', prefix: 'url', protectionLevel: 'medium', source: 'builtin_regex' },
  { type: 'date', prefix: 'dt', protectionLevel: 'medium', source: 'builtin_regex' },
  { type: 'api_key', prefix: 'sk', protectionLevel: 'critical', source: 'builtin_regex' },
  { type: 'jwt', prefix: 'jwt', protectionLevel: 'critical', source: 'builtin_regex' },
  { type: 'private_key', prefix: 'pk', protectionLevel: 'critical', source: 'builtin_regex' },
  { type: 'password', prefix: 'pw', protectionLevel: 'critical', source: 'builtin_regex' },
  { type: 'mac_address', prefix: 'mac', protectionLevel: 'low', source: 'builtin_regex' },
  { type: 'crypto_wallet', prefix: 'cw', protectionLevel: 'high', source: 'builtin_regex' },
  { type: 'swift_bic', prefix: 'bic', protectionLevel: 'medium', source: 'builtin_regex' },
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
    return { type, prefix: CUSTOM_PREFIX, protectionLevel: CUSTOM_PROTECTION_LEVEL, source: 'custom' };
  }
  return undefined;
}

export function prefixFor(type: string): string {
  return entityInfo(type)?.prefix ?? CUSTOM_PREFIX;
}
