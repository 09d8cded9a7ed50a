// The layering of server/src (issue 20 item 1; ARCHITECTURE.md "Layers"), checked two ways:
// on the import graph (no import cycle, type-only imports included as madge counts them; no
// module outside the composition root importing the AppDeps locator), built with the TypeScript
// compiler's own import scanner so it needs no extra dependency; and through the lint rules of
// eslint.layers.js, which must refuse each layer's forbidden imports.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import ts from 'typescript';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));

/** Every non-test TypeScript source under `dir`. */
function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** file (relative to server/src) -> the files it imports (relative), type-only imports included. */
export function importGraph(root: string = SRC): Map<string, string[]> {
  const files = sources(root);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = new Set<string>();
    for (const reference of info.importedFiles) {
      if (!reference.fileName.startsWith('.')) continue;
      const target = resolve(dirname(file), reference.fileName.replace(/\.js$/, '.ts'));
      if (known.has(target)) targets.add(relative(root, target));
    }
    graph.set(relative(root, file), [...targets]);
  }
  return graph;
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

/** The composition root: the only modules that may import deps.ts (AppDeps). */
export const COMPOSITION_ROOT: readonly string[] = ['app.ts', 'compose.ts', 'main.ts', 'deps.ts'];

/** Every `file -> deps.ts` edge from a module outside the composition root. */
export function locatorImports(graph: ReadonlyMap<string, readonly string[]>): string[] {
  return [...graph].filter(([file]) => !COMPOSITION_ROOT.includes(file)).flatMap(([file, targets]) => (targets.includes('deps.ts') ? [`${file} -> deps.ts`] : []));
}

describe('server/src import graph', () => {
  const graph = importGraph();

  it('finds a cycle when there is one (the checker itself can fail)', () => {
    const cyclic = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(importCycles(cyclic)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(importCycles(new Map([['a.ts', ['b.ts']], ['b.ts', []]]))).toEqual([]);
  });

  it('sees the real graph (the composition root imports the routes)', () => {
    expect(graph.get('app.ts')).toContain('routes/transform.ts');
  });

  it('has no import cycle', () => {
    expect(importCycles(graph)).toEqual([]);
  });
});

describe('layers', () => {
  const graph = importGraph();
  /** Folders below the composition root that must get their dependencies passed in. */
  const LOWER = ['domain/', 'services/', 'usecases/', 'workers/', 'stores/', 'clients/'];

  it('finds a module outside the composition root importing the locator (the check itself can fail)', () => {
    const graph = new Map([
      ['app.ts', ['deps.ts', 'routes/a.ts']],
      ['compose.ts', ['deps.ts']],
      ['routes/a.ts', ['deps.ts', 'compose.ts']],
      ['plugins/b.ts', ['deps.ts']],
      ['routes/c.ts', ['compose.ts']],
    ]);
    expect(locatorImports(graph)).toEqual(['routes/a.ts -> deps.ts', 'plugins/b.ts -> deps.ts']);
  });

  it('no module outside the composition root imports the AppDeps locator (routes and plugins included)', () => {
    expect(locatorImports(graph)).toEqual([]);
    // The root does read it: the check looks at the real files.
    expect(graph.get('app.ts')).toContain('deps.ts');
  });

  it('no module of domain, services, usecases, workers, stores or clients imports the locator or the wiring', () => {
    const offenders = [...graph]
      .filter(([file]) => LOWER.some((folder) => file.startsWith(folder)))
      .flatMap(([file, targets]) => targets.filter((target) => ['deps.ts', 'compose.ts', 'app.ts', 'main.ts'].includes(target)).map((target) => `${file} -> ${target}`));
    expect(offenders).toEqual([]);
  });

  it('the lint rules refuse each layer its forbidden imports and allow the rest', async () => {
    const rules = join(SRC, '..', '..', 'eslint.layers.js');
    const { LAYER_RULES } = (await import(rules)) as { LAYER_RULES: Linter.Config[] };
    const eslint = new ESLint({
      cwd: join(SRC, '..', '..'),
      overrideConfigFile: true,
      overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...LAYER_RULES],
    });
    const refused = async (file: string, code: string): Promise<boolean> => {
      const [result] = await eslint.lintText(code, { filePath: `server/src/${file}` });
      return result!.messages.some((message) => message.ruleId === 'no-restricted-imports');
    };
    const cases: [string, string, boolean][] = [
      ['domain/seal/x.ts', "import { a } from '../../services/ner.js';", true],
      ['domain/x.ts', "import { a } from '../usecases/transform.js';", true],
      ['domain/x.ts', "import type { FastifyInstance } from 'fastify';", true],
      ['domain/x.ts', "import { a } from './token/index.js';", false],
      ['services/x.ts', "import type { AppDeps } from '../deps.js';", true],
      ['services/x.ts', "import { a } from '../usecases/transform.js';", true],
      ['services/x.ts', "import { a } from '../routes/common.js';", true],
      ['services/x.ts', "import { a } from './ner.js';", false],
      ['workers/x.ts', "import { a } from '../usecases/executor.js';", true],
      ['usecases/x.ts', "import type { AppDeps } from '../deps.js';", true],
      ['usecases/x.ts', "import type { FastifyRequest } from 'fastify';", true],
      ['usecases/x.ts', "import { a } from '../plugins/json.js';", true],
      ['usecases/x.ts', "import { a } from '../services/ner.js';", false],
      ['routes/x.ts', "import type { DeferredSource } from '../workers/offload-worker.js';", true],
      ['routes/x.ts', "import type { UseCases } from '../compose.js';", false],
      ['routes/x.ts', "import type { AppDeps } from '../deps.js';", true],
      ['routes/nested/x.ts', "import { policiesFor } from '../../deps.js';", true],
      ['routes/x.ts', "import type { ConfigSlice } from '../config/index.js';", false],
      ['plugins/x.ts', "import type { AppDeps } from '../deps.js';", true],
      ['plugins/x.ts', "import type { Offload } from '../services/offload.js';", true],
      ['plugins/x.ts', "import type { BodyOffload } from '../usecases/executor.js';", false],
      ['audit/x.ts', "import type { AppDeps } from '../deps.js';", true],
      ['reload/x.ts', "import type { AppDeps } from '../deps.js';", true],
      ['tracing.ts', "import type { AppDeps } from './deps.js';", true],
      ['compose.ts', "import type { AppDeps } from './deps.js';", false],
      ['app.ts', "import type { AppDeps } from './deps.js';", false],
    ];
    const verdicts = await Promise.all(cases.map(async ([file, code]) => refused(file, code)));
    expect(cases.map(([file, code], index) => [file, code, verdicts[index]])).toEqual(cases);
  });
});
