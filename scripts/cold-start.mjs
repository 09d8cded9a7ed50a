#!/usr/bin/env node
// Cold start of `veil serve`, as the benchmark's ratios part measures it (server/src/bench/ratios.ts
// coldStart: spawn on core 0 with a bare environment, poll /readyz every 5 ms), plus the CPU time
// the process had used at its first 200 (/proc/<pid>/stat; the same PID after the in-place exec),
// which moves less with the machine's load than the wall time does.
//   node scripts/cold-start.mjs [BIN=server/bin/veil.js] [RUNS=5] [SETTLE_MS]
// With SETTLE_MS, also the CPU time SETTLE_MS after the first 200 (what the start cost in all,
// the route compilers' warm-up after readiness included).
// Interleave two builds for an A/B: node scripts/cold-start.mjs <base>/server/bin/veil.js 3, then
// this tree's, a few rounds.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request } from 'node:http';

const [bin = 'server/bin/veil.js', runs = '5', settle] = process.argv.slice(2);
const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
const ticksMs = 10; // USER_HZ 100 on Linux

function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function readyOnce(port) {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/readyz', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.end();
  });
}

function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * ticksMs;
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const wall = [];
const cpu = [];
const settled = [];
for (let run = 0; run < Number(runs); run += 1) {
  const port = await freePort();
  const started = performance.now();
  const args = [...(hasTaskset ? ['-c', '0', process.execPath] : []), bin, 'serve', '--host', '127.0.0.1', '--port', String(port)];
  const child = spawn(hasTaskset ? 'taskset' : process.execPath, args, { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'ignore', 'inherit'] });
  for (;;) {
    if (await readyOnce(port)) break;
    if (child.exitCode !== null) throw new Error(`veil serve exited ${child.exitCode} before /readyz`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  wall.push(performance.now() - started);
  cpu.push(cpuMs(child.pid));
  if (settle !== undefined) {
    await new Promise((resolve) => setTimeout(resolve, Number(settle)));
    settled.push(cpuMs(child.pid));
  }
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}
console.log(`${bin}: to the first 200 of /readyz ${median(wall).toFixed(0)} ms median (${wall.map((t) => t.toFixed(0)).join(' ')}); CPU ${median(cpu)} ms median (${cpu.join(' ')})${settle !== undefined ? `; CPU ${settle} ms later ${median(settled)} ms median (${settled.join(' ')})` : ''}`);
