#!/usr/bin/env node
// `npx eslint .` run once per source tree: when this exact tree (every TypeScript file, every
// tracked JSON file, the lint and TypeScript configs, the lock, the Node version) has been linted
// clean on this machine before, the run is skipped; otherwise ESLint runs as always and a clean
// run records the tree's key under ~/.cache/veil/eslint/ (VEIL_LINT_CACHE_DIR overrides it).
//
// Whole-tree keys, not ESLint's own --cache: the rules are type-aware (strict-type-checked), so a
// file's findings depend on the types of the files it imports; ESLint's per-file cache would keep
// an unchanged file's old result after a file it imports changed. The key is path-independent, so
// a clean clone of a commit linted before (in another checkout, or an earlier CI run) reuses it.
// Arguments are passed to ESLint and are part of the key. LINT_ONCE=0 always runs ESLint.
import { spawnSync, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';

const root = process.cwd();
const args = process.argv.slice(2);
const TS = /\.(ts|tsx|mts|cts)$/;
const SKIP_DIRS = new Set(['node_modules', '.git', 'dist']);

function walk(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) walk(join(dir, entry.name), out);
    } else if (entry.isFile() && TS.test(entry.name)) {
      out.push(relative(root, join(dir, entry.name)));
    }
  }
}

function treeKey() {
  let tracked;
  try {
    tracked = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: root, maxBuffer: 64 * 1024 * 1024,
    }).toString().split('\0').filter(Boolean);
  } catch {
    return null; // not a git checkout: no key, ESLint runs
  }
  // Every TypeScript file ESLint or the type program may read (ignored ones too: ESLint does not
  // read .gitignore), the tracked JSON files (resolveJsonModule), the configs and the lock.
  const files = [];
  walk(root, files);
  for (const file of tracked) {
    if (file.endsWith('.json') || /^eslint\..*\.?js$/.test(file) || file === 'package-lock.json') files.push(file);
  }
  const hash = createHash('sha256');
  hash.update(`eslint-once 1\0${process.version}\0${JSON.stringify(args)}\0`);
  for (const file of [...new Set(files)].sort()) {
    if (!existsSync(join(root, file))) continue; // deleted in the working tree
    hash.update(`${file}\0`);
    hash.update(createHash('sha256').update(readFileSync(join(root, file))).digest());
  }
  hash.update(readFileSync(new URL(import.meta.url)));
  return hash.digest('hex').slice(0, 32);
}

const dir = process.env.VEIL_LINT_CACHE_DIR ?? join(homedir(), '.cache', 'veil', 'eslint');
const key = process.env.LINT_ONCE === '0' ? null : treeKey();
const stamp = key ? join(dir, `${key}.clean`) : null;
if (stamp && existsSync(stamp)) {
  console.log(`eslint: this tree (key ${key}) was linted clean before on this machine; skipped (LINT_ONCE=0 runs it)`);
  process.exit(0);
}
const run = spawnSync('npx', ['eslint', ...(args.length ? args : ['.'])], { stdio: 'inherit' });
const status = run.status ?? 1;
// Recorded only when the tree did not change while ESLint ran.
if (status === 0 && stamp && treeKey() === key) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}
process.exit(status);
