// A/B of the built-in scan (server/src/domain/detect/scan.ts) between two builds in one process:
// both `scanBuiltin`s are imported and timed alternately on the same 1 KB texts, so machine load
// hits both alike. Usage (BENCHMARKS.md, "Session 8 (lead)"):
//   git worktree add /tmp/wt-base <rev> && (cd /tmp/wt-base && ln -s /work/main/node_modules && npx tsc -b server)
//   node tools/scan-ab/scan-ab.mjs /tmp/wt-base/server/dist server/dist [rounds]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [baseDist, newDist, roundsArg] = process.argv.slice(2);
if (baseDist === undefined || newDist === undefined) {
  console.error('usage: node tools/scan-ab/scan-ab.mjs BASE_DIST NEW_DIST [ROUNDS]');
  process.exit(2);
}
const load = (dist) => import(pathToFileURL(resolve(dist, 'domain/detect/scan.js')).href);
const { scanBuiltin: baseScan } = await load(baseDist);
const { scanBuiltin: newScan } = await load(newDist);
const { textWithEntities } = await import(pathToFileURL(resolve(newDist, 'bench/common.js')).href);

const texts = {
  entities: textWithEntities(1024, 180),
  prose: 'I wrote to the team yesterday about the release schedule, and they said the build would be ready by Friday. '.repeat(10).slice(0, 1024),
};
const rounds = Number(roundsArg ?? 40);
const time = (scan, text, n = 5000) => {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) scan(text);
  return Number(process.hrtime.bigint() - start) / n / 1000;
};
for (const [name, text] of Object.entries(texts)) {
  const base = [];
  const next = [];
  for (let r = 0; r < rounds; r++) {
    base.push(time(baseScan, text));
    next.push(time(newScan, text));
  }
  const summary = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    return `min ${sorted[0].toFixed(2)} median ${sorted[Math.floor(sorted.length / 2)].toFixed(2)} us`;
  };
  console.log(`${name}: base ${summary(base)} | new ${summary(next)}`);
}
