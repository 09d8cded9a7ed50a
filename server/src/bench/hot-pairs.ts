// Server CPU per request of two builds, in interleaved pairs, split into user and system time,
// with minor page faults and context switches (issue 20, session 10): what a change to the HTTP
// path around the work saves is a few µs of a ~250 µs request, below the noise of one ratio run,
// so each pair runs both builds back to back under the same load and the pairs are compared.
// `syscalls` counts a server's system calls and the bytes of its writes for a fixed number of
// requests under `strace -f` (one build, one route), to tell how many writes a response, a log
// line and an audit line take. The echo (bench/echo-server.ts) is measured the same way.
//
//   node server/dist/bench/hot-pairs.js pairs <after veil.js> <before veil.js> [pairs] [routes]
//   node server/dist/bench/hot-pairs.js syscalls <veil.js|echo> [route] [requests] [connections]
//
// A build given as `<veil.js>:secure` runs with api_key auth and a strict file audit sink.
// routes: a comma list of transform, rehydrate, echo, large, echo-large (default
// transform,rehydrate; `large` is the ratio benchmark's 100 KB transform and `echo-large` the echo
// of that body, both on one connection, one request at a time, as the 100 KB row sends them;
// `large-lines` the same body in lines of about 80 units, sent the same way), each
// optionally `@<req/s>` for a fixed rate (the echo at Veil's rate shows what an idle load generator
// costs the server's writes). Each server
// is `veil serve` in the default configuration (text log on a pipe, as the ratio benchmark runs
// it) pinned to core 0, autocannon on core 1 with 16 connections: 6 s warm-up, 5 s per route.
// Run it in a raised scheduling group on a shared machine (BENCHMARKS.md "Reading the figures").
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeClient, hasTaskset, median, ROOT, send, servingPid, spawnServer, textWithEntities, throughput, type ServerProcess, type Target } from './common.js';

/** Process counters from /proc/<pid>/stat: user and system ticks, minor faults. */
interface Counters {
  readonly user: number;
  readonly system: number;
  readonly minorFaults: number;
  readonly switches: number;
}

function counters(pid: number): Counters {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // Context switches of every thread (the thread pool's log writes count too).
  let switches = 0;
  for (const line of readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) {
    const match = /^(?:non)?voluntary_ctxt_switches:\s+(\d+)/.exec(line);
    if (match !== null) switches += Number(match[1]);
  }
  // stat fields 10 (minflt), 14 (utime), 15 (stime): 7, 11, 12 after the command name.
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100, minorFaults: Number(fields[7]), switches };
}

interface Sample {
  readonly user: number;
  readonly system: number;
  readonly faults: number;
  readonly switches: number;
  readonly rps: number;
}

const ECHO = 'echo';

const API_KEY = 'hot-pairs-key-0123456789abcdef';

/**
 * `<veil.js>:secure`: api_key auth and a strict, fsynced file audit sink in a temporary directory
 * (the ratio benchmark's second configuration); plain `<veil.js>`: the default configuration.
 */
function secureConfig(dir: string): string {
  const path = join(dir, 'secure.yaml');
  writeFileSync(
    path,
    ['auth:', '  mode: api_key', '  api_keys:', `    - {key: ${API_KEY}, identity: bench, scopes: [transform, rehydrate]}`, 'audit:', '  backend: file', `  path: ${join(dir, 'audit.log')}`, `  hmac_key: ${'5e'.repeat(32)}`, '  strict: true', ''].join('\n'),
  );
  return path;
}

async function start(spec: string): Promise<ServerProcess> {
  if (spec === ECHO) return spawnServer([`${ROOT}/server/dist/bench/echo-server.js`], {}, 0);
  const secure = spec.endsWith(':secure');
  const bin = secure ? spec.slice(0, -':secure'.length) : spec;
  const env: Record<string, string> = { VEIL_SESSION_SECRET: '3c'.repeat(32) };
  if (secure) env.VEIL_CONFIG = secureConfig(mkdtempSync(join(tmpdir(), 'veil-hot-pairs-')));
  return spawnServer([bin, 'serve', '--host', '127.0.0.1', '--port', '0'], env, 0);
}

function headersOf(spec: string): Record<string, string> {
  return spec.endsWith(':secure') ? { 'x-api-key': API_KEY } : {};
}

/** Routes sent by one connection, one request at a time (the ratio benchmark's 100 KB row). */
const SEQUENTIAL = new Set(['large', 'echo-large', 'large-lines']);

/**
 * `text` in lines of about `width` units: the first blank between two lower-case letters at or
 * past `width` units of a line becomes a line feed, so no value of the text is cut (`large-lines`:
 * the 100 KB body as most long texts arrive, in lines; the ratio benchmark's body is one line).
 */
