// Which records of JSONL corpora the built-in detectors flag with given types: a precision check
// for a new detector on text that holds no such value (ordinary prompts and answers, hard
// negatives). Prints the first flagged records of each file and the count. Usage (BENCHMARKS.md,
// "Session 9 (lead)"), after `npx tsc -b server`:
//   node tools/scan-ab/flags.mjs password,api_key,phone,credit_card,us_ssn data/dev-ordinary-prompts.jsonl ...
import { readFileSync } from 'node:fs';

const { detectAll } = await import(new URL('../../server/dist/domain/detect/index.js', import.meta.url).href);
const [typeList, ...files] = process.argv.slice(2);
if (typeList === undefined || files.length === 0) {
  console.error('usage: node tools/scan-ab/flags.mjs TYPE[,TYPE...] FILE.jsonl...');
  process.exit(2);
}
const types = new Set(typeList.split(','));
for (const file of files) {
  let records = 0;
  let flagged = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const record = JSON.parse(line);
    const text = record.text ?? record.prompt ?? record.answer ?? record.input ?? record.output ?? '';
    records++;
    const found = detectAll(text).filter((d) => types.has(d.type) && d.confidence >= 0.5);
    if (found.length === 0) continue;
    flagged++;
    if (flagged <= 8) console.log(file, JSON.stringify(found.map((d) => [d.type, d.value])), JSON.stringify(text.slice(0, 160)));
  }
  console.log(`${file}: ${records} records, ${flagged} flagged`);
}
