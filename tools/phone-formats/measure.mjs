// Phone recall per format class through the real server: starts `veil serve` of ROOT (a checkout
// with server/dist built; regex detectors, as `make run` with NER=0) on a free port, sends every
// record of generate.py's JSONL to POST /v1/batch/detect, and counts a number found when a
// `phone` entity at the default threshold (0.5) covers it with IoU >= 0.5 (eval_detect.py's rule).
// Prints recall per en_US format, per source family and per frame (word / bare), the worst
// locales, and with --misses N the first N missed records.
// Usage: node tools/phone-formats/measure.mjs ROOT /tmp/pf.jsonl [--misses 40] [--class us:]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const [root, file, ...rest] = process.argv.slice(2);
if (root === undefined || file === undefined) {
  console.error('usage: node tools/phone-formats/measure.mjs ROOT FILE.jsonl [--misses N] [--class PREFIX]');
  process.exit(2);
}
const option = (name, fallback) => {
  const at = rest.indexOf(name);
  return at >= 0 ? rest[at + 1] : fallback;
};
const showMisses = Number(option('--misses', '0'));
const classPrefix = option('--class', '');
const records = readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line))
  .filter((record) => record.class.startsWith(classPrefix));

const child = spawn(process.execPath, [resolve(root, 'server/bin/veil.js'), 'serve', '--host', '127.0.0.1', '--port', '0'], {
  cwd: root,
  env: { PATH: process.env.PATH ?? '', VEIL_LOG_FORMAT: 'json', VEIL_SERVER__WORKERS: '1', VEIL_MAX_BATCH_SIZE: '100' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let stderr = '';
child.stderr.on('data', (chunk) => { stderr += chunk; });
const url = await new Promise((resolveUrl, reject) => {
  let buffered = '';
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.includes('veil server listening')) resolveUrl(JSON.parse(line).url);
  });
  child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
});

/** Code-point offsets to UTF-16 (the server's spans are UTF-16 indices into the JSON string). */
const utf16 = (text, codePoint) => [...text].slice(0, codePoint).join('').length;

const found = [];
try {
  for (let at = 0; at < records.length; at += 100) {
    const chunk = records.slice(at, at + 100);
    const response = await fetch(`${url}/v1/batch/detect`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: chunk.map((record) => ({ text: record.text })), include_values: false }),
    });
    const body = await response.json();
    if (response.status !== 200) throw new Error(`batch answered ${response.status}: ${JSON.stringify(body)}`);
    for (const result of body.results) {
      const record = chunk[result.index];
      const start = utf16(record.text, record.start);
      const end = utf16(record.text, record.end);
      const hit = result.entities.some((entity) => {
        if (entity.type !== 'phone' || entity.confidence < 0.5) return false;
        const overlap = Math.min(end, entity.span.end) - Math.max(start, entity.span.start);
        const union = Math.max(end, entity.span.end) - Math.min(start, entity.span.start);
        return overlap > 0 && overlap / union >= 0.5;
      });
      found.push({ record, hit, other: result.entities.filter((entity) => entity.type !== 'phone').map((entity) => entity.type) });
    }
  }
} finally {
  child.kill('SIGTERM');
}

function table(title, keyOf, { worst = Infinity, minimum = 1 } = {}) {
  const groups = new Map();
  for (const item of found) {
    const key = keyOf(item.record);
    const group = groups.get(key) ?? { total: 0, hits: 0 };
    group.total += 1;
    if (item.hit) group.hits += 1;
    groups.set(key, group);
  }
  let rows = [...groups.entries()].filter(([, group]) => group.total >= minimum);
  if (Number.isFinite(worst)) rows = rows.sort((a, b) => a[1].hits / a[1].total - b[1].hits / b[1].total).slice(0, worst);
  else rows.sort((a, b) => a[0].localeCompare(b[0]));
  console.log(`\n${title}`);
  for (const [key, group] of rows) console.log(`  ${key.padEnd(34)} ${String(group.hits).padStart(4)}/${String(group.total).padEnd(4)} ${(group.hits / group.total).toFixed(3)}`);
}

const hits = found.filter((item) => item.hit).length;
console.log(`records ${found.length}, phones found ${hits} (recall ${(hits / found.length).toFixed(3)})`);
table('per frame', (record) => record.frame);
table('per source', (record) => `${record.source}/${record.frame}`);
table('en_US formats (word / bare)', (record) => (record.locale === 'en_US' && record.source === 'en_US.formats' ? `${record.class} ${record.frame}` : '(other)'));
table('worst locales, phone_number() (word + bare)', (record) => (record.source === 'phone_number' ? record.locale : '(other)'), { worst: 30 });
if (showMisses > 0) {
  console.log('\nmisses');
  for (const item of found.filter((entry) => !entry.hit).slice(0, showMisses)) {
    console.log(`  ${item.record.class} ${item.record.frame} ${JSON.stringify(item.record.text)}${item.other.length > 0 ? ` (as ${item.other.join(',')})` : ''}`);
  }
}
