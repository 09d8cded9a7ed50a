// Reading the repository's Markdown for the docs test (e2e/docs.e2e.test.ts): fenced blocks with
// the `<!-- doc-test: ... -->` markers written right before them, the relative links and the
// repository paths a document mentions, and the JSON values a command printed.
//
// Markers (one HTML comment per line, directly above the fence; blank lines may separate them):
//   <!-- doc-test: skip: <reason> -->          the block is not run here; the reason is required
//   <!-- doc-test: server -->                  the block starts a server: run in the background on
//                                              a free VEIL_PORT until it answers /livez; later
//                                              blocks of the document talk to it
//   <!-- doc-test: server: restart -->         the same, then stopped and started once more
//                                              (what it keeps on disk must let it start again)
//   <!-- doc-test: stop-server -->             stop that server before running this block
//   <!-- doc-test: file: <name> -->            (on any block) write its text to <name> first
//   <!-- doc-test: expect: <path> <op> <json> -->  on the last JSON value printed (`[n].path` for
//                                              the n-th, from 0; negative from the end); op `=`
//                                              (equal), `~` (regex, unquoted), `contains`, `exists`
//   <!-- doc-test: expect-stdout: <regex> -->  on the whole standard output (multiline: ^ and $
//                                              hold at each line)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export type Marker =
  | { readonly kind: 'skip'; readonly reason: string }
  | { readonly kind: 'server'; readonly restart: boolean }
  | { readonly kind: 'stop-server' }
  | { readonly kind: 'file'; readonly name: string }
  | { readonly kind: 'expect'; readonly path: string; readonly op: '=' | '~' | 'contains' | 'exists'; readonly value: string }
  | { readonly kind: 'expect-stdout'; readonly pattern: string };

export interface Block {
  /** Repository-relative Markdown file. */
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The fence's info string's first word (`sh`, `yaml`, or ''). */
  readonly lang: string;
  readonly code: string;
  readonly markers: readonly Marker[];
}

const MARKER = /^<!--\s*doc-test:\s*(.*?)\s*-->$/;
const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/;

function parseMarker(text: string, where: string): Marker {
  const [head, ...rest] = text.split(':');
  const argument = rest.join(':').trim();
  switch (head!.trim()) {
    case 'skip':
      if (argument === '') throw new Error(`${where}: doc-test skip needs a reason (skip: <reason>)`);
      return { kind: 'skip', reason: argument };
    case 'server':
      if (argument !== '' && argument !== 'restart') throw new Error(`${where}: doc-test server takes only "restart"`);
      return { kind: 'server', restart: argument === 'restart' };
    case 'stop-server':
      return { kind: 'stop-server' };
    case 'file':
      if (!/^[A-Za-z0-9._-]+$/.test(argument)) throw new Error(`${where}: doc-test file needs a plain file name`);
      return { kind: 'file', name: argument };
    case 'expect': {
      const match = /^(\S+)\s+(=|~|contains|exists)\s*(.*)$/.exec(argument);
      if (match === null) throw new Error(`${where}: doc-test expect is "<path> <= | ~ | contains | exists> <value>"`);
      return { kind: 'expect', path: match[1]!, op: match[2] as '=' | '~' | 'contains' | 'exists', value: match[3]! };
    }
    case 'expect-stdout':
      if (argument === '') throw new Error(`${where}: doc-test expect-stdout needs a pattern`);
      return { kind: 'expect-stdout', pattern: argument };
    default:
      throw new Error(`${where}: unknown doc-test marker "${text}"`);
  }
}

