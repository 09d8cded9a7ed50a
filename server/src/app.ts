// buildApp(deps): the Fastify application with its plugins registered in a fixed, explicit
// order. No I/O happens here beyond what deps carry, so tests build it and use inject().
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import type { AppDeps } from './deps.js';
import { registerErrorHandling } from './plugins/errors.js';
import { registerIdempotency } from './plugins/idempotency.js';
import { registerJsonParser } from './plugins/json.js';
import { batchRoutes } from './routes/batch.js';
import { detectRoutes } from './routes/detect.js';
import { policyRoutes } from './routes/policy.js';
import { rehydrateRoutes } from './routes/rehydrate.js';
import { revokeRoutes } from './routes/revoke.js';
import { sessionRoutes } from './routes/sessions.js';
import { streamRoutes } from './routes/stream.js';
import { probeRoutes, systemRoutes } from './routes/system.js';
import { transformRoutes } from './routes/transform.js';
import { validationRoutes } from './routes/validation.js';

export interface BuildOptions {
  /** A pino logger; tests pass one writing to memory to prove no value is logged. */
  readonly logger?: Logger;
}

export async function buildApp(deps: AppDeps, options: BuildOptions = {}): Promise<FastifyInstance> {
  if (deps.config.auth.mode !== 'dev') {
    throw new Error(`auth.mode '${deps.config.auth.mode}' is not available in this build; use 'dev'`);
  }
  const loggerInstance: FastifyBaseLogger = options.logger ?? pino({ enabled: false });
  const app: FastifyInstance = Fastify({
    loggerInstance,
    // No per-request access lines: routes log their own value-free completion events.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => randomUUID(),
    bodyLimit: deps.config.server.body_limit_bytes,
    return503OnClosing: true,
    ajv: {
      // Reject unknown fields (never strip them) and never coerce types.
      customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true, allErrors: false },
    },
  });
  registerErrorHandling(app);
  // JSON only: without this, text/plain bodies would reach the schema as strings (400, not 415).
  app.removeContentTypeParser('text/plain');
  registerJsonParser(app, deps);
  registerIdempotency(app, deps);

  await app.register(probeRoutes(deps));
  await app.register(systemRoutes(deps));
  await app.register(transformRoutes(deps));
  await app.register(rehydrateRoutes(deps));
  await app.register(detectRoutes(deps));
  await app.register(batchRoutes(deps));
  await app.register(streamRoutes(deps));
  await app.register(policyRoutes(deps));
  await app.register(validationRoutes());
  await app.register(revokeRoutes(deps));
  await app.register(sessionRoutes(deps));
  app.addHook('onClose', async () => {
    await deps.offload.close();
    await deps.stores.close();
  });
  await app.ready();
  return app;
}
