// The in-memory stores: per process, lost on restart; for tests, development and single-replica
// runs where losing replay/idempotency state on restart is acceptable.
export { MemoryReplayStore, type MemoryReplayOptions } from './replay.js';
export { MemoryRevocationStore, type MemoryRevocationOptions } from './revocation.js';
export { MemorySessionStore, type MemorySessionOptions } from './sessions.js';
export { MemoryIdempotencyStore, type MemoryIdempotencyOptions } from './idempotency.js';
export { ExpiringMap, type Refusal } from './expiring-map.js';
export type { MemoryLimits } from './limits.js';
