// `make bench-loop`: the attacks of issue 16's table, one at a time, each against a fresh real
// `veil serve` (API-key auth, default limits), while a /livez probe and a small /v1/transform
// probe run beside it. Reports per attack the /livez wait (p50, p99, max: how long the event
// loop was unavailable), the small transform's p99 and max, failed probes, the server's peak RSS
// and whether it survived. Figures go to BENCHMARKS.md ("Event loop under abuse") with the
// command; no test asserts a time. `loop-bench.js ROW...` runs only those rows. The probes run in
// a process of their own, so the attacker's client work is never counted as the server's.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { getPriority, loadavg, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import {
  batchBody,
  detectBody,
  jsonKeysBody,
  nonReadingRequests,
  outputJsonBody,
  outputWithTokens,
  phoneNumbers,
  Probe,
  prose,
  ragContextBody,
  RssSampler,
  rssMiB,
  send,
  sessionWithTokens,
  trickle,
  type Target,
  textWithEntities,
  type Waits,
} from './attacks.js';
import { transformsInline } from '../services/offload.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const KEY = 'bench-loop-key-0123456789abcdef';
// LOOP_BENCH_CPU_PROF=dir: run each server with --cpu-prof into dir (find the long main-thread
// tasks with `node server/dist/bench/long-tasks.js dir/CPU.*.cpuprofile`).
const PROFILE_DIR = process.env.LOOP_BENCH_CPU_PROF;

// Scheduling: real attackers run on other machines, so here their client work (megabytes of
// bodies, 20,000 sockets) must not take the CPU from the server or delay the probe that measures
// it. The attacking processes run 5 nice levels below the server, the probe 5 above. Raising a
// priority needs privilege; without it the probe stays at the server's level.
const BASE_PRIORITY = getPriority();
function renice(pid: number, priority: number): void {
  try {
    setPriority(pid, Math.max(-20, Math.min(19, priority)));
  } catch {
    // Not permitted: keep the inherited priority.
  }
}
const SMALL = JSON.stringify({ input: 'Call me at +1 415 555 0134 or mail jane.doe@example.com.' });

interface Server {
  readonly url: string;
  readonly pid: number;
  readonly child: ChildProcess;
  exited(): boolean;
  stop(): Promise<void>;
}

