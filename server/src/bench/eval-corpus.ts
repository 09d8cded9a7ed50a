// Offline detection quality: scores detectAll on labeled JSONL corpora exactly like
// tools/eval_detect.py scores a live server (code-point spans, greedy one-to-one
// match by type with IoU >= 0.5, confidence threshold 0.5, per-type P/R/F1/F2, flags on negative
// records), without starting a server. With several corpora it prints one table per corpus and
// one over all of them (`make eval-offline`).
// Usage: npx tsx server/src/bench/eval-corpus.ts CORPUS.jsonl [MORE.jsonl ...] [--types a,b]
//        [--threshold 0.5] [--json] [--errors N] [--markdown] [--protect-all]
//        (--errors prints up to N false positives/negatives per type; --markdown prints tables
//        for BENCHMARKS.md; addresses and URLs that identify no one are left out as /v1/detect
//        leaves them out without a policy, --protect-all scores every one, docs/detection.md)
import { readFileSync } from 'node:fs';
import { detectAll } from '../domain/detect/index.js';
import { DEFAULT_NON_IDENTIFYING, dropNonIdentifying, NONE_RELEASED, type NonIdentifying } from '../domain/detect/identifying.js';
import { utf16ToCodePoints } from '../domain/text/codepoints.js';

interface Span {
  readonly type: string;
  readonly start: number;
  readonly end: number;
}

interface CorpusRecord {
  readonly id: string;
  readonly lang?: string;
  readonly text: string;
  readonly negative?: boolean;
  readonly entities: readonly Span[];
}

type Counts = [tp: number, fp: number, fn: number];

function iou(a: Span, b: Span): number {
  const inter = Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
  const union = Math.max(a.end, b.end) - Math.min(a.start, b.start);
  return union > 0 ? inter / union : 0;
}

/** Same algorithm as eval_detect.py score(): greedy by gold order, best IoU of the same type. */
function score(gold: readonly Span[], pred: readonly Span[]): { counts: Map<string, Counts>; fps: Span[]; fns: Span[] } {
  const counts = new Map<string, Counts>();
  const used = new Set<number>();
  const fns: Span[] = [];
  const get = (type: string): Counts => {
    let entry = counts.get(type);
    if (entry === undefined) {
      entry = [0, 0, 0];
      counts.set(type, entry);
    }
    return entry;
  };
  for (const g of gold) {
    const entry = get(g.type);
    let best = 0;
    let bestIndex = -1;
    pred.forEach((p, index) => {
      if (used.has(index) || p.type !== g.type) return;
      const value = iou(g, p);
      if (value > best) {
        best = value;
        bestIndex = index;
      }
    });
    if (best >= 0.5) {
      used.add(bestIndex);
      entry[0]++;
    } else {
      entry[2]++;
      fns.push(g);
    }
  }
  const fps: Span[] = [];
  pred.forEach((p, index) => {
    if (used.has(index)) return;
    get(p.type)[1]++;
    fps.push(p);
  });
  return { counts, fps, fns };
}

