// The validator the bundle ships (ajv standalone code, scripts/bundle.mjs) accepts, fills in and
// refuses exactly what the one compiled at run time does, with the same errors.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CONFIG_FORMATS } from './formats.js';
import { configValidator, configValidatorSource } from './validator.js';

type Validate = ((data: unknown) => boolean) & { errors?: unknown };

/** The generated module, written to a file and imported (its formats handed over on globalThis). */
async function precompiled(): Promise<Validate> {
  const dir = mkdtempSync(join(tmpdir(), 'veil-config-validator-'));
  onTestFinished(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const file = join(dir, 'validator.mjs');
  const prologue = `import { createRequire } from 'node:module';\nconst require = createRequire(${JSON.stringify(import.meta.url)});\nconst CONFIG_FORMATS = globalThis.__veilConfigFormats;\n`;
  writeFileSync(file, prologue + (await configValidatorSource()));
  (globalThis as { __veilConfigFormats?: unknown }).__veilConfigFormats = CONFIG_FORMATS;
  return ((await import(pathToFileURL(file).href)) as { validate: Validate }).validate;
}

const CONFIGS: unknown[] = [
  {},
  { server: { port: 8080, host: '127.0.0.1' }, detector: { advanced_url: 'http://ner:8000' } },
  { server: { port: 'eighty' } },
  { server: { port: 70000, unknown_key: true } },
  { detector: { advanced_url: 'ftp://ner' } },
  { detector: { advanced_url: 'http://' } },
  { session: { backend: 'redis', redis_url: 'redis://cache:6379' } },
  { session: { redis_url: 'http://cache' } },
  { nonsense: 1, server: [] },
  { auth: { mode: 'api_key', api_keys: [{ key: 'x'.repeat(40), tenant: 'acme' }] } },
  { detector: { default_language: 'EN', mode: 'everything' } },
  'not an object',
];

describe('the precompiled configuration validator', () => {
  it('gives the same verdict, defaults and errors as the one compiled at run time', async () => {
    const generated = await precompiled();
    const compiled = configValidator();
    for (const config of CONFIGS) {
      const [mine, theirs] = [structuredClone(config), structuredClone(config)];
      const ok = compiled(mine);
      const errors = compiled.errors;
      expect({ ok: generated(theirs), data: theirs, errors: generated.errors }).toEqual({ ok, data: mine, errors });
    }
    // The set covers both verdicts and both custom formats.
    expect(CONFIGS.filter((config) => compiled(structuredClone(config)))).toHaveLength(3);
  });
});
