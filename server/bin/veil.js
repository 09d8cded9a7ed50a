#!/usr/bin/env node
// The `veil` command: runs the compiled CLI (build with `npm run build` first).
const { main } = await import('../dist/cli/veil.js');
const code = await main(process.argv.slice(2));
if (code >= 0) process.exitCode = code;
