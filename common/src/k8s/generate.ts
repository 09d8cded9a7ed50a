// `npm run crds` / `make crds`: writes crds/*.yaml and charts/veil/crds/*.yaml from the
// schemas in this directory. Run from the repository root (npm does so).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { renderCrdFiles } from './crds.js';

const root = process.cwd();
for (const [path, content] of Object.entries(renderCrdFiles())) {
  const target = resolve(root, path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, content);
  process.stdout.write(`wrote ${path}\n`);
}
