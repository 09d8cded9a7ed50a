// The split of the test suite (issue 20 item 4): every test file lands in exactly one vitest
// project, a file that starts processes is never in `unit`, and every file listed as
// integration does start one (else it belongs in `unit`).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import config from '../../vitest.config.js';
import { membershipProblems, processStarters, projectsOf, testFiles, type ProjectGlobs } from './projects.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function configuredProjects(): ProjectGlobs[] {
  const rootExclude = config.test?.exclude ?? [];
  return (config.test?.projects ?? []).map((project) => {
    if (typeof project !== 'object' || !('test' in project) || project.test === undefined) throw new Error('vitest.config.ts: every project is an inline object');
    const test = project.test;
    return { name: test.name as string, include: test.include ?? [], exclude: test.exclude ?? rootExclude };
  });
}

describe('vitest projects', () => {
  const projects = configuredProjects();
  const files = testFiles(ROOT);

  it('are unit, integration and e2e', () => {
    expect(projects.map((project) => project.name)).toEqual(['unit', 'integration', 'e2e']);
  });

  it('hold every test file of the repository exactly once', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(membershipProblems(files, projects)).toEqual([]);
  });

  it('keep files that start processes out of unit, and list as integration only files that start one', () => {
    const problems: string[] = [];
    for (const file of files) {
      const [project] = projectsOf(file, projects);
      const starters = processStarters(ROOT, file);
      if (project === 'unit' && starters.length > 0) problems.push(`${file}: starts processes (${starters.join(', ')}) but is in unit`);
      if (project === 'integration' && starters.length === 0) problems.push(`${file}: starts no process but is in integration`);
    }
    expect(problems).toEqual([]);
  });

  it('puts the e2e suites in e2e and the Redis, sidecar and SIGKILL suites in integration', () => {
    expect(projectsOf('e2e/state.e2e.test.ts', projects)).toEqual(['e2e']);
    expect(projectsOf('server/src/stores/redis.redis.test.ts', projects)).toEqual(['integration']);
    expect(projectsOf('server/src/clients/ner.sidecar.test.ts', projects)).toEqual(['integration']);
    expect(projectsOf('server/src/stores/sqlite.durability.test.ts', projects)).toEqual(['integration']);
    expect(projectsOf('server/src/routes/transform.test.ts', projects)).toEqual(['unit']);
  });
});

describe('the checks themselves', () => {
  const projects: ProjectGlobs[] = [
    { name: 'a', include: ['src/**/*.test.ts'], exclude: ['**/*.slow.test.ts'] },
    { name: 'b', include: ['**/*.slow.test.ts', 'src/both.test.ts'], exclude: [] },
  ];

  it('report a file in no project and a file in two', () => {
    expect(membershipProblems(['src/x.test.ts', 'src/y.slow.test.ts', 'other/z.test.ts', 'src/both.test.ts'], projects)).toEqual([
      'other/z.test.ts: in no vitest project (add it to a project\'s include in vitest.config.ts)',
      'src/both.test.ts: in 2 vitest projects (a, b)',
    ]);
  });

  it('find child_process and cluster through test support, but do not follow product source', () => {
    // The module names are assembled, so this file's own source does not look like it starts processes.
    const childProcess = ["'node:child", "process'"].join('_');
    const cluster = ["'node:", "cluster'"].join('');
    const root = mkdtempSync(join(tmpdir(), 'veil-projects-'));
    try {
      const write = (path: string, text: string): void => {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      };
      write('server/test/support/spawner.ts', `import { spawn } from ${childProcess};\n`);
      write('server/test/support/plain.ts', "import { readFileSync } from 'node:fs';\n");
      write('server/src/cli/launcher.ts', `import { spawn } from ${childProcess};\n`);
      write('server/src/a.test.ts', "import { x } from '../test/support/spawner.js';\n");
      write('server/src/b.test.ts', "import { y } from '../test/support/plain.js';\nimport { z } from './cli/launcher.js';\n");
      write('server/src/c.test.ts', `const forked = await import(${cluster});\n`);
      write('server/src/d.test.ts', "// mentions child_process in a comment only\n");
      expect(processStarters(root, 'server/src/a.test.ts')).toEqual(['server/test/support/spawner.ts']);
      expect(processStarters(root, 'server/src/b.test.ts')).toEqual([]);
      expect(processStarters(root, 'server/src/c.test.ts')).toEqual(['server/src/c.test.ts']);
      expect(processStarters(root, 'server/src/d.test.ts')).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