async function startServer(extra: Record<string, unknown> = {}): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'veil-loop-bench-'));
  const file = join(dir, 'veil.yaml');
  writeFileSync(
    file,
    stringify({
      auth: { mode: 'api_key', api_keys: [{ key: KEY, identity: 'bench', tenant_id: 'bench', scopes: ['transform', 'rehydrate', 'detect', 'batch', 'rag'] }] },
      // The chart's memory limit (1 GiB): the server sizes its heaps and its memory gate to it.
      server: { memory_budget_mb: 1024 },
      ...extra,
    }),
  );
  const child = spawn(process.execPath, [`${ROOT}/server/bin/veil.js`, 'serve', '--host', '127.0.0.1', '--port', '0', '--config', file], {
    env: { PATH: process.env.PATH ?? '', ...(PROFILE_DIR !== undefined ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${PROFILE_DIR}` } : {}), VEIL_LOG_FORMAT: 'json', VEIL_SESSION_SECRET: '3c'.repeat(32), VEIL_ALLOW_EPHEMERAL_AUDIT: '1', VEIL_SERVER__WORKERS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    if (/heap out of memory|FATAL|Allocation failed/.test(text)) process.stderr.write(`server: ${text.slice(0, 300)}\n`);
  });
  // The listening line names the URL and the server's own pid (a launcher may run it as a child).
  const listening = await new Promise<{ url: string; pid: number }>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (line.includes('veil server listening')) resolve(JSON.parse(line) as { url: string; pid: number });
      }
      if (buffered.length > 100_000) buffered = '';
    });
    child.once('exit', (code) => reject(new Error(`server exited ${String(code)}`)));
  });
  return {
    url: listening.url,
    pid: listening.pid,
    child,
    exited: () => exited,
    stop: () =>
      new Promise((resolve) => {
        if (exited) {
          resolve();
          return;
        }
        child.once('exit', () => resolve());
        // A profiled server writes its profile on a graceful stop only.
        const signal = PROFILE_DIR !== undefined ? 'SIGTERM' : 'SIGKILL';
        try {
          process.kill(listening.pid, signal);
        } catch {
          // Already gone.
        }
        if (PROFILE_DIR === undefined) child.kill('SIGKILL');
        else setTimeout(() => child.kill('SIGKILL'), 20_000).unref();
      }),
  };
}

interface Row {
  readonly name: string;
  readonly livez: Waits;
  readonly small: Waits;
  readonly rssPeak: number;
  readonly alive: boolean;
  readonly note: string;
}

const rows: Row[] = [];

/** Run `attack` against a fresh server with both probes beside it. */
async function measure(name: string, attack: (server: Server, target: Target) => Promise<string>, extra?: Record<string, unknown>): Promise<void> {
  const server = await startServer(extra);
  const target: Target = { url: server.url, headers: { 'x-api-key': KEY } };
  try {
    // Warm the pools and the JIT so the first probe does not measure start-up.
    for (let index = 0; index < 20; index += 1) await send(target, 'POST', '/v1/transform', SMALL);
    // The probes run in their own process: the attacker's client work (building bodies of
    // megabytes, writing them, joining a 52 MB answer) must not delay the probe's own loop and be
    // counted as the server's.
    const probes = await startProbes(server.url);
    const rss = new RssSampler(server.pid);
    let note: string;
    // This process is the attacker (and forks the trickling ones): below the server while it attacks.
    renice(process.pid, BASE_PRIORITY + 5);
    try {
      note = await attack(server, target);
    } catch (error) {
      note = `attack failed: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      renice(process.pid, BASE_PRIORITY);
    }
    const rssPeak = rss.stop();
    const { livez, small } = await probes.stop();
    const row: Row = { name, livez, small, rssPeak, alive: !server.exited() && (await send(target, 'GET', '/livez')).status === 200, note };
    rows.push(row);
    process.stdout.write(`${format(row)}\n`);
  } finally {
    await server.stop();
  }
}

function ms(value: number): string {
  return value >= 1000 ? `${(value / 1000).toFixed(1)} s` : `${value.toFixed(0)} ms`;
}

function format(row: Row): string {
  return `| ${row.name} | ${ms(row.livez.p50)} / ${ms(row.livez.p99)} / **${ms(row.livez.max)}** | ${ms(row.small.p99)} / ${ms(row.small.max)} | ${row.livez.failures + row.small.failures} | ${row.rssPeak.toFixed(0)} MiB | ${row.alive ? 'yes' : '**no**'} | ${row.note} |`;
}

function statuses(list: readonly number[]): string {
  const counts = new Map<number, number>();
  for (const status of list) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].map(([status, count]) => `${count}×${status}`).join(', ');
}

/** Repeat `once` from `callers` callers for `seconds`. */
async function repeat(callers: number, seconds: number, once: () => Promise<number>): Promise<number[]> {
  const until = Date.now() + seconds * 1000;
  const seen: number[] = [];
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (Date.now() < until) seen.push(await once());
    }),
  );
  return seen;
}

/** Ten transforms of `text(round)`, each checked to be one the executor keeps on the event loop. */
function inlineRow(name: string, text: (round: number) => string): Promise<void> {
  return measure(name, async (_server, target) => {
    const seen: number[] = [];
    for (let round = 0; round < 10; round += 1) {
      const input = text(round);
      if (!transformsInline(input, DEFAULT_THRESHOLD)) throw new Error(`${name}: the text would go to a worker`);
      seen.push((await send(target, 'POST', '/v1/transform', JSON.stringify({ input }))).status);
    }
    return statuses(seen);
  });
}

