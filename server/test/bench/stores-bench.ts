// Store micro-benchmark: the latency each backend adds to a request, measured per operation
// (sequential, one at a time, so it is latency, not throughput): a replay advance (one per
// continuation), a revocation lookup of 20 digests in a tenant and the global partition (one per
// rehydrate), and an idempotency claim + complete (one pair per idempotent mutation). Backends:
// memory, SQLite (a file in the temp directory; WAL + synchronous=FULL, so every write waits for
// an fsync: the figure depends on the disk), Redis on loopback (REDIS_URL, else a private
// redis-server with persistence off). Prints a Markdown table.
// Usage: npx tsx server/test/bench/stores-bench.ts [--quick] [--backends memory,sqlite,redis]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redisAvailability, startTestRedis, type TestRedis } from '../support/redis.js';
import { MemoryIdempotencyStore, MemoryReplayStore, MemoryRevocationStore } from '../../src/stores/memory/index.js';
import { openRedisStores } from '../../src/stores/redis/index.js';
import { openSqliteStores } from '../../src/stores/sqlite/index.js';
import { GLOBAL_PARTITION, type IdempotencyStore, type ReplayStore, type RevocationStore } from '../../src/stores/types.js';

interface Backend {
  readonly name: string;
  readonly replay: ReplayStore;
  readonly revocation: RevocationStore;
  readonly idempotency: IdempotencyStore;
  close(): Promise<void>;
}

interface Summary {
  readonly meanUs: number;
  readonly p50Us: number;
  readonly p99Us: number;
}

const quick = process.argv.includes('--quick');
const backendArgument = process.argv.indexOf('--backends');
const wanted = backendArgument >= 0 ? (process.argv[backendArgument + 1] ?? '').split(',') : ['memory', 'sqlite', 'redis'];
const ITERATIONS = quick ? 500 : 5000;
const WARMUP = quick ? 50 : 300;
const STORED_DIGESTS = 10_000;
const RESPONSE = { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ safe_text: 'x'.repeat(2000) }) };

async function measure(iterations: number, operation: (index: number) => Promise<unknown>): Promise<Summary> {
  for (let index = 0; index < WARMUP; index += 1) await operation(-1 - index);
  const samples = new Float64Array(iterations);
  for (let index = 0; index < iterations; index += 1) {
    const started = performance.now();
    await operation(index);
    samples[index] = (performance.now() - started) * 1000;
  }
  samples.sort();
  const at = (fraction: number): number => samples[Math.min(iterations - 1, Math.floor(fraction * iterations))] ?? Number.NaN;
  return { meanUs: samples.reduce((sum, value) => sum + value, 0) / iterations, p50Us: at(0.5), p99Us: at(0.99) };
}

async function run(backend: Backend): Promise<Record<string, Summary>> {
  const nowMs = Date.now();
  const results: Record<string, Summary> = {};
  // Continuations across 1,000 live sessions, each counter above the last for its session.
  results['replay advance'] = await measure(ITERATIONS, (index) =>
    backend.replay.advance(`session-${(index + 1_000_000) % 1000}`, index + 1_000_000, nowMs + 3_600_000, nowMs),
  );
  const digests = Array.from({ length: STORED_DIGESTS }, (_unused, index) => `digest-${index}`);
  await backend.revocation.add('tenant-a', digests, nowMs);
  await backend.revocation.add(GLOBAL_PARTITION, digests.slice(0, 1000), nowMs);
  // 20 digests per lookup, a quarter of them revoked; built before timing starts.
  const probes = Array.from({ length: ITERATIONS + WARMUP }, (_unused, index) =>
    Array.from({ length: 20 }, (_unusedToo, offset) => (offset % 4 === 0 ? `digest-${(index * 20 + offset) % STORED_DIGESTS}` : `absent-${index}-${offset}`)),
  );
  const partitions = ['tenant-a', GLOBAL_PARTITION];
  results['revocation lookup (20 digests, 2 partitions)'] = await measure(ITERATIONS, (index) =>
    backend.revocation.revoked(partitions, probes[(index + WARMUP) % probes.length] ?? []),
  );
  results['idempotency claim + complete'] = await measure(ITERATIONS, async (index) => {
    const key = { tenant: 'tenant-a', identity: 'bench', key: `key-${index}` };
    await backend.idempotency.claim(key, 'fingerprint', nowMs, 60_000, 86_400_000);
    await backend.idempotency.complete(key, 'fingerprint', RESPONSE, nowMs, 86_400_000);
  });
  return results;
}

async function main(): Promise<void> {
  const rows: string[] = [];
  const cleanups: (() => Promise<void> | void)[] = [];
  try {
    for (const name of wanted) {
      let backend: Backend;
      if (name === 'memory') {
        const replay = new MemoryReplayStore();
        const revocation = new MemoryRevocationStore();
        const idempotency = new MemoryIdempotencyStore({ maxEntries: 1_000_000 });
        backend = {
          name,
          replay,
          revocation,
          idempotency,
          close: async () => {
            await Promise.all([replay.close(), revocation.close(), idempotency.close()]);
          },
        };
      } else if (name === 'sqlite') {
        const directory = mkdtempSync(join(tmpdir(), 'veil-bench-'));
        cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
        backend = { name: `sqlite (${tmpdir()})`, ...openSqliteStores(join(directory, 'bench.sqlite')) };
      } else if (name === 'redis') {
        const availability = redisAvailability();
        if (!availability.available) {
          rows.push(`| redis | skipped: ${availability.reason} | | | |`);
          continue;
        }
        const redis: TestRedis = await startTestRedis();
        cleanups.push(() => redis.stop());
        const stores = await openRedisStores(redis.url, { prefix: `veilbench-${process.pid}` });
        backend = {
          name: `redis (${redis.local ? 'private redis-server, loopback' : 'REDIS_URL'})`,
          ...stores,
          close: async () => {
            // Leave nothing behind on a shared server.
            const keys = await stores.connection.client.keys(`veilbench-${process.pid}:*`);
            for (let start = 0; start < keys.length; start += 1000) await stores.connection.client.del(...keys.slice(start, start + 1000));
            await stores.close();
          },
        };
      } else {
        throw new Error(`unknown backend ${name}`);
      }
      try {
        const results = await run(backend);
        for (const [operation, summary] of Object.entries(results)) {
          rows.push(`| ${backend.name} | ${operation} | ${summary.meanUs.toFixed(1)} | ${summary.p50Us.toFixed(1)} | ${summary.p99Us.toFixed(1)} |`);
        }
      } finally {
        await backend.close();
      }
    }
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
  console.log(`Store latency per operation, sequential, ${ITERATIONS} iterations after ${WARMUP} warm-up (Node ${process.version}).\n`);
  console.log('| Backend | Operation | mean µs | p50 µs | p99 µs |');
  console.log('|---|---|---:|---:|---:|');
  for (const row of rows) console.log(row);
}

await main();
