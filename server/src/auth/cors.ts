// CORS (interface.md section 5: the `server.allowed_origins` / VEIL_CORS_ORIGINS allowlist,
// enforced in non-dev modes). Only an origin that is exactly in the list gets CORS headers; any
// other origin gets none, and its preflight is not answered by CORS (it falls through to the
// normal 404/405 envelope), so the browser refuses the cross-origin call.
//
// Dev mode (documented decision): the configured list when one is given; otherwise loopback
// origins only (http(s)://localhost, 127.0.0.1, [::1] on any port), so a local front end works
// out of the box but an arbitrary web page a developer visits cannot drive the unauthenticated
// dev server from the browser.
//
// Credentials travel in headers (X-API-Key, Authorization), never cookies, so
// Access-Control-Allow-Credentials is never sent. Every response header a browser client needs
// is exposed (plugins/response-headers.ts).
import type { FastifyCorsOptions } from '@fastify/cors';
import type { VeilConfig } from '../config/schema.js';
import { EXPOSED_HEADERS } from '../plugins/response-headers.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname) && url.origin === origin;
  } catch {
    return false;
  }
}

export function corsOptions(config: VeilConfig): FastifyCorsOptions {
  const listed = new Set(config.server.allowed_origins);
  const devLoopback = config.auth.mode === 'dev' && listed.size === 0;
  const allowed = (origin: string | undefined): boolean =>
    origin !== undefined && (listed.has(origin) || (devLoopback && isLoopbackOrigin(origin)));
  return {
    // Returning false disables CORS for that request entirely: no headers, no preflight answer.
    origin: (origin, callback) => {
      callback(null, allowed(origin) ? (origin ?? false) : false);
    },
    methods: ['GET', 'HEAD', 'POST', 'DELETE'],
    allowedHeaders: ['Content-Type', 'Authorization', 'X-API-Key', 'Idempotency-Key'],
    // Every non-safelisted header Veil answers with (the file routes' X-Veil-*, replays, 429).
    exposedHeaders: [...EXPOSED_HEADERS],
    credentials: false,
    maxAge: 600,
    // A preflight without Access-Control-Request-Method would get a text/plain 400 from the
    // plugin; every Veil response is a JSON envelope, so answer it like any other preflight.
    strictPreflight: false,
  };
}