/** transform.offload_threshold_bytes by default (the servers here run with it). */
const DEFAULT_THRESHOLD = 65_536;

const ATTACKS: Record<string, () => Promise<void>> = {
  'rag-context': () =>
    measure('one rag/context, 256 chunks of 35 KB', async (_server, target) => {
      const body = await ragContextBody(target, 256, 35_000);
      const answer = await send(target, 'POST', '/v1/rag/context', body);
      return statuses([answer.status]);
    }),
  batch: () =>
    measure('one batch/transform, 100 items of 63 KB', async (_server, target) => {
      const answer = await send(target, 'POST', '/v1/batch/transform', batchBody(100, 63_000));
      return statuses([answer.status]);
    }),
  'detect-phones': () =>
    measure('one detect, 8 MB of phone numbers', async (_server, target) => {
      const answer = await send(target, 'POST', '/v1/detect', detectBody(8_000_000));
      return `${statuses([answer.status])}, ${(answer.text.length / 1e6).toFixed(0)} MB answer`;
    }),
  'phones-inline': () =>
    // The costliest text per byte under the default offload threshold (64 KiB): ~3,700 distinct
    // phone numbers, each detected, validated and given its canonical form for its token. By
    // length alone it would run on the event loop (~300 ms); textCost sends it to a worker.
    measure('one transform, 63 KB of phone numbers (under the offload threshold)', async (_server, target) => {
      const answer = await send(target, 'POST', '/v1/transform', detectBody(63_000));
      return statuses([answer.status]);
    }),
  // The largest texts the event loop now transforms itself (services/offload.ts transformsInline:
  // length + 24 per anchor character within 4 thresholds): 250 KB of prose, the 100 KB benchmark
  // text, and the costliest class at its bound (~13.5 KB of distinct phone numbers). Ten in a
  // row, fresh text each time, so the first (cold) and the warm ones are both seen.
  'prose-inline': () => inlineRow('ten transforms, 250 KB of prose each (inline by cost)', (round) => prose(250_000, round + 3)),
  'text-100k-inline': () => inlineRow('ten transforms, the 100 KB benchmark text (inline by cost)', (round) => textWithEntities(100 * 1024, 180, round)),
  'phones-bound': () => inlineRow('ten transforms, 13.5 KB of distinct phone numbers each (inline by cost, at the bound)', (round) => phoneNumbers(13_500, round * 800)),
  'json-keys': () =>
    measure('one transform, input_json with 600k keys', async (_server, target) => {
      const answer = await send(target, 'POST', '/v1/transform', jsonKeysBody(600_000));
      return statuses([answer.status]);
    }),
  'output-json': () =>
    measure('one rehydrate, 8.7 MB output_json', async (_server, target) => {
      const { sessionState, tokens } = await sessionWithTokens(target);
      const answer = await send(target, 'POST', '/v1/rehydrate', outputJsonBody(sessionState, tokens, 8_700_000));
      return statuses([answer.status]);
    }),
  'rag-context-x2': () =>
    measure('2 callers repeating that rag/context for 30 s', async (_server, target) => {
      const body = await ragContextBody(target, 256, 35_000);
      const seen = await repeat(2, 30, async () => (await send(target, 'POST', '/v1/rag/context', body)).status);
      return statuses(seen);
    }),
  'stream-noread': () =>
    measure('300 rehydrate/stream of 9 MB, never read (held 60 s)', async (server, target) => {
      const { sessionState, tokens } = await sessionWithTokens(target);
      const body = Buffer.from(JSON.stringify({ output: outputWithTokens(tokens, 9_000_000), session_state: sessionState }));
      const held = await nonReadingRequests(target, '/v1/rehydrate/stream', body, 300);
      const until = Date.now() + 60_000;
      while (Date.now() < until && !server.exited()) await new Promise((resolve) => setTimeout(resolve, 500));
      // A paused socket never notices a graceful close (the server's FIN after an early 503 or a
      // write timeout): read and drop what is pending for a moment, then count what is still open.
      for (const socket of held.sockets) socket.on('data', () => undefined).resume();
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const open = held.sockets.filter((socket) => !socket.destroyed && socket.readyState === 'open').length;
      held.release();
      return `${open} of 300 still open at the end; RSS after ${(rssMiB(server.pid) ?? 0).toFixed(0)} MiB`;
    }),
  trickle: () =>
    measure('20,000 unauthenticated connections trickling a body (held 60 s)', async (server) => {
      // Two helper processes of 10,000 connections each (a process's own file limit).
      const helpers = [0, 1].map(() => fork(fileURLToPath(import.meta.url), ['trickle-helper', server.url, '10000'], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] }));
      const counts: string[] = [];
      await new Promise((resolve) => setTimeout(resolve, 60_000));
      for (const helper of helpers) {
        const reply = new Promise<string>((resolve) => {
          helper.once('message', (message) => resolve(typeof message === 'string' ? message : JSON.stringify(message)));
          setTimeout(() => resolve('no answer'), 30_000);
        });
        helper.send('report');
        counts.push(await reply);
        helper.kill('SIGKILL');
      }
      return `attackers: ${counts.join('; ')}`;
    }),
};

