// The configuration schema's validator. Compiling it with ajv took ~150 ms of every start (the
// largest single step of a cold start after module loading, BENCHMARKS.md "Session 14
// (wave13/boot)"); the bundle (scripts/bundle.mjs) replaces this module with the validator ajv
// generates ahead of time from the same schema, options and formats (configValidatorSource), so a
// bundled start compiles nothing. Unbundled (tests, tsx), configValidator() compiles it once per
// process as before. validator.test.ts checks that both give the same result and errors.
import { Ajv, _, type ValidateFunction } from 'ajv';
import { CONFIG_FORMATS } from './formats.js';
import { CONFIG_SCHEMA } from './schema.js';

/**
 * validateSchema off: ajv would otherwise compile the JSON Schema meta-schema and check
 * CONFIG_SCHEMA against it (the schema is a constant, checked against the meta-schema by
 * load.test.ts instead). Strict mode (unknown keywords, ambiguous types) still applies while
 * compiling.
 */
const OPTIONS = { allErrors: true, useDefaults: true, strict: true, unicodeRegExp: true, validateSchema: false } as const;

function configAjv(code?: { source: true; esm: true }): Ajv {
  // The generated code refers to the formats by this name (the module that replaces this one imports it).
  const ajv = new Ajv({ ...OPTIONS, ...(code !== undefined ? { code: { ...code, formats: _`CONFIG_FORMATS` } } : {}) });
  for (const [name, format] of Object.entries(CONFIG_FORMATS)) ajv.addFormat(name, format);
  return ajv;
}

let compiled: ValidateFunction | undefined;

/** The configuration validator (fills defaults in place; every error, allErrors). */
export function configValidator(): ValidateFunction {
  compiled ??= configAjv().compile(CONFIG_SCHEMA);
  return compiled;
}

/**
 * The validator as an ES module's source (ajv standalone code): exports `validate`, expects
 * `CONFIG_FORMATS` (./formats.js) in scope and requires ajv's small runtime helpers.
 */
export async function configValidatorSource(): Promise<string> {
  const { default: standaloneCode } = (await import('ajv/dist/standalone/index.js')).default;
  const ajv = configAjv({ source: true, esm: true });
  return standaloneCode(ajv, ajv.compile(CONFIG_SCHEMA));
}
