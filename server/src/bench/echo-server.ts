// The baseline of the ratio benchmark (ratios.ts): a bare Fastify app that parses a JSON body and
// echoes it back, with Fastify's defaults (no logger, no hooks, no schema). Whatever Veil costs
// beyond this is the cost of its own layers. Prints {"url": …} once listening.
//
// `POST /work?rounds=N` does the echo's work N times over, for a control that is CPU-bound like
// Veil. `--workers N` (N > 1) runs it as N node:cluster workers sharing one port, the way `veil serve
// --workers N` does: the control of the `--workers 2` row, so the benchmark can tell what the
// machine costs a second process from what Veil's own cluster mode costs.
import cluster from 'node:cluster';
import Fastify from 'fastify';

const flag = process.argv.indexOf('--workers');
const workers = flag >= 0 ? Number(process.argv[flag + 1]) : 1;

if (workers > 1 && cluster.isPrimary) {
  // Workers that all listen on port 0 share one port (node:cluster keys the handle by address
  // and port), as `veil serve --port 0 --workers N` does. The URL is printed once all listen.
  let listening = 0;
  for (let index = 0; index < workers; index += 1) {
    cluster.fork().once('message', (message: { url: string }) => {
      listening += 1;
      if (listening === workers) process.stdout.write(`${JSON.stringify({ url: message.url })}\n`);
    });
  }
  process.once('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill('SIGTERM');
    process.exit(0);
  });
} else {
  const app = Fastify({ bodyLimit: 10 * 1024 * 1024 });
  app.post('/echo', (request) => request.body);
  // The echo made CPU-bound like a Veil request: the body copied through JSON `rounds` times
  // (a fixed amount of work per request, not a time, so preemption does not shorten it).
  app.post('/work', (request) => {
    const rounds = Number((request.query as { rounds?: string }).rounds ?? 0);
    let value = request.body;
    for (let round = 0; round < rounds; round += 1) value = JSON.parse(JSON.stringify(value)) as unknown;
    return value;
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  if (cluster.isWorker) process.send?.({ url });
  else process.stdout.write(`${JSON.stringify({ url })}\n`);
  process.once('SIGTERM', () => {
    void app.close().then(() => process.exit(0));
  });
}
