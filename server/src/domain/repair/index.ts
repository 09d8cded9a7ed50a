// Token repair building block (decisions.md section 9): a lenient scan that restores tokens a
// model mangled (spacing, type case, escaped or lost braces) while keeping id and cap exact, and
// the seeded accuracy corpus behind the BENCHMARKS.md table.
export { findTokensLenient, MAX_LENIENT_SPAN } from './lenient.js';
export { runRepairCorpus, formatCorpusTable, MANGLINGS } from './corpus.js';
export type { CorpusRow, CorpusOptions, Expectation } from './corpus.js';
