// Caller-pattern throughput (custom_patterns and policy patterns run on the linear-time engine):
// MB/s of a set of typical caller patterns over 1 MB of prose, the per-request cost of compiling
// and running them on a 1 KB body (patterns are compiled per request), and a near-miss input for
// a pattern that backtracks catastrophically on a backtracking engine. Measured through the
// functions detection uses (compilePatterns + runCustomPatterns in domain/detect/custom.ts), so it
// measures whatever engine custom.ts compiles with.
// Usage: node server/dist/bench/pattern-bench.js (after `npx tsc -b`); BENCHMARKS.md records it.
import { compilePatterns, runCustomPatterns, type CompiledPattern } from '../domain/detect/custom.js';
import type { CustomPattern, Detection } from '../domain/types.js';

/** What callers write: literal-prefixed ids, class-prefixed codes, case-insensitive phrases, Unicode classes, context words. */
const CALLER_PATTERNS: readonly CustomPattern[] = [
  { entity_type: 'ticket', pattern: 'TCK-[0-9]{6}', context_words: ['ticket', 'case'] },
  { entity_type: 'employee', pattern: 'E\\d{5}\\b' },
  { entity_type: 'passport', pattern: '\\b[A-Z]{2}\\d{6}\\b' },
  { entity_type: 'order_ref', pattern: '(?i)order\\s+(?:no\\.?|number)\\s*\\d{4,}' },
  { entity_type: 'contract', pattern: '\\bXQ-\\d+-[A-Z]\\b', context_words: ['contract'] },
  { entity_type: 'site_code', pattern: '\\p{Lu}\\p{Ll}+-\\d{4,}' },
];

const WORDS = 'the customer asked about the ticket and our team replied with billing details for the contract in Zürich'.split(' ');

function corpus(length: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let index = 0; size < length; index++) {
    let piece = WORDS[index % WORDS.length]!;
    if (index % 37 === 0) piece = `TCK-${100000 + (index % 900000)} E${10000 + (index % 90000)} AB${100000 + (index % 900000)}`;
    else if (index % 53 === 0) piece = `order number ${1000 + index} XQ-${index}-Z Genève-${1000 + index}`;
    parts.push(piece);
    size += piece.length + 1;
  }
  return parts.join(' ').slice(0, length);
}

function customMatches(text: string, patterns: readonly CompiledPattern[]): number {
  const found: Detection[] = [];
  runCustomPatterns(text, patterns, found);
  return found.length;
}

/** Median of `runs` timings of `work`, in milliseconds. */
function medianMs(runs: number, work: () => void): number {
  work();
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

function main(): void {
  const compiled = compilePatterns(CALLER_PATTERNS, 'custom_patterns');
  const text = corpus(1_000_000);
  const customMs = medianMs(5, () => customMatches(text, compiled));
  process.stdout.write(`${CALLER_PATTERNS.length} caller patterns, ${customMatches(text, compiled)} matches in 1 MB: ${(text.length / 1e6 / (customMs / 1000)).toFixed(1)} MB/s (${customMs.toFixed(1)} ms)\n`);

  // Per request: compile (the engine may cache by source) and run on a 1 KB body. The first
  // request pays a real compile: fresh patterns (a new suffix per run) show that cost.
  const body = text.slice(0, 1000);
  const perRequestRuns = 500;
  let fresh = 0;
  const firstUseMs = medianMs(3, () => {
    for (let run = 0; run < perRequestRuns; run++) {
      fresh += 1;
      const patterns = CALLER_PATTERNS.map((pattern) => ({ ...pattern, pattern: `${pattern.pattern}(?:_${fresh})?` }));
      customMatches(body, compilePatterns(patterns, 'custom_patterns'));
    }
  });
  const repeatMs = medianMs(5, () => {
    for (let run = 0; run < perRequestRuns; run++) customMatches(body, compilePatterns(CALLER_PATTERNS, 'custom_patterns'));
  });
  const perRequest = (ms: number): string => ((ms / perRequestRuns) * 1000).toFixed(1);
  process.stdout.write(`compile + run ${CALLER_PATTERNS.length} patterns on a 1 KB body: ${perRequest(firstUseMs)} µs per request with new patterns, ${perRequest(repeatMs)} µs with the same patterns again\n`);

  const hostile = compilePatterns([{ entity_type: 'hostile', pattern: '(a+)+$' }], 'custom_patterns');
  const nearMiss = `${'a'.repeat(1_000_000)}!`;
  const hostileMs = medianMs(3, () => customMatches(nearMiss, hostile));
  process.stdout.write(`(a+)+$ over 1 MB of 'a' then '!' (near miss): ${(1 / (hostileMs / 1000)).toFixed(1)} MB/s (${hostileMs.toFixed(1)} ms)\n`);
}

main();
