// Failed authentication throttled per client address (auth.failure_limit, on by default). A
// source that keeps failing to authenticate (a wrong credential, or none on a protected route)
// spends one unit of its bucket per failure; with the bucket empty it is answered 429
// VEIL_RATE_LIMITED with Retry-After before its credential is even looked at, so guessing keys
// or tokens gets `burst` tries and then `per_minute` a minute. Successful requests cost nothing,
// other sources are unaffected, and public routes (/livez, /readyz, CORS preflights) are never
// refused.
//
// The source is request.ip: the socket peer, or the client named by X-Forwarded-For when
// server.trust_proxy says which proxies to believe (behind a proxy without it, every client is
// the proxy and shares one bucket). IPv6 sources are grouped by /64, since one host usually
// holds a whole /64 and could otherwise mint fresh buckets at will. The table is bounded
// (max_sources, least recently used forgotten) and idle buckets leave once full again.
import { routeOptionsOf } from './request-slot.js';
import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ConfigSlice } from '../config/index.js';
import { TokenBucketTable, type BucketLimits } from '../domain/ratelimit/token-bucket.js';
import { errorCodeOf } from './errors.js';
import { RateLimitedError } from './rate-limit.js';

/** Codes that mean the caller failed to authenticate (not: the verifier was unavailable). */
const FAILURES = new Set(['VEIL_AUTH_INVALID', 'VEIL_AUTH_REQUIRED']);

/** The bucket key of a client address: IPv4 as is, IPv6 by its /64 prefix. */
export function sourceKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped !== null) return mapped[1]!;
  if (isIP(ip) !== 6) return ip;
  // Expand "::" so the first four groups can be read.
  const [head = '', tail = ''] = ip.toLowerCase().split('%')[0]!.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = ip.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = [...headGroups, ...Array<string>(Math.max(0, 8 - headGroups.length - tailGroups.length)).fill('0'), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

/**
 * Install the throttle: a root onRequest hook that refuses a source whose bucket is empty (call
 * before registerAuth, so it runs before the credential is checked) and an onResponse hook that
 * charges each failed authentication. Returns the table, or undefined when switched off.
 */
export function registerAuthThrottle(app: FastifyInstance, deps: ConfigSlice<'auth'> & { readonly now: () => number }): TokenBucketTable | undefined {
  const settings = deps.config.auth.failure_limit;
  if (!settings.enabled || deps.config.auth.mode === 'dev') return undefined;
  const table = new TokenBucketTable({ maxBuckets: settings.max_sources });
  const limits: BucketLimits = { ratePerSecond: settings.per_minute / 60, burst: settings.burst };

  app.addHook('onRequest', (request, _reply, done) => {
    const scope = request.is404 ? 'authenticated' : routeOptionsOf(request).config.scope;
    if (scope === 'public') {
      done();
      return;
    }
    const verdict = table.peek(sourceKey(request.ip), limits, 1, deps.now());
    if (verdict.allowed) done();
    else done(new RateLimitedError(verdict.retryAfterMs));
  });
  app.addHook('onResponse', (request, _reply, done) => {
    const code = errorCodeOf(request);
    if (code !== undefined && FAILURES.has(code)) table.debit(sourceKey(request.ip), limits, 1, deps.now());
    done();
  });
  return table;
}
