// A/B of the output guard and of JSON-mode transform between two builds in one process (both
// fed alternately, so machine load hits both alike): the one-shot guard (OutputGuard.guard, the
// default strict/mask settings as services/output-guard.ts builds them) over the 603 ordinary
// answers of data/guard-ordinary.jsonl, the same answers streamed through the stream guard in
// 10-character deltas, and tokenizeJsonDocument over the JSON records of data/dev-corpus.jsonl;
// process CPU time per batch, best and median of ROUNDS.
// Used for BENCHMARKS.md "Restore-side red team" (session 11: the rendered view of the guard,
// joined JSON members).
//   node tools/scan-ab/guard-ab.mjs BASE_DIST NEW_DIST [ROUNDS]
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_POLICY } from '@veil/common';

const [baseDist, newDist, roundsArg] = process.argv.slice(2);
if (baseDist === undefined || newDist === undefined) {
  console.error('usage: node tools/scan-ab/guard-ab.mjs BASE_DIST NEW_DIST [ROUNDS]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 5);
const lines = (name) => readFileSync(new URL(`../../data/${name}`, import.meta.url), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
const answers = lines('guard-ordinary.jsonl').map((record) => record.text);
const records = lines('dev-corpus.jsonl').slice(0, 1000);

async function build(dist) {
  const load = (path) => import(pathToFileURL(resolve(dist, path)).href);
  const { CompiledPolicy } = await load('domain/policy/index.js');
  const { createOutputGuard } = await load('services/output-guard.js');
  const { StreamOutputGuard } = await load('domain/guard/index.js');
  const { StreamRehydrator } = await load('domain/stream/index.js');
  const { findTokensLenient } = await load('domain/repair/index.js');
  const { detectAll } = await load('domain/detect/index.js');
  const { TokenAllocator } = await load('domain/token/index.js');
  const { tokenizeJsonDocument, SlotScanner } = await load('domain/structured/index.js');
  const compiled = new CompiledPolicy(DEFAULT_POLICY);
  const guard = () => createOutputGuard({ mode: 'strict', action: 'mask', exemptTypes: [], defaultRegion: 'US' }, { policy: { compiled, patterns: [] }, language: 'en', caller: {} });
  return {
    oneShot: () => {
      for (const answer of answers) guard().guard(answer);
    },
    streamed: () => {
      for (const answer of answers) {
        const rehydrator = new StreamRehydrator((text) => ({ restoredText: text, tokensResolved: 0, tokensUnresolved: [] }), { guard: new StreamOutputGuard(guard(), findTokensLenient) });
        for (let index = 0; index < answer.length; index += 10) rehydrator.push(answer.slice(index, index + 10));
        rehydrator.end();
      }
    },
    json: () => {
      for (const record of records) {
        const scanner = new SlotScanner({ detect: (text) => detectAll(text, { language: 'en' }), policy: compiled, context: {}, allocator: new TokenAllocator() });
        tokenizeJsonDocument(record, scanner);
      }
    },
  };
}

const base = await build(baseDist);
const candidate = await build(newDist);
// CPU time of this process (user + system), not wall time: on a shared machine a batch waits for
// the CPU, and the wait is not the code's cost.
const time = (run) => {
  const started = process.cpuUsage();
  run();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
};
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
for (const [name, unit, count] of [
  ['one-shot guard, 603 ordinary answers', 'µs/answer', answers.length],
  ['stream guard, 10-character deltas, 603 answers', 'µs/answer', answers.length],
  ['JSON-mode transform, 1000 dev-corpus records', 'µs/record', records.length],
]) {
  const key = name.startsWith('one') ? 'oneShot' : name.startsWith('stream') ? 'streamed' : 'json';
  const times = { base: [], new: [] };
  for (let round = 0; round < rounds; round += 1) {
    times.base.push(time(base[key]));
    times.new.push(time(candidate[key]));
  }
  const show = (list) => `${((Math.min(...list) * 1000) / count).toFixed(1)} (median ${((median(list) * 1000) / count).toFixed(1)})`;
  console.log(`${name}, ${unit} best (median): base ${show(times.base)}, new ${show(times.new)}`);
}
