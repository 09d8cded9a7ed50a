// Micro-benchmark of sealed session state: seal + open of a 20-entity token map, the per-request
// cost every transform continuation and rehydrate pays. Target: at most 50 µs per seal+open.
// Run: npx tsx server/src/bench/seal-bench.ts
import { randomBytes } from 'node:crypto';
import { KeyRing, newSessionId, openSession, sealSession, type SessionPayload } from '../domain/seal/index.js';
import { TokenAllocator } from '../domain/token/index.js';
import type { TokenEntry } from '../domain/types.js';

const TYPES = ['email', 'person', 'phone', 'credit_card', 'location'] as const;
const SAMPLE_VALUES: Record<(typeof TYPES)[number], (i: number) => string> = {
  email: (i) => `customer.number${i}@example-mail.com`,
  person: (i) => `Alexandra Example-${i}`,
  phone: (i) => `+1 415 555 ${String(1000 + i)}`,
  credit_card: (i) => `4111 1111 1111 ${String(1000 + i)}`,
  location: (i) => `${i} Market Street, San Francisco`,
};

function buildPayload(entityCount: number): SessionPayload {
  const allocator = new TokenAllocator();
  const entries: TokenEntry[] = [];
  for (let i = 0; i < entityCount; i++) {
    const type = TYPES[i % TYPES.length]!;
    const value = SAMPLE_VALUES[type](i);
    const { id, cap } = allocator.allocate(type, value);
    entries.push({ id, type, cap, value, mode: 'full' });
  }
  const now = Math.floor(Date.now() / 1000);
  return {
    sid: newSessionId(),
    kind: 'transform',
    tenant: 'acme',
    language: 'en',
    policy: 'default',
    policyVersion: '1.0.0',
    counter: 1,
    iat: now,
    exp: now + 3600,
    entries,
  };
}

const ROUNDS = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Median over ROUNDS rounds of `iterations` seals and opens each (the machine may be shared). */
function measure(label: string, entityCount: number, iterations: number): void {
  const ring = new KeyRing('k1', [{ kid: 'k1', key: randomBytes(32) }]);
  const payload = buildPayload(entityCount);
  const expect = { kinds: ['transform'] as const, tenant: 'acme' };
  const now = payload.iat + 1;
  // Warm up the JIT and OpenSSL contexts.
  for (let i = 0; i < 2000; i++) openSession(ring, sealSession(ring, payload), expect, now);

  const seals: number[] = [];
  const opens: number[] = [];
  let blob = '';
  for (let round = 0; round < ROUNDS; round++) {
    const sealStart = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) blob = sealSession(ring, payload);
    seals.push(Number(process.hrtime.bigint() - sealStart) / iterations);
    const openStart = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) openSession(ring, blob, expect, now);
    opens.push(Number(process.hrtime.bigint() - openStart) / iterations);
  }
  const sealNs = median(seals);
  const openNs = median(opens);
  const micro = (ns: number): string => (ns / 1000).toFixed(1);
  process.stdout.write(
    `${label}: seal ${micro(sealNs)} µs + open ${micro(openNs)} µs = ${micro(sealNs + openNs)} µs per round trip ` +
      `(median of ${ROUNDS} rounds x ${iterations}; blob ${blob.length} chars)\n`,
  );
}

measure('20 entities', 20, 10_000);
measure('200 entities (compressed)', 200, 1_000);