export function wrapped(text: string, width = 80): string {
  const lower = (index: number) => /[a-z]/.test(text.charAt(index));
  let out = '';
  let lineStart = 0;
  for (let blank = text.indexOf(' ', width); blank >= 0; blank = text.indexOf(' ', blank + 1)) {
    if (blank - lineStart < width || !lower(blank - 1) || !lower(blank + 1)) continue;
    out += `${text.slice(lineStart, blank)}\n`;
    lineStart = blank + 1;
  }
  return out + text.slice(lineStart);
}

async function targets(server: ServerProcess, spec: string): Promise<Record<string, Target>> {
  const input = JSON.stringify({ input: textWithEntities(1024, 180) });
  const large = JSON.stringify({ input: textWithEntities(100 * 1024, 180) });
  if (spec === ECHO) return { echo: { method: 'POST', path: '/echo', body: input }, 'echo-large': { method: 'POST', path: '/echo', body: large } };
  const headers = headersOf(spec);
  const transform: Target = { method: 'POST', path: '/v1/transform', body: input, headers };
  const answer = JSON.parse((await send(server.url, 'POST', '/v1/transform', input, headers)).text) as { safe_text: string; session_state: string };
  const rehydrate: Target = { method: 'POST', path: '/v1/rehydrate', body: JSON.stringify({ output: answer.safe_text, session_state: answer.session_state }), headers };
  const largeLines = JSON.stringify({ input: wrapped(textWithEntities(100 * 1024, 180)) });
  return { transform, rehydrate, large: { method: 'POST', path: '/v1/transform', body: large, headers }, 'large-lines': { method: 'POST', path: '/v1/transform', body: largeLines, headers } };
}

async function measure(server: ServerProcess, target: Target, seconds: number, rate?: number, connections = 16): Promise<Sample> {
  const pid = servingPid(server.pid);
  const before = counters(pid);
  const run = await throughput(server.url, target, connections, seconds, rate);
  const after = counters(pid);
  const requests = run.rps * seconds;
  const per = (value: number) => value / requests;
  return {
    user: per(after.user - before.user) * 1e6,
    system: per(after.system - before.system) * 1e6,
    faults: per(after.minorFaults - before.minorFaults),
    switches: per(after.switches - before.switches),
    rps: run.rps,
  };
}

function load(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ')[0]!;
}

function routeName(route: string): string {
  return route.split('@')[0]!;
}

async function pairs(builds: readonly string[], count: number, routes: readonly string[]): Promise<void> {
  if (hasTaskset) spawnSync('taskset', ['-cp', '1', String(process.pid)]);
  const samples = new Map<string, Sample[]>();
  for (let pair = 0; pair < count; pair += 1) {
    // Alternate which build goes first, so a drift in the machine's load does not favour one.
    const order = pair % 2 === 0 ? builds : [...builds].reverse();
    for (const bin of routes.some((route) => routeName(route).startsWith(ECHO)) ? [...order, ECHO] : order) {
      const server = await start(bin);
      try {
        const byRoute = await targets(server, bin);
        const mine = routes.filter((route) => byRoute[routeName(route)] !== undefined);
        if (mine.length === 0) continue;
        const connectionsOf = (route: string) => (SEQUENTIAL.has(routeName(route)) ? 1 : 16);
        await throughput(server.url, byRoute[routeName(mine[0]!)]!, connectionsOf(mine[0]!), 6);
        for (const route of mine) {
          // `route@rate`: at that many requests per second over all connections, not as fast as it goes.
          const rate = route.includes('@') ? Number(route.split('@')[1]) : undefined;
          const sample = await measure(server, byRoute[routeName(route)]!, 5, rate, connectionsOf(route));
          const key = `${route} ${bin}`;
          samples.set(key, [...(samples.get(key) ?? []), sample]);
          process.stdout.write(
            `pair ${pair + 1} ${key}: ${(sample.user + sample.system).toFixed(0)} µs (user ${sample.user.toFixed(0)}, sys ${sample.system.toFixed(0)}), ${sample.faults.toFixed(2)} faults, ${sample.switches.toFixed(2)} switches, ${sample.rps.toFixed(0)} req/s, load ${load()}\n`,
          );
        }
      } finally {
        closeClient();
        await server.stop();
      }
    }
  }
  process.stdout.write('\n| route, build | CPU µs per request, each pair | median | user | sys | faults | switches |\n|---|---|---|---|---|---|---|\n');
  for (const [key, list] of samples) {
    const total = list.map((sample) => Math.round(sample.user + sample.system));
    const med = (pick: (sample: Sample) => number, digits: number) => median(list.map(pick)).toFixed(digits);
    process.stdout.write(`| ${key} | ${total.join(' ')} | ${median(total)} | ${med((s) => s.user, 0)} | ${med((s) => s.system, 0)} | ${med((s) => s.faults, 2)} | ${med((s) => s.switches, 2)} |\n`);
  }
}

