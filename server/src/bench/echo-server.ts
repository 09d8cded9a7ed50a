// The baseline of the ratio benchmark (ratios.ts): a bare Fastify app that parses a JSON body and
// echoes it back, with Fastify's defaults (no logger, no hooks, no schema). Whatever Veil costs
// beyond this is the cost of its own layers. Prints {"url": …} once listening.
import Fastify from 'fastify';

const app = Fastify({ bodyLimit: 10 * 1024 * 1024 });
app.post('/echo', (request) => request.body);
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ url })}\n`);
process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
