// Which vitest project each test file belongs to, and whether a file starts processes: the
// rules behind tools/vitest/projects.test.ts (every test file in exactly one project; a file
// that starts a process never in `unit`).
import { existsSync, globSync, readFileSync } from 'node:fs';
import { basename, dirname, join, matchesGlob, relative } from 'node:path';

export interface ProjectGlobs {
  readonly name: string;
  readonly include: readonly string[];
  readonly exclude: readonly string[];
}

/** Directories no test file is looked for in (installed, built, cached or virtualenv trees). */
const SKIPPED_DIRECTORIES = /^(node_modules|dist|\.git|\.cache|\.venv.*|__pycache__)$/;

/** Every *.test.ts of the checkout, relative to root. */
export function testFiles(root: string): string[] {
  return globSync('**/*.test.ts', { cwd: root, exclude: (name) => SKIPPED_DIRECTORIES.test(basename(name)) }).sort();
}

export function projectsOf(file: string, projects: readonly ProjectGlobs[]): string[] {
  return projects
    .filter((project) => project.include.some((glob) => matchesGlob(file, glob)) && !project.exclude.some((glob) => matchesGlob(file, glob)))
    .map((project) => project.name);
}

/** One line per file that lands in no project or in more than one. */
export function membershipProblems(files: readonly string[], projects: readonly ProjectGlobs[]): string[] {
  const problems: string[] = [];
  for (const file of files) {
    const names = projectsOf(file, projects);
    if (names.length === 0) problems.push(`${file}: in no vitest project (add it to a project's include in vitest.config.ts)`);
    else if (names.length > 1) problems.push(`${file}: in ${names.length} vitest projects (${names.join(', ')})`);
  }
  return problems;
}

/** Imports that start processes: child processes and cluster workers. */
const STARTS_PROCESSES = /(?:from\s+|import\s*\(\s*|require\s*\(\s*)['"](?:node:)?(?:child_process|cluster)['"]/;
const RELATIVE_IMPORT = /(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;
/** Product source: a test may call it, but what it could spawn is not what the test does. */
const PRODUCT_SOURCE = /^(common|server|operator)\/src\/(?!.*\.test\.ts$)/;

/**
 * The test-side modules (the file itself and the test support it imports, transitively; product
 * source is not followed) that import child_process or cluster.
 */
export function processStarters(root: string, file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const text = readFileSync(join(root, file), 'utf8');
  const found = STARTS_PROCESSES.test(text) ? [file] : [];
  for (const match of text.matchAll(RELATIVE_IMPORT)) {
    const target = relative(root, join(root, dirname(file), match[1]!));
    const candidates = [target.replace(/\.js$/, '.ts'), target];
    const resolved = candidates.find((candidate) => existsSync(join(root, candidate)));
    if (resolved === undefined || PRODUCT_SOURCE.test(resolved)) continue;
    found.push(...processStarters(root, resolved, seen));
  }
  return found;
}
