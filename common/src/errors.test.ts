// The error table in docs/api.md mirrors ERROR_CODES exactly (house-style rule 8).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, VeilError } from './errors.js';

describe('error table', () => {
  it('matches docs/api.md', () => {
    const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const table = doc.split('<!-- error-table:start -->')[1]!.split('<!-- error-table:end -->')[0]!;
    const rows = table
      .split('\n')
      .map((line) => /^\| (VEIL_[A-Z_]+) \| (\d{3}) \|$/.exec(line))
      .filter((match) => match !== null)
      .map((match) => [match[1], Number(match[2])]);
    expect(rows).toEqual(Object.entries(ERROR_CODES).map(([code, entry]) => [code, entry.status]));
  });

  it('carries status from the table, with an explicit override only when given', () => {
    expect(new VeilError('VEIL_SESSION_EXPIRED').status).toBe(410);
    expect(new VeilError('VEIL_DETECTION_FAILED', undefined, undefined, 504).status).toBe(504);
    expect(new VeilError('VEIL_INTERNAL').message).toBe('internal error');
  });
});
