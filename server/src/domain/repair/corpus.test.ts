// Restore accuracy of token repair on the generated corpus (issue 6): every promised mangling is
// restored, nothing refused is ever restored, and the table for BENCHMARKS.md is printed.
import { describe, expect, it } from 'vitest';
import { formatCorpusTable, runRepairCorpus } from './corpus.js';

describe('token repair corpus', () => {
  it('restores every repairable mangling and never restores a refused one', () => {
    const rows = runRepairCorpus({ samplesPerMangling: 200 });
    console.log(`\nToken repair accuracy (seeded corpus, one mangled token per sample):\n\n${formatCorpusTable(rows)}\n`);
    for (const row of rows) {
      expect(row.falseRestores, row.mangling).toBe(0);
      if (row.expect === 'restore') expect(row.repairRestored, row.mangling).toBe(row.samples);
      else expect(row.repairRestored, row.mangling).toBe(0);
    }
    // The strict scan alone restores only intact tokens.
    expect(rows.find((row) => row.mangling === 'intact')?.strictRestored).toBe(200);
  });

  it('is deterministic for a seed', () => {
    expect(runRepairCorpus({ seed: 7, samplesPerMangling: 20 })).toEqual(runRepairCorpus({ seed: 7, samplesPerMangling: 20 }));
  });
});
