// The response headers Veil sets beyond the CORS-safelisted ones, in one place: the routes set
// them by these names and CORS exposes every one of them (Access-Control-Expose-Headers), so a
// browser client on an allowed origin can read what a server-side client reads. A header added
// to a route without being listed here would be invisible to browsers; the CORS test sends a
// request to every route that sets one and checks the exposed list against what came back.
export const VEIL_HEADERS = {
  /** /v1/rehydrate/file: the restored file's format. */
  originalFormat: 'x-veil-original-format',
  tokensResolved: 'x-veil-tokens-resolved',
  tokensUnresolved: 'x-veil-tokens-unresolved',
  /** `triggered`, `clear` or `disabled`. */
  outputGuard: 'x-veil-output-guard',
  /** /v1/redact/image. */
  regionsRedacted: 'x-veil-regions-redacted',
  entitiesRedacted: 'x-veil-entities-redacted',
} as const;

/** Headers a browser client needs to read, Veil's and the standard ones that are not safelisted. */
export const EXPOSED_HEADERS: readonly string[] = [
  ...Object.values(VEIL_HEADERS),
  // A file answer's name (restored.<ext>).
  'content-disposition',
  // A replayed idempotent response (plugins/idempotency.ts).
  'idempotency-replayed',
  // 429 (plugins/errors.ts).
  'retry-after',
  // 401 under Bearer auth modes (plugins/auth.ts).
  'www-authenticate',
];
