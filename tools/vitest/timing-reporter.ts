// A vitest reporter for CI's log: after a run of several files it prints the slowest test files
// and each project's total, and writes the same figures as JSON to .cache/vitest-timings.json
// (gitignored) for comparing runs. Listed before the default reporter in vitest.config.ts, so
// the default reporter's failures and summary still come last in the output.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Reporter, TestModule, TestRunEndReason, Vitest } from 'vitest/node';

/** How many of the slowest files the table shows. */
export const SLOWEST = 15;

export interface FileTiming {
  readonly file: string;
  readonly project: string;
  /** Seconds in its worker: environment, import (collect), setup, then tests and hooks. */
  readonly seconds: number;
  readonly state: string;
}

export interface ProjectTotal {
  readonly project: string;
  readonly files: number;
  readonly seconds: number;
}

export function fileTiming(module: TestModule): FileTiming {
  const diagnostic = module.diagnostic();
  const milliseconds = diagnostic.environmentSetupDuration + diagnostic.prepareDuration + diagnostic.collectDuration + diagnostic.setupDuration + diagnostic.duration;
  return { file: module.relativeModuleId, project: module.project.name, seconds: milliseconds / 1000, state: module.state() };
}

export function projectTotals(timings: readonly FileTiming[]): ProjectTotal[] {
  const totals = new Map<string, { files: number; seconds: number }>();
  for (const timing of timings) {
    const total = totals.get(timing.project) ?? { files: 0, seconds: 0 };
    total.files += 1;
    total.seconds += timing.seconds;
    totals.set(timing.project, total);
  }
  return [...totals].map(([project, total]) => ({ project, ...total })).sort((a, b) => b.seconds - a.seconds);
}

const clock = (seconds: number): string => (seconds >= 60 ? `${Math.floor(seconds / 60)} min ${(seconds % 60).toFixed(0).padStart(2, '0')} s` : `${seconds.toFixed(1)} s`);

/** The table as lines (no colours: CI logs are read as plain text). */
export function timingTable(timings: readonly FileTiming[], wallSeconds: number): string[] {
  const slowest = [...timings].sort((a, b) => b.seconds - a.seconds).slice(0, SLOWEST);
  const width = Math.max(...slowest.map((timing) => timing.file.length), 4);
  const lines = [`Slowest ${slowest.length} of ${timings.length} test files (time in the worker: import, setup, tests, hooks)`];
  for (const timing of slowest) {
    const mark = timing.state === 'passed' ? '' : `  [${timing.state}]`;
    lines.push(`  ${clock(timing.seconds).padStart(11)}  ${timing.project.padEnd(11)}  ${mark === '' ? timing.file : timing.file.padEnd(width) + mark}`);
  }
  lines.push('Per project (sum of its files; files of different projects overlap in parallel workers)');
  for (const total of projectTotals(timings)) lines.push(`  ${clock(total.seconds).padStart(11)}  ${total.project.padEnd(11)}  ${total.files} files`);
  lines.push(`  ${clock(wallSeconds).padStart(11)}  wall time of the whole run`);
  return lines;
}

export default class TimingReporter implements Reporter {
  private vitest: Vitest | undefined;
  private started = performance.now();

  constructor(private readonly output = '.cache/vitest-timings.json') {}

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunStart(): void {
    this.started = performance.now();
  }

  onTestRunEnd(modules: readonly TestModule[], _errors: unknown, reason: TestRunEndReason): void {
    // One file has nothing to rank; an interrupted run has no meaningful totals.
    if (modules.length < 2 || reason === 'interrupted' || this.vitest === undefined) return;
    const timings = modules.map(fileTiming);
    const wallSeconds = (performance.now() - this.started) / 1000;
    const logger = this.vitest.logger;
    logger.log('');
    for (const line of timingTable(timings, wallSeconds)) logger.log(line);
    try {
      const path = `${this.vitest.config.root}/${this.output}`;
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, `${JSON.stringify({ reason, wallSeconds, files: timings, projects: projectTotals(timings) }, null, 2)}\n`);
    } catch (error) {
      logger.log(`timing reporter: could not write ${this.output}: ${String(error)}`);
    }
  }
}
