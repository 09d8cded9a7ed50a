// A/B of JSON-mode transform between two builds of the server (dist directories) on ordinary
// JSON: every record of data/*.jsonl (ids, spans, counts, nested entity lists) and every JSON
// file tracked in the repository outside node_modules (the OpenAPI document, schemas, contract
// cases, package manifests). Reports how many documents each build changes at all and how many
// the two builds tokenize differently, with the differing paths (never values) of the first few.
// Used to check that reading adjacent members as one text (server/src/domain/structured/joins.ts)
// and restoring a number's lost leading zeros spare ordinary JSON.
//
//   node tools/json-joins/json-joins-ab.mjs <baseline server/dist> <candidate server/dist>
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_POLICY } from '@veil/common';

const [baselineDist, candidateDist] = process.argv.slice(2).map((dir) => path.resolve(dir));
if (baselineDist === undefined || candidateDist === undefined) {
  console.error('usage: json-joins-ab.mjs <baseline dist> <candidate dist>');
  process.exit(2);
}

async function build(dist) {
  const { detectAll } = await import(path.join(dist, 'domain/detect/index.js'));
  const { CompiledPolicy } = await import(path.join(dist, 'domain/policy/index.js'));
  const { TokenAllocator } = await import(path.join(dist, 'domain/token/index.js'));
  const { tokenizeJsonDocument } = await import(path.join(dist, 'domain/structured/json.js'));
  const { SlotScanner } = await import(path.join(dist, 'domain/structured/slots.js'));
  const policy = new CompiledPolicy(DEFAULT_POLICY);
  return (document) => {
    const scanner = new SlotScanner({ detect: (text) => detectAll(text, { language: 'en' }), policy, context: {}, allocator: new TokenAllocator() });
    return tokenizeJsonDocument(document, scanner).entities;
  };
}

const documents = [];
for (const file of execFileSync('git', ['ls-files', 'data/*.jsonl'], { encoding: 'utf8' }).split('\n').filter(Boolean)) {
  for (const line of readFileSync(file, 'utf8').split('\n')) if (line.trim() !== '') documents.push(JSON.parse(line));
}
const jsonFiles = execFileSync('git', ['ls-files', '*.json'], { encoding: 'utf8' }).split('\n').filter(Boolean);
for (const file of jsonFiles) documents.push(JSON.parse(readFileSync(file, 'utf8')));

// Records carry free text (a `text` member with personal data by design): both builds find that
// alike; what is compared is what each finds, as (path, type) pairs, so only the new reading shows.
const key = (entities) => entities.map((entity) => `${entity.path}|${entity.type}`).join('\n');
const baseline = await build(baselineDist);
const candidate = await build(candidateDist);
let differ = 0;
const samples = [];
for (const document of documents) {
  const a = key(baseline(document));
  const b = key(candidate(document));
  if (a === b) continue;
  differ += 1;
  if (samples.length < 10) {
    const before = new Set(a.split('\n'));
    samples.push(b.split('\n').filter((line) => !before.has(line)));
  }
}
console.log(JSON.stringify({ documents: documents.length, json_files: jsonFiles.length, differ, samples }, null, 1));
