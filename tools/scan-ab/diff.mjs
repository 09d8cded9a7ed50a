// Per-record diff of detections between two builds: every record of the given JSONL corpora
// (its `text`, `prompt`, `answer`, `input` or `output`), or every paragraph of the given plain
// text files, through both builds' `detectAll` (threshold 0.5); prints each record whose
// detections differ (type and span, before and after) and a count per file. The precision check
// of a detection change on text it should not change. It prints records: never run it on the
// held-out test corpus (data/heldout-presidio-synth.jsonl), which it refuses. Usage
// (BENCHMARKS.md, "Session 11 (wave10/evade)"), after `npx tsc -b server` in both trees:
//   node tools/scan-ab/diff.mjs /tmp/wt-base/server/dist server/dist data/hard-negatives.jsonl ...
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [baseDist, newDist, ...files] = process.argv.slice(2);
if (baseDist === undefined || newDist === undefined || files.length === 0) {
  console.error('usage: node tools/scan-ab/diff.mjs BASE_DIST NEW_DIST FILE...');
  process.exit(2);
}
const load = async (dist) => (await import(pathToFileURL(resolve(dist, 'domain/detect/index.js')).href)).detectAll;
const before = await load(baseDist);
const after = await load(newDist);
const show = (detections) => detections.filter((d) => d.confidence >= 0.5).map((d) => `${d.type}[${d.start},${d.end}]${JSON.stringify(d.value)}`);
/** Records printed per file (DIFF_SHOW, default 20). */
const SHOW = Number(process.env.DIFF_SHOW ?? 20);
let total = 0;
for (const file of files) {
  if (basename(file).startsWith('heldout-presidio-synth')) {
    console.error(`${file}: refused (held-out test records are never printed)`);
    continue;
  }
  const content = readFileSync(file, 'utf8');
  const texts = file.endsWith('.jsonl')
    ? content.split('\n').filter((line) => line.trim() !== '').map((line) => {
        const record = JSON.parse(line);
        return record.text ?? record.prompt ?? record.answer ?? record.input ?? record.output ?? '';
      })
    : content.split(/\n\s*\n/);
  let changed = 0;
  for (const text of texts) {
    if (typeof text !== 'string' || text === '') continue;
    const a = show(before(text));
    const b = show(after(text));
    if (a.join('\u0000') === b.join('\u0000')) continue;
    changed++;
    if (changed <= SHOW) console.log(`${file}\n  text   ${JSON.stringify(text.slice(0, 300))}\n  before ${a.join(' ')}\n  after  ${b.join(' ')}`);
  }
  total += changed;
  console.log(`${file}: ${texts.length} records, ${changed} changed`);
}
console.log(`total changed: ${total}`);
