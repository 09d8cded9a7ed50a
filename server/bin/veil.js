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
const { main } = await import('../dist/cli/veil.js');
try {
  const code = await main(process.argv.slice(2));
  if (code >= 0) process.exitCode = code;
} catch (error) {
  process.stderr.write(`veil: ${error instanceof Error ? error.message : String(error)}\n`);
  if (process.env.VEIL_DEBUG === '1' && error instanceof Error && error.stack !== undefined) process.stderr.write(`${error.stack}\n`);
  process.exitCode = 1;
}
