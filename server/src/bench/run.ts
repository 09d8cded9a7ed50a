// `make bench`: micro-benchmarks of the hot paths and a load benchmark of the real server on
// loopback. Figures go to stdout as a Markdown table; BENCHMARKS.md records them with the
// command. The server runs as one process pinned to core 0 (taskset when available); this
// process (the load generator) pins itself to core 1. `run.js workers` compares 1 worker
// process with one per core instead (nothing pinned).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { DEFAULT_POLICY } from '@veil/common';
import { detectAll } from '../domain/detect/index.js';
import { CompiledPolicy } from '../domain/policy/index.js';
import { indexEntries, rehydrateText } from '../domain/rehydrate.js';
import { KeyRing, newSessionId, openSession, sealSession, type SessionPayload } from '../domain/seal/index.js';
import { tokenizeText } from '../domain/tokenize.js';
import { TokenAllocator } from '../domain/token/index.js';
import { closeClient, cpuSeconds, hasTaskset, prose, quantile, send, startVeil, startWorkers, textWithEntities } from './common.js';
import { ratioBench, type RatioRow } from './ratios.js';

const rows: string[][] = [];
function record(name: string, value: string, target = ''): void {
  rows.push([name, value, target]);
  process.stdout.write(`${name}: ${value}${target ? ` (target ${target})` : ''}\n`);
}

function timeIt(fn: () => void, minMs = 1500): { perOpMs: number; ops: number } {
  fn();
  let ops = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < minMs) {
    fn();
    ops += 1;
    elapsed = performance.now() - start;
  }
  return { perOpMs: elapsed / ops, ops };
}

function mbps(bytes: number, perOpMs: number): string {
  return `${(bytes / 1e6 / (perOpMs / 1000)).toFixed(1)} MB/s`;
}

function micro(): void {
  const sparse = textWithEntities(1_000_000, 2000);
  const dense = textWithEntities(1_000_000, 60);
  record('detect, sparse text (1 entity / 2 KB)', mbps(sparse.length, timeIt(() => detectAll(sparse)).perOpMs));
  record('detect, dense text (1 entity / 60 chars)', mbps(dense.length, timeIt(() => detectAll(dense)).perOpMs));
  const adversarial: [string, string][] = [
    ['1 MB of digits', '7'.repeat(1_000_000)],
    ['1 MB of letters', 'a'.repeat(1_000_000)],
    ['1 MB of near-miss emails', 'a@'.repeat(500_000)],
    ['1 MB of "aaaa@" runs', `${'a'.repeat(70)}@`.repeat(14_000)],
    ['1 MB of colons and hex', '1:'.repeat(500_000)],
  ];
  for (const [name, text] of adversarial) record(`detect, adversarial: ${name}`, mbps(text.length, timeIt(() => detectAll(text), 1000).perOpMs));

  const ring = new KeyRing('k1', [{ kid: 'k1', key: Buffer.alloc(32, 7) }]);
  const allocator = new TokenAllocator();
  const entries = Array.from({ length: 20 }, (_, index) => {
    const value = `person${index}@example.com`;
    const { id, cap } = allocator.allocate('email', value);
    return { id, type: 'email', cap, value, mode: 'full' as const };
  });
  const payload: SessionPayload = { sid: newSessionId(), kind: 'transform', tenant: null, language: 'en', policy: 'default', policyVersion: '1', counter: 1, iat: 1, exp: 4_000_000_000, entries };
  const sealOpen = timeIt(() => {
    const blob = sealSession(ring, payload);
    openSession(ring, blob, { kinds: ['transform'], tenant: null }, 2);
  });
  record('seal + open, 20-entity map', `${(sealOpen.perOpMs * 1000).toFixed(1)} µs`, '≤ 50 µs');

  const policy = new CompiledPolicy(DEFAULT_POLICY);
  const source = textWithEntities(1_000_000, 200);
  const tokenized = tokenizeText({ text: source, detections: detectAll(source), policy, context: {}, allocator: new TokenAllocator() });
  const map = indexEntries(tokenized.newEntries);
  const rehydrate = timeIt(() => rehydrateText({ output: tokenized.safeText, entries: map, policy, language: 'en', caller: {}, channel: 'user_output' }));
  record('rehydrate (pure), 1 MB with a token every ~200 chars', mbps(tokenized.safeText.length, rehydrate.perOpMs));
}