/** Every fenced block of `text`, with the markers above it. A marker above no block is an error. */
export function fencedBlocks(text: string, file: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  let pending: { marker: Marker; line: number }[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    const marker = MARKER.exec(line.trim());
    if (marker !== null) {
      pending.push({ marker: parseMarker(marker[1]!, `${file}:${index + 1}`), line: index + 1 });
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence === null) {
      if (line.trim() !== '' && pending.length > 0) throw new Error(`${file}:${pending[0]!.line}: a doc-test marker must sit right above a fenced block`);
      continue;
    }
    const [, indent, ticks, lang] = fence;
    const body: string[] = [];
    let end = index + 1;
    for (; end < lines.length; end += 1) {
      const closing = lines[end]!;
      if (closing.trimStart().startsWith(ticks!) && closing.trim().replace(/[`~]/g, '') === '') break;
      body.push(closing.startsWith(indent!) ? closing.slice(indent!.length) : closing);
    }
    blocks.push({ file, line: index + 1, lang: lang ?? '', code: `${body.join('\n')}\n`, markers: pending.map((entry) => entry.marker) });
    pending = [];
    index = end;
  }
  if (pending.length > 0) throw new Error(`${file}:${pending[0]!.line}: a doc-test marker must sit right above a fenced block`);
  return blocks;
}

/** Shell blocks: what the docs test runs. */
export function isShell(block: Block): boolean {
  return ['sh', 'bash', 'shell'].includes(block.lang);
}

/** Directories never walked for Markdown (dependencies, build output, local environments). */
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', '.cache', '.venv', '.venv-presidio', '.pytest_cache', '.ruff_cache']);

/** Every Markdown file of the repository, relative to `root`, sorted. */
export function markdownFiles(root: string, dir = root): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) found.push(...markdownFiles(root, join(dir, entry.name)));
    } else if (entry.isFile() && entry.name.endsWith('.md')) {
      found.push(relative(root, join(dir, entry.name)));
    }
  }
  return found.sort();
}

/** Markdown text with fenced blocks blanked (links and paths inside code blocks are not prose). */
function prose(text: string): string {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const opening = FENCE.exec(line);
    if (fence === undefined && opening !== null) {
      fence = opening[2];
      out.push('');
    } else if (fence !== undefined) {
      if (line.trimStart().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') fence = undefined;
      out.push('');
    } else out.push(line);
  }
  return out.join('\n');
}

export interface Mention {
  readonly line: number;
  readonly target: string;
}

/** `[text](target)` links that are not URLs or in-page anchors (images included). */
export function relativeLinks(text: string): Mention[] {
  const mentions: Mention[] = [];
  prose(text)
    .split('\n')
    .forEach((line, index) => {
      for (const match of line.matchAll(/\]\(([^()\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = match[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
        mentions.push({ line: index + 1, target });
      }
    });
  return mentions;
}

/** Extensions that mark an inline-code span as a file path. */
const FILE_EXTENSIONS = /\.(?:ts|mts|js|mjs|cjs|md|py|ya?ml|json|jsonl|sh|toml|lock|txt|tpl|cfg|ini)$/;

/**
 * Inline-code spans that name a file or directory of the repository: a relative path (with a
 * `/`) that starts with a top-level entry of the repository or ends in a source or data file
 * extension. Placeholders (`<...>`), globs' wildcard tails, URLs, absolute paths and option
 * values are left out by the caller's rules below.
 */
export function mentionedPaths(text: string, topLevel: ReadonlySet<string>): Mention[] {
  const mentions: Mention[] = [];
  prose(text)
    .split('\n')
    .forEach((line, index) => {
      for (const match of line.matchAll(/`([^`\s]+)`/g)) {
        const raw = match[1]!.replace(/[.,:;]$/, '');
        if (!raw.includes('/') || raw.includes('://') || raw.startsWith('/') || raw.startsWith('~') || /[<>{}$=@|]/.test(raw)) continue;
        const path = raw.replace(/^\.\//, '').replace(/#.*$/, '').replace(/:\d+$/, '');
        const first = path.split('/')[0]!;
        if (!topLevel.has(first) && !FILE_EXTENSIONS.test(path) && first !== '..') continue;
        mentions.push({ line: index + 1, target: path });
      }
    });
  return mentions;
}

/** GitHub's heading anchors of a Markdown text. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(text).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading === null) continue;
    const slug = heading[1]!
      .toLowerCase()
      .replace(/`/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Every top-level JSON object or array printed in `output`, in order (other text skipped). */
export function jsonValues(output: string): unknown[] {
  const values: unknown[] = [];
  let index = 0;
  while (index < output.length) {
    const char = output[index];
    if (char !== '{' && char !== '[') {
      index += 1;
      continue;
    }
    let depth = 0;
    let inString = false;
    let end = index;
    for (; end < output.length; end += 1) {
      const current = output[end];
      if (inString) {
        if (current === '\\') end += 1;
        else if (current === '"') inString = false;
      } else if (current === '"') inString = true;
      else if (current === '{' || current === '[') depth += 1;
      else if (current === '}' || current === ']') {
        depth -= 1;
        if (depth === 0) break;
      }
    }
    try {
      values.push(JSON.parse(output.slice(index, end + 1)));
      index = end + 1;
    } catch {
      index += 1;
    }
  }
  return values;
}

/** The value at `path` (`a.b.0.c`, optionally `[n].` first to pick the n-th JSON value). */
export function valueAt(values: readonly unknown[], path: string): { found: boolean; value: unknown } {
  const picked = /^\[(-?\d+)\]\.?(.*)$/.exec(path);
  const position = picked === null ? -1 : Number(picked[1]);
  let current: unknown = values.at(position);
  if (current === undefined) return { found: false, value: undefined };
  const rest = picked === null ? path : picked[2]!;
  for (const segment of rest === '' ? [] : rest.split('.')) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) return { found: false, value: undefined };
    current = (current as Record<string, unknown>)[segment];
  }
  return { found: true, value: current };
}

/** True when `path` (repository-relative, possibly with a `*` glob in its last parts) exists. */
export function repoPathExists(root: string, path: string): boolean {
  const wildcard = path.search(/[*?[]/);
  const fixed = wildcard === -1 ? path : path.slice(0, path.lastIndexOf('/', wildcard) + 1);
  try {
    statSync(join(root, fixed === '' ? '.' : fixed));
    return true;
  } catch {
    return false;
  }
}

export function readText(root: string, file: string): string {
  return readFileSync(join(root, file), 'utf8');
}