interface ProbeHelper {
  stop(): Promise<{ livez: Waits; small: Waits }>;
}

/** Fork the probe process (`probeHelper`) and wait until both probes run. */
async function startProbes(url: string): Promise<ProbeHelper> {
  const helper = fork(fileURLToPath(import.meta.url), ['probe-helper', url], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    helper.once('message', () => resolve());
    helper.once('exit', (code) => reject(new Error(`probe helper exited ${String(code)}`)));
  });
  return {
    stop: () =>
      new Promise((resolve) => {
        helper.once('message', (message) => {
          resolve(message as { livez: Waits; small: Waits });
          helper.kill('SIGKILL');
        });
        helper.send('stop');
      }),
  };
}

/** Runs in a forked helper: the /livez and small-transform probes, summarized on request. */
function probeHelper(url: string): void {
  renice(process.pid, BASE_PRIORITY - 5);
  const livez = new Probe({ url, headers: {} }).start();
  const small = new Probe({ url, headers: { 'x-api-key': KEY } }, 'POST', '/v1/transform', SMALL, 20).start();
  process.send?.('started');
  process.once('message', () => {
    void Promise.all([livez.stop(), small.stop()]).then(([livezWaits, smallWaits]) => process.send?.({ livez: livezWaits, small: smallWaits }));
  });
}

/** Runs in a forked helper: hold `count` trickling connections until killed; report on request. */
function trickleHelper(url: string, count: number): void {
  const attack = trickle(url, count, { everyMs: 1000, localAddress: '127.0.0.2' });
  process.on('message', () => {
    process.send?.(`${attack.open()} open, ${attack.cut()} cut by the server`);
  });
}

async function main(): Promise<void> {
  if (process.argv[2] === 'probe-helper') {
    probeHelper(process.argv[3]!);
    return;
  }
  if (process.argv[2] === 'trickle-helper') {
    trickleHelper(process.argv[3]!, Number(process.argv[4]));
    return;
  }
  const wanted = process.argv.slice(2);
  const names = wanted.length > 0 ? wanted : Object.keys(ATTACKS);
  for (const name of names) if (ATTACKS[name] === undefined) throw new Error(`unknown row ${name}; rows: ${Object.keys(ATTACKS).join(', ')}`);
  process.stdout.write(`# Event loop under abuse (node ${process.version}, load average ${loadavg().map((value) => value.toFixed(1)).join(' ')})\n\n`);
  process.stdout.write('| attack | /livez wait p50 / p99 / **max** | small transform p99 / max | failed probes | peak RSS | alive | server said |\n|---|---|---|---|---|---|---|\n');
  for (const name of names) await ATTACKS[name]!();
  process.stdout.write(`\nload average after: ${loadavg().map((value) => value.toFixed(1)).join(' ')}\n`);
}

await main();
