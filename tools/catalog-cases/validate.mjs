// Batch front end to the detection validators for tools/catalog-cases/crosscheck.py: reads JSON
// lines {"fn": "nlBsnValid", "value": "..."} on stdin and prints one JSON boolean per line, so a
// Python script can compare our check-digit verdicts with an independent implementation.
import { createInterface } from 'node:readline';
import * as validators from '../../server/src/domain/detect/validators.js';

const table = validators;
const lines = createInterface({ input: process.stdin });
const out = [];
lines.on('line', (line) => {
  if (line.trim() === '') return;
  const { fn, value } = JSON.parse(line);
  const validator = table[fn];
  if (typeof validator !== 'function') throw new Error(`unknown validator ${fn}`);
  out.push(JSON.stringify(validator(value)));
});
lines.on('close', () => {
  process.stdout.write(`${out.join('\n')}\n`);
});
