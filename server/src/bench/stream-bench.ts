// `make bench-stream`: time to the first restored frame of an incremental rehydrate with the
// output guard on (issue 18 item 9), in-process on the real StreamRehydrator, StreamOutputGuard
// and default guard, deltas arriving at a fixed model pace. Three rows per answer, in the same
// run: no guard (the floor), the guard as it is (hold back only what can still grow), and the
// previous behaviour as the baseline (the same guard forced to hold back at least 256
// characters, as the stream did before). Figures go to stdout as a Markdown table.
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_POLICY } from '@veil/common';
import { StreamOutputGuard, type StreamRelease } from '../domain/guard/index.js';
import { CompiledPolicy } from '../domain/policy/index.js';
import { indexEntries, rehydrateText } from '../domain/rehydrate.js';
import { findTokensLenient } from '../domain/repair/index.js';
import { StreamRehydrator, type ReleaseGuard } from '../domain/stream/index.js';
import { createOutputGuard } from '../services/output-guard.js';
import type { LoadedPolicy } from '../services/policies.js';

const compiled = new CompiledPolicy(DEFAULT_POLICY);
const policy = { compiled, patterns: [] } as unknown as LoadedPolicy;
/** Milliseconds between two deltas: a model streaming ~100 tokens a second. */
const PACE_MS = 10;
const RUNS = 20;
/** The hold-back the stream used before issue 18 item 9. */
const BASELINE_TAIL = 256;

const restore = (text: string) =>
  rehydrateText({ output: text, entries: indexEntries([]), policy: compiled, language: 'en', caller: {}, channel: 'user_output', scan: findTokensLenient });

function newGuard(): StreamOutputGuard {
  return new StreamOutputGuard(createOutputGuard({ mode: 'strict', action: 'mask', exemptTypes: [], defaultRegion: 'US' }, { policy, language: 'en', caller: {} }), findTokensLenient);
}

/** The previous behaviour: never release the last BASELINE_TAIL characters while the body is open. */
function baselineGuard(): ReleaseGuard {
  const inner = newGuard();
  return {
    release(pending: string, tokenCut: number, final: boolean): StreamRelease {
      return inner.release(pending, final ? tokenCut : Math.min(tokenCut, pending.length - BASELINE_TAIL), final);
    },
  };
}

async function firstFrame(answer: string, delta: number, guard: () => ReleaseGuard | undefined): Promise<{ ms: number; chars: number }> {
  const rehydrator = new StreamRehydrator(restore, { guard: guard() });
  const start = performance.now();
  for (let at = 0; at < answer.length; at += delta) {
    if (rehydrator.push(answer.slice(at, at + delta)) !== '') return { ms: performance.now() - start, chars: Math.min(answer.length, at + delta) };
    await sleep(PACE_MS);
  }
  rehydrator.end();
  return { ms: performance.now() - start, chars: answer.length };
}

const ANSWERS: [string, string, number][] = [
  ['330-char answer, 10-char deltas', 'Sure. Python 3.12 was released on October 2, 2023; the full list of changes is at https://docs.python.org/3/whatsnew/3.12.html and the upgrade notes cover removed modules. Python 3.8 reached end of life on 2024-10-07. Contact security@python.org for vulnerabilities; for help, ask on https://discuss.python.org. Happy coding, and good luck!', 10],
  ['1 KB answer, 40-char deltas', 'The quarterly report covers revenue, costs and the outlook for the next period. '.repeat(13).slice(0, 1024), 40],
];

async function main(): Promise<void> {
  const rows: string[] = ['| answer | stream | first frame after (chars) | time to first frame p50 (ms) |', '|---|---|---|---|'];
  for (const [name, answer, delta] of ANSWERS) {
    const variants: [string, () => ReleaseGuard | undefined][] = [
      ['no guard', () => undefined],
      ['guard, baseline (256-char hold-back)', baselineGuard],
      ['guard, hold back only what can grow', newGuard],
    ];
    for (const [label, guard] of variants) {
      const samples: number[] = [];
      let chars = 0;
      for (let run = 0; run < RUNS; run += 1) {
        const result = await firstFrame(answer, delta, guard);
        samples.push(result.ms);
        chars = result.chars;
      }
      samples.sort((a, b) => a - b);
      const row = `| ${name} | ${label} | ${chars} | ${samples[Math.floor(samples.length / 2)]!.toFixed(2)} |`;
      rows.push(row);
      process.stdout.write(`${row}\n`);
    }
  }
  process.stdout.write(`\nDeltas ${PACE_MS} ms apart, ${RUNS} runs each.\n\n${rows.join('\n')}\n`);
}

await main();
