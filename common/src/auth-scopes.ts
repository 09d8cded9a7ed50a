// The API scopes of interface.md section 5, in one place: the server's config schema and auth
// checks (AUTH_SCOPES) and the Tenant CRD and API-key layout (API_KEY_SCOPES) both read this
// list, so a Tenant can never grant a scope the server does not know.

/** The 11 scopes of interface.md section 5. */
export const AUTH_SCOPES = [
  'transform',
  'rehydrate',
  'detect',
  'policy',
  'batch',
  'rag',
  'revoke',
  'global_revoke',
  'session',
  'detect_values',
  'admin',
] as const;
export type AuthScope = (typeof AUTH_SCOPES)[number];
