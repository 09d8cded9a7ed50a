#!/usr/bin/env node
// The `veil` command: runs the compiled CLI (build with `npm run build` first). Refuses a Node
// older than 22 (package.json engines) with a plain message instead of a failed import of a
// built-in such as node:sqlite. An unexpected failure is reported in one line (the stack is for
// VEIL_DEBUG=1), exit code 1.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(`veil needs Node.js 22 or newer (24 LTS recommended); this is v${process.versions.node}. \`make run\` brings Node 24 (scripts/node.sh).\n`);
  process.exit(1);
}
// V8's on-disk code cache (Node 22.1+; NODE_COMPILE_CACHE or <tmpdir>/node-compile-cache): a
// restart skips compiling the ~2,500 modules the server loads, about half of its start time.
// Where the directory cannot be written it is simply not used.
// A plain `veil serve` first replaces itself with the same command started with the server
// image's process settings (cli/serve-exec.ts); it returns when there is nothing to change.
const { execServe } = await import('../dist/cli/serve-exec.js');
execServe(process.argv[1], process.argv.slice(2));
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();
// The bundle (scripts/bundle.mjs, run by `make build` after tsc): the whole CLI in one file, a
// start loads a handful of files instead of ~1,550 modules. It runs when it is at least as new as
// tsc's last build of server/ and common/ (the image deletes the *.tsbuildinfo: its bundle is
// built with it); a stale or missing bundle leaves the unbundled server/dist to run, said on
// stderr when stale. Source maps map its stack traces back with VEIL_DEBUG=1.
const { statSync } = await import('node:fs');
const mtime = (relative) => statSync(new URL(relative, import.meta.url), { throwIfNoEntry: false })?.mtimeMs;
const bundled = mtime('../dist/bundle/veil.js');
const built = Math.max(mtime('../dist/.tsbuildinfo') ?? 0, mtime('../../common/dist/.tsbuildinfo') ?? 0);
if (bundled !== undefined && bundled < built) {
  process.stderr.write('veil: server/dist/bundle is older than the last tsc build; running the unbundled server/dist (`make build` or `node scripts/bundle.mjs` bundles it again)\n');
}
if (process.env.VEIL_DEBUG === '1') process.setSourceMapsEnabled(true);
const { main } = await import(bundled !== undefined && bundled >= built ? '../dist/bundle/veil.js' : '../dist/cli/veil.js');
try {
  const code = await main(process.argv.slice(2));
  if (code >= 0) process.exitCode = code;
} catch (error) {
  process.stderr.write(`veil: ${error instanceof Error ? error.message : String(error)}\n`);
  if (process.env.VEIL_DEBUG === '1' && error instanceof Error && error.stack !== undefined) process.stderr.write(`${error.stack}\n`);
  process.exitCode = 1;
}
