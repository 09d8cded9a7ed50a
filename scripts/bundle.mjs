#!/usr/bin/env node
// Bundles the compiled server (server/dist, tsc's output) into server/dist/bundle/: one ESM file
// for the `veil` CLI and the server it starts, plus a chunk per dynamic import (tracing, Redis,
// jose), so a start loads a handful of files instead of ~1,550 modules (resolve, link and
// evaluate cost ~0.7 ms each on the 2-core machine; BENCHMARKS.md "Session 14 (wave13/boot)").
// tsc stays the type checker and compiler; this step runs after it in `make build` (and in the
// server image). server/bin/veil.js runs the bundle when it is at least as new as tsc's output,
// else the unbundled server/dist (with a note on stderr).
//
// Not bundled (loaded from node_modules as before): packages that find files of their own at
// run time (sharp's native add-on, tesseract.js and piscina's worker scripts, pino's transport
// threads, PDF.js) and the optional heavy ones that a default server never loads. The worker
// threads' entry points (server/dist/workers/*.js) stay tsc's output: the bundle resolves them
// from its own place, server/dist/bundle/../workers/.
//
// Writes server/dist/bundle/manifest.json: the npm packages in each output file, so a test can
// tell which libraries a process loaded from the chunks it read (e2e/startup.e2e.test.ts).
//   node scripts/bundle.mjs
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER = join(ROOT, 'server');
const OUT = join(SERVER, 'dist', 'bundle');

/** Packages left to Node's resolver (see above). Matched on the import specifier. */
export const EXTERNAL = [
  'sharp',
  'tesseract.js',
  '@tesseract.js-data/*',
  'piscina',
  'pino',
  'unpdf',
  'mammoth',
  'jszip',
  'ioredis',
  '@opentelemetry/sdk-node',
  '@opentelemetry/exporter-trace-otlp-http',
];

const version = JSON.parse(readFileSync(join(SERVER, 'package.json'), 'utf8')).version;

// The configuration validator generated ahead of time (ajv standalone code) in place of the
// module that compiles it at each start (server/src/config/validator.ts).
const VALIDATOR = join(SERVER, 'dist', 'config', 'validator.js');
const { configValidatorSource } = await import(pathToFileURL(VALIDATOR).href);
const validatorSource = `import { CONFIG_FORMATS } from './formats.js';\n${await configValidatorSource()}\nexport function configValidator() {\n  return validate;\n}\n`;
const precompiledConfig = {
  name: 'precompiled-config-validator',
  setup(build) {
    build.onLoad({ filter: /[\\/]dist[\\/]config[\\/]validator\.js$/ }, (args) => {
      if (args.path !== VALIDATOR) return undefined;
      return { contents: validatorSource, loader: 'js', resolveDir: dirname(VALIDATOR) };
    });
  },
};

// Built next to the output and swapped in at the end, so a server starting meanwhile reads the
// old bundle or the new one, never half of one.
const staging = `${OUT}.tmp-${process.pid}`;
rmSync(staging, { recursive: true, force: true });
const result = await build({
  absWorkingDir: ROOT,
  entryPoints: { veil: join(SERVER, 'dist', 'cli', 'veil.js') },
  outdir: staging,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // Stack traces map back to the TypeScript sources (through tsc's maps) with
  // --enable-source-maps or VEIL_DEBUG=1 (server/bin/veil.js).
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
  external: EXTERNAL,
  plugins: [precompiledConfig],
  // main.ts reads the version from server/package.json beside dist/ when this is not defined.
  define: { __VEIL_VERSION__: JSON.stringify(version) },
  // CommonJS packages inside an ES module call require() for Node's built-ins.
  banner: { js: "import { createRequire as __veilCreateRequire } from 'node:module'; const require = __veilCreateRequire(import.meta.url);" },
});

if (!Object.keys(result.metafile.inputs).some((input) => join(ROOT, input) === VALIDATOR)) throw new Error('bundle: server/dist/config/validator.js is not in the bundle: the precompiled configuration validator was not used');

const manifest = {};
for (const [file, output] of Object.entries(result.metafile.outputs)) {
  if (file.endsWith('.map')) continue;
  const packages = new Set();
  for (const input of Object.keys(output.inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match !== null) packages.add(match[1]);
  }
  manifest[relative(staging, join(ROOT, file))] = [...packages].sort();
}
writeFileSync(join(staging, 'manifest.json'), `${JSON.stringify({ version, external: EXTERNAL, outputs: manifest }, null, 2)}\n`);

mkdirSync(dirname(OUT), { recursive: true });
const old = `${OUT}.old-${process.pid}`;
try {
  renameSync(OUT, old);
} catch (error) {
  if (error.code !== 'ENOENT') throw error;
}
renameSync(staging, OUT);
rmSync(old, { recursive: true, force: true });
const main = result.metafile.outputs[relative(ROOT, join(OUT.replace(/bundle$/, `bundle.tmp-${process.pid}`), 'veil.js'))];
process.stdout.write(`bundle: server/dist/bundle/veil.js ${main !== undefined ? `${(main.bytes / 1e6).toFixed(1)} MB, ` : ''}${Object.keys(manifest).length} files\n`);