async function startServer(env: Readonly<Record<string, string>> = {}): Promise<{ url: string; stop: () => Promise<void> }> {
  return startVeil({ VEIL_LOG_FORMAT: 'json', VEIL_SESSION_SECRET: '3c'.repeat(32), ...env }, 0);
}

function postOnce(url: string, path: string, body: string): Promise<{ status: number; text: string }> {
  return send(url, 'POST', path, body);
}

/**
 * Sequential requests on one keep-alive connection: latency without queueing, as the client
 * sees it, plus the handler's own time from the response's stats (server side, no transport).
 */
async function latency(url: string, path: string, body: string, count: number): Promise<{ p50: number; p99: number; handlerP50: number; handlerP99: number }> {
  for (let index = 0; index < Math.min(500, count); index += 1) await postOnce(url, path, body);
  const samples: number[] = [];
  const handler: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const start = performance.now();
    const response = await postOnce(url, path, body);
    samples.push(performance.now() - start);
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${response.text.slice(0, 200)}`);
    const stats = (JSON.parse(response.text) as { stats?: { transform_time_ms?: number; rehydrate_time_ms?: number } }).stats;
    const own = stats?.transform_time_ms ?? stats?.rehydrate_time_ms;
    if (own !== undefined) handler.push(own);
  }
  samples.sort((a, b) => a - b);
  handler.sort((a, b) => a - b);
  return { p50: quantile(samples, 0.5), p99: quantile(samples, 0.99), handlerP50: quantile(handler, 0.5), handlerP99: quantile(handler, 0.99) };
}

function latencyText(result: { p50: number; p99: number; handlerP50: number; handlerP99: number }, digits = 3): string {
  const handler = result.handlerP50 > 0 ? `; handler ${result.handlerP50.toFixed(digits)} / ${result.handlerP99.toFixed(digits)} ms` : '';
  return `client ${result.p50.toFixed(digits)} / ${result.p99.toFixed(digits)} ms${handler}`;
}

/**
 * Time to the first restored frame of an incremental `/v1/rehydrate/stream` (ndjson body): the
 * parameters line, then `output` as `{"delta"}` lines of `deltaLength` characters written at
 * once with no delay; from sending the request to the first `restored_text` frame arriving.
 * Sequential on one keep-alive connection; each stream is read to its end and its frames must
 * concatenate to `expected`.
 */
const streamAgent = new Agent({ keepAlive: true, maxSockets: 1 });
function firstFrameOnce(url: string, firstLine: string, output: string, deltaLength: number, expected: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let firstAt: number | undefined;
    const start = performance.now();
    const req = request(`${url}/v1/rehydrate/stream`, { method: 'POST', agent: streamAgent, headers: { 'content-type': 'application/x-ndjson' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`/v1/rehydrate/stream answered ${String(res.statusCode)}`));
        return;
      }
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        if (firstAt === undefined && /^data: \{"index":\d+,"restored_text"/m.test(text)) firstAt = performance.now();
      });
      res.on('end', () => {
        const frames = text
          .split('\n\n')
          .filter((block) => block.startsWith('data: '))
          .map((block) => JSON.parse(block.slice(6)) as { restored_text?: string; complete?: boolean; error?: string });
        const last = frames.at(-1);
        const restored = frames.map((frame) => frame.restored_text ?? '').join('');
        if (firstAt === undefined || last?.complete !== true || last.error !== undefined || restored !== expected) {
          reject(new Error(`/v1/rehydrate/stream did not restore the output: ${last?.error ?? 'mismatch'}`));
          return;
        }
        resolve(firstAt - start);
      });
    });
    req.on('error', reject);
    const lines = [firstLine];
    for (let at = 0; at < output.length; at += deltaLength) lines.push(JSON.stringify({ delta: output.slice(at, at + deltaLength) }));
    for (const line of lines) req.write(`${line}\n`);
    req.end();
  });
}

async function timeToFirstFrame(url: string, session: string, output: string, count: number): Promise<{ p50: number; p99: number; deltas: number }> {
  const expected = (JSON.parse((await postOnce(url, '/v1/rehydrate', JSON.stringify({ output, session_state: session }))).text) as { restored_text: string }).restored_text;
  const firstLine = JSON.stringify({ session_state: session });
  for (let index = 0; index < Math.min(50, count); index += 1) await firstFrameOnce(url, firstLine, output, 40, expected);
  const samples: number[] = [];
  for (let index = 0; index < count; index += 1) samples.push(await firstFrameOnce(url, firstLine, output, 40, expected));
  samples.sort((a, b) => a - b);
  return { p50: quantile(samples, 0.5), p99: quantile(samples, 0.99), deltas: Math.ceil(output.length / 40) };
}

async function throughput(url: string, path: string, body: string, connections: number, seconds: number): Promise<{ rps: number; errors: number }> {
  const result = await autocannon({ url: `${url}${path}`, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections, duration: seconds });
  return { rps: result.requests.average, errors: result.errors + result.non2xx };
}

async function served(): Promise<void> {
  const server = await startServer();
  try {
    const oneKb = JSON.stringify({ input: textWithEntities(1024, 180) });
    const hundredKb = JSON.stringify({ input: textWithEntities(100 * 1024, 180) });
    const oneMb = JSON.stringify({ input: textWithEntities(1024 * 1024, 180) });
    const transformed = JSON.parse((await postOnce(server.url, '/v1/transform', oneKb)).text) as { safe_text: string; session_state: string };
    const rehydrateBody = JSON.stringify({ output: transformed.safe_text, session_state: transformed.session_state });

    // The floor: a trivial JSON route, to separate transport and framework cost from ours.
    const trivial = JSON.stringify({ name: 'ticket_id' });
    const floor = await latency(server.url, '/v1/entity-types', trivial, 3000);
    record('floor: trivial POST /v1/entity-types latency p50 / p99 (1 connection)', latencyText(floor));
    const floorRps = await throughput(server.url, '/v1/entity-types', trivial, 16, 5);
    record('floor: trivial POST /v1/entity-types throughput (16 connections)', `${Math.round(floorRps.rps)} req/s`);

    const t1 = await latency(server.url, '/v1/transform', oneKb, 3000);
    record('served /v1/transform 1 KB latency p50 / p99 (1 connection)', latencyText(t1), 'p50 ≤ 0.2 ms');
    const t1rps = await throughput(server.url, '/v1/transform', oneKb, 16, 8);
    record('served /v1/transform 1 KB throughput (16 connections)', `${Math.round(t1rps.rps)} req/s (${t1rps.errors} errors)`, '≥ 10,000 req/s');
    const r1 = await latency(server.url, '/v1/rehydrate', rehydrateBody, 3000);
    record('served /v1/rehydrate 1 KB latency p50 / p99 (1 connection)', latencyText(r1));
    const r1rps = await throughput(server.url, '/v1/rehydrate', rehydrateBody, 16, 8);
    record('served /v1/rehydrate 1 KB throughput (16 connections)', `${Math.round(r1rps.rps)} req/s (${r1rps.errors} errors)`, '≥ 15,000 req/s');
    const ttf = await timeToFirstFrame(server.url, transformed.session_state, transformed.safe_text, 200);
    record(
      'served /v1/rehydrate/stream (ndjson) 1 KB tokenized output in ~40-char deltas: time to first restored frame p50 / p99',
      `client ${ttf.p50.toFixed(3)} / ${ttf.p99.toFixed(3)} ms (${ttf.deltas} deltas, sent without delay)`,
    );
    const t100 = await latency(server.url, '/v1/transform', hundredKb, 300);
    record('served /v1/transform 100 KB latency p50 / p99 (1 connection)', latencyText(t100, 2), 'p50 ≤ 5 ms');
    const t100rps = await throughput(server.url, '/v1/transform', hundredKb, 4, 6);
    record('served /v1/transform 100 KB throughput (4 connections)', `${Math.round(t100rps.rps)} req/s (${t100rps.errors} errors)`);

    // Small requests while 1 MB transforms run: the large ones go to worker threads.
    const big = autocannon({ url: `${server.url}/v1/transform`, method: 'POST', headers: { 'content-type': 'application/json' }, body: oneMb, connections: 2, duration: 8 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const mixed = await latency(server.url, '/v1/transform', oneKb, 2000);
    const bigResult = await big;
    record(
      'served 1 KB transform p50 / p99 while 1 MB transforms run',
      `${latencyText(mixed)} (${bigResult.requests.average.toFixed(1)} 1 MB req/s alongside)`,
      'p99 ≤ 2 ms',
    );
  } finally {
    await server.stop();
    closeClient();
    streamAgent.destroy();
  }
}

/**
 * `run.js workers`: throughput with 1 worker process and with one per core (cluster mode),
 * same configuration otherwise (SQLite stores, which several workers require). Nothing is
 * pinned: the server may use every core, and so does the load generator, which shares them.
 */
/** Throughput plus the CPU the server's processes spent: requests per server CPU-second. */
async function measured(
  server: { url: string; pids: () => Promise<number[]> },
  path: string,
  body: string,
  seconds: number,
): Promise<{ rps: number; errors: number; cores?: number; perCore?: number }> {
  const pids = await server.pids();
  const before = pids.map(cpuSeconds);
  const started = performance.now();
  const result = await throughput(server.url, path, body, 32, seconds);
  const elapsed = (performance.now() - started) / 1000;
  const after = pids.map(cpuSeconds);
  if (before.some((value) => value === undefined) || after.some((value) => value === undefined)) return result;
  const cores = after.reduce((sum: number, value, index) => sum + value! - before[index]!, 0) / elapsed;
  return { ...result, cores, perCore: result.rps / cores };
}

async function workersBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'veil-bench-'));
  const cores = availableParallelism();
  const oneKb = JSON.stringify({ input: textWithEntities(1024, 180) });
  const results = new Map<number, { transform: number; rehydrate: number; floor: number; transformPerCore?: number; rehydratePerCore?: number }>();
  const cpu = (result: { cores?: number; perCore?: number }): string =>
    result.cores === undefined ? '' : `; server used ${result.cores.toFixed(2)} cores, ${Math.round(result.perCore!)} req/s per core`;
  try {
    for (const workers of [1, cores]) {
      const server = await startWorkers(workers, dir);
      try {
        const transformed = (await fetch(`${server.url}/v1/transform`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: oneKb }).then((response) =>
          response.json(),
        )) as { safe_text: string; session_state: string };
        const rehydrateBody = JSON.stringify({ output: transformed.safe_text, session_state: transformed.session_state });
        await throughput(server.url, '/v1/transform', oneKb, 32, 3); // warm-up (JIT, pools)
        const transform = await measured(server, '/v1/transform', oneKb, 10);
        const rehydrate = await measured(server, '/v1/rehydrate', rehydrateBody, 10);
        const floor = await measured(server, '/v1/entity-types', JSON.stringify({ name: 'ticket_id' }), 5);
        results.set(workers, {
          transform: transform.rps,
          rehydrate: rehydrate.rps,
          floor: floor.rps,
          ...(transform.perCore !== undefined ? { transformPerCore: transform.perCore } : {}),
          ...(rehydrate.perCore !== undefined ? { rehydratePerCore: rehydrate.perCore } : {}),
        });
        const label = `${workers} worker${workers === 1 ? '' : 's'}`;
        record(`${label}: /v1/transform 1 KB throughput (32 conns)`, `${Math.round(transform.rps)} req/s (${transform.errors} errors${cpu(transform)})`);
        record(`${label}: /v1/rehydrate 1 KB throughput (32 conns)`, `${Math.round(rehydrate.rps)} req/s (${rehydrate.errors} errors${cpu(rehydrate)})`);
        record(`${label}: floor POST /v1/entity-types throughput (32 conns)`, `${Math.round(floor.rps)} req/s${cpu(floor)}`);
      } finally {
        await server.stop();
      }
    }
    const one = results.get(1)!;
    const all = results.get(cores)!;
    record(`scaling ${cores} workers / 1 worker: transform`, `${(all.transform / one.transform).toFixed(2)}x`, '≥ 1.8x on 2 cores');
    record(`scaling ${cores} workers / 1 worker: rehydrate`, `${(all.rehydrate / one.rehydrate).toFixed(2)}x`, '≥ 1.8x on 2 cores');
    record(`scaling ${cores} workers / 1 worker: floor`, `${(all.floor / one.floor).toFixed(2)}x`);
    // Per server core: how much of each added core's work turns into throughput (1.00 = linear).
    if (one.transformPerCore !== undefined && all.transformPerCore !== undefined && one.rehydratePerCore !== undefined && all.rehydratePerCore !== undefined) {
      record(
        `efficiency per server core, ${cores} workers vs 1 (transform / rehydrate)`,
        `${(all.transformPerCore / one.transformPerCore).toFixed(2)} / ${(all.rehydratePerCore / one.rehydratePerCore).toFixed(2)}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The ratio table (issue 20's targets), printed after the other rows. */
function printRatios(ratioRows: readonly RatioRow[]): void {
  process.stdout.write('\n| ratio benchmark | result: median (range over rounds) | target | met |\n|---|---|---|---|\n');
  for (const row of ratioRows) process.stdout.write(`| ${row.name} | ${row.result} | ${row.target} | ${row.met === undefined ? '' : row.met ? 'yes' : 'no'} |\n`);
}

function envNumber(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

/** Milliseconds from sending a streamed chat completion to its first non-empty content delta, and to its end. */
async function timeToFirstContent(url: string, body: string): Promise<{ first: number; total: number; text: string }> {
  const started = performance.now();
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  if (!response.ok || response.body === null) throw new Error(`proxy bench: HTTP ${response.status}`);
  const decoder = new TextDecoder();
  let buffer = '';
  let first = -1;
  let text = '';
  for await (const bytes of response.body as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(bytes, { stream: true });
    const events = buffer.split('\n\n');
    buffer = events.pop() ?? '';
    for (const event of events) {
      const data = event.replace(/^data: /, '');
      if (data === '[DONE]') continue;
      const content = ((JSON.parse(data) as { choices?: { delta?: { content?: string } }[] }).choices?.[0]?.delta?.content ?? '');
      if (content !== '' && first < 0) first = performance.now() - started;
      text += content;
    }
  }
  return { first, total: performance.now() - started, text };
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * `run.js proxy`: time to the first restored chunk of a streamed chat completion through the
 * OpenAI-compatible proxy, against the baseline of the same fake upstream called directly in
 * the same run, at two model speeds (no delay: Veil's own overhead; 4 characters every 20 ms,
 * about 50 tokens per second), with the output guard on (the default) and off.
 */
async function proxyBench(): Promise<void> {
  const { startFakeOpenAi } = await import('./fake-openai.js');
  const message = `Hi, this is Jane Doe. My email is jane.doe@example.com and my card 4111 1111 1111 1111 was charged twice; call me on +1 415 555 0134. ${prose(600, 3)}`;
  const fake = await startFakeOpenAi();
  const guarded = await startServer({ VEIL_PROXY__UPSTREAM_URL: fake.url });
  const unguarded = await startServer({ VEIL_PROXY__UPSTREAM_URL: fake.url, VEIL_OUTPUT_PROTECTION__ENABLED: 'false' });
  const runs = 30;
  try {
    for (const cadence of [0, 20]) {
      fake.reply = () => ({ chunkSizes: [4], ...(cadence > 0 ? { pieceDelayMs: cadence } : {}) });
      const label = cadence === 0 ? 'no model delay' : `4 chars / ${cadence} ms`;
      // The baseline gets the tokenized text a proxied call sends, so both streams are as long.
      await timeToFirstContent(`${guarded.url}/openai/v1/chat/completions`, JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: message }] }));
      const tokenized = fake.requests.at(-1)!.body.messages[0].content as string;
      const targets: [string, string, string][] = [
        ['direct to the upstream (baseline)', `${fake.url}/chat/completions`, tokenized],
        ['through the proxy, output guard off', `${unguarded.url}/openai/v1/chat/completions`, message],
        ['through the proxy, output guard on (default)', `${guarded.url}/openai/v1/chat/completions`, message],
      ];
      for (const [name, url, content] of targets) {
        const body = JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content }] });
        await timeToFirstContent(url, body); // warm-up
        const firsts: number[] = [];
        const totals: number[] = [];
        for (let run = 0; run < runs; run += 1) {
          const result = await timeToFirstContent(url, body);
          if (url !== targets[0]![1] && result.text !== message) throw new Error('proxy bench: the restored text differs from the original');
          firsts.push(result.first);
          totals.push(result.total);
        }
        record(`TTFT ${label}: ${name}`, `p50 ${percentile(firsts, 50).toFixed(1)} ms, p95 ${percentile(firsts, 95).toFixed(1)} ms; whole stream p50 ${percentile(totals, 50).toFixed(0)} ms`);
      }
    }
  } finally {
    await Promise.all([guarded.stop(), unguarded.stop()]);
    await fake.close();
  }
}

