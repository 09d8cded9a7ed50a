// Change stamps for mounted files and directories, and a stable read built on them.
//
// Kubernetes updates a ConfigMap or Secret volume by writing a new `..<timestamp>/` directory
// and atomically renaming a `..data` symlink to point at it; the visible names are symlinks
// through `..data`. A reader that opens several files one by one can straddle that swap and
// mix old and new files. `readStable` therefore stamps the source before and after reading
// (resolved real paths, inode, size, mtime, and where `..data` points) and reads again when the
// two differ, so a reload sees one version of the set or the other, never a mix.
import { readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** One line per entry: name, resolved path, inode, size, mtime. Errors become part of it. */
function entryStamp(path: string, name: string): string {
  try {
    const real = realpathSync(path);
    const stats = statSync(real);
    return `${name}\t${real}\t${stats.ino}\t${stats.size}\t${stats.mtimeMs}`;
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'error';
    return `${name}\t!${code}`;
  }
}

/** Where the Kubernetes `..data` link of `dir` points (empty when there is none). */
function dataLink(dir: string): string {
  try {
    return readlinkSync(join(dir, '..data'));
  } catch {
    return '';
  }
}

/**
 * Stamp of a directory's visible (non-hidden) entries, filtered by `include`, plus its `..data`
 * link. Two equal stamps mean nothing a reader of those entries would see has changed.
 */
export function directoryStamp(dir: string, include: (name: string) => boolean = () => true): string {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((name) => !name.startsWith('.') && include(name))
      .sort();
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'error';
    return `!${code}`;
  }
  return [`..data\t${dataLink(dir)}`, ...names.map((name) => entryStamp(join(dir, name), name))].join('\n');
}

/** Stamp of one file (followed through symlinks). */
export function fileStamp(path: string): string {
  return entryStamp(path, '');
}

/** How often a read is retried when the source changed underneath it. */
export const STABLE_READ_ATTEMPTS = 5;

/**
 * Run `read` until the stamp taken before equals the stamp taken after (at most `attempts`
 * times). Returns the last read and whether it was stable; an unstable read must not be used.
 */
export function readStable<T>(stamp: () => string, read: () => T, attempts = STABLE_READ_ATTEMPTS): { value: T; stable: boolean; stamp: string } {
  let result: T | undefined;
  let before = stamp();
  for (let attempt = 1; ; attempt += 1) {
    result = read();
    const after = stamp();
    if (after === before) return { value: result, stable: true, stamp: after };
    if (attempt >= attempts) return { value: result, stable: false, stamp: after };
    before = after;
  }
}
