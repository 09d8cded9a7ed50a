// A/B of the URL/markup scanner (server/src/domain/restore/markup-context.ts) between two builds
// in one process: both MarkupContexts are fed alternately the same texts, so machine load hits
// both alike. Texts: the ordinary assistant answers of data/guard-ordinary.jsonl as they are
// (a few backslashes), the same without any backslash, and the same serialized as one JSON
// string (an escape every line: the worst case of the escape-decoding view). Usage
// (BENCHMARKS.md, "Session 10 (wave9/red)"). Last, the whole restore pass (rehydrateText) of a
// 1 KB answer with 10 tokens, which feeds the scanner the text around each token.
//   git worktree add /tmp/wt-base <rev> && (cd /tmp/wt-base && ln -s /work/main/node_modules && npx tsc -b server)
//   node tools/scan-ab/markup-ab.mjs /tmp/wt-base/server/dist server/dist [rounds]
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [baseDist, newDist, roundsArg] = process.argv.slice(2);
if (baseDist === undefined || newDist === undefined) {
  console.error('usage: node tools/scan-ab/markup-ab.mjs BASE_DIST NEW_DIST [ROUNDS]');
  process.exit(2);
}
const load = async (dist) => (await import(pathToFileURL(resolve(dist, 'domain/restore/markup-context.js')).href)).MarkupContext;
const Base = await load(baseDist);
const New = await load(newDist);
const answers = readFileSync(new URL('../../data/guard-ordinary.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line).text);
const text = answers.join('\n');
const texts = { 'answers as written': text, 'answers, no backslash': text.replaceAll('\\', ''), 'answers as one JSON string': JSON.stringify(answers) };
const rounds = Number(roundsArg ?? 30);
const feed = (Context, value) => {
  const started = performance.now();
  new Context().feed(value);
  return performance.now() - started;
};
for (const [name, value] of Object.entries(texts)) {
  const times = { base: [], new: [] };
  for (let round = 0; round < rounds; round += 1) {
    times.base.push(feed(Base, value));
    times.new.push(feed(New, value));
  }
  const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const kb = value.length / 1024;
  console.log(`${name} (${kb.toFixed(0)} KB): base ${((median(times.base) * 1000) / kb).toFixed(1)} µs/KB, new ${((median(times.new) * 1000) / kb).toFixed(1)} µs/KB`);
}

// rehydrateText of 1 KB with 10 tokens (the restore pass around the scanner).
const { DEFAULT_POLICY } = await import('@veil/common');
const pass = async (dist) => {
  const { rehydrateText, indexEntries } = await import(pathToFileURL(resolve(dist, 'domain/rehydrate.js')).href);
  const { CompiledPolicy } = await import(pathToFileURL(resolve(dist, 'domain/policy/index.js')).href);
  const { findTokensLenient } = await import(pathToFileURL(resolve(dist, 'domain/repair/index.js')).href);
  const policy = new CompiledPolicy(DEFAULT_POLICY);
  const entries = indexEntries([{ id: 'e_001', type: 'email', cap: '0123456789ab', value: 'jane@example.com', mode: 'full' }]);
  let output = '';
  while (output.length < 1024) output += 'Sure, I wrote to {{email:e_001:0123456789ab}} about the notes at docs.example.org/v2 and the meeting. ';
  return () => rehydrateText({ output, entries, policy, language: 'en', caller: {}, channel: 'user_output', scan: findTokensLenient });
};
const basePass = await pass(baseDist);
const newPass = await pass(newDist);
const batch = (run) => {
  const started = performance.now();
  for (let k = 0; k < 200; k += 1) run();
  return ((performance.now() - started) / 200) * 1000;
};
const passes = { base: [], new: [] };
for (let round = 0; round < rounds; round += 1) {
  passes.base.push(batch(basePass));
  passes.new.push(batch(newPass));
}
const middle = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
console.log(`rehydrateText, 1 KB with 10 tokens: base ${middle(passes.base).toFixed(1)} µs, new ${middle(passes.new).toFixed(1)} µs`);
