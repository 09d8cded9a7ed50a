// Lua scripts for every read-decide-write step, so each is atomic in Redis however many replicas
// race (BullMQ's commands/*.lua discipline). Each script touches the keys of one hash tag only.
// Times and TTLs arrive as decimal strings computed in JS and are stored verbatim; Lua only
// compares them (Lua numbers are doubles: exact for unix milliseconds and counters < 2^53) and
// computes relative garbage-collection TTLs, which are small. Logical expiry is always checked
// against the caller's `now` (see keys.ts).
// Order matters under maxmemory: Redis refuses a script's first memory-growing write with OOM, but
// lets a script that has already written carry on (so it stays atomic). Every script therefore
// makes its growing write (HSET/SET) first and only then deletes, so a full Redis rejects a claim
// cleanly (StoreFullError) instead of letting a DEL open the door.
import { createHash } from 'node:crypto';

export interface LuaScript {
  readonly name: string;
  readonly numberOfKeys: number;
  readonly source: string;
  readonly sha1: string;
}

function script(name: string, numberOfKeys: number, source: string): LuaScript {
  return { name, numberOfKeys, source, sha1: createHash('sha1').update(source).digest('hex') };
}

/**
 * Compare-and-set of the highest counter. KEYS[1] counter hash. ARGV counter, expiresAtMs, nowMs,
 * slackMs. Returns 1 when recorded, 0 on a replay. A live record's expiry only grows.
 */
export const REPLAY_ADVANCE = script('replay-advance', 1, `
local counter = tonumber(ARGV[1])
local expiresAt = tonumber(ARGV[2])
local keepUntil = ARGV[2]
local now = tonumber(ARGV[3])
local current = redis.call('HMGET', KEYS[1], 'c', 'e')
local storedCounter = tonumber(current[1])
local storedExpiry = tonumber(current[2])
if storedCounter and storedExpiry and storedExpiry > now then
  if counter <= storedCounter then return 0 end
  if storedExpiry > expiresAt then
    expiresAt = storedExpiry
    keepUntil = current[2]
  end
end
if expiresAt <= now then
  redis.call('DEL', KEYS[1])
  return 1
end
redis.call('HSET', KEYS[1], 'c', ARGV[1], 'e', keepUntil)
redis.call('PEXPIRE', KEYS[1], math.floor(expiresAt - now) + tonumber(ARGV[4]))
return 1
`);

/**
 * Deny a session id until expiresAtMs, never shortening an existing entry. KEYS[1] deny key.
 * ARGV expiresAtMs, nowMs, slackMs (the caller skips already-expired entries).
 */
export const REPLAY_DENY = script('replay-deny', 1, `
local expiresAt = tonumber(ARGV[1])
local stored = tonumber(redis.call('GET', KEYS[1]) or '')
if stored and stored >= expiresAt then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', math.floor(expiresAt - tonumber(ARGV[2])) + tonumber(ARGV[3]))
return 1
`);

/**
 * Idempotency claim, mirroring shared.ts decideClaim. KEYS[1] record hash. ARGV fingerprint,
 * nowMs, inProgressTtlMs, expiresAtMs (retention of a fresh claim), pexpireMs. Returns
 * {state} or {'completed', responseJson}.
 */
export const IDEMPOTENCY_CLAIM = script('idempotency-claim', 1, `
local record = redis.call('HMGET', KEYS[1], 'f', 'd', 't', 'e', 'r')
local now = tonumber(ARGV[2])
local expiry = tonumber(record[4] or '')
if record[1] and expiry and expiry > now then
  if record[1] ~= ARGV[1] then return {'mismatch'} end
  if record[2] == '1' then
    if record[5] then return {'completed', record[5]} end
    return {'result_unavailable'}
  end
  if now - tonumber(record[3] or '0') < tonumber(ARGV[3]) then return {'in_progress'} end
end
redis.call('HSET', KEYS[1], 'f', ARGV[1], 'd', '0', 't', ARGV[2], 'e', ARGV[4])
redis.call('HDEL', KEYS[1], 'r')
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {'claimed'}
`);

/**
 * Record a completed response. KEYS[1] record hash. ARGV fingerprint, nowMs, expiresAtMs,
 * pexpireMs, hasResponse ('1'|'0'), responseJson. A live record under another fingerprint is
 * left alone (returns 0); a non-positive TTL just removes the record.
 */
export const IDEMPOTENCY_COMPLETE = script('idempotency-complete', 1, `
local record = redis.call('HMGET', KEYS[1], 'f', 'e')
local now = tonumber(ARGV[2])
local expiry = tonumber(record[2] or '')
if record[1] and expiry and expiry > now and record[1] ~= ARGV[1] then return 0 end
if tonumber(ARGV[3]) <= now then
  redis.call('DEL', KEYS[1])
  return 1
end
if ARGV[5] == '1' then
  redis.call('HSET', KEYS[1], 'f', ARGV[1], 'd', '1', 't', ARGV[2], 'e', ARGV[3], 'r', ARGV[6])
else
  redis.call('HSET', KEYS[1], 'f', ARGV[1], 'd', '1', 't', ARGV[2], 'e', ARGV[3])
  redis.call('HDEL', KEYS[1], 'r')
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`);

/** Drop an in-progress claim with this fingerprint. KEYS[1] record hash. ARGV fingerprint. */
export const IDEMPOTENCY_RELEASE = script('idempotency-release', 1, `
local record = redis.call('HMGET', KEYS[1], 'f', 'd')
if record[1] == ARGV[1] and record[2] == '0' then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
`);

/**
 * Remove a session, reporting whether it was live. KEYS[1] session key ("<expiresAtMs>:<payload>").
 * ARGV nowMs. Done in Lua rather than GETDEL so the payload never travels back over the wire.
 */
export const SESSION_DELETE = script('session-delete', 1, `
local value = redis.call('GET', KEYS[1])
if not value then return 0 end
redis.call('DEL', KEYS[1])
local colon = string.find(value, ':', 1, true)
if not colon then return 0 end
local expiry = tonumber(string.sub(value, 1, colon - 1))
if expiry and expiry > tonumber(ARGV[1]) then return 1 end
return 0
`);

/**
 * Count an idempotency key against its owner's quota. KEYS[1] the owner's sorted set (key ->
 * expiresAtMs). ARGV key, nowMs, quota, expiresAtMs, pexpireMs. Drops the owner's expired keys;
 * a key already counted, or a new one while under the quota, is (re)scored and {1} returned;
 * otherwise {0, earliestExpiresAtMs} and nothing is written. The score only grows (GT), so a
 * key is counted for as long as any claim on it may live.
 */
export const IDEMPOTENCY_OWNER_RESERVE = script('idempotency-owner-reserve', 1, `
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
    local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
    return {0, first[2]}
  end
end
redis.call('ZADD', KEYS[1], 'GT', ARGV[4], ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[5]) then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
return {1}
`);
