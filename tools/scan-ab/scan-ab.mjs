// A/B of the built-in scan (server/src/domain/detect/scan.ts) between two builds in one process:
// both builds' `scanBuiltin` and `detectAll` are imported and timed alternately on the same texts
// (1 KB of entities and of prose, the ratio benchmark's 100 KB body, 100 KB and 1 KB of
// data/dev-corpus.jsonl), so machine load hits both alike; microseconds of CPU time per KB. Usage (BENCHMARKS.md,
// "Session 8 (lead)" and "Session 10 (wave9/large)"):
//   git worktree add /tmp/wt-base <rev> && (cd /tmp/wt-base && ln -s /work/main/node_modules && npx tsc -b server)
//   node tools/scan-ab/scan-ab.mjs /tmp/wt-base/server/dist server/dist [rounds]
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [baseDist, newDist, roundsArg] = process.argv.slice(2);
if (baseDist === undefined || newDist === undefined) {
  console.error('usage: node tools/scan-ab/scan-ab.mjs BASE_DIST NEW_DIST [ROUNDS]');
  process.exit(2);
}
const load = async (dist) => ({
  scanBuiltin: (await import(pathToFileURL(resolve(dist, 'domain/detect/scan.js')).href)).scanBuiltin,
  detectAll: (await import(pathToFileURL(resolve(dist, 'domain/detect/index.js')).href)).detectAll,
});
const base = await load(baseDist);
const next = await load(newDist);
const { textWithEntities } = await import(pathToFileURL(resolve(newDist, 'bench/common.js')).href);

// Flat strings, as a parsed request body is (a slice of a longer string reads slower).
const flat = (text) => JSON.parse(JSON.stringify(text));
const devCorpus = readFileSync(resolve(import.meta.dirname, '../../data/dev-corpus.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line).text)
  .join('\n');
const texts = {
  entities: flat(textWithEntities(1024, 180)),
  prose: flat('I wrote to the team yesterday about the release schedule, and they said the build would be ready by Friday. '.repeat(10).slice(0, 1024)),
  // The ratio benchmark's 100 KB body, and 100 KB and 1 KB of the dev corpus (records joined by newlines).
  'benchmark 100 KB': flat(textWithEntities(100 * 1024, 180)),
  'dev corpus 100 KB': flat(devCorpus.slice(0, 100 * 1024)),
  'dev corpus 1 KB': flat(devCorpus.slice(0, 1024)),
};
const rounds = Number(roundsArg ?? 40);
// The main thread's CPU time (Node 24: process.threadCpuUsage), not wall time: on a shared machine
// the time the thread waits for a core is not the scan's.
const cpuMicros = () => {
  const usage = process.threadCpuUsage();
  return usage.user + usage.system;
};
const time = (run, text) => {
  const n = Math.max(5, Math.round(5_000_000 / text.length));
  const start = cpuMicros();
  for (let i = 0; i < n; i++) run(text);
  return (cpuMicros() - start) / n / (text.length / 1024);
};
const summary = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `min ${sorted[0].toFixed(2)} median ${sorted[Math.floor(sorted.length / 2)].toFixed(2)}`;
};
for (const [name, text] of Object.entries(texts)) {
  for (const fn of ['scanBuiltin', 'detectAll']) {
    const a = [];
    const b = [];
    for (let r = 0; r < rounds; r++) {
      a.push(time(base[fn], text));
      b.push(time(next[fn], text));
    }
    console.log(`${name} ${fn} (us per KB): base ${summary(a)} | new ${summary(b)}`);
  }
}
