// A/B of the URL/markup scanner (server/src/domain/restore/markup-context.ts) between two builds
// in one process: both MarkupContexts are fed alternately the same texts, so machine load hits
// both alike. Texts: the ordinary assistant answers of data/guard-ordinary.jsonl as they are
// (a few backslashes), the same without any backslash, and the same serialized as one JSON
// string (an escape every line: the worst case of the escape-decoding view). Usage
// (BENCHMARKS.md, "Session 10 (wave9/red)"):
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