async function main(): Promise<void> {
  const only = process.argv[2];
  if (only === 'proxy') {
    if (hasTaskset) spawnSync('taskset', ['-cp', '1', String(process.pid)]);
    process.stdout.write(`# Veil proxy time to first restored chunk (node ${process.version}, ${hasTaskset ? 'server on core 0, client and fake upstream on core 1' : 'cores unpinned'})\n\n`);
    await proxyBench();
    process.stdout.write('\n| benchmark | result | target |\n|---|---|---|\n');
    for (const [name, value, target] of rows) process.stdout.write(`| ${name} | ${value} | ${target} |\n`);
    return;
  }
  if (only === 'workers') {
    process.stdout.write(`# Veil worker scaling (node ${process.version}, ${availableParallelism()} cores, nothing pinned)\n\n`);
    await workersBench();
    process.stdout.write('\n| benchmark | result | target |\n|---|---|---|\n');
    for (const [name, value, target] of rows) process.stdout.write(`| ${name} | ${value} | ${target} |\n`);
    return;
  }
  if (hasTaskset) spawnSync('taskset', ['-cp', '1', String(process.pid)]);
  process.stdout.write(`# Veil benchmarks (node ${process.version}, ${hasTaskset ? 'servers on core 0, load on core 1' : 'no taskset: cores unpinned'})\n\n`);
  if (only === undefined || only === 'micro') micro();
  if (only === undefined || only === 'served') await served();
  // VEIL_BENCH_ROUNDS, VEIL_BENCH_SECONDS (per throughput run), VEIL_BENCH_LOAD_SECONDS (RSS load),
  // VEIL_BENCH_PARTS (a comma-separated subset of throughput, large, workers, memory).
  const ratioRows =
    only === undefined || only === 'ratios'
      ? await ratioBench({
          rounds: envNumber('VEIL_BENCH_ROUNDS', 5),
          seconds: envNumber('VEIL_BENCH_SECONDS', 5),
          connections: 16,
          loadSeconds: envNumber('VEIL_BENCH_LOAD_SECONDS', 60),
          parts: process.env.VEIL_BENCH_PARTS === undefined ? undefined : new Set(process.env.VEIL_BENCH_PARTS.split(',')),
        })
      : [];
  if (rows.length > 0) {
    process.stdout.write('\n| benchmark | result | target |\n|---|---|---|\n');
    for (const [name, value, target] of rows) process.stdout.write(`| ${name} | ${value} | ${target} |\n`);
  }
  if (ratioRows.length > 0) printRatios(ratioRows);
}

await main();
