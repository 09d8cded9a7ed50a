// Long main-thread tasks in a V8 CPU profile (`node --cpu-prof`): consecutive non-idle samples
// form a task; every task longer than the threshold is printed with its top self-time frames.
// Used to find what still blocks the event loop under `make bench-loop`
// (LOOP_BENCH_CPU_PROF=dir). Usage: node server/dist/bench/long-tasks.js FILE [threshold ms].
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const IDLE = new Set(['(idle)']);

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace(/^.*\/(server|node_modules)\//, '$1/');
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
}

function main(): void {
  const [file, thresholdArg] = process.argv.slice(2);
  if (file === undefined) throw new Error('usage: long-tasks.js FILE [threshold ms]');
  const threshold = Number(thresholdArg ?? 50) * 1000;
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  let start = 0;
  let now = 0;
  let task = new Map<string, number>();
  let length = 0;
  let samples = 0;
  let longestGap = 0;
  const flush = (): void => {
    if (length >= threshold) {
      const top = [...task].sort((a, b) => b[1] - a[1]).slice(0, 8);
      // A long gap between two samples is the thread not running (descheduled on a busy machine), not work.
      process.stdout.write(`task at ${(start / 1000).toFixed(0)} ms, ${(length / 1000).toFixed(0)} ms long, ${samples} samples, longest gap ${(longestGap / 1000).toFixed(0)} ms\n`);
      for (const [name, micros] of top) process.stdout.write(`  ${(micros / 1000).toFixed(1).padStart(7)} ms  ${name}\n`);
    }
    task = new Map();
    length = 0;
    samples = 0;
    longestGap = 0;
  };
  for (let index = 0; index < profile.samples.length; index += 1) {
    const delta = profile.timeDeltas[index] ?? 0;
    now += delta;
    const node = byId.get(profile.samples[index]!);
    if (node === undefined || IDLE.has(node.callFrame.functionName)) {
      flush();
      continue;
    }
    if (length === 0) start = now;
    length += delta;
    samples += 1;
    longestGap = Math.max(longestGap, delta);
    const name = label(node);
    task.set(name, (task.get(name) ?? 0) + delta);
  }
  flush();
}

main();
