// A/B of whole requests between builds in one process: each build's server (server/dist/main.js,
// startServer in the default configuration, log lines to a null stream) answers the same request
// through Fastify's inject, the builds alternated in short rounds, so machine load hits them alike;
// the main thread's CPU time per request (µs). Below the HTTP socket work, which both builds share:
// what a change to the route, the scan, the tokenizer or the answer's serialization costs shows
// without the noise of a loaded machine's scheduler (hot-pairs.js measures the server process).
//   node tools/scan-ab/app-ab.mjs [--route transform|large|rehydrate] [--rounds N] DIST [DIST...]
// Names: a DIST may be given as name=path. The same path twice gives the A/A noise band.
import { Writable } from 'node:stream';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
let route = 'transform';
let rounds = 20;
const dists = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--route') route = args[++i];
  else if (args[i] === '--rounds') rounds = Number(args[++i]);
  else dists.push(args[i]);
}
if (dists.length < 1) {
  console.error('usage: node tools/scan-ab/app-ab.mjs [--route transform|large|rehydrate] [--rounds N] DIST [DIST...]');
  process.exit(2);
}
const nullStream = () => new Writable({ write: (_chunk, _encoding, done) => done() });
const builds = [];
for (const [index, spec] of dists.entries()) {
  const [name, path] = spec.includes('=') ? spec.split('=', 2) : [`${index}:${spec}`, spec];
  // A query string gives the same build a second module instance (A/A).
  const main = await import(`${pathToFileURL(resolve(path, 'main.js')).href}?b=${index}`);
  const common = await import(`${pathToFileURL(resolve(path, 'bench/common.js')).href}?b=${index}`);
  const server = await main.startServer({
    env: { VEIL_SESSION_SECRET: '3c'.repeat(32) },
    overrides: { server: { host: '127.0.0.1', port: 0 } },
    logStream: nullStream(),
  });
  builds.push({ name, server, common });
}
const { textWithEntities } = builds[0].common;
const small = JSON.stringify({ input: textWithEntities(1024, 180) });
const large = JSON.stringify({ input: textWithEntities(100 * 1024, 180) });
const headers = { 'content-type': 'application/json' };
for (const build of builds) {
  const answer = await build.server.app.inject({ method: 'POST', url: '/v1/transform', payload: small, headers });
  const parsed = JSON.parse(answer.body);
  build.rehydrate = JSON.stringify({ output: parsed.safe_text, session_state: parsed.session_state });
  build.answers = { transform: answer.body };
}
const bodyOf = (build) => (route === 'large' ? large : route === 'rehydrate' ? build.rehydrate : small);
const url = route === 'rehydrate' ? '/v1/rehydrate' : '/v1/transform';
const cpu = () => {
  const usage = process.threadCpuUsage();
  return usage.user + usage.system;
};
const perRound = Number(process.env.APP_AB_PER_ROUND ?? (route === 'large' ? 10 : 100));
const time = async (build) => {
  const payload = bodyOf(build);
  const start = cpu();
  for (let i = 0; i < perRound; i++) {
    const response = await build.server.app.inject({ method: 'POST', url, payload, headers });
    if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
  }
  return (cpu() - start) / perRound;
};
// Warm-up: two rounds each.
for (let r = 0; r < 2; r++) for (const build of builds) await time(build);
const samples = builds.map(() => []);
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? builds.map((_, i) => i) : builds.map((_, i) => builds.length - 1 - i);
  for (const i of order) samples[i].push(await time(builds[i]));
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
for (const [i, build] of builds.entries()) {
  const sorted = [...samples[i]].sort((a, b) => a - b);
  console.log(`${route} ${build.name}: median ${median(sorted).toFixed(0)} µs, min ${sorted[0].toFixed(0)}, max ${sorted.at(-1).toFixed(0)} (${rounds} rounds of ${perRound})`);
}
// Each build against the first, round by round (the rounds' orders alternate).
for (let i = 1; i < builds.length; i++) {
  const ratios = samples[0].map((a, r) => samples[i][r] / a);
  const higher = ratios.filter((x) => x > 1).length;
  console.log(`${builds[i].name} / ${builds[0].name}: median ratio ${median(ratios).toFixed(3)}, higher in ${higher} of ${rounds} rounds`);
}
for (const build of builds) await build.server.close();
