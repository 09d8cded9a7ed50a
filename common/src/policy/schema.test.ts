// The published policy schema: policies/schema.json must equal the TypeScript copy the
// validator uses, and it must compile under ajv strict mode.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { POLICY_SCHEMA, RESTORE_STRATEGY_SCHEMA } from './schema.js';

const schemaFile = new URL('../../../policies/schema.json', import.meta.url);

describe('policy schema', () => {
  it('policies/schema.json deep-equals the TypeScript copy', () => {
    const published: unknown = JSON.parse(readFileSync(schemaFile, 'utf8'));
    expect(published).toEqual(JSON.parse(JSON.stringify(POLICY_SCHEMA)));
  });

  it('compiles in ajv strict mode (draft 2020-12)', () => {
    const ajv = new Ajv2020({ strict: true, strictTypes: false, strictRequired: false });
    expect(() => ajv.compile(JSON.parse(JSON.stringify(POLICY_SCHEMA)))).not.toThrow();
  });

  it('sets additionalProperties false on every object schema with fixed properties', () => {
    const missing: string[] = [];
    const visit = (node: unknown, path: string): void => {
      if (node === null || typeof node !== 'object') return;
      const record = node as Record<string, unknown>;
      const isStrategyUmbrella = path.endsWith('/restore_strategy'); // closed per kind in its if/then branches
      if ('properties' in record && !isStrategyUmbrella && !path.includes('/if')) {
        if (record['additionalProperties'] !== false) missing.push(path);
      }
      for (const [key, child] of Object.entries(record)) visit(child, `${path}/${key}`);
    };
    visit(POLICY_SCHEMA, '#');
    expect(missing).toEqual([]);
  });

  it('exports the restore strategy schema for other configs', () => {
    const ajv = new Ajv2020({ strict: true, strictTypes: false, strictRequired: false });
    const validate = ajv.compile(JSON.parse(JSON.stringify(RESTORE_STRATEGY_SCHEMA)));
    expect(validate({ kind: 'reveal_last_n', n: 4 })).toBe(true);
    expect(validate({ kind: 'reveal_last_n', n: 65 })).toBe(false);
    expect(validate({ kind: 'mask', n: 1 })).toBe(false);
  });
});
