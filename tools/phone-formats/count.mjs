// In-process A/B of phone recall and false positives per class (session 17, wave16/phone): loads
// `detectAll` from two builds' server/dist and counts, per record of generate.py or
// non_phones.py output, whether a `phone` entity at 0.5 covers the number with IoU >= 0.5
// (measure.mjs's rule, without a server). For generate.py records a hit is a find; for
// non_phones.py records (frame `negative`) a hit is a false positive. Prints the classes that
// differ between the builds and, with --show N, N records that changed.
// Usage: node tools/phone-formats/count.mjs BASE_DIST NEW_DIST FILE.jsonl [--show 20] [--key class|source]
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [baseDist, newDist, file, ...rest] = process.argv.slice(2);
if (baseDist === undefined || newDist === undefined || file === undefined) {
  console.error('usage: node tools/phone-formats/count.mjs BASE_DIST NEW_DIST FILE.jsonl [--show N] [--key class|source]');
  process.exit(2);
}
const option = (name, fallback) => {
  const at = rest.indexOf(name);
  return at >= 0 ? rest[at + 1] : fallback;
};
const show = Number(option('--show', '0'));
const keyName = option('--key', 'class');
const load = async (dist) => (await import(pathToFileURL(resolve(dist, 'domain/detect/index.js')).href)).detectAll;
const builds = [await load(baseDist), await load(newDist)];
const records = readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line));
const utf16 = (text, codePoint) => [...text].slice(0, codePoint).join('').length;

function hit(detectAll, record) {
  const start = utf16(record.text, record.start);
  const end = utf16(record.text, record.end);
  return detectAll(record.text).some((entity) => {
    if (entity.type !== 'phone' || entity.confidence < 0.5) return false;
    const overlap = Math.min(end, entity.end) - Math.max(start, entity.start);
    const union = Math.max(end, entity.end) - Math.min(start, entity.start);
    return overlap > 0 && overlap / union >= 0.5;
  });
}

const groups = new Map();
const changed = [];
const totals = { base: 0, new: 0, n: 0 };
for (const record of records) {
  const [a, b] = builds.map((detectAll) => hit(detectAll, record));
  const key = `${record[keyName] ?? record.class}/${record.frame}`;
  const group = groups.get(key) ?? { n: 0, base: 0, new: 0 };
  group.n += 1;
  group.base += Number(a);
  group.new += Number(b);
  groups.set(key, group);
  totals.n += 1;
  totals.base += Number(a);
  totals.new += Number(b);
  if (a !== b) changed.push(`${a ? '-' : '+'} ${key} ${JSON.stringify(record.text)}`);
}
const negative = records.every((record) => record.frame === 'negative');
console.log(`${file}: ${totals.n} records, ${negative ? 'false positives' : 'found'} base ${totals.base} -> new ${totals.new}; ${changed.length} records changed`);
const perFrame = new Map();
for (const [key, group] of groups) {
  const frame = key.slice(key.lastIndexOf('/') + 1);
  const sum = perFrame.get(frame) ?? { n: 0, base: 0, new: 0 };
  sum.n += group.n;
  sum.base += group.base;
  sum.new += group.new;
  perFrame.set(frame, sum);
}
for (const [frame, sum] of perFrame) console.log(`  frame ${frame.padEnd(10)} ${sum.base} -> ${sum.new} of ${sum.n}`);
for (const [key, group] of [...groups].sort((x, y) => x[0].localeCompare(y[0]))) {
  if (group.base !== group.new || rest.includes('--all')) console.log(`  ${key.padEnd(40)} ${group.base} -> ${group.new} of ${group.n}`);
}
for (const line of changed.slice(0, show)) console.log(`  ${line}`);
