// Where one 1 KB transform or rehydrate spends its CPU, by stage (issue 20): runs `veil serve`
// (default configuration) pinned to core 0 under `--cpu-prof`, loads one route with autocannon
// from core 1 (16 connections), and splits the profile's busy samples of the measured window
// into stages. Each sample goes to the innermost frame on its stack that names a stage (so the
// socket write under the audit hook counts as the write, the cipher under the seal as the seal);
// Node's own frames pass through to the caller, and a stack of Node frames alone is Node's HTTP.
// Also prints the server CPU per request of the run and the functions with the most self time.
//
//   node server/dist/bench/hot-stages.js run transform|rehydrate|transform-100k [warm-up s] [measured s]
//
// `transform-100k` is the ratio benchmark's 100 KB body (bench/ratios.ts largeRatio) sent by one
// connection, one request at a time, as that row measures it.
//   node server/dist/bench/hot-stages.js analyse <file.cpuprofile> [from] [to]   (fractions of the run)
//
// VEIL_BENCH_BIN measures another build; VEIL_BENCH_KEEP_PROFILE=1 keeps the .cpuprofile (bench/common.ts). Run it in a raised scheduling group
// on a shared machine (BENCHMARKS.md "Reading the figures").
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeClient, cpuSeconds, hasTaskset, send, servingPid, spawnServer, textWithEntities, throughput, VEIL_BIN, type Target } from './common.js';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Stages in the order a frame is tested against them (the first that matches names the frame's stage). */
const STAGES: readonly (readonly [string, RegExp])[] = [
  ['GC', /^\(garbage collector\)/],
  ['reply: socket write and Node HTTP out', /^(?:end node:_http_outgoing|_storeHeader |writeHead |setHeader node|writePayload )/],
  ['Fastify response serialization', /^serialize .*fastify|fast-json-stringify/],
  ['body parse (read, structure check, JSON.parse)', /plugins\/json\.js|content-type-parser|secure-json-parse|json-depth/],
  ['prompt guard pass', /prompt-security|guard\/prompt\.js/],
  ['identifying pass (dropNonIdentifying)', /detect\/identifying\.js/],
  ['detection scan (detectAll)', /^detectAll |domain\/detect\//],
  ['policy decisions and tokens', /^tokenizeText |domain\/token\/|domain\/policy\//],
  ['seal / open (JSON, AES-GCM, base64)', /^sealSession |^openSession |domain\/seal\//],
  ['output guard', /services\/output-guard|domain\/guard\//],
  ['revocation digests', /services\/revocation/],
  ['restore', /services\/rehydrate|domain\/rehydrate|domain\/restore|domain\/repair/],
  ['use case, route and response glue', /services\/|usecases\/|routes\/|domain\//],
  ['audit event, log line, sink', /server\/dist\/audit\/|plugins\/audit\.js|server\/dist\/logging\.js|sonic-boom|pino|iso-time/],
  ['metrics', /server\/dist\/metrics\/|prom-client/],
  ['auth and CORS', /plugins\/auth\.js|server\/dist\/auth\/|@fastify\/cors/],
  ['other plugins (admission, idempotency, connections)', /plugins\//],
  ['Fastify routing, hooks, validation', /node_modules\/fastify\/|find-my-way|avvio/],
];
const NODE_HTTP = 'Node HTTP in (parser, streams, events, timers)';
const UNATTRIBUTED = 'other (native frames without a caller above)';

/**
 * The modules of a bundle (scripts/bundle.mjs, esbuild): the line each starts at and its path, from
 * the `// <path>` line esbuild writes before each module. Empty when the file cannot be read.
 */
const bundles = new Map<string, { readonly lines: number[]; readonly paths: string[] }>();

function bundleModules(url: string): { readonly lines: number[]; readonly paths: string[] } {
  let modules = bundles.get(url);
  if (modules === undefined) {
    modules = { lines: [], paths: [] };
    try {
      readFileSync(fileURLToPath(url), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          const marker = /^\/\/ (\S+\.[cm]?js)$/.exec(line);
          if (marker !== null) {
            modules!.lines.push(index);
            modules!.paths.push(marker[1]!);
          }
        });
    } catch {
      // Not readable here (a profile from elsewhere): frames keep the bundle's name.
    }
    bundles.set(url, modules);
  }
  return modules;
}

/** A frame's source path: for a bundle's frame, the module it came from, so the stages' patterns apply. */
function sourceOf(node: ProfileNode): string {
  const url = node.callFrame.url;
  if (!/\/dist\/bundle\/[^/]+\.js$/.test(url)) return url;
  const { lines, paths } = bundleModules(url);
  let low = 0;
  let high = lines.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (lines[middle]! <= node.callFrame.lineNumber) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found < 0 ? url : `file:///${paths[found]!}`;
}

function frameKey(node: ProfileNode): string {
  const url = sourceOf(node)
    .replace(/^file:\/\/.*?\/(?:server|common)\/dist\//, 'server/dist/')
    .replace(/^file:\/\/.*\/node_modules\//, 'node_modules/');
  return `${node.callFrame.functionName || '(anonymous)'} ${url}:${node.callFrame.lineNumber}`;
}

/** Stage shares and top self-time frames of the busy samples between fractions `from` and `to` of the run. */
export function analyse(profile: CpuProfile, from: number, to: number): { busy: number; stages: [string, number][]; self: [string, number][] } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const start = profile.startTime + (profile.endTime - profile.startTime) * from;
  const end = profile.startTime + (profile.endTime - profile.startTime) * to;
  const stages = new Map<string, number>();
  const self = new Map<string, number>();
  let busy = 0;
  let time = profile.startTime;
  profile.samples.forEach((id, index) => {
    time += profile.timeDeltas[index] ?? 0;
    if (time < start || time > end) return;
    const leaf = byId.get(id);
    if (leaf === undefined || leaf.callFrame.functionName === '(idle)' || leaf.callFrame.functionName === '(program)') return;
    busy += 1;
    self.set(frameKey(leaf), (self.get(frameKey(leaf)) ?? 0) + 1);
    let stage: string | undefined;
    let sawNode = false;
    for (let current: number | undefined = leaf.id; current !== undefined && stage === undefined; current = parent.get(current)) {
      const node = byId.get(current)!;
      const key = frameKey(node);
      stage = STAGES.find(([, pattern]) => pattern.test(key))?.[0];
      if (node.callFrame.url.startsWith('node:')) sawNode = true;
    }
    stage ??= sawNode ? NODE_HTTP : UNATTRIBUTED;
    stages.set(stage, (stages.get(stage) ?? 0) + 1);
  });
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);
  return { busy, stages: sorted(stages), self: sorted(self).slice(0, 25) };
}

function print(result: ReturnType<typeof analyse>): void {
  const share = (count: number) => `${((100 * count) / result.busy).toFixed(1).padStart(5)} %`;
  process.stdout.write(`busy samples: ${result.busy}\n\n| stage | share of busy samples |\n|---|---|\n`);
  for (const [stage, count] of result.stages) process.stdout.write(`| ${stage} | ${share(count)} |\n`);
  process.stdout.write('\nmost self time:\n');
  for (const [frame, count] of result.self) process.stdout.write(`${share(count)}  ${frame}\n`);
}

type Route = 'transform' | 'rehydrate' | 'transform-100k';

async function run(route: Route, warmSeconds: number, seconds: number): Promise<void> {
  if (hasTaskset) spawnSync('taskset', ['-cp', '1', String(process.pid)]);
  const dir = mkdtempSync(join(tmpdir(), 'veil-stages-'));
  const env = { VEIL_SESSION_SECRET: '3c'.repeat(32), NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir} --cpu-prof-interval=200` };
  const server = await spawnServer([VEIL_BIN, 'serve', '--host', '127.0.0.1', '--port', '0'], env, 0);
  try {
    const pid = servingPid(server.pid);
    const transform: Target = { method: 'POST', path: '/v1/transform', body: JSON.stringify({ input: textWithEntities(route === 'transform-100k' ? 100 * 1024 : 1024, 180) }) };
    const connections = route === 'transform-100k' ? 1 : 16;
    let target = transform;
    if (route === 'rehydrate') {
      const answer = JSON.parse((await send(server.url, 'POST', '/v1/transform', transform.body)).text) as { safe_text: string; session_state: string };
      target = { method: 'POST', path: '/v1/rehydrate', body: JSON.stringify({ output: answer.safe_text, session_state: answer.session_state }) };
    }
    await throughput(server.url, target, connections, warmSeconds);
    const before = cpuSeconds(pid);
    const measured = await throughput(server.url, target, connections, seconds);
    const after = cpuSeconds(pid);
    closeClient();
    if (before !== undefined && after !== undefined) {
      process.stdout.write(`${route}: ${measured.rps.toFixed(0)} req/s, server CPU ${(((after - before) / (measured.rps * seconds)) * 1e6).toFixed(0)} µs per request (${measured.errors} errors)\n`);
    }
    // SIGINT: the server shuts down normally, so V8 writes the profile.
    process.kill(pid, 'SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 1500));
  } finally {
    await server.stop();
  }
  // A plain `veil serve` replaces itself with the image's process settings (cli/serve-exec.ts): the
  // first process writes a short profile of its start too. The server's is the largest.
  const file = readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .sort((a, b) => statSync(join(dir, b)).size - statSync(join(dir, a)).size)[0];
  if (file === undefined) throw new Error(`no profile written in ${dir}`);
  const total = warmSeconds + seconds;
  // The measured window, less its last half second.
  print(analyse(JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile, warmSeconds / total, (total - 0.5) / total));
  // VEIL_BENCH_KEEP_PROFILE=1 keeps the profile for `analyse` or DevTools.
  if (process.env.VEIL_BENCH_KEEP_PROFILE === '1') process.stdout.write(`\nprofile kept: ${join(dir, file)}\n`);
  else rmSync(dir, { recursive: true, force: true });
}

const [mode, first, second, third] = process.argv.slice(2);
if (mode === 'analyse' && first !== undefined) {
  print(analyse(JSON.parse(readFileSync(first, 'utf8')) as CpuProfile, Number(second ?? 0.45), Number(third ?? 0.97)));
} else if (mode === 'run' && (first === 'transform' || first === 'rehydrate' || first === 'transform-100k')) {
  await run(first, Number(second ?? 6), Number(third ?? 8));
} else {
  process.stderr.write('usage: hot-stages.js run transform|rehydrate|transform-100k [warm-up s] [measured s] | analyse <file.cpuprofile> [from] [to]\n');
  process.exitCode = 2;
}