function argValue(args: readonly string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

/** Slice by code points, as the corpus spans (Python string indices) count them. */
function codePointSlice(text: string, start: number, end: number): string {
  return Array.from(text).slice(start, end).join('');
}

interface Totals {
  readonly name: string;
  readonly totals: Map<string, Counts>;
  readonly examples: Map<string, string[]>;
  negativeFlags: number;
  negativeRecords: number;
  records: number;
  elapsedMs: number;
}

interface Options {
  readonly only: Set<string> | undefined;
  readonly threshold: number;
  readonly showErrors: number;
  readonly released: NonIdentifying;
}

function newTotals(name: string): Totals {
  return { name, totals: new Map(), examples: new Map(), negativeFlags: 0, negativeRecords: 0, records: 0, elapsedMs: 0 };
}

/** Score one corpus into `target` (and into `combined`, when given). */
function evaluate(corpusPath: string, options: Options, targets: readonly Totals[]): void {
  const lines = readFileSync(corpusPath, 'utf8').split('\n').filter((line) => line.trim() !== '');
  for (const line of lines) {
    const record = JSON.parse(line) as CorpusRecord;
    const started = performance.now();
    const detections = dropNonIdentifying(record.text, detectAll(record.text, record.lang !== undefined && record.lang !== '' ? { language: record.lang } : {}), options.released);
    const elapsed = performance.now() - started;
    const kept = detections.filter((d) => d.confidence >= options.threshold);
    const offsets: number[] = [];
    for (const d of kept) offsets.push(d.start, d.end);
    const points = utf16ToCodePoints(record.text, offsets);
    let pred: Span[] = kept.map((d, index) => ({ type: d.type, start: points[index * 2]!, end: points[index * 2 + 1]! }));
    let gold: Span[] = [...record.entities];
    if (options.only !== undefined) {
      const only = options.only;
      pred = pred.filter((p) => only.has(p.type));
      gold = gold.filter((g) => only.has(g.type));
    }
    const { counts, fps, fns } = score(gold, pred);
    for (const target of targets) {
      target.records++;
      target.elapsedMs += elapsed;
      if (record.negative === true) {
        target.negativeRecords++;
        target.negativeFlags += pred.length;
      }
      for (const [type, [tp, fp, fn]] of counts) {
        const aggregate = target.totals.get(type) ?? [0, 0, 0];
        aggregate[0] += tp;
        aggregate[1] += fp;
        aggregate[2] += fn;
        target.totals.set(type, aggregate);
      }
      if (options.showErrors > 0) {
        for (const [kind, spans] of [['FP', fps], ['FN', fns]] as const) {
          for (const span of spans) {
            const key = `${kind} ${span.type}`;
            const list = target.examples.get(key) ?? [];
            if (list.length < options.showErrors) list.push(`${record.id} [${record.lang ?? ''}] ${JSON.stringify(codePointSlice(record.text, span.start, span.end))}`);
            target.examples.set(key, list);
          }
        }
      }
    }
  }
}

interface Row {
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
  f1: number;
  f2: number;
}

function summarize(target: Totals): { rows: Record<string, Row>; micro: { precision: number; recall: number; f1: number } } {
  const rows: Record<string, Row> = {};
  let tpAll = 0;
  let fpAll = 0;
  let fnAll = 0;
  for (const [type, [tp, fp, fn]] of [...target.totals].sort((a, b) => a[0].localeCompare(b[0]))) {
    const p = tp + fp > 0 ? tp / (tp + fp) : 0;
    const r = tp + fn > 0 ? tp / (tp + fn) : 0;
    const f1 = p + r > 0 ? (2 * p * r) / (p + r) : 0;
    const f2 = p + r > 0 ? (5 * p * r) / (4 * p + r) : 0;
    rows[type] = { tp, fp, fn, precision: round(p), recall: round(r), f1: round(f1), f2: round(f2) };
    tpAll += tp;
    fpAll += fp;
    fnAll += fn;
  }
  const microP = tpAll + fpAll > 0 ? tpAll / (tpAll + fpAll) : 0;
  const microR = tpAll + fnAll > 0 ? tpAll / (tpAll + fnAll) : 0;
  const microF1 = microP + microR > 0 ? (2 * microP * microR) / (microP + microR) : 0;
  return { rows, micro: { precision: round(microP), recall: round(microR), f1: round(microF1) } };
}

function printTable(target: Totals, markdown: boolean): void {
  const { rows, micro } = summarize(target);
  const meanMs = target.elapsedMs / Math.max(target.records, 1);
  const footer =
    `micro P=${micro.precision.toFixed(3)} R=${micro.recall.toFixed(3)} F1=${micro.f1.toFixed(3)}; flags on negative records: ` +
    `${target.negativeFlags} (of ${target.negativeRecords}); records: ${target.records}; mean detect ${meanMs.toFixed(4)} ms`;
  console.log(`\n== ${target.name}`);
  if (markdown) {
    console.log('| type | tp | fp | fn | P | R | F1 | F2 |\n|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const [type, v] of Object.entries(rows)) {
      console.log(`| ${type} | ${v.tp} | ${v.fp} | ${v.fn} | ${v.precision.toFixed(3)} | ${v.recall.toFixed(3)} | ${v.f1.toFixed(3)} | ${v.f2.toFixed(3)} |`);
    }
    console.log(`\n${footer}`);
  } else {
    console.log(`${'type'.padEnd(20)}${'tp'.padStart(6)}${'fp'.padStart(6)}${'fn'.padStart(6)}${'P'.padStart(8)}${'R'.padStart(8)}${'F1'.padStart(8)}${'F2'.padStart(8)}`);
    for (const [type, v] of Object.entries(rows)) {
      console.log(
        `${type.padEnd(20)}${String(v.tp).padStart(6)}${String(v.fp).padStart(6)}${String(v.fn).padStart(6)}` +
          `${v.precision.toFixed(3).padStart(8)}${v.recall.toFixed(3).padStart(8)}${v.f1.toFixed(3).padStart(8)}${v.f2.toFixed(3).padStart(8)}`,
      );
    }
    console.log(footer);
  }
  for (const [key, list] of [...target.examples].sort((a, b) => a[0].localeCompare(b[0]))) {
    console.log(`\n${key}`);
    for (const example of list) console.log(`  ${example}`);
  }
}

function main(): void {
  const args = process.argv.slice(2);
  // Positional arguments: everything that is neither a flag nor a flag's value.
  const withValue = new Set(['--types', '--threshold', '--errors']);
  const corpusPaths = args.filter((arg, index) => !arg.startsWith('--') && !withValue.has(args[index - 1] ?? ''));
  if (corpusPaths.length === 0) {
    console.error('usage: eval-corpus.ts CORPUS.jsonl [MORE.jsonl ...] [--types a,b] [--threshold 0.5] [--json] [--errors N] [--markdown] [--protect-all]');
    process.exitCode = 2;
    return;
  }
  const typesArg = argValue(args, '--types');
  const options: Options = {
    only: typesArg !== undefined ? new Set(typesArg.split(',')) : undefined,
    threshold: Number(argValue(args, '--threshold') ?? '0.5'),
    showErrors: Number(argValue(args, '--errors') ?? '0'),
    released: args.includes('--protect-all') ? NONE_RELEASED : DEFAULT_NON_IDENTIFYING,
  };
  const combined = newTotals(`all corpora (${corpusPaths.length})`);
  const perCorpus = corpusPaths.map((path) => newTotals(path));
  corpusPaths.forEach((path, index) => {
    evaluate(path, options, corpusPaths.length > 1 ? [perCorpus[index]!, combined] : [perCorpus[index]!]);
  });
  const reports = corpusPaths.length > 1 ? [...perCorpus, combined] : perCorpus;
  if (args.includes('--json')) {
    const out = reports.map((target) => {
      const { rows, micro } = summarize(target);
      return {
        corpus: target.name,
        records: target.records,
        types: rows,
        micro,
        negative_record_flags: target.negativeFlags,
        mean_detect_ms: round(target.elapsedMs / Math.max(target.records, 1), 4),
      };
    });
    console.log(JSON.stringify(out.length === 1 ? out[0] : out, null, 2));
    return;
  }
  for (const target of reports) printTable(target, args.includes('--markdown'));
}

function round(value: number, digits = 4): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

main();