/** One line of `strace -f -c` output: calls and name. */
function straceTable(text: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)$/.exec(line);
    if (match !== null) calls.set(match[2]!, Number(match[1]));
  }
  return calls;
}

async function syscalls(bin: string, route: string, requests: number, connections: number): Promise<void> {
  if (hasTaskset) spawnSync('taskset', ['-cp', '1', String(process.pid)]);
  const server = await start(bin);
  const dir = mkdtempSync(join(tmpdir(), 'veil-syscalls-'));
  try {
    const target = (await targets(server, bin))[route];
    if (target === undefined) throw new Error(`no route ${route} for ${bin}`);
    await throughput(server.url, target, 16, 4);
    const pid = servingPid(server.pid);
    // Two traces of the same load: counts of every call, then each write with its byte count.
    for (const [name, args] of [
      ['counts', ['-f', '-c', '-o', join(dir, 'counts'), '-p', String(pid)]],
      ['writes', ['-f', '-e', 'trace=write,writev,sendmsg,pwrite64,fdatasync,fsync', '-e', 'abbrev=all', '-s', '0', '-o', join(dir, 'writes'), '-p', String(pid)]],
    ] as const) {
      const tracer = spawn('strace', args, { stdio: 'ignore' });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const before = counters(pid);
      const { default: autocannon } = await import('autocannon');
      await autocannon({
        url: `${server.url}${target.path}`,
        method: target.method,
        headers: { 'content-type': 'application/json', ...target.headers },
        ...(target.body !== undefined ? { body: target.body } : {}),
        connections,
        amount: requests,
      });
      const after = counters(pid);
      tracer.kill('SIGINT');
      await new Promise((resolve) => tracer.once('exit', resolve));
      if (name === 'counts') {
        process.stdout.write(`${bin} ${route}, ${requests} requests on ${connections} connections (under strace: ${(((after.user + after.system - before.user - before.system) / requests) * 1e6).toFixed(0)} µs each)\n`);
        for (const [call, count] of straceTable(readFileSync(join(dir, 'counts'), 'utf8'))) {
          process.stdout.write(`  ${call.padEnd(16)} ${String(count).padStart(7)}  ${(count / requests).toFixed(3)} per request\n`);
        }
      } else {
        // Writes by file descriptor kind: sockets (the answers), fd 1 (the log), eventfds (8 bytes),
        // and the audit file (a descriptor that is also fdatasync'd).
        const lines = readFileSync(join(dir, 'writes'), 'utf8').split('\n');
        const synced = new Set<string>();
        let syncs = 0;
        for (const line of lines) {
          const match = /^\d+\s+f(?:data)?sync\((\d+)\)/.exec(line);
          if (match !== null) {
            synced.add(match[1]!);
            syncs += 1;
          }
        }
        const byKind = new Map<string, { calls: number; bytes: number }>();
        for (const line of lines) {
          const match = /^\d+\s+(\w+)\((\d+),.*\)\s+=\s+(\d+)$/.exec(line);
          if (match === null) continue;
          const [, call, fd] = match as unknown as [string, string, string];
          const bytes = Number(match[3]);
          const kind = fd === '1' ? `${call} fd 1 (log)` : synced.has(fd) ? `${call} audit file` : bytes === 8 ? `${call} 8 bytes (eventfd wake-up)` : `${call} other fds (sockets)`;
          const entry = byKind.get(kind) ?? { calls: 0, bytes: 0 };
          byKind.set(kind, { calls: entry.calls + 1, bytes: entry.bytes + bytes });
        }
        if (syncs > 0) process.stdout.write(`  ${'fdatasync/fsync'.padEnd(40)} ${(syncs / requests).toFixed(3)} per request\n`);
        for (const [kind, { calls, bytes }] of byKind) {
          process.stdout.write(`  ${kind.padEnd(40)} ${(calls / requests).toFixed(3)} per request, ${(bytes / Math.max(1, calls)).toFixed(0)} bytes each\n`);
        }
      }
    }
  } finally {
    closeClient();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'pairs' && rest.length >= 2) {
  await pairs([rest[0]!, rest[1]!], Number(rest[2] ?? 6), (rest[3] ?? 'transform,rehydrate').split(','));
} else if (mode === 'syscalls' && rest.length >= 1) {
  await syscalls(rest[0]!, rest[1] ?? (rest[0] === ECHO ? 'echo' : 'transform'), Number(rest[2] ?? 4000), Number(rest[3] ?? 16));
} else {
  process.stderr.write('usage: hot-pairs.js pairs <after veil.js> <before veil.js> [pairs] [routes] | syscalls <veil.js|echo> [route] [requests] [connections]\n');
  process.exitCode = 2;
}
