// The timing table CI prints after the run: slowest files first, at most SLOWEST of them, a line
// per project with its file count and summed time, files that did not pass marked.
import { describe, expect, it } from 'vitest';
import { projectTotals, SLOWEST, timingTable, type FileTiming } from './timing-reporter.js';

const timing = (file: string, project: string, seconds: number, state = 'passed'): FileTiming => ({ file, project, seconds, state });

describe('timing table', () => {
  const timings = Array.from({ length: 20 }, (_, index) => timing(`f${String(index).padStart(2, '0')}.test.ts`, index % 2 === 0 ? 'unit' : 'e2e', index + 0.5));

  it('lists the slowest files first, at most SLOWEST of them', () => {
    const lines = timingTable(timings, 300);
    expect(lines[0]).toBe(`Slowest ${SLOWEST} of 20 test files (time in the worker: import, setup, tests, hooks)`);
    const listed = lines.slice(1, 1 + SLOWEST).map((line) => /f\d\d\.test\.ts/.exec(line)?.[0]);
    expect(listed).toEqual(Array.from({ length: SLOWEST }, (_, index) => `f${String(19 - index).padStart(2, '0')}.test.ts`));
    expect(lines[1]).toMatch(/^\s+19\.5 s\s+e2e\s+f19\.test\.ts$/);
    expect(lines.at(-1)).toMatch(/^\s+5 min 00 s\s+wall time of the whole run$/);
  });

  it('sums each project, the slowest project first', () => {
    expect(projectTotals(timings)).toEqual([
      { project: 'e2e', files: 10, seconds: 105 },
      { project: 'unit', files: 10, seconds: 95 },
    ]);
    const lines = timingTable(timings, 300);
    expect(lines).toContain('   1 min 45 s  e2e          10 files');
  });

  it('marks a file that failed', () => {
    const lines = timingTable([timing('a.test.ts', 'unit', 1), timing('b.test.ts', 'unit', 2, 'failed')], 3);
    expect(lines[1]).toMatch(/b\.test\.ts\s+\[failed\]$/);
    expect(lines[2]).toMatch(/a\.test\.ts$/);
  });
});
